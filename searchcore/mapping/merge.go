package mapping

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Merge applies a PUT _mapping update (or a dynamic update from
// ParseDocument) and returns the merged mapping; m and update are not
// changed. New fields, object properties and multi-fields are added;
// updatable parameters (ignore_above, search_analyzer, copy_to, coerce,
// ignore_malformed, dynamic, _meta, date_detection, ...) take the update's
// value. Changing a field's type is an illegal_argument_exception "mapper
// [x] cannot be changed from type [a] to [b]"; other non-updatable changes
// are "Mapper for [x] conflicts with existing mapper:\n\tCannot update
// parameter [p] from [a] to [b]"; changing an object's "enabled" or a nested
// field's include_in_parent/include_in_root is a mapper_exception.
func (m *Mapping) Merge(update *Mapping) (*Mapping, error) {
	if update == nil {
		return m, nil
	}
	out := &Mapping{
		Dynamic:            m.Dynamic,
		DateDetection:      m.DateDetection,
		NumericDetection:   m.NumericDetection,
		DynamicDateFormats: m.DynamicDateFormats,
		DynamicTemplates:   m.DynamicTemplates,
		Source:             m.Source,
		RoutingRequired:    m.RoutingRequired,
		Meta:               m.Meta,
		Enabled:            m.Enabled,
		Extra:              m.Extra,
	}
	if update.Enabled != nil && boolOr(m.Enabled, true) != *update.Enabled {
		return nil, eserr.New("mapper_exception", "the [enabled] parameter can't be updated for the object mapping [_doc]")
	}
	if update.Enabled != nil {
		out.Enabled = update.Enabled
	}
	if update.Dynamic != "" {
		out.Dynamic = update.Dynamic
	}
	if update.DateDetection != nil {
		out.DateDetection = update.DateDetection
	}
	if update.NumericDetection != nil {
		out.NumericDetection = update.NumericDetection
	}
	if update.DynamicDateFormats != nil {
		out.DynamicDateFormats = update.DynamicDateFormats
	}
	if update.DynamicTemplates != nil {
		out.DynamicTemplates = update.DynamicTemplates
	}
	if update.Meta != nil {
		out.Meta = update.Meta
	}
	if update.Source != nil {
		var conflicts []string
		old := m.Source
		if old == nil {
			old = &SourceConfig{}
		}
		if a, b := boolOr(old.Enabled, true), boolOr(update.Source.Enabled, true); a != b {
			conflicts = append(conflicts, conflict("enabled", strconv.FormatBool(a), strconv.FormatBool(b)))
		}
		if a, b := javaList(old.Includes), javaList(update.Source.Includes); a != b {
			conflicts = append(conflicts, conflict("includes", a, b))
		}
		if a, b := javaList(old.Excludes), javaList(update.Source.Excludes); a != b {
			conflicts = append(conflicts, conflict("excludes", a, b))
		}
		if len(conflicts) > 0 {
			return nil, conflictError("_source", conflicts)
		}
		out.Source = update.Source
	}
	if update.RoutingRequired != nil {
		if a, b := boolOr(m.RoutingRequired, false), *update.RoutingRequired; a != b {
			return nil, conflictError("_routing", []string{conflict("required", strconv.FormatBool(a), strconv.FormatBool(b))})
		}
		out.RoutingRequired = update.RoutingRequired
	}
	if len(update.Extra) > 0 {
		out.Extra = map[string]json.RawMessage{}
		for k, v := range m.Extra {
			out.Extra[k] = v
		}
		for k, v := range update.Extra {
			out.Extra[k] = v
		}
	}
	props, err := mergeProps("", m.Properties, update.Properties)
	if err != nil {
		return nil, err
	}
	out.Properties = props
	if len(update.Properties) > 0 && countFields(out.Properties) > totalFieldsLimit {
		return nil, eserr.IllegalArgument("Limit of total fields [%d] has been exceeded", totalFieldsLimit)
	}
	if len(update.Properties) > 0 {
		if err := checkNestedLimit(out.Properties); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

func javaList(l []string) string { return "[" + strings.Join(l, ", ") + "]" }

func conflict(param, from, to string) string {
	return "Cannot update parameter [" + param + "] from [" + from + "] to [" + to + "]"
}

func conflictError(path string, conflicts []string) *eserr.Error {
	return eserr.IllegalArgument("Mapper for [%s] conflicts with existing mapper:\n\t%s", path, strings.Join(conflicts, "\n\t"))
}

// mergeProps merges property maps into a new map (unchanged entries shared).
func mergeProps(parent string, a, b map[string]*Field) (map[string]*Field, error) {
	if len(b) == 0 {
		return a, nil
	}
	out := make(map[string]*Field, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for _, name := range sortedKeys(b) {
		nf := b[name]
		if old, ok := a[name]; ok {
			merged, err := mergeField(joinPath(parent, name), old, nf)
			if err != nil {
				return nil, err
			}
			out[name] = merged
		} else {
			out[name] = nf
		}
	}
	return out, nil
}

func objectMapperClass(t string) string {
	if t == TypeNested {
		return "NestedObjectMapper"
	}
	return "ObjectMapper"
}

// mergeField merges field b into field a at path, returning a new field.
func mergeField(path string, a, b *Field) (*Field, error) {
	switch {
	case a.IsObject() && b.IsObject():
		return mergeObject(path, a, b)
	case a.IsObject():
		return nil, eserr.IllegalArgument("can't merge a non object mapping [%s] with an object mapping", path)
	case b.IsObject():
		return nil, eserr.IllegalArgument("mapper [%s] cannot be changed from type [%s] to [%s]", path, a.Type, objectMapperClass(b.Type))
	case a.Type != b.Type:
		return nil, eserr.IllegalArgument("mapper [%s] cannot be changed from type [%s] to [%s]", path, a.Type, b.Type)
	}
	var conflicts []string
	for _, p := range paramOrder[a.Type] {
		if updatable[p] {
			continue
		}
		av, bv := effectiveParam(a, p), effectiveParam(b, p)
		if p == "norms" && av == "true" && bv == "false" {
			continue // norms may be disabled
		}
		if av != bv {
			conflicts = append(conflicts, conflict(p, av, bv))
		}
	}
	if len(conflicts) > 0 {
		return nil, conflictError(path, conflicts)
	}
	out := *b
	// Multi-fields are merged, not replaced.
	if len(a.Fields) > 0 {
		fields := make(map[string]*Field, len(a.Fields)+len(b.Fields))
		for k, v := range a.Fields {
			fields[k] = v
		}
		for _, k := range sortedKeys(b.Fields) {
			if old, ok := a.Fields[k]; ok {
				merged, err := mergeField(path+"."+k, old, b.Fields[k])
				if err != nil {
					return nil, err
				}
				fields[k] = merged
			} else {
				fields[k] = b.Fields[k]
			}
		}
		out.Fields = fields
	}
	return &out, nil
}

func mergeObject(path string, a, b *Field) (*Field, error) {
	if a.Type != b.Type {
		if a.Type == TypeNested {
			return nil, eserr.IllegalArgument("object mapping [%s] can't be changed from nested to non-nested", path)
		}
		return nil, eserr.IllegalArgument("object mapping [%s] can't be changed from non-nested to nested", path)
	}
	if b.Enabled != nil && boolOr(a.Enabled, true) != *b.Enabled {
		return nil, eserr.New("mapper_exception", "the [enabled] parameter can't be updated for the object mapping ["+path+"]")
	}
	out := *a
	if b.Enabled != nil {
		out.Enabled = b.Enabled
	}
	if a.Type == TypeNested {
		for _, p := range []string{"include_in_parent", "include_in_root"} {
			bv, ok := b.Extra[p]
			if !ok {
				continue
			}
			av, ok := a.Extra[p]
			if !ok {
				av = json.RawMessage("false")
			}
			if !bytes.Equal(av, bv) {
				return nil, eserr.New("mapper_exception", "the ["+p+"] parameter can't be updated on a nested object mapping")
			}
		}
		if len(b.Extra) > 0 {
			out.Extra = map[string]json.RawMessage{}
			for k, v := range a.Extra {
				out.Extra[k] = v
			}
			for k, v := range b.Extra {
				out.Extra[k] = v
			}
		}
	}
	if b.Dynamic != "" {
		out.Dynamic = b.Dynamic
	}
	props, err := mergeProps(path, a.Properties, b.Properties)
	if err != nil {
		return nil, err
	}
	out.Properties = props
	return &out, nil
}

// updatable lists the parameters a mapping update may change.
var updatable = map[string]bool{
	"search_analyzer": true, "search_quote_analyzer": true, "ignore_above": true, "copy_to": true, "coerce": true,
	"ignore_malformed": true, "ignore_z_value": true, "eager_global_ordinals": true, "fielddata": true,
	"fielddata_frequency_filter": true, "meta": true, "boost": true, "split_queries_on_whitespace": true,
}

// effectiveParam renders a parameter's value, defaults included, as
// Elasticsearch shows it in conflict messages.
func effectiveParam(f *Field, p string) string {
	switch p {
	case "index":
		return strconv.FormatBool(boolOr(f.Index, true))
	case "doc_values":
		return strconv.FormatBool(boolOr(f.DocValues, true))
	case "store":
		return strconv.FormatBool(boolOr(f.Store, false))
	case "coerce":
		return strconv.FormatBool(boolOr(f.Coerce, true))
	case "ignore_malformed":
		return strconv.FormatBool(boolOr(f.IgnoreMalformed, false))
	case "null_value":
		if len(f.NullValue) == 0 {
			return "null"
		}
		var s string
		if json.Unmarshal(f.NullValue, &s) == nil {
			return s
		}
		return string(f.NullValue)
	case "ignore_above":
		if f.IgnoreAbove == nil {
			return strconv.Itoa(defaultIgnoreAbove)
		}
		return strconv.Itoa(*f.IgnoreAbove)
	case "analyzer":
		if f.Analyzer == "" {
			return "default"
		}
		return f.Analyzer
	case "search_analyzer":
		if f.SearchAnalyzer == "" {
			return effectiveParam(f, "analyzer")
		}
		return f.SearchAnalyzer
	case "search_quote_analyzer":
		if f.SearchQuoteAnalyzer == "" {
			return effectiveParam(f, "search_analyzer")
		}
		return f.SearchQuoteAnalyzer
	case "normalizer":
		if f.Normalizer == "" {
			return "null"
		}
		return f.Normalizer
	case "format":
		return dateFormatOf(f)
	case "scaling_factor":
		if f.ScalingFactor == nil {
			return "null"
		}
		return javaDouble(*f.ScalingFactor)
	case "copy_to":
		return javaList(f.CopyTo)
	}
	if raw, ok := f.Extra[p]; ok {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		return string(raw)
	}
	if d, ok := extraDefault(f.Type, p); ok {
		var s string
		if json.Unmarshal(d, &s) == nil {
			return s
		}
		return string(d)
	}
	return "null"
}

const defaultIgnoreAbove = 2147483647
