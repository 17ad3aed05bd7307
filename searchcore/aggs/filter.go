package aggs

import (
	"context"
	"encoding/json"

	"github.com/RoaringBitmap/roaring"
	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/numeric"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/query"
)

// env is the per-shard state collectors need beyond the documents: the
// matching documents of filter queries and the pre-collected global
// aggregations. It is built by Root.Bind.
type env struct {
	bound  bool
	sets   map[*node][]*roaring.Bitmap
	global map[*node]*globalColl
	zero   map[*node]*fieldTerms
	// nested and reverse are the per-shard bindings of nested and
	// reverse_nested aggregations (nested.go).
	nested  map[*node]*nestedBinding
	reverse map[*node]*reverseBinding
	// bg are the shard backgrounds of significant_terms aggregations.
	bg map[*node]*background
}

// fieldTerms are all the terms of a field in one shard (terms min_doc_count 0).
type fieldTerms struct {
	str []string
	num []float64
}

// loadTerms reads the term dictionary of a terms aggregation's field.
func loadTerms(r *bluge.Reader, m *termsImpl) (*fieldTerms, error) {
	ft := &fieldTerms{}
	err := eachFieldTerm(r, m.src, func(term string, num float64) error {
		if m.src.kind == kindKeyword {
			ft.str = append(ft.str, term)
		} else {
			ft.num = append(ft.num, num)
		}
		return nil
	})
	return ft, err
}

// eachFieldTerm walks the term dictionary of src's field in order: each
// keyword term, or each full-precision numeric term with its value (the
// prefix-coded shifts of a numeric field are skipped).
func eachFieldTerm(r *bluge.Reader, src *source, fn func(term string, num float64) error) error {
	if src.kind == kindNone {
		return nil
	}
	it, err := r.DictionaryIterator(src.field, nil, nil, nil)
	if err != nil {
		return err
	}
	defer it.Close()
	for {
		e, err := it.Next()
		if err != nil || e == nil {
			return err
		}
		var num float64
		if src.kind != kindKeyword {
			pc := numeric.PrefixCoded(e.Term())
			if shift, err := pc.Shift(); err != nil || shift != 0 {
				continue
			}
			i64, err := pc.Int64()
			if err != nil {
				continue
			}
			num = numeric.Int64ToFloat64(i64)
		}
		if err := fn(e.Term(), num); err != nil {
			return err
		}
	}
}

// filterImpl is filter and filters: each filter is a query whose matching
// documents Bind collects per shard.
type filterImpl struct {
	multi    bool
	keyed    bool
	names    []string
	nodes    []query.Node
	queries  []bluge.Query
	other    bool
	otherKey string
}

func (m *filterImpl) fields() []string { return nil }

func (m *filterImpl) typedKey() string {
	if m.multi {
		return "filters"
	}
	return "filter"
}

// parseFilter parses the body of filter (a query) or filters.
func parseFilter(d *def) (*filterImpl, error) {
	if d.typ == "filter" {
		raw := membersJSON(d.body)
		if len(d.body) == 0 {
			raw = json.RawMessage(`{"match_all":{}}`)
		}
		n, err := query.Parse(raw)
		if err != nil {
			return nil, err
		}
		return &filterImpl{nodes: []query.Node{n}}, nil
	}
	// As ES 7.17's FiltersAggregationBuilder.parse: only filters,
	// other_bucket (a boolean) and other_bucket_key (a string) are known
	// (keyed is implied by the object form, not a parameter); anything else
	// is "Unknown key for a <token> in [<agg>]: [<key>]."
	m := &filterImpl{multi: true, otherKey: "_other_"}
	var otherSet bool
	for _, mb := range d.body {
		tok := tokenName(mb.val)
		switch {
		case mb.key == "other_bucket" && tok == "VALUE_BOOLEAN":
			otherSet = true
			_ = json.Unmarshal(mb.val, &m.other)
		case mb.key == "other_bucket_key" && tok == "VALUE_STRING":
			_ = json.Unmarshal(mb.val, &m.otherKey)
			if !otherSet {
				m.other = true
			}
		case mb.key == "filters" && tok == "START_OBJECT":
			ms, err := objectMembers(mb.val)
			if err != nil {
				return nil, err
			}
			m.keyed = true
			for _, f := range ms {
				n, err := query.Parse(f.val)
				if err != nil {
					return nil, err
				}
				m.names = append(m.names, f.key)
				m.nodes = append(m.nodes, n)
			}
		case mb.key == "filters" && tok == "START_ARRAY":
			var arr []json.RawMessage
			if err := json.Unmarshal(mb.val, &arr); err != nil {
				return nil, eserr.ParsingError("[filters] failed to parse field [filters]")
			}
			for _, e := range arr {
				n, err := query.Parse(e)
				if err != nil {
					return nil, err
				}
				m.nodes = append(m.nodes, n)
			}
		default:
			return nil, eserr.ParsingError("Unknown key for a %s in [%s]: [%s].", tok, d.name, mb.key)
		}
	}
	if len(m.nodes) == 0 {
		return nil, eserr.IllegalArgument("[filters] cannot be empty.")
	}
	return m, nil
}

func membersJSON(ms []member) json.RawMessage {
	w := &jw{}
	w.begin('{')
	for _, m := range ms {
		w.key(m.key)
		w.value(m.val)
	}
	w.end('}')
	return json.RawMessage(w.b.Bytes())
}

func (m *filterImpl) compile(ctx *query.Context) error {
	if ctx == nil {
		ctx = &query.Context{}
	}
	for _, n := range m.nodes {
		q, err := n.Compile(ctx)
		if err != nil {
			return err
		}
		m.queries = append(m.queries, q)
	}
	return nil
}

type filterColl struct {
	m      *filterImpl
	sets   []*roaring.Bitmap
	counts []int64
	subs   [][]coll
}

func (m *filterImpl) newColl(n *node, e *env) coll {
	k := len(m.queries)
	if m.other {
		k++
	}
	c := &filterColl{m: m, counts: make([]int64, k), subs: make([][]coll, k)}
	if e != nil && e.sets != nil {
		c.sets = e.sets[n]
	}
	for i := range c.subs {
		c.subs[i] = newColls(n.subs, e)
	}
	return c
}

func (c *filterColl) collect(d *search.DocumentMatch) {
	matched := false
	for i, s := range c.sets {
		if s.Contains(uint32(d.Number)) {
			matched = true
			c.counts[i]++
			collectAll(c.subs[i], d)
		}
	}
	if c.m.other && !matched {
		i := len(c.counts) - 1
		c.counts[i]++
		collectAll(c.subs[i], d)
	}
}

func (c *filterColl) merge(o coll) {
	x := o.(*filterColl)
	for i := range c.counts {
		c.counts[i] += x.counts[i]
		mergeAll(c.subs[i], x.subs[i])
	}
}

func (c *filterColl) result(n *node, r *reducer) (result, error) {
	if c.m.multi {
		if err := r.addBuckets(len(c.counts)); err != nil {
			return nil, err
		}
	}
	var bs []*bucket
	for i := range c.counts {
		subs, err := r.subResults(n.subs, c.subs[i])
		if err != nil {
			return nil, err
		}
		b := &bucket{docCount: c.counts[i], subs: subs}
		switch {
		case i < len(c.m.names):
			b.key = c.m.names[i]
		case i == len(c.m.queries):
			b.key = c.m.otherKey
		}
		bs = append(bs, b)
	}
	if !c.m.multi {
		return &singleBucket{b: bs[0]}, nil
	}
	res := &filtersResult{m: c.m, buckets: bs}
	return res, r.parentPipelines(n, res)
}

type filtersResult struct {
	m       *filterImpl
	buckets []*bucket
}

func (f *filtersResult) bucketList() []*bucket         { return f.buckets }
func (f *filtersResult) setBuckets(bs []*bucket)       { f.buckets = bs }
func (f *filtersResult) metric(string) (float64, bool) { return 0, false }

func (f *filtersResult) write(w *jw, n *node, r *reducer) {
	w.key("buckets")
	if f.m.keyed {
		w.begin('{')
		for _, b := range f.buckets {
			w.key(b.key.(string))
			r.writeBucket(w, n, b, false)
		}
		w.end('}')
		return
	}
	w.begin('[')
	for _, b := range f.buckets {
		r.writeBucket(w, n, b, false)
	}
	w.end(']')
}

// globalImpl is the global aggregation: its sub-aggregations see every
// document of the index, whatever the query. Bind collects them.
type globalImpl struct{}

func (globalImpl) fields() []string { return nil }
func (globalImpl) typedKey() string { return "global" }

type globalColl struct {
	count int64
	subs  []coll
}

func (globalImpl) newColl(n *node, e *env) coll {
	if e != nil && e.global != nil {
		if g := e.global[n]; g != nil {
			return g
		}
	}
	return &globalColl{subs: newColls(n.subs, e)}
}

// collect ignores the query's documents: Bind fills global collectors.
func (c *globalColl) collect(*search.DocumentMatch) {}

func (c *globalColl) merge(o coll) {
	x := o.(*globalColl)
	c.count += x.count
	mergeAll(c.subs, x.subs)
}

func (c *globalColl) result(n *node, r *reducer) (result, error) {
	subs, err := r.subResults(n.subs, c.subs)
	if err != nil {
		return nil, err
	}
	return &singleBucket{b: &bucket{docCount: c.count, subs: subs}}, nil
}

// NeedsBind reports whether the request has filter, filters, global,
// nested, reverse_nested, significant_terms or terms min_doc_count 0
// aggregations, which need Bind before each shard's search.
func (a *Root) NeedsBind() bool {
	var walk func([]*node) bool
	walk = func(ns []*node) bool {
		for _, n := range ns {
			switch n.impl.(type) {
			case *filterImpl, globalImpl, *nestedImpl, *reverseNestedImpl, *sigTermsImpl:
				return true
			case *termsImpl:
				if n.impl.(*termsImpl).minDocCount == 0 {
					return true
				}
			}
			if walk(n.subs) {
				return true
			}
		}
		return false
	}
	return walk(a.nodes)
}

// Bind prepares the root for one shard's reader: it runs the filter and
// filters queries to find their documents, reads the term dictionary for
// terms aggregations with min_doc_count 0 and collects global aggregations
// over all documents. The returned aggregation must be used
// only for a search on r (document numbers are per reader).
func (a *Root) Bind(ctx context.Context, r *bluge.Reader) (*Root, error) {
	e := &env{bound: true, sets: map[*node][]*roaring.Bitmap{}, global: map[*node]*globalColl{}, zero: map[*node]*fieldTerms{},
		nested: map[*node]*nestedBinding{}, reverse: map[*node]*reverseBinding{}, bg: map[*node]*background{}}
	var walk func([]*node) error
	walk = func(ns []*node) error {
		for _, n := range ns {
			switch x := n.impl.(type) {
			case *nestedImpl:
				b, err := bindNested(ctx, r, n, x)
				if err != nil {
					return err
				}
				e.nested[n] = b
			case *reverseNestedImpl:
				b, err := bindReverse(ctx, r, n)
				if err != nil {
					return err
				}
				e.reverse[n] = b
			case *sigTermsImpl:
				bg, err := loadBackground(ctx, r, x.src)
				if err != nil {
					return err
				}
				e.bg[n] = bg
			}
			if t, ok := n.impl.(*termsImpl); ok && t.minDocCount == 0 {
				ft, err := loadTerms(r, t)
				if err != nil {
					return err
				}
				e.zero[n] = ft
			}
			if f, ok := n.impl.(*filterImpl); ok {
				var sets []*roaring.Bitmap
				for _, q := range f.queries {
					bm := roaring.New()
					it, err := r.Search(ctx, bluge.NewAllMatches(query.Guarded(q)))
					if err != nil {
						return err
					}
					m, err := it.Next()
					for ; err == nil && m != nil; m, err = it.Next() {
						bm.Add(uint32(m.Number))
					}
					if err != nil {
						return err
					}
					sets = append(sets, bm)
				}
				e.sets[n] = sets
			}
			if err := walk(n.subs); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(a.nodes); err != nil {
		return nil, err
	}
	for _, n := range a.nodes {
		if _, ok := n.impl.(globalImpl); !ok {
			continue
		}
		g := &globalColl{subs: newColls(n.subs, e)}
		fields := map[string]bool{}
		var fl []string
		var walkF func([]*node)
		walkF = func(ns []*node) {
			for _, s := range ns {
				for _, f := range s.impl.fields() {
					if !fields[f] {
						fields[f] = true
						fl = append(fl, f)
					}
				}
				walkF(s.subs)
			}
		}
		walkF(n.subs)
		var all bluge.Query = bluge.NewMatchAllQuery()
		if a.excludeNested {
			all = query.ExcludeNested(all)
		}
		req := bluge.NewAllMatches(all)
		req.AddAggregation(RootName, &globalAgg{g: g, fields: fl})
		it, err := r.Search(ctx, req)
		if err != nil {
			return nil, err
		}
		m, err := it.Next()
		for ; err == nil && m != nil; m, err = it.Next() {
		}
		if err != nil {
			return nil, err
		}
		e.global[n] = g
	}
	return &Root{nodes: a.nodes, fieldList: a.fieldList, env: e, Profile: a.Profile}, nil
}

// globalAgg collects one global aggregation's sub-aggregations.
type globalAgg struct {
	g      *globalColl
	fields []string
}

func (a *globalAgg) Fields() []string              { return a.fields }
func (a *globalAgg) Calculator() search.Calculator { return a }
func (a *globalAgg) Consume(d *search.DocumentMatch) {
	a.g.count++
	collectAll(a.g.subs, d)
}
func (a *globalAgg) Finish()                 {}
func (a *globalAgg) Merge(search.Calculator) {}
