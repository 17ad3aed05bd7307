package appsearch

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// exactField is the core field holding the exact values of field.
func exactField(s Schema, field string) string {
	if t, _ := fieldType(s, field); t == Text {
		return field + KeywordSuffix
	}
	return field
}

// Settings are an engine's search settings: the defaults of searches that
// do not give search_fields, result_fields or boosts themselves.
type Settings struct {
	SearchFields []SearchField
	ResultFields []ResultField
	Boosts       []FieldBoosts
	Precision    int
}

// Curation promotes and hides documents for the queries it names.
type Curation struct {
	ID       string   `json:"id"`
	Queries  []string `json:"queries"`
	Promoted []string `json:"promoted"`
	Hidden   []string `json:"hidden"`
}

// Context is everything a search needs to know about its engine.
type Context struct {
	Engine     string
	EngineType string
	Schema     Schema
	Revision   Revision
	// Settings are the engine's search settings (DefaultSettings when nil).
	Settings *Settings
	// Synonyms are the engine's synonym sets.
	Synonyms [][]string
	// Curations are the engine's curations.
	Curations []Curation
	// Now is the request time (recency boosts); zero means time.Now().
	Now time.Time
	// Analyzer is the core analyzer of the engine's text fields (snippets).
	Analyzer string
}

// DefaultSettings are the settings of an engine nobody tuned: every text
// field searched at weight 1, every field returned raw, no boosts.
func DefaultSettings(s Schema) *Settings {
	st := &Settings{
		SearchFields: []SearchField{{Field: "id", Weight: 1}},
		ResultFields: []ResultField{{Field: "id", Raw: &RawOptions{}}},
		Boosts:       []FieldBoosts{},
	}
	for _, f := range s.Fields() {
		if s[f] == Text {
			st.SearchFields = append(st.SearchFields, SearchField{Field: f, Weight: 1})
		}
		st.ResultFields = append(st.ResultFields, ResultField{Field: f, Raw: &RawOptions{}})
	}
	return st
}

// Validate checks the request against the engine's schema and SPEC.md's
// support tables; every problem is reported by one RequestErrors error.
func (r *SearchRequest) Validate(c *Context) error {
	var errs errList
	s, rev := c.Schema, c.Revision
	validateFilter(r.Filters, s, rev, &errs)
	validateFacets(r.Facets, s, rev, &errs)
	validateBoosts(r.Boosts, s, rev, &errs)
	validateSearchFields(r.SearchFields, s, &errs)
	validateResultFields(r.ResultFields, s, &errs)
	validateSort(r.Sort, s, rev, "Sort", &errs)
	if g := r.Group; g != nil && g.Field != "" {
		if t, ok := fieldType(s, g.Field); !ok {
			errs.add("Group contains invalid field: %s", g.Field)
		} else if !supports(t, capGrouping, rev) {
			errs.add("%s", unsupported(capGrouping, t, g.Field))
		}
		validateSort(g.Sort, s, rev, "Group sort", &errs)
	}
	return errs.err()
}

func validateSearchFields(list []SearchField, s Schema, errs *errList) {
	for _, f := range list {
		t, ok := fieldType(s, f.Field)
		if !ok || !supports(t, capSearchField, "") {
			errs.add("Search fields contains invalid field: %s", f.Field)
		}
	}
}

func validateResultFields(list []ResultField, s Schema, errs *errList) {
	for _, f := range list {
		t, ok := fieldType(s, f.Field)
		if !ok {
			errs.add("Result fields contains invalid field: %s", f.Field)
			continue
		}
		if (f.Snippet != nil || (f.Raw != nil && f.Raw.Size > 0)) && !supports(t, capResultOptions, "") {
			errs.add("%s", unsupported(capResultOptions, t, f.Field))
		}
	}
}

func validateSort(list []SortClause, s Schema, rev Revision, what string, errs *errList) {
	for _, c := range list {
		if c.Field == "_score" {
			if c.Geo != nil {
				errs.add("%s direction for _score must be asc or desc", what)
			}
			continue
		}
		t, ok := fieldType(s, c.Field)
		if !ok {
			errs.add("%s contains invalid field: %s", what, c.Field)
			continue
		}
		if !supports(t, capSorting, rev) {
			errs.add("%s", unsupported(capSorting, t, c.Field))
			continue
		}
		if (t == Geolocation) != (c.Geo != nil) {
			if t == Geolocation {
				errs.add("%s for geolocation field %s requires {center, order}", what, c.Field)
			} else {
				errs.add("%s direction for %s must be asc or desc", what, c.Field)
			}
		}
	}
}

// valueFitsType reports whether a filter/boost value is valid for type t.
func valueFitsType(v *jvalue, t FieldType) bool {
	switch t {
	case Number:
		_, ok := v.asFloat()
		return ok && v.kind != jBool
	case Date:
		if v.kind == jNumber {
			return true
		}
		if v.kind != jString {
			return false
		}
		_, ok := ParseDate(v.str)
		return ok
	case Geolocation:
		return false
	}
	return v.isScalar()
}

// jsonText renders a value for an error message.
func jsonText(v *jvalue) string {
	b, _ := json.Marshal(v.toAny())
	return string(b)
}

// effective resolves the options the request leaves to the settings.
type effective struct {
	searchFields []SearchField
	resultFields []ResultField
	boosts       []FieldBoosts
	precision    int
}

func (r *SearchRequest) effective(c *Context) effective {
	st := c.Settings
	if st == nil {
		st = DefaultSettings(c.Schema)
	}
	e := effective{searchFields: r.SearchFields, resultFields: r.ResultFields, boosts: r.Boosts, precision: r.Precision}
	if e.searchFields == nil {
		e.searchFields = st.SearchFields
	}
	if e.resultFields == nil {
		e.resultFields = st.ResultFields
		if len(e.resultFields) == 0 {
			e.resultFields = DefaultSettings(c.Schema).ResultFields
		}
	}
	// id is always returned, raw, whatever the result fields say.
	hasID := false
	for _, f := range e.resultFields {
		hasID = hasID || f.Field == "id"
	}
	if !hasID {
		e.resultFields = append([]ResultField{{Field: "id", Raw: &RawOptions{}}}, e.resultFields...)
	}
	if e.boosts == nil {
		e.boosts = st.Boosts
	}
	if e.precision == 0 {
		e.precision = st.Precision
	}
	if e.precision == 0 {
		e.precision = DefaultPrecision
	}
	return e
}

// textQuery translates the query string over the search fields.
func textQuery(q string, c *Context, eff effective) (any, []queryGroup) {
	groups := parseQuerySyntax(q, c.Revision)
	if len(groups) == 0 {
		return obj{{"match_all", obj{}}}, nil
	}
	var fields []string
	for _, f := range eff.searchFields {
		if t, ok := fieldType(c.Schema, f.Field); !ok || t != Text {
			continue
		}
		fields = append(fields, f.Field+"^"+strconv.FormatFloat(f.Weight, 'f', -1, 64))
	}
	for i := range groups {
		groups[i] = applySynonyms(groups[i], c.Synonyms)
	}
	if len(fields) == 0 {
		return obj{{"match_none", obj{}}}, groups
	}
	var alts []any
	for _, g := range groups {
		alts = append(alts, groupQuery(g, fields, eff.precision))
	}
	if len(alts) == 1 {
		return alts[0], groups
	}
	return obj{{"bool", obj{{"should", alts}, {"minimum_should_match", 1}}}}, groups
}

// groupQuery is the bool query of one conjunction group.
func groupQuery(g queryGroup, fields []string, precision int) any {
	var must, should, mustNot []any
	for _, it := range g {
		q := itemQuery(it, fields)
		switch it.occur {
		case "must":
			must = append(must, q)
		case "must_not":
			mustNot = append(mustNot, q)
		default:
			should = append(should, q)
		}
	}
	b := obj{}
	if len(must) > 0 {
		b = append(b, kv{"must", must})
	}
	if len(should) > 0 {
		b = append(b, kv{"should", should})
		if len(must) == 0 {
			b = append(b, kv{"minimum_should_match", precisionMSM(precision, len(should))})
		}
	}
	if len(mustNot) > 0 {
		if len(must) == 0 && len(should) == 0 {
			b = append(b, kv{"must", []any{obj{{"match_all", obj{}}}}})
		}
		b = append(b, kv{"must_not", mustNot})
	}
	return obj{{"bool", b}}
}

// itemQuery matches one word, phrase or synonym set over the fields.
func itemQuery(it queryItem, fields []string) any {
	one := func(text string, phrase bool) any {
		m := obj{{"query", text}, {"fields", fields}}
		if phrase || strings.ContainsRune(strings.TrimSpace(text), ' ') {
			m = append(m, kv{"type", "phrase"})
		} else {
			m = append(m, kv{"type", "best_fields"})
		}
		return obj{{"multi_match", m}}
	}
	if len(it.synonyms) == 0 {
		return one(it.text, it.phrase)
	}
	var alts []any
	for _, s := range it.synonyms {
		alts = append(alts, one(s, false))
	}
	return obj{{"bool", obj{{"should", alts}, {"minimum_should_match", 1}}}}
}

// precisionMSM maps precision 1..11 onto how many of n optional terms must
// match: 1 and 2 (the default) favour recall (any term), 11 requires all,
// values between require a growing share of the terms.
func precisionMSM(p, n int) int {
	switch {
	case p <= DefaultPrecision || n <= 1:
		return 1
	case p >= 11:
		return n
	}
	m := int(math.Ceil(float64(n) * float64(p-DefaultPrecision) / float64(11-DefaultPrecision)))
	if m < 1 {
		m = 1
	}
	return m
}

// filterQuery translates a filter tree into a core query.
func filterQuery(f *Filter, s Schema) any {
	if f.Op != "" {
		var list []any
		for _, ch := range f.Children {
			if ch != nil {
				list = append(list, filterQuery(ch, s))
			}
		}
		switch f.Op {
		case "any":
			if len(list) == 0 {
				return obj{{"match_none", obj{}}}
			}
			return obj{{"bool", obj{{"should", list}, {"minimum_should_match", 1}}}}
		case "none":
			return obj{{"bool", obj{{"must_not", list}}}}
		}
		if len(list) == 0 {
			return obj{{"match_all", obj{}}}
		}
		return obj{{"bool", obj{{"filter", list}}}}
	}
	t, _ := fieldType(s, f.Field)
	switch {
	case f.Geo != nil:
		return geoFilterQuery(f.Field, f.Geo)
	case len(f.Ranges) > 0:
		var list []any
		for _, r := range f.Ranges {
			list = append(list, rangeQuery(f.Field, t, r))
		}
		if len(list) == 1 {
			return list[0]
		}
		return obj{{"bool", obj{{"should", list}, {"minimum_should_match", 1}}}}
	}
	if f.Field == "id" {
		var ids []string
		for _, v := range f.Values {
			s, _ := v.scalarString()
			ids = append(ids, s)
		}
		return obj{{"ids", obj{{"values", ids}}}}
	}
	vals := make([]any, 0, len(f.Values))
	for _, v := range f.Values {
		vals = append(vals, coreValue(v, t))
	}
	return obj{{"terms", obj{{exactField(s, f.Field), vals}}}}
}

// coreValue converts a filter value into the core's term value.
func coreValue(v *jvalue, t FieldType) any {
	switch t {
	case Number:
		f, _ := v.asFloat()
		return f
	case Date:
		if v.kind == jNumber {
			return v.num
		}
		if t, ok := ParseDate(v.str); ok {
			return t.Format(time.RFC3339Nano)
		}
		return v.str
	}
	s, _ := v.scalarString()
	return s
}

// rangeQuery is from (inclusive) .. to (exclusive).
func rangeQuery(field string, t FieldType, r Range) any {
	b := obj{}
	if r.From != nil {
		b = append(b, kv{"gte", coreValue(r.From, t)})
	}
	if r.To != nil {
		b = append(b, kv{"lt", coreValue(r.To, t)})
	}
	return obj{{"range", obj{{field, b}}}}
}

func distance(d float64, unit string) string {
	return strconv.FormatFloat(d, 'f', -1, 64) + unit
}

func geoDistance(field string, p GeoPoint, d float64, unit string) any {
	return obj{{"geo_distance", obj{{"distance", distance(d, unit)}, {field, p.String()}}}}
}

// geoFilterQuery is a radius or a ring (from inclusive, to exclusive).
func geoFilterQuery(field string, g *GeoFilter) any {
	if g.Distance != nil {
		return geoDistance(field, g.Center, *g.Distance, g.Unit)
	}
	b := obj{}
	if g.To != nil {
		b = append(b, kv{"filter", []any{geoDistance(field, g.Center, *g.To, g.Unit)}})
	} else {
		b = append(b, kv{"filter", []any{obj{{"exists", obj{{"field", field}}}}}})
	}
	if g.From != nil && *g.From > 0 {
		// geo_distance includes its distance: shrink the excluded disc so
		// that a document exactly at "from" stays inside the ring.
		b = append(b, kv{"must_not", []any{geoDistance(field, g.Center, math.Nextafter(*g.From, 0), g.Unit)}})
	}
	return obj{{"bool", b}}
}
