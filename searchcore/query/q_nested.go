package query

import (
	"encoding/json"
	"math"
	"sort"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/searcher"
	"github.com/blugelabs/bluge/search/similarity"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

func registerNested(p *Parser) { p.register("nested", parseNested) }

// NestedQuery is the nested query: query runs over the nested documents of
// path (mapping/nested.go) and each enclosing document matches with the
// scores of its matching nested documents combined by scoreMode.
type NestedQuery struct {
	base
	path           string
	query          Node
	scoreMode      string // avg (default), sum, min, max, none
	ignoreUnmapped bool
	innerHits      *InnerHitsDef
	// queryJSON is the inner query as sent (inner hits highlight with it).
	queryJSON json.RawMessage
}

// InnerHitsDef is a parsed inner_hits object.
type InnerHitsDef struct {
	Name       string
	From, Size int
	Sort       []SortField
	HasSort    bool
	Source     *SourceFilter
	// Highlight is the definition's highlight object as sent (parsed and
	// prepared by the search, which owns the highlighter).
	Highlight json.RawMessage
	// Fetch are the members the definition shares with the search body's
	// fetch phase (docvalue_fields, fields, stored_fields, version,
	// seq_no_primary_term, explain) as sent, parsed by the search, which
	// owns the fetch phase.
	Fetch []RawMember
}

// RawMember is one object member as sent.
type RawMember struct {
	Key   string
	Value json.RawMessage
}

// InnerHitsSpec is an inner_hits request compiled for one index: the query
// selecting the nested documents of Path that match, and how to page, sort
// and render them. Only nested queries outside other nested queries carry
// inner hits, joined to the top-level hit by mapping.NestedRootField.
type InnerHitsSpec struct {
	InnerHitsDef
	Path  string
	Query bluge.Query
	Order search.SortOrder
	Dec   []SortDecoder
	// QueryJSON is the nested query's inner query, which highlights the
	// inner hits.
	QueryJSON json.RawMessage
}

// Path returns the nested path.
func (q *NestedQuery) Path() string { return q.path }

// parseNested follows NestedQueryBuilder.fromXContent.
func parseNested(p *Parser, body *jval) (Node, error) {
	q := &NestedQuery{base: newBase(), scoreMode: "avg"}
	var boost float32 = 1
	hasPath, hasQuery := false, false
	for _, m := range body.members {
		v := m.val
		var err error
		switch m.key {
		case "query":
			if v.kind != kObject {
				return nil, v.parsingErr("[nested] query malformed, no start_object after query name")
			}
			q.query, err = p.parseInner(v)
			q.queryJSON = append(json.RawMessage(nil), v.doc.src[v.off:valueEnd(v)]...)
			hasQuery = true
		case "inner_hits":
			if v.kind != kObject {
				return nil, v.parsingErr("[nested] inner_hits must be an object")
			}
			q.innerHits, err = parseInnerHits(v)
		case "path":
			q.path, err = v.text()
			hasPath = true
		case "score_mode":
			var s string
			if s, err = v.text(); err == nil {
				switch s {
				case "avg", "sum", "min", "max", "none":
					q.scoreMode = s
				default:
					err = searchcore.IllegalArgument("No score mode for child query [%s] found", s)
				}
			}
		case "ignore_unmapped":
			q.ignoreUnmapped, err = v.booleanValue()
		case "boost":
			boost, err = v.floatValue()
		case "_name":
			q.name, err = v.text()
		default:
			if v.kind == kObject || v.kind == kArray {
				return nil, v.parsingErr("[nested] query does not support [%s]", m.key)
			}
			return nil, v.parsingErr("[nested] query does not support [%s]", m.key)
		}
		if err != nil {
			return nil, err
		}
	}
	if !hasQuery {
		return nil, body.parsingErr("[nested] requires 'query' field")
	}
	if !hasPath {
		return nil, body.parsingErr("[nested] requires 'path' field")
	}
	if q.innerHits != nil && q.innerHits.Name == "" {
		q.innerHits.Name = q.path
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// parseInnerHits parses the inner_hits options this node supports.
func parseInnerHits(v *jval) (*InnerHitsDef, error) {
	d := &InnerHitsDef{Size: 3}
	for _, m := range v.members {
		iv := m.val
		var err error
		switch m.key {
		case "name":
			d.Name, err = iv.text()
		case "from":
			d.From, err = iv.intValue()
		case "size":
			d.Size, err = iv.intValue()
		case "sort":
			d.Sort, err = ParseSort(json.RawMessage(iv.doc.src[iv.off:valueEnd(iv)]))
			d.HasSort = true
		case "_source":
			d.Source, err = ParseSourceFilter(json.RawMessage(iv.doc.src[iv.off:valueEnd(iv)]))
		case "highlight":
			if iv.kind != kObject {
				return nil, iv.parsingErr("[inner_hits] highlight must be an object")
			}
			d.Highlight = append(json.RawMessage(nil), iv.doc.src[iv.off:valueEnd(iv)]...)
		case "docvalue_fields", "fields", "stored_fields", "version", "seq_no_primary_term", "explain":
			d.Fetch = append(d.Fetch, RawMember{Key: m.key, Value: append(json.RawMessage(nil), iv.doc.src[iv.off:valueEnd(iv)]...)})
		default:
			return nil, searchcore.Errorf(searchcore.Invalid, "x_content_parse_exception", "[inner_hits] unknown field [%s]", m.key)
		}
		if err != nil {
			return nil, err
		}
	}
	if d.From < 0 {
		return nil, searchcore.IllegalArgument("illegal from value, at least 0 or higher")
	}
	if d.Size < 0 {
		return nil, searchcore.IllegalArgument("illegal size value, at least 0 or higher")
	}
	return d, nil
}

// Compile implements Node.
func (q *NestedQuery) Compile(ctx *Context) (bluge.Query, error) {
	var f *mapping.Field
	if ctx.Mapping != nil {
		f = ctx.Mapping.LookupPath(q.path)
	}
	if f == nil {
		if q.ignoreUnmapped {
			return matchNone(), nil
		}
		return nil, ctx.shardErr("[nested] failed to find nested object under path [%s]", q.path)
	}
	if f.Type != mapping.TypeNested {
		return nil, ctx.shardErr("[nested] nested object under path [%s] is not of nested type", q.path)
	}
	outer := ctx.nestedPath
	ctx.nestedPath = q.path
	inner, err := q.query.Compile(ctx)
	ctx.nestedPath = outer
	if err != nil {
		return nil, err
	}
	children := bluge.NewBooleanQuery().AddMust(inner).AddMust(constScore(bluge.NewTermQuery(q.path).SetField(mapping.NestedPathField), 0))
	// The field of the nested documents that names the enclosing document
	// at the level this query joins to.
	join := mapping.NestedRootField
	switch {
	case outer == "":
	case ctx.Mapping.NestedParentPath(q.path) == outer:
		join = mapping.NestedParentField
	default:
		join = mapping.NestedAncestorPrefix + outer
	}
	if q.innerHits != nil {
		if err := ctx.addInnerHits(q, outer, children); err != nil {
			return nil, err
		}
	}
	return &nestedJoinQuery{children: children, join: join, scoreMode: q.scoreMode, boost: float64(q.boost)}, nil
}

// addInnerHits registers the inner_hits of a top-level nested query.
func (ctx *Context) addInnerHits(q *NestedQuery, outer string, children bluge.Query) error {
	d := q.innerHits
	if outer != "" {
		return searchcore.IllegalArgument("[inner_hits] of nested query [%s] inside nested query [%s] are not supported", q.path, outer)
	}
	maxWindow := ctx.MaxInnerResultWindow
	if maxWindow <= 0 {
		maxWindow = 100
	}
	if d.From+d.Size > maxWindow {
		return searchcore.IllegalArgument("Inner result window is too large, the inner hit definition's [%s]'s from + size must be less than or equal to: [%d] but was [%d]. "+
			"This limit can be set by changing the [index.max_inner_result_window] index level setting.", d.Name, maxWindow, d.From+d.Size)
	}
	for _, s := range ctx.InnerHits {
		if s.Name == d.Name {
			return searchcore.IllegalArgument("[inner_hits] already contains an entry for key [%s]", d.Name)
		}
	}
	fields := d.Sort
	if !d.HasSort {
		fields = []SortField{{Field: "_score"}}
	}
	order, dec, err := CompileSort(fields, ctx)
	if err != nil {
		return err
	}
	ctx.InnerHits = append(ctx.InnerHits, &InnerHitsSpec{InnerHitsDef: *d, Path: q.path, Query: children, Order: order, Dec: dec,
		QueryJSON: q.queryJSON})
	return nil
}

// NestedDocsOf restricts a compiled inner_hits query to the nested documents
// of the top-level document rootID (scores unchanged).
func NestedDocsOf(q bluge.Query, rootID string) bluge.Query {
	return bluge.NewBooleanQuery().AddMust(q).AddMust(constScore(bluge.NewTermQuery(rootID).SetField(mapping.NestedRootField), 0))
}

// ExcludeNested restricts q to top-level documents (no nested documents),
// as every search of an index with nested fields must be.
func ExcludeNested(q bluge.Query) bluge.Query {
	return bluge.NewBooleanQuery().AddMust(q).AddMustNot(bluge.NewTermQuery(mapping.NestedFlagValue).SetField(mapping.NestedFlagField))
}

// nestedJoinQuery matches the documents named by the join field of the
// nested documents children matches, scored by scoreMode.
type nestedJoinQuery struct {
	children  bluge.Query
	join      string
	scoreMode string
	boost     float64
}

type joinScore struct {
	sum, min, max float64
	n             int
}

func (q *nestedJoinQuery) Searcher(r search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	cs, err := q.children.Searcher(r, o)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	scores := map[string]*joinScore{}
	err = eachMatch(r, cs, q.join, func(key string, dm *search.DocumentMatch) {
		js := scores[key]
		if js == nil {
			js = &joinScore{min: math.Inf(1), max: math.Inf(-1)}
			scores[key] = js
		}
		js.sum += dm.Score
		js.min = math.Min(js.min, dm.Score)
		js.max = math.Max(js.max, dm.Score)
		js.n++
	})
	if err != nil {
		return nil, err
	}
	if len(scores) == 0 {
		return searcher.NewMatchNoneSearcher(r, o)
	}
	keys := make([]string, 0, len(scores))
	for k := range scores {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ps, err := searcher.NewMultiTermSearcher(r, keys, "_id", 1, nil, similarity.NewCompositeSumScorer(), o, false)
	if err != nil {
		return nil, err
	}
	defer ps.Close()
	var hits []listHit
	err = eachMatch(r, ps, "_id", func(id string, dm *search.DocumentMatch) {
		if js := scores[id]; js != nil {
			hits = append(hits, listHit{number: dm.Number, score: q.boost * js.score(q.scoreMode)})
		}
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].number < hits[j].number })
	return &listSearcher{hits: hits, explain: o.Explain, reader: r}, nil
}

// eachMatch drains s, calling fn with each match and its (single) value of
// the doc-value field key ("" matches are skipped).
func eachMatch(r search.Reader, s search.Searcher, key string, fn func(string, *search.DocumentMatch)) error {
	dv, err := r.DocumentValueReader([]string{key})
	if err != nil {
		return err
	}
	sctx := search.NewSearchContext(s.DocumentMatchPoolSize()+1, 0)
	for {
		dm, err := s.Next(sctx)
		if err != nil || dm == nil {
			return err
		}
		var v string
		if err := dv.VisitDocumentValues(dm.Number, func(_ string, term []byte) { v = string(term) }); err != nil {
			return err
		}
		if v != "" {
			fn(v, dm)
		}
		sctx.DocumentMatchPool.Put(dm)
	}
}

func (js *joinScore) score(mode string) float64 {
	switch mode {
	case "sum":
		return js.sum
	case "min":
		return js.min
	case "max":
		return js.max
	case "none":
		return 0
	}
	return js.sum / float64(js.n)
}

// listHit is one precomputed match.
type listHit struct {
	number uint64
	score  float64
}

// listSearcher replays precomputed matches in document order.
type listSearcher struct {
	hits    []listHit
	pos     int
	explain bool
	reader  search.Reader
}

func (s *listSearcher) emit(ctx *search.Context) *search.DocumentMatch {
	h := s.hits[s.pos]
	s.pos++
	dm := ctx.DocumentMatchPool.Get()
	dm.Number = h.number
	dm.Score = h.score
	dm.SetReader(s.reader)
	if s.explain {
		dm.Explanation = search.NewExplanation(h.score, "Score based on child doc range")
	}
	return dm
}

func (s *listSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	if s.pos >= len(s.hits) {
		return nil, nil
	}
	return s.emit(ctx), nil
}

func (s *listSearcher) Advance(ctx *search.Context, number uint64) (*search.DocumentMatch, error) {
	for s.pos < len(s.hits) && s.hits[s.pos].number < number {
		s.pos++
	}
	return s.Next(ctx)
}

func (s *listSearcher) Close() error               { return nil }
func (s *listSearcher) Count() uint64              { return uint64(len(s.hits)) }
func (s *listSearcher) Min() int                   { return 0 }
func (s *listSearcher) Size() int                  { return 64 + 16*len(s.hits) }
func (s *listSearcher) DocumentMatchPoolSize() int { return 1 }
