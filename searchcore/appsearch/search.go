package appsearch

import (
	"context"
	"encoding/json"
	"math"
	"sort"
	"strings"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// CoreSearch runs one core search body (Elasticsearch search DSL) over the
// indices of the engine being searched.
type CoreSearch func(ctx context.Context, body []byte) (*searchcore.SearchResult, error)

// NewCoreSearch searches the given core indices.
func NewCoreSearch(core *searchcore.Engine, indices []*searchcore.Index) CoreSearch {
	return func(ctx context.Context, body []byte) (*searchcore.SearchResult, error) {
		req := searchcore.NewSearchRequest()
		if err := searchcore.ParseSearchBody(body, req); err != nil {
			return nil, err
		}
		if err := req.Validate(); err != nil {
			return nil, err
		}
		res, err := core.Search(ctx, indices, req)
		// App Search reports a failing shard's exception itself.
		return res, eserr.FirstShardCause(err)
	}
}

// SearchOutcome is a search response and the facts analytics record.
type SearchOutcome struct {
	// Body is the App Search response ({meta, results, facets?}).
	Body obj
	// Total is meta.page.total_results.
	Total int64
	// Query is the query string searched.
	Query string
}

// MarshalJSON renders the response body.
func (o *SearchOutcome) MarshalJSON() ([]byte, error) { return o.Body.MarshalJSON() }

// groupWindow is how many top hits grouping reads (the results reachable
// by one query).
const groupWindow = MaxResultWindow

// RunSearch translates a validated request into core searches, runs them
// with run and shapes the App Search response. indexEngines maps the
// core index names to engine names (meta engines search several).
func RunSearch(ctx context.Context, run CoreSearch, r *SearchRequest, c *Context, requestID string, indexEngines map[string]string) (*SearchOutcome, error) {
	eff := r.effective(c)
	q, groups := textQuery(r.Query, c, eff)
	var filter any
	if r.Filters != nil {
		filter = filterQuery(r.Filters, c.Schema)
		q = obj{{"bool", obj{{"must", []any{q}}, {"filter", []any{filter}}}}}
	}
	cur := c.curationFor(r.Query)
	var excluded []string
	if cur != nil {
		excluded = append(append(excluded, cur.Hidden...), cur.Promoted...)
	}
	if len(excluded) > 0 {
		q = obj{{"bool", obj{{"must", []any{q}}, {"must_not", []any{obj{{"ids", obj{{"values", excluded}}}}}}}}}
	}
	q = boostQuery(q, eff.boosts, c)
	sorts := coreSort(r.Sort, c.Schema)
	scored := len(r.Sort) == 0
	for _, sc := range r.Sort {
		if sc.Field == "_score" {
			scored = true
		}
	}

	// Promoted documents come first, in the curation's order, when they
	// pass the filters.
	var promoted []searchcore.Hit
	if cur != nil && len(cur.Promoted) > 0 {
		pq := any(obj{{"ids", obj{{"values", cur.Promoted}}}})
		if filter != nil {
			pq = obj{{"bool", obj{{"must", []any{pq}}, {"filter", []any{filter}}}}}
		}
		body, _ := json.Marshal(obj{{"query", pq}, {"size", len(cur.Promoted)}})
		res, err := run(ctx, body)
		if err != nil {
			return nil, err
		}
		byID := map[string]searchcore.Hit{}
		for _, h := range res.Hits {
			byID[h.ID] = h
		}
		for _, id := range cur.Promoted {
			if h, ok := byID[id]; ok {
				promoted = append(promoted, h)
				delete(byID, id)
			}
		}
	}

	page := r.Page
	from := (page.Current - 1) * page.Size
	base := obj{{"query", q}, {"track_total_hits", true}}
	if len(sorts) > 0 {
		base = append(base, kv{"sort", sorts})
	}
	aggs := facetAggs(r.Facets, c)
	P := len(promoted)
	sh := shaper{c: c, eff: eff, terms: positiveTerms(groups), scored: scored, indexEngines: indexEngines}
	var results []any
	var total int64
	var res *searchcore.SearchResult
	var err error
	grouped := false
	if r.Group != nil && P == 0 {
		// Grouping is the core's collapse; a group field collapse refuses
		// (multi-valued, or unmapped in a meta engine's source) is grouped
		// by its first value in memory.
		res, err = runBody(ctx, run, collapseBody(base, aggs, r, c.Schema, sorts, from))
		switch {
		case err == nil:
			grouped = true
			if total, err = groupCount(res.Aggregations); err != nil {
				return nil, err
			}
			for _, h := range res.Hits {
				results = append(results, sh.collapsedGroup(h, r.Group))
			}
		case !collapseRefused(err):
			return nil, err
		}
	}
	switch {
	case grouped:
	case r.Group != nil:
		if len(aggs) > 0 {
			base = append(base, kv{"aggs", aggs})
		}
		if res, err = runBody(ctx, run, append(base, kv{"from", 0}, kv{"size", groupWindow})); err != nil {
			return nil, err
		}
		all := append(append([]searchcore.Hit{}, promoted...), res.Hits...)
		grouped := sh.group(all, r.Group)
		total = int64(len(grouped))
		for i := from; i < from+page.Size && i < len(grouped); i++ {
			results = append(results, grouped[i])
		}
	default:
		if len(aggs) > 0 {
			base = append(base, kv{"aggs", aggs})
		}
		mainFrom, mainSize := windowed(from-P, page.Size)
		if res, err = runBody(ctx, run, append(base, kv{"from", mainFrom}, kv{"size", mainSize})); err != nil {
			return nil, err
		}
		total = res.Total + int64(P)
		var hits []searchcore.Hit
		if from < P {
			end := from + page.Size
			if end > P {
				end = P
			}
			hits = append(hits, promoted[from:end]...)
		}
		hits = append(hits, res.Hits...)
		for _, h := range hits {
			results = append(results, sh.result(h))
		}
	}
	if results == nil {
		results = []any{}
	}
	meta := obj{
		{"alerts", []any{}},
		{"warnings", []any{}},
		{"precision", eff.precision},
		{"page", searchPageMeta(page, total)},
		{"engine", obj{{"name", c.Engine}, {"type", c.EngineType}}},
	}
	if requestID != "" {
		meta = append(meta, kv{"request_id", requestID})
	}
	out := obj{{"meta", meta}, {"results", results}}
	if len(r.Facets) > 0 {
		facets, err := shapeFacets(r.Facets, res.Aggregations, c)
		if err != nil {
			return nil, err
		}
		out = append(out, kv{"facets", facets})
	}
	return &SearchOutcome{Body: out, Total: total, Query: r.Query}, nil
}

// curationFor returns the curation whose queries include q (compared
// case-insensitively, surrounding spaces ignored), or nil.
func (c *Context) curationFor(q string) *Curation {
	norm := strings.ToLower(strings.TrimSpace(q))
	for i := range c.Curations {
		for _, cq := range c.Curations[i].Queries {
			if strings.ToLower(strings.TrimSpace(cq)) == norm {
				return &c.Curations[i]
			}
		}
	}
	return nil
}

// group folds hits (best first) into groups keyed by the group field's
// first value (the in-memory grouping of multi-valued group fields and of
// searches with promoted documents).
func (sh *shaper) group(hits []searchcore.Hit, g *Group) []any {
	type bucket struct {
		key     string
		keyJSON any
		head    searchcore.Hit
		rest    []searchcore.Hit
	}
	var order []*bucket
	byKey := map[string]*bucket{}
	for _, h := range hits {
		src := decodeSource(h.Source)
		v, ok := src[g.Field]
		if !ok || v == nil {
			continue
		}
		t, _ := fieldType(sh.c.Schema, g.Field)
		key, keyJSON := groupKey(v, t, sh.c.Revision)
		b := byKey[key]
		if b == nil {
			b = &bucket{key: key, keyJSON: keyJSON, head: h}
			byKey[key] = b
			order = append(order, b)
			continue
		}
		b.rest = append(b.rest, h)
	}
	out := make([]any, 0, len(order))
	for _, b := range order {
		members := append([]searchcore.Hit{b.head}, b.rest...)
		if len(g.Sort) > 0 {
			sortHits(members, g.Sort, sh.c.Schema)
		}
		out = append(out, sh.groupResult(members, b.keyJSON, g))
	}
	return out
}

// groupKey is the grouping key of a field value (the first of an array).
func groupKey(v any, t FieldType, rev Revision) (string, any) {
	if l, ok := v.([]any); ok {
		if len(l) == 0 {
			return "", nil
		}
		v = l[0]
	}
	rv := rawValue(v, t, rev, 0)
	b, _ := json.Marshal(rv)
	if s, ok := rv.(string); ok {
		return s, s
	}
	return string(b), string(b)
}

// sortHits orders the members of a group by the group's sort clauses.
func sortHits(hits []searchcore.Hit, clauses []SortClause, s Schema) {
	srcs := make([]map[string]any, len(hits))
	for i, h := range hits {
		srcs[i] = decodeSource(h.Source)
	}
	idx := make([]int, len(hits))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		for _, c := range clauses {
			var cmp int
			if c.Field == "_score" {
				cmp = compareFloat(hits[idx[a]].Score, hits[idx[b]].Score)
			} else {
				t, _ := fieldType(s, c.Field)
				cmp = compareValues(srcs[idx[a]][c.Field], srcs[idx[b]][c.Field], t)
			}
			if c.Desc {
				cmp = -cmp
			}
			if cmp != 0 {
				return cmp < 0
			}
		}
		return false
	})
	out := make([]searchcore.Hit, len(hits))
	for i, j := range idx {
		out[i] = hits[j]
	}
	copy(hits, out)
}

func compareFloat(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a) || a < b:
		return -1
	case math.IsNaN(b) || a > b:
		return 1
	}
	return 0
}

// compareValues orders two source values of a field (missing last).
func compareValues(a, b any, t FieldType) int {
	fa, oka := firstScalar(a)
	fb, okb := firstScalar(b)
	switch {
	case !oka && !okb:
		return 0
	case !oka:
		return 1
	case !okb:
		return -1
	}
	if t == Number {
		x, okx := numberOf(fa)
		y, oky := numberOf(fb)
		if okx && oky {
			return compareFloat(x, y)
		}
	}
	return strings.Compare(scalarText(fa), scalarText(fb))
}

func firstScalar(v any) (any, bool) {
	if l, ok := v.([]any); ok {
		if len(l) == 0 {
			return nil, false
		}
		v = l[0]
	}
	if v == nil {
		return nil, false
	}
	if _, isNum := v.(json.Number); !isNum {
		if s, ok := v.(string); ok {
			return s, true
		}
		return scalarText(v), true
	}
	return v, true
}

// searchPageMeta is meta.page of a search: like a list's, except that a
// page size of 0 (facet-only searches) reports one page when anything
// matched, as App Search does.
func searchPageMeta(p Page, total int64) PageMeta {
	m := NewPageMeta(p, total)
	if p.Size == 0 && total > 0 {
		m.TotalPages = 1
	}
	return m
}
