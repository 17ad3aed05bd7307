package appsearch

// Filter is one node of the filter grammar: a boolean node (Op "all",
// "any" or "none" over Children) or a field clause (Field with Values,
// Ranges or Geo).
type Filter struct {
	Op       string
	Children []*Filter
	Field    string
	// Values are the exact values of a value filter (any of them matches).
	Values []*jvalue
	// Ranges are the ranges of a range filter (any of them matches).
	Ranges []Range
	// Geo is a geo radius or ring filter.
	Geo *GeoFilter
}

// Range is a range {from (inclusive), to (exclusive)}; Name labels a range
// facet bucket. A nil bound is open.
type Range struct {
	From, To *jvalue
	Name     string
}

// GeoFilter is a radius ({center, distance, unit}) or a ring ({center,
// unit, from, to}) around Center.
type GeoFilter struct {
	Center   GeoPoint
	Unit     string
	Distance *float64
	From, To *float64
}

// parseFilters parses the filters option; {} and {"all":[]} match all.
func parseFilters(v *jvalue, rev Revision, errs *errList) *Filter {
	if v.kind != jObject {
		errs.add("Filters must be an object")
		return nil
	}
	p := filterParser{rev: rev, errs: errs}
	f := p.object(v, 1)
	if p.clauses > MaxFilters {
		errs.add("Filters must contain %d filters or fewer", MaxFilters)
	}
	return f
}

type filterParser struct {
	rev     Revision
	errs    *errList
	clauses int
	deep    bool
}

// object parses {field: ..., all: [...], ...}: every member is AND-ed.
func (p *filterParser) object(v *jvalue, depth int) *Filter {
	if depth > MaxFilterDepth {
		if !p.deep {
			p.errs.add("Filters must not be nested more than %d levels deep", MaxFilterDepth)
			p.deep = true
		}
		return nil
	}
	node := &Filter{Op: "all"}
	for _, m := range v.obj {
		switch m.key {
		case "all", "any", "none":
			node.Children = append(node.Children, p.boolean(m.key, m.val, depth))
		default:
			node.Children = append(node.Children, p.field(m.key, m.val))
		}
	}
	if len(node.Children) == 1 && node.Children[0] != nil {
		return node.Children[0]
	}
	return node
}

// boolean parses the clause list of all/any/none (an array, or one object).
func (p *filterParser) boolean(op string, v *jvalue, depth int) *Filter {
	node := &Filter{Op: op}
	list := v.arr
	switch v.kind {
	case jArray:
	case jObject:
		list = []*jvalue{v}
	default:
		p.errs.add("Filters %s must be an array of filter objects", op)
		return node
	}
	for _, e := range list {
		if e.kind != jObject {
			p.errs.add("Filters %s must be an array of filter objects", op)
			continue
		}
		node.Children = append(node.Children, p.object(e, depth+1))
	}
	return node
}

// field parses one field clause.
func (p *filterParser) field(name string, v *jvalue) *Filter {
	p.clauses++
	f := &Filter{Field: name}
	switch v.kind {
	case jString, jNumber, jBool:
		f.Values = []*jvalue{v}
	case jArray:
		if len(v.arr) > MaxFilterArray {
			p.errs.add("Filter %s must contain %d values or fewer", name, MaxFilterArray)
			return f
		}
		if len(v.arr) == 0 {
			p.errs.add("Filter %s must contain at least one value", name)
			return f
		}
		objects := 0
		for _, e := range v.arr {
			if e.kind == jObject {
				objects++
			}
		}
		switch {
		case objects == 0:
			for _, e := range v.arr {
				if !e.isScalar() {
					p.errs.add("Filter %s values must be strings, numbers or booleans", name)
					return f
				}
			}
			f.Values = v.arr
		case objects == len(v.arr):
			for _, e := range v.arr {
				p.rangeOrGeo(f, e)
			}
		default:
			p.errs.add("Filter %s must not mix values and ranges", name)
		}
	case jObject:
		p.rangeOrGeo(f, v)
	default:
		p.errs.add("Filter %s has an invalid value", name)
	}
	return f
}

// rangeOrGeo parses {from, to} or a geo {center, unit, distance | from/to}.
func (p *filterParser) rangeOrGeo(f *Filter, v *jvalue) {
	if v.get("center") != nil || v.get("unit") != nil || v.get("distance") != nil {
		if f.Geo != nil {
			p.errs.add("Filter %s must contain one geo filter", f.Field)
			return
		}
		f.Geo = p.geo(f.Field, v)
		return
	}
	var r Range
	for _, m := range v.obj {
		switch m.key {
		case "from":
			r.From = m.val
		case "to":
			r.To = m.val
		case "name":
			// Search UI may keep a facet range's name in a filter.
		default:
			p.errs.add("Filter %s contains invalid key: %s", f.Field, m.key)
			return
		}
	}
	if r.From == nil && r.To == nil {
		p.errs.add("Filter %s range must have a from or a to", f.Field)
		return
	}
	for _, b := range []*jvalue{r.From, r.To} {
		if b != nil && b.kind != jNumber && b.kind != jString {
			p.errs.add("Filter %s range bounds must be numbers or dates", f.Field)
			return
		}
	}
	f.Ranges = append(f.Ranges, r)
}

func (p *filterParser) geo(field string, v *jvalue) *GeoFilter {
	g := &GeoFilter{}
	var hasCenter bool
	for _, m := range v.obj {
		switch m.key {
		case "center":
			pt, err := ParseGeoPoint(m.val, p.rev)
			if err != nil {
				p.errs.add("Filter %s center is not a valid geolocation", field)
				return nil
			}
			g.Center, hasCenter = pt, true
		case "unit":
			if m.val.kind != jString || !geoUnits[m.val.str] {
				p.errs.add("Filter %s unit must be one of mm, cm, m, km, in, ft, yd, mi", field)
				return nil
			}
			g.Unit = m.val.str
		case "distance", "from", "to":
			d, ok := m.val.asFloat()
			if !ok || d < 0 {
				p.errs.add("Filter %s %s must be a non-negative number", field, m.key)
				return nil
			}
			switch m.key {
			case "distance":
				g.Distance = &d
			case "from":
				g.From = &d
			default:
				g.To = &d
			}
		case "name":
		default:
			p.errs.add("Filter %s contains invalid key: %s", field, m.key)
			return nil
		}
	}
	switch {
	case !hasCenter || g.Unit == "":
		p.errs.add("Filter %s geo filter requires a center and a unit", field)
		return nil
	case g.Distance != nil && (g.From != nil || g.To != nil):
		p.errs.add("Filter %s geo filter takes a distance or a from/to range, not both", field)
		return nil
	case g.Distance == nil && g.From == nil && g.To == nil:
		p.errs.add("Filter %s geo filter requires a distance or a from/to range", field)
		return nil
	}
	return g
}

// validateFilter checks every field clause against the schema and the
// support tables.
func validateFilter(f *Filter, s Schema, rev Revision, errs *errList) {
	if f == nil {
		return
	}
	if f.Op != "" {
		for _, c := range f.Children {
			validateFilter(c, s, rev, errs)
		}
		return
	}
	t, ok := fieldType(s, f.Field)
	if !ok {
		errs.add("Filters contains invalid field: %s", f.Field)
		return
	}
	switch {
	case f.Geo != nil:
		if !supports(t, capGeoFilter, rev) {
			errs.add("%s", unsupported(capGeoFilter, t, f.Field))
		}
	case len(f.Ranges) > 0:
		if !supports(t, capRangeFilter, rev) {
			errs.add("%s", unsupported(capRangeFilter, t, f.Field))
			return
		}
		for _, r := range f.Ranges {
			for _, b := range []*jvalue{r.From, r.To} {
				if b != nil && !valueFitsType(b, t) {
					errs.add("Filter %s range bound %s is not a valid %s", f.Field, jsonText(b), t)
				}
			}
		}
	case len(f.Values) > 0:
		if !supports(t, capValueFilter, rev) {
			errs.add("%s", unsupported(capValueFilter, t, f.Field))
			return
		}
		for _, v := range f.Values {
			if !valueFitsType(v, t) {
				errs.add("Filter %s value %s is not a valid %s", f.Field, jsonText(v), t)
			}
		}
	}
}

// fieldType returns the type of a schema field; id is an implicit text
// field.
func fieldType(s Schema, name string) (FieldType, bool) {
	if name == "id" {
		return Text, true
	}
	t, ok := s[name]
	return t, ok
}
