package appsearch

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SearchRequest is a parsed App Search search request (the body of
// /engines/{e}/search and of each multi_search query). Parse it with
// ParseSearchRequest, then check it against the engine with Validate.
type SearchRequest struct {
	// Query is the query string ("" matches every document).
	Query string
	// Page is the requested page (current from 1, size 0..1000).
	Page Page
	// Filters restricts the documents; nil means none.
	Filters *Filter
	// Facets lists the requested facets in request order.
	Facets []Facet
	// Boosts are the request's boosts; nil means the engine's settings.
	Boosts []FieldBoosts
	// SearchFields are the searched text fields with weights; nil means
	// the engine's settings.
	SearchFields []SearchField
	// ResultFields are the returned fields; nil means the engine's
	// settings.
	ResultFields []ResultField
	// Group groups results by a field; nil means no grouping.
	Group *Group
	// Sort lists the sort clauses; empty means by score.
	Sort []SortClause
	// Precision is 1..11, 0 when not set (the engine's setting applies).
	Precision int
	// Tags are the analytics tags.
	Tags []string
	// RecordAnalytics is false when the query must not be counted.
	RecordAnalytics bool
}

// SearchField is one searched text field with its weight (1 when unset).
type SearchField struct {
	Field  string
	Weight float64
}

// ResultField is one returned field: raw and/or snippet.
type ResultField struct {
	Field   string
	Raw     *RawOptions
	Snippet *SnippetOptions
}

// RawOptions configures a raw result value; Size 0 means untruncated.
type RawOptions struct {
	Size int
}

// SnippetOptions configures a highlighted snippet.
type SnippetOptions struct {
	Size     int
	Fallback bool
}

// Group groups results by the values of Field.
type Group struct {
	Field    string
	Size     int
	Collapse bool
	Sort     []SortClause
}

// SortClause is one sort clause: a field, "_score", or a geo distance.
type SortClause struct {
	Field string
	Desc  bool
	// Geo is set for a geolocation distance sort.
	Geo *GeoSort
}

// GeoSort sorts by the distance to Center; Mode picks among the values of
// multi-valued fields (min, max, avg).
type GeoSort struct {
	Center GeoPoint
	Mode   string
}

// searchKeys are the top-level options of a search request.
var searchKeys = map[string]bool{
	"query": true, "page": true, "filters": true, "facets": true, "sort": true, "search_fields": true,
	"result_fields": true, "boosts": true, "group": true, "analytics": true, "record_analytics": true,
	"precision": true,
}

// sprintf is fmt.Sprintf (kept short for the many messages here).
func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// ParseSearchRequest parses a search request body (a JSON object; the
// handlers merge bracketed query parameters into it). Numbers may be sent
// as strings. rev selects the accepted geolocation formats. Every problem
// is reported, in request order, by one RequestErrors error; a missing
// query is reported by MissingParameter.
func ParseSearchRequest(raw []byte, rev Revision) (*SearchRequest, error) {
	v, err := decodeBody(raw)
	if err != nil {
		return nil, err
	}
	return parseSearchValue(v, rev)
}

// decodeBody decodes a request body; empty means {}.
func decodeBody(raw []byte) (*jvalue, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return &jvalue{kind: jObject}, nil
	}
	v, err := decodeValue(raw)
	if err != nil {
		return nil, DecodingError()
	}
	return v, nil
}

func parseSearchValue(v *jvalue, rev Revision) (*SearchRequest, error) {
	if v.kind != jObject {
		return nil, RequestErrors("Search request must be a JSON object")
	}
	var errs errList
	for _, m := range v.obj {
		if !searchKeys[m.key] {
			errs.add("Options contains invalid key: %s", m.key)
		}
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	q := v.get("query")
	if q == nil {
		return nil, MissingParameter("query")
	}
	r := &SearchRequest{Page: Page{Current: 1, Size: DefaultPageSize}, RecordAnalytics: true}
	switch q.kind {
	case jString:
		r.Query = q.str
	case jNumber:
		r.Query = q.num.String()
	default:
		errs.add("Query must be a string")
	}
	if utf8.RuneCountInString(r.Query) > MaxQueryLength {
		errs.add("Query must be %d characters or less", MaxQueryLength)
	}
	for _, m := range v.obj {
		switch m.key {
		case "page":
			r.Page = parsePage(m.val, &errs)
		case "filters":
			r.Filters = parseFilters(m.val, rev, &errs)
		case "facets":
			r.Facets = parseFacets(m.val, rev, &errs)
		case "sort":
			r.Sort = parseSort(m.val, rev, "Sort", &errs)
		case "search_fields":
			r.SearchFields = parseSearchFields(m.val, &errs)
		case "result_fields":
			r.ResultFields = parseResultFields(m.val, &errs)
		case "boosts":
			r.Boosts = parseBoosts(m.val, rev, &errs)
		case "group":
			r.Group = parseGroup(m.val, rev, &errs)
		case "analytics":
			r.Tags = parseAnalytics(m.val, &errs)
		case "record_analytics":
			b, ok := m.val.asBool()
			if !ok {
				errs.add("Record analytics must be a boolean")
			}
			r.RecordAnalytics = b
		case "precision":
			r.Precision = asPrecision(m.val, &errs)
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return r, nil
}

// MissingParameter is the endpoint-specific error for a missing required
// parameter (answered 200 {"errors": [...]}, like every request error).
func MissingParameter(name string) error {
	return RequestErrors(sprintf("Missing required parameter: %s", name))
}

func parsePage(v *jvalue, errs *errList) Page {
	p := Page{Current: 1, Size: DefaultPageSize}
	if v.kind != jObject {
		errs.add("Page must be an object")
		return p
	}
	for _, m := range v.obj {
		switch m.key {
		case "current":
			n, ok := m.val.asInt()
			if !ok || n < 1 || n > MaxPageCurrent {
				errs.add("Page current must be an integer between 1 and %d", MaxPageCurrent)
			}
			p.Current = n
		case "size":
			n, ok := m.val.asInt()
			if !ok || n < 0 || n > MaxPageSize {
				errs.add("Page size must be an integer between 0 and %d", MaxPageSize)
			}
			p.Size = n
		default:
			errs.add("Page contains invalid key: %s", m.key)
		}
	}
	return p
}

func parseAnalytics(v *jvalue, errs *errList) []string {
	if v.kind != jObject {
		errs.add("Analytics must be an object")
		return nil
	}
	var tags []string
	for _, m := range v.obj {
		if m.key != "tags" {
			errs.add("Analytics contains invalid key: %s", m.key)
			continue
		}
		list := m.val.arr
		if m.val.kind == jString {
			list = []*jvalue{m.val}
		} else if m.val.kind != jArray {
			errs.add("Analytics tags must be an array of strings")
			continue
		}
		if len(list) > MaxTags {
			errs.add("Analytics tags must contain %d tags or fewer", MaxTags)
		}
		for _, t := range list {
			if t.kind != jString {
				errs.add("Analytics tags must be an array of strings")
				break
			}
			if utf8.RuneCountInString(t.str) > MaxTagLength {
				errs.add("Analytics tags must be %d characters or fewer", MaxTagLength)
				break
			}
			tags = append(tags, t.str)
		}
	}
	return tags
}

func parseSearchFields(v *jvalue, errs *errList) []SearchField {
	if v.kind != jObject {
		errs.add("Search fields must be an object")
		return nil
	}
	out := []SearchField{}
	for _, m := range v.obj {
		sf := SearchField{Field: m.key, Weight: 1}
		if !m.val.isOptions() {
			errs.add("Search field %s must be an object", m.key)
			continue
		}
		for _, o := range m.val.obj {
			if o.key != "weight" {
				errs.add("Search field %s contains invalid key: %s", m.key, o.key)
				continue
			}
			w, ok := o.val.asFloat()
			if !ok || w < 0 || w > 10 {
				errs.add("Search field %s weight must be a number between 0 and 10", m.key)
				continue
			}
			sf.Weight = w
		}
		out = append(out, sf)
	}
	return out
}

func parseResultFields(v *jvalue, errs *errList) []ResultField {
	if v.kind != jObject {
		errs.add("Result fields must be an object")
		return nil
	}
	out := []ResultField{}
	for _, m := range v.obj {
		rf := ResultField{Field: m.key}
		if m.val.kind != jObject {
			errs.add("Result field %s must be an object", m.key)
			continue
		}
		for _, o := range m.val.obj {
			switch o.key {
			case "raw":
				rf.Raw = &RawOptions{}
				if !o.val.isOptions() {
					errs.add("Result field %s raw must be an object", m.key)
					continue
				}
				for _, ro := range o.val.obj {
					if ro.key != "size" {
						errs.add("Result field %s raw contains invalid key: %s", m.key, ro.key)
						continue
					}
					n, ok := ro.val.asInt()
					if !ok || n < MinRawSize || n > MaxRawSize {
						errs.add("Result field %s raw size must be an integer between %d and %d", m.key, MinRawSize, MaxRawSize)
					}
					rf.Raw.Size = n
				}
			case "snippet":
				rf.Snippet = &SnippetOptions{Size: DefaultSnippetSize}
				if !o.val.isOptions() {
					errs.add("Result field %s snippet must be an object", m.key)
					continue
				}
				for _, so := range o.val.obj {
					switch so.key {
					case "size":
						n, ok := so.val.asInt()
						if !ok || n < MinSnippetSize || n > MaxSnippetSize {
							errs.add("Result field %s snippet size must be an integer between %d and %d", m.key, MinSnippetSize, MaxSnippetSize)
						}
						rf.Snippet.Size = n
					case "fallback":
						b, ok := so.val.asBool()
						if !ok {
							errs.add("Result field %s snippet fallback must be a boolean", m.key)
						}
						rf.Snippet.Fallback = b
					default:
						errs.add("Result field %s snippet contains invalid key: %s", m.key, so.key)
					}
				}
			default:
				errs.add("Result field %s contains invalid key: %s", m.key, o.key)
			}
		}
		if rf.Raw == nil && rf.Snippet == nil {
			rf.Raw = &RawOptions{}
		}
		out = append(out, rf)
	}
	return out
}

func parseGroup(v *jvalue, rev Revision, errs *errList) *Group {
	if v.kind != jObject {
		errs.add("Group must be an object")
		return nil
	}
	g := &Group{Size: MaxGroupSize}
	for _, m := range v.obj {
		switch m.key {
		case "field":
			if m.val.kind != jString || m.val.str == "" {
				errs.add("Group field must be a field name")
				continue
			}
			g.Field = m.val.str
		case "size":
			n, ok := m.val.asInt()
			if !ok || n < 1 || n > MaxGroupSize {
				errs.add("Group size must be an integer between 1 and %d", MaxGroupSize)
			}
			g.Size = n
		case "collapse":
			b, ok := m.val.asBool()
			if !ok {
				errs.add("Group collapse must be a boolean")
			}
			g.Collapse = b
		case "sort":
			g.Sort = parseSort(m.val, rev, "Group sort", errs)
		default:
			errs.add("Group contains invalid key: %s", m.key)
		}
	}
	if g.Field == "" && v.get("field") == nil {
		errs.add("Group field is required")
	}
	return g
}

// parseSort parses {"f":"asc"} or [{"f":"asc"}, {"_score":"desc"}, {"loc":{center,order,mode}}].
func parseSort(v *jvalue, rev Revision, what string, errs *errList) []SortClause {
	list := v.arr
	switch v.kind {
	case jObject:
		if len(v.obj) > 1 {
			// {"a":"asc","b":"desc"} is a list of clauses in key order.
			list = nil
			for _, m := range v.obj {
				list = append(list, &jvalue{kind: jObject, obj: []jmember{m}})
			}
		} else {
			list = []*jvalue{v}
		}
	case jArray:
	default:
		errs.add("%s must be an object or an array of objects", what)
		return nil
	}
	if len(list) > MaxSortFields {
		errs.add("%s must contain %d fields or fewer", what, MaxSortFields)
		return nil
	}
	out := []SortClause{}
	for _, e := range list {
		if e.kind != jObject || len(e.obj) != 1 {
			errs.add("%s objects must contain exactly one field", what)
			continue
		}
		m := e.obj[0]
		c := SortClause{Field: m.key}
		switch m.val.kind {
		case jString:
			switch strings.ToLower(m.val.str) {
			case "asc":
			case "desc":
				c.Desc = true
			default:
				errs.add("%s direction for %s must be asc or desc", what, m.key)
			}
		case jObject:
			c.Geo = &GeoSort{Mode: "min"}
			hasCenter := false
			for _, o := range m.val.obj {
				switch o.key {
				case "center":
					p, err := ParseGeoPoint(o.val, rev)
					if err != nil {
						errs.add("%s center for %s: %s", what, m.key, err.Error())
						continue
					}
					c.Geo.Center, hasCenter = p, true
				case "order":
					switch o.val.str {
					case "asc":
					case "desc":
						c.Desc = true
					default:
						errs.add("%s direction for %s must be asc or desc", what, m.key)
					}
				case "mode":
					switch o.val.str {
					case "min", "max", "median", "avg":
						c.Geo.Mode = o.val.str
					default:
						errs.add("%s mode for %s must be one of min, max, median, avg", what, m.key)
					}
				default:
					errs.add("%s for %s contains invalid key: %s", what, m.key, o.key)
				}
			}
			if !hasCenter {
				errs.add("%s for %s requires a center", what, m.key)
			}
		default:
			errs.add("%s direction for %s must be asc or desc", what, m.key)
		}
		out = append(out, c)
	}
	return out
}
