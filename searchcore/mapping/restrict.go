package mapping

// Restrict returns the mapping as a principal restricted by field-level
// security sees it: only the leaves whose full path allowed accepts remain
// (with their multi-fields, which index the same value), and objects that
// keep at least one.
// Queries, sorts and aggregations then treat hidden fields as unmapped,
// like Elasticsearch's field-level security. m is not changed.
func (m *Mapping) Restrict(allowed func(path string) bool) *Mapping {
	r := &Mapping{
		Dynamic: m.Dynamic, DateDetection: m.DateDetection, NumericDetection: m.NumericDetection,
		DynamicDateFormats: m.DynamicDateFormats, DynamicTemplates: m.DynamicTemplates, Source: m.Source,
		RoutingRequired: m.RoutingRequired, Meta: m.Meta, Enabled: m.Enabled, Extra: m.Extra,
	}
	r.Properties = restrictProps(m.Properties, "", allowed)
	return r
}

func restrictProps(props map[string]*Field, prefix string, allowed func(string) bool) map[string]*Field {
	out := map[string]*Field{}
	for name, f := range props {
		path := joinPath(prefix, name)
		if f.IsObject() {
			sub := restrictProps(f.Properties, path, allowed)
			if len(sub) == 0 {
				continue
			}
			cp := *f
			cp.Properties = sub
			out[name] = &cp
			continue
		}
		if !allowed(path) {
			// A hidden leaf hides its multi-fields too.
			continue
		}
		// Multi-fields index the leaf's own value: they stay visible.
		out[name] = f
	}
	return out
}
