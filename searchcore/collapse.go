package searchcore

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strconv"

	"github.com/blugelabs/bluge/numeric"
	"github.com/blugelabs/bluge/search"
	segment "github.com/blugelabs/bluge_segment_api"

	"github.com/quarry-search/quarry/searchcore/mapping"
	"github.com/quarry-search/quarry/searchcore/query"
)

// Collapse is the collapse member of a search: hits are grouped by the
// single value of Field (a keyword or numeric field with doc values) and
// only the best hit of each group is returned, optionally with inner hits
// listing more of the group.
type Collapse struct {
	Field     string
	InnerHits []CollapseInnerHits
	// MaxConcurrentGroupSearches is accepted (inner hits run in turn).
	MaxConcurrentGroupSearches int
}

// CollapseInnerHits is one inner_hits definition of a collapse.
type CollapseInnerHits struct {
	Name    string
	From    int
	Size    int
	Sort    []query.SortField
	HasSort bool
	Source  *query.SourceFilter
	// Fetch holds the fetch options the definition shares with the search
	// body (version, seq_no_primary_term, explain, docvalue_fields, fields,
	// stored_fields).
	Fetch SearchRequest
}

// InnerHitsResult is one named inner hits section of a hit.
type InnerHitsResult struct {
	Name   string
	Result *SearchResult
	// Request is the search that produced Result (for rendering).
	Request *SearchRequest
}

// ParseCollapse parses {"field", "inner_hits", "max_concurrent_group_searches"}.
func ParseCollapse(v json.RawMessage) (*Collapse, error) {
	members, err := decodeObject(v)
	if err != nil {
		return nil, ParsingError("[collapse] must be an object")
	}
	c := &Collapse{}
	for _, m := range members {
		switch m.key {
		case "field":
			if err := json.Unmarshal(m.value, &c.Field); err != nil {
				return nil, ParsingError("[collapse] field doesn't support values of type: %s", TokenName(m.value))
			}
		case "max_concurrent_group_searches":
			if c.MaxConcurrentGroupSearches, err = intMember("max_concurrent_group_searches", m.value); err != nil {
				return nil, err
			}
			if c.MaxConcurrentGroupSearches < 0 {
				return nil, IllegalArgument("maxConcurrentGroupRequests must be positive")
			}
		case "inner_hits":
			raw := bytes.TrimSpace(m.value)
			var list []json.RawMessage
			if len(raw) > 0 && raw[0] == '[' {
				if err := json.Unmarshal(raw, &list); err != nil {
					return nil, ParsingError("[collapse] inner_hits must be an object or an array")
				}
			} else {
				list = []json.RawMessage{raw}
			}
			for _, e := range list {
				ih, err := parseCollapseInnerHits(e)
				if err != nil {
					return nil, err
				}
				c.InnerHits = append(c.InnerHits, ih)
			}
		default:
			return nil, ParsingError("[collapse] unknown field [%s]", m.key)
		}
	}
	if c.Field == "" {
		return nil, ParsingError("[collapse] requires [field]")
	}
	seen := map[string]bool{}
	for i := range c.InnerHits {
		if c.InnerHits[i].Name == "" {
			c.InnerHits[i].Name = c.Field
		}
		if seen[c.InnerHits[i].Name] {
			return nil, IllegalArgument("[inner_hits] already contains an entry for key [%s]", c.InnerHits[i].Name)
		}
		seen[c.InnerHits[i].Name] = true
	}
	return c, nil
}

func parseCollapseInnerHits(v json.RawMessage) (CollapseInnerHits, error) {
	ih := CollapseInnerHits{Size: 3}
	members, err := decodeObject(v)
	if err != nil {
		return ih, ParsingError("[inner_hits] must be an object")
	}
	for _, m := range members {
		switch m.key {
		case "name":
			if err := json.Unmarshal(m.value, &ih.Name); err != nil {
				return ih, ParsingError("[inner_hits] name doesn't support values of type: %s", TokenName(m.value))
			}
		case "from":
			if ih.From, err = intMember("from", m.value); err != nil {
				return ih, err
			}
		case "size":
			if ih.Size, err = intMember("size", m.value); err != nil {
				return ih, err
			}
		case "sort":
			if ih.Sort, err = query.ParseSort(m.value); err != nil {
				return ih, err
			}
			ih.HasSort = true
		case "_source":
			if ih.Source, err = query.ParseSourceFilter(m.value); err != nil {
				return ih, err
			}
		default:
			ok, err := ih.Fetch.parseSharedFetch(m.key, m.value)
			if err != nil {
				return ih, err
			}
			if !ok {
				return ih, ParsingError("[inner_hits] unknown field [%s]", m.key)
			}
		}
	}
	if ih.From < 0 {
		return ih, IllegalArgument("illegal from value, at least 0 or higher")
	}
	if ih.Size < 0 {
		return ih, IllegalArgument("illegal size value, at least 0 or higher")
	}
	return ih, nil
}

// validateCollapse checks the collapse field of one index and the request
// options collapsing cannot be combined with (CollapseBuilder.build and
// SearchService.parseSource).
func validateCollapse(req *SearchRequest, idx *Index) error {
	c := req.Collapse
	switch {
	case req.Scroll > 0:
		return IllegalArgument("cannot use `collapse` in a scroll context")
	case len(req.SearchAfter) > 0:
		return IllegalArgument("cannot use `collapse` in conjunction with `search_after`")
	case len(req.Rescore) > 0:
		return IllegalArgument("cannot use `collapse` in conjunction with `rescore`")
	}
	f := idx.Mapping().Lookup(c.Field)
	if f == nil {
		return IllegalArgument("no mapping found for `%s` in order to collapse on", c.Field)
	}
	if !collapsibleType(f.Type) {
		return IllegalArgument("unknown type for collapse field `%s`, only keywords and numbers are accepted", c.Field)
	}
	if f.DocValues != nil && !*f.DocValues {
		return IllegalArgument("cannot collapse on field `%s` without `doc_values`", c.Field)
	}
	for _, ih := range c.InnerHits {
		if w := ih.From + ih.Size; w > idx.Settings().MaxInnerResultWindow {
			return IllegalArgument("Inner result window is too large, the inner hit definition's [%s]'s from + size must be "+
				"less than or equal to: [%d] but was [%d]. This limit can be set by changing the [index.max_inner_result_window] "+
				"index level setting.", ih.Name, idx.Settings().MaxInnerResultWindow, w)
		}
	}
	return nil
}

func collapsibleType(t string) bool {
	switch t {
	case mapping.TypeKeyword, mapping.TypeLong, mapping.TypeInteger, mapping.TypeShort, mapping.TypeByte,
		mapping.TypeDouble, mapping.TypeFloat, mapping.TypeHalfFloat, mapping.TypeScaledFloat,
		mapping.TypeUnsignedLong, mapping.TypeDate, mapping.TypeDateNanos:
		return true
	}
	return false
}

// collapseKey is the group value of a hit: its JSON rendering ("null" for
// documents without a value).
type collapseKey = string

// collapseValues reads the collapse field's value of each hit of one shard.
type collapseReader struct {
	field string
	typ   string
	dv    segment.DocumentValueReader
}

func newCollapseReader(ctx context.Context, sh ctxShard, field string) (*collapseReader, error) {
	r, err := shardReader(ctx, sh)
	if err != nil {
		return nil, err
	}
	cr := &collapseReader{field: field}
	if f := sh.idx.Mapping().Lookup(field); f != nil {
		cr.typ = f.Type
	}
	if r != nil {
		if cr.dv, err = r.DocumentValueReader([]string{field}); err != nil {
			return nil, Internalf(err, "collapse: failed to read doc values")
		}
	}
	return cr, nil
}

// value returns the hit's collapse value (nil when it has none), or an
// error when the field holds several values.
func (cr *collapseReader) value(n uint64) (any, error) {
	if cr.dv == nil {
		return nil, nil
	}
	var vals []any
	err := cr.dv.VisitDocumentValues(n, func(_ string, term []byte) {
		if cr.typ == mapping.TypeKeyword {
			vals = append(vals, string(term))
			return
		}
		pc := numeric.PrefixCoded(term)
		if shift, err := pc.Shift(); err != nil || shift != 0 {
			return
		}
		i64, err := pc.Int64()
		if err != nil {
			return
		}
		vals = append(vals, collapseNumber(cr.typ, numeric.Int64ToFloat64(i64)))
	})
	if err != nil {
		return nil, Internalf(err, "collapse: failed to read doc values")
	}
	switch len(vals) {
	case 0:
		return nil, nil
	case 1:
		return vals[0], nil
	}
	return nil, Errorf(Invalid, "illegal_state_exception", "failed to collapse %d, the collapse field must be single valued", n)
}

// collapseNumber renders a numeric doc value as ES renders the field's
// collapse value (integers and dates as longs).
func collapseNumber(typ string, f float64) any {
	switch typ {
	case mapping.TypeDouble, mapping.TypeFloat, mapping.TypeHalfFloat, mapping.TypeScaledFloat:
		return f
	case mapping.TypeDateNanos:
		return json.Number(strconv.FormatInt(int64(math.Round(f*1e6)), 10))
	}
	return json.Number(strconv.FormatInt(int64(f), 10))
}

// collapseHits keeps the first hit of each group from hits (merged, in
// order); values gives each kept hit's collapse value. It reports whether
// enough groups were found for want (or every hit was seen).
func collapseHits(hits []shardHit, readers map[int]*collapseReader, want int) ([]shardHit, []any, error) {
	seen := map[string]bool{}
	var out []shardHit
	var vals []any
	for _, h := range hits {
		v, err := readers[h.shard].value(h.dm.Number)
		if err != nil {
			return nil, nil, err
		}
		key, _ := json.Marshal(v)
		if seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		out = append(out, h)
		vals = append(vals, v)
		if len(out) >= want {
			break
		}
	}
	return out, vals, nil
}

// collapseInnerHits runs the inner hits of one group: the request's query
// restricted to the group's value.
func (e *Engine) collapseInnerHits(ctx context.Context, shards []ctxShard, req *SearchRequest, value any) ([]InnerHitsResult, error) {
	inner := bytes.TrimSpace(req.Query)
	if len(inner) == 0 || string(inner) == "null" {
		inner = []byte(`{"match_all":{}}`)
	}
	var group string
	if value == nil {
		fb, _ := json.Marshal(req.Collapse.Field)
		group = `"must_not":[{"exists":{"field":` + string(fb) + `}}]`
	} else {
		fb, _ := json.Marshal(req.Collapse.Field)
		vb, _ := json.Marshal(value)
		group = `"filter":[{"term":{` + string(fb) + `:` + string(vb) + `}}]`
	}
	q := json.RawMessage(`{"bool":{"must":[` + string(inner) + `],` + group + `}}`)
	out := make([]InnerHitsResult, 0, len(req.Collapse.InnerHits))
	for _, ih := range req.Collapse.InnerHits {
		sub := NewSearchRequest()
		sub.Query = q
		sub.From, sub.Size = ih.From, ih.Size
		sub.Sort, sub.HasSort = ih.Sort, ih.HasSort
		sub.Source = ih.Source
		sub.Version, sub.SeqNoPrimaryTerm = req.Version, req.SeqNoPrimaryTerm
		sub.useInnerHitsFetch(&ih.Fetch)
		sub.TrackTotalHits = TrackTotalHits(math.MaxInt)
		res, _, err := e.execute(ctx, shards, sub, tieNone, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, InnerHitsResult{Name: ih.Name, Result: res, Request: sub})
	}
	return out, nil
}

var _ search.Reader = (*statsReader)(nil)
