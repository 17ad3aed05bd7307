package appsearch

import "sort"

// Facet is the list of facets requested for one field (the response always
// holds an array per field).
type Facet struct {
	Field string
	Specs []FacetSpec
}

// FacetSpec is one facet: a value facet (Size, sort by count or value) or
// a range facet (Ranges; Center and Unit for geolocation).
type FacetSpec struct {
	Type     string
	Name     string
	Size     int
	SortBy   string // "count" or "value"
	SortDesc bool
	Ranges   []Range
	Center   GeoPoint
	Unit     string
}

// parseFacets parses {field: spec | [spec, ...]}.
func parseFacets(v *jvalue, rev Revision, errs *errList) []Facet {
	if v.kind != jObject {
		errs.add("Facets must be an object")
		return nil
	}
	out := []Facet{}
	for _, m := range v.obj {
		f := Facet{Field: m.key}
		list, ok := m.val.objects()
		if !ok {
			errs.add("Facet %s must be an object or an array of objects", m.key)
			continue
		}
		for _, e := range list {
			if s, ok := parseFacetSpec(m.key, e, rev, errs); ok {
				f.Specs = append(f.Specs, s)
			}
		}
		out = append(out, f)
	}
	return out
}

func parseFacetSpec(field string, v *jvalue, rev Revision, errs *errList) (FacetSpec, bool) {
	s := FacetSpec{Size: DefaultFacetSize, SortBy: "count", SortDesc: true}
	t := v.get("type")
	if t == nil || t.kind != jString {
		errs.add("Facet %s requires a type (value or range)", field)
		return s, false
	}
	s.Type = t.str
	if s.Type != "value" && s.Type != "range" {
		errs.add("Facet %s has an invalid type: %s", field, t.str)
		return s, false
	}
	n := len(*errs)
	for _, m := range v.obj {
		switch {
		case m.key == "type":
		case m.key == "name":
			if m.val.kind != jString {
				errs.add("Facet %s name must be a string", field)
			}
			s.Name = m.val.str
		case m.key == "size" && s.Type == "value":
			n, ok := m.val.asInt()
			if !ok || n < 1 || n > MaxFacetValues {
				errs.add("Facet %s size must be an integer between 1 and %d", field, MaxFacetValues)
			}
			s.Size = n
		case m.key == "sort" && s.Type == "value":
			if m.val.kind != jObject || len(m.val.obj) != 1 {
				errs.add("Facet %s sort must be {\"count\"|\"value\": \"asc\"|\"desc\"}", field)
				continue
			}
			o := m.val.obj[0]
			if (o.key != "count" && o.key != "value") || (o.val.str != "asc" && o.val.str != "desc") {
				errs.add("Facet %s sort must be {\"count\"|\"value\": \"asc\"|\"desc\"}", field)
				continue
			}
			s.SortBy, s.SortDesc = o.key, o.val.str == "desc"
		case m.key == "ranges" && s.Type == "range":
			if m.val.kind != jArray || len(m.val.arr) == 0 {
				errs.add("Facet %s ranges must be a non-empty array", field)
				continue
			}
			for _, r := range m.val.arr {
				rg, ok := parseFacetRange(field, r, errs)
				if ok {
					s.Ranges = append(s.Ranges, rg)
				}
			}
		case m.key == "center" && s.Type == "range":
			p, err := ParseGeoPoint(m.val, rev)
			if err != nil {
				errs.add("Facet %s center is not a valid geolocation", field)
				continue
			}
			s.Center = p
		case m.key == "unit" && s.Type == "range":
			if m.val.kind != jString || !geoUnits[m.val.str] {
				errs.add("Facet %s unit must be one of mm, cm, m, km, in, ft, yd, mi", field)
				continue
			}
			s.Unit = m.val.str
		default:
			errs.add("Facet %s contains invalid key: %s", field, m.key)
		}
	}
	if s.Type == "range" && v.get("ranges") == nil {
		errs.add("Facet %s range facets require ranges", field)
	}
	return s, len(*errs) == n
}

func parseFacetRange(field string, v *jvalue, errs *errList) (Range, bool) {
	var r Range
	if v.kind != jObject {
		errs.add("Facet %s ranges must be objects with from and/or to", field)
		return r, false
	}
	for _, m := range v.obj {
		switch m.key {
		case "from", "to":
			if m.val.kind != jNumber && m.val.kind != jString {
				errs.add("Facet %s range bounds must be numbers or dates", field)
				return r, false
			}
			if m.key == "from" {
				r.From = m.val
			} else {
				r.To = m.val
			}
		case "name":
			if m.val.kind != jString {
				errs.add("Facet %s range name must be a string", field)
				return r, false
			}
			r.Name = m.val.str
		default:
			errs.add("Facet %s range contains invalid key: %s", field, m.key)
			return r, false
		}
	}
	if r.From == nil && r.To == nil {
		errs.add("Facet %s ranges must be objects with from and/or to", field)
		return r, false
	}
	return r, true
}

// validateFacets checks facets against the schema and the support tables.
func validateFacets(list []Facet, s Schema, rev Revision, errs *errList) {
	for _, f := range list {
		t, ok := fieldType(s, f.Field)
		if !ok {
			errs.add("Facets contains invalid field: %s", f.Field)
			continue
		}
		for _, spec := range f.Specs {
			c := capValueFacet
			if spec.Type == "range" {
				c = capRangeFacet
			}
			if !supports(t, c, rev) {
				errs.add("%s", unsupported(c, t, f.Field))
				continue
			}
			if t == Geolocation && (spec.Center == "" || spec.Unit == "") {
				errs.add("Facet %s geolocation range facets require a center and a unit", f.Field)
			}
			if t != Geolocation && (spec.Center != "" || spec.Unit != "") {
				errs.add("Facet %s center and unit apply to geolocation fields only", f.Field)
			}
			for _, r := range spec.Ranges {
				for _, b := range []*jvalue{r.From, r.To} {
					if b == nil {
						continue
					}
					bt := t
					if t == Geolocation {
						bt = Number
					}
					if !valueFitsType(b, bt) {
						errs.add("Facet %s range bound %s is not a valid %s", f.Field, jsonText(b), bt)
					}
				}
			}
		}
	}
}

// FieldBoosts are the boosts of one field, in request order.
type FieldBoosts struct {
	Field  string
	Boosts []Boost
}

// Boost is one boost: value, functional, proximity or recency.
type Boost struct {
	Type      string
	Values    []*jvalue
	Operation string // "add" or "multiply"
	Factor    float64
	Function  string
	Center    *jvalue
	// UseCurrentTime centres a recency boost on the request time.
	UseCurrentTime bool
}

// boostKeys are the keys each boost type accepts.
var boostKeys = map[string]map[string]bool{
	"value":      {"type": true, "value": true, "operation": true, "factor": true},
	"functional": {"type": true, "function": true, "operation": true, "factor": true},
	"proximity":  {"type": true, "function": true, "center": true, "factor": true},
	"recency":    {"type": true, "function": true, "center": true, "use_current_time": true, "factor": true},
}

// boostFunctions are the functions each boost type accepts.
var boostFunctions = map[string]map[string]bool{
	"functional": {"linear": true, "exponential": true, "logarithmic": true},
	"proximity":  {"gaussian": true, "exponential": true, "linear": true},
	"recency":    {"gaussian": true, "exponential": true, "linear": true},
}

// parseBoosts parses {field: boost | [boost, ...]}.
func parseBoosts(v *jvalue, rev Revision, errs *errList) []FieldBoosts {
	if v.kind != jObject {
		errs.add("Boosts must be an object")
		return nil
	}
	out := []FieldBoosts{}
	total := 0
	for _, m := range v.obj {
		fb := FieldBoosts{Field: m.key}
		list, ok := m.val.objects()
		if !ok {
			errs.add("Boosts for %s must be an object or an array of objects", m.key)
			continue
		}
		for _, e := range list {
			total++
			if b, ok := parseBoost(m.key, e, errs); ok {
				fb.Boosts = append(fb.Boosts, b)
			}
		}
		out = append(out, fb)
	}
	if total > MaxBoosts {
		errs.add("Boosts must contain %d boosts or fewer", MaxBoosts)
	}
	return out
}

func parseBoost(field string, v *jvalue, errs *errList) (Boost, bool) {
	b := Boost{Operation: "add", Factor: 1}
	t := v.get("type")
	if t == nil || t.kind != jString || boostKeys[t.str] == nil {
		errs.add("Boost for %s requires a type (value, functional, proximity or recency)", field)
		return b, false
	}
	b.Type = t.str
	n := len(*errs)
	for _, m := range v.obj {
		if !boostKeys[b.Type][m.key] {
			errs.add("%s boost for %s contains invalid key: %s", b.Type, field, m.key)
			continue
		}
		switch m.key {
		case "value":
			list := m.val.arr
			if m.val.isScalar() {
				list = []*jvalue{m.val}
			} else if m.val.kind != jArray || len(list) == 0 {
				errs.add("Value boost for %s requires a value or an array of values", field)
				continue
			}
			for _, e := range list {
				if !e.isScalar() {
					errs.add("Value boost for %s values must be strings, numbers or booleans", field)
					break
				}
			}
			b.Values = list
		case "operation":
			if m.val.str != "add" && m.val.str != "multiply" {
				errs.add("Boost operation for %s must be add or multiply", field)
			}
			b.Operation = m.val.str
		case "factor":
			f, ok := m.val.asFloat()
			if !ok || f < -10 || f > 10 {
				errs.add("Boost factor for %s must be a number between -10 and 10", field)
			}
			b.Factor = f
		case "function":
			if !boostFunctions[b.Type][m.val.str] {
				errs.add("%s boost function for %s must be one of %v", b.Type, field, keysOf(boostFunctions[b.Type]))
			}
			b.Function = m.val.str
		case "center":
			if !m.val.isScalar() && m.val.kind != jArray {
				errs.add("%s boost center for %s is invalid", b.Type, field)
			}
			b.Center = m.val
		case "use_current_time":
			u, ok := m.val.asBool()
			if !ok {
				errs.add("Recency boost use_current_time for %s must be a boolean", field)
			}
			b.UseCurrentTime = u
		}
	}
	switch b.Type {
	case "value":
		if b.Values == nil && len(*errs) == n {
			errs.add("Value boost for %s requires a value", field)
		}
	case "functional":
		if b.Function == "" && len(*errs) == n {
			errs.add("Functional boost for %s requires a function", field)
		}
	case "proximity", "recency":
		if b.Function == "" && len(*errs) == n {
			errs.add("%s boost for %s requires a function", b.Type, field)
		}
		if b.Center == nil && !b.UseCurrentTime && len(*errs) == n {
			errs.add("%s boost for %s requires a center", b.Type, field)
		}
	}
	return b, len(*errs) == n
}

// validateBoosts checks boosts against the schema and the support tables.
func validateBoosts(list []FieldBoosts, s Schema, rev Revision, errs *errList) {
	caps := map[string]capability{
		"value": capValueBoost, "functional": capFunctionalBoost, "proximity": capProximityBoost, "recency": capRecencyBoost,
	}
	for _, fb := range list {
		t, ok := fieldType(s, fb.Field)
		if !ok {
			errs.add("Boosts contains invalid field: %s", fb.Field)
			continue
		}
		for _, b := range fb.Boosts {
			c := caps[b.Type]
			if !supports(t, c, rev) {
				errs.add("%s", unsupported(c, t, fb.Field))
				continue
			}
			switch {
			case b.Type == "value":
				for _, v := range b.Values {
					if t != Geolocation && !valueFitsType(v, t) {
						errs.add("Value boost for %s value %s is not a valid %s", fb.Field, jsonText(v), t)
					}
				}
			case b.Center != nil && t == Geolocation:
				if _, err := ParseGeoPoint(b.Center, rev); err != nil {
					errs.add("Proximity boost center for %s is not a valid geolocation", fb.Field)
				}
			case b.Center != nil && !valueFitsType(b.Center, t):
				errs.add("%s boost center for %s is not a valid %s", b.Type, fb.Field, t)
			}
		}
	}
}

// keysOf returns the keys of a set, sorted.
func keysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
