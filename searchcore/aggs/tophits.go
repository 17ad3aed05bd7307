package aggs

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/query"
)

// topHitsImpl is top_hits: the best documents of a bucket with their
// _source. Stored fields are read while collecting, only for documents
// that enter a bucket's top (from+size), so no fetch phase is needed.
type topHitsImpl struct {
	index    string
	from     int
	size     int
	sorted   bool // an explicit sort was given (hits carry "sort")
	byScore  bool // the first sort clause is _score
	order    search.SortOrder
	desc     []bool
	decoders []query.SortDecoder
	source   *query.SourceFilter
	// storedSource is query.Context.StoredSource.
	storedSource func(field string, value []byte) ([]byte, bool, error)
}

func (topHitsImpl) isMetric() {}

func (m *topHitsImpl) fields() []string { return m.order.Fields() }
func (m *topHitsImpl) typedKey() string { return "top_hits" }

func newTopHits(cm *ctxMapping, p *params) (impl, error) {
	m := &topHitsImpl{}
	var err error
	if m.from, err = p.integer("from", 0); err != nil {
		return nil, err
	}
	if m.size, err = p.integer("size", 3); err != nil {
		return nil, err
	}
	if m.from < 0 || m.size < 0 {
		return nil, eserr.IllegalArgument("[from] and [size] of top_hits [%s] must not be negative", p.agg)
	}
	if m.from+m.size > 100 {
		return nil, eserr.IllegalArgument("Top hits result window is too large, the top hits aggregator [%s]'s from + size must be less than or equal to: [100] but was [%d]. This limit can be set by changing the [index.max_inner_result_window] index level setting.", p.agg, m.from+m.size)
	}
	sortFields := []query.SortField{{Field: "_score"}}
	if r := p.raw("sort"); r != nil {
		if sortFields, err = query.ParseSort(r); err != nil {
			return nil, err
		}
		m.sorted = true
	}
	qctx := cm.qctx
	if qctx == nil {
		qctx = &query.Context{Mapping: cm.m}
	}
	if m.order, m.decoders, err = query.CompileSort(sortFields, qctx); err != nil {
		return nil, err
	}
	for _, sf := range sortFields {
		m.desc = append(m.desc, sf.Desc())
	}
	m.byScore = len(sortFields) > 0 && sortFields[0].Field == "_score"
	m.index = qctx.Index
	m.storedSource = qctx.StoredSource
	if r := p.raw("_source"); r != nil {
		if m.source, err = query.ParseSourceFilter(r); err != nil {
			return nil, err
		}
	}
	for _, k := range []string{"version", "seq_no_primary_term", "explain", "track_scores"} {
		if v, err := p.boolean(k, false); err != nil {
			return nil, err
		} else if v && k != "track_scores" {
			return nil, eserr.IllegalArgument("[%s] is not supported in top_hits aggregation [%s]", k, p.agg)
		}
	}
	return m, nil
}

type hit struct {
	vals   [][]byte
	score  float64
	id     string
	source []byte
}

type topHitsColl struct {
	m        *topHitsImpl
	hits     []*hit
	total    int64
	maxScore float64
	scratch  [][]byte
}

func (m *topHitsImpl) newColl(*node, *env) coll {
	return &topHitsColl{m: m, maxScore: math.Inf(-1)}
}

// cmp orders two hits; equal hits keep collection (shard, index) order.
func (m *topHitsImpl) cmp(a, b [][]byte) int {
	for i := range a {
		c := bytes.Compare(a[i], b[i])
		if m.desc[i] {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func (c *topHitsColl) collect(d *search.DocumentMatch) {
	c.total++
	c.maxScore = math.Max(c.maxScore, d.Score)
	k := c.m.from + c.m.size
	if k == 0 {
		return
	}
	c.scratch = c.scratch[:0]
	for _, s := range c.m.order {
		c.scratch = append(c.scratch, s.Value(d))
	}
	if len(c.hits) == k && c.m.cmp(c.scratch, c.hits[k-1].vals) >= 0 {
		return
	}
	h := &hit{score: d.Score}
	for _, v := range c.scratch {
		h.vals = append(h.vals, append([]byte(nil), v...))
	}
	_ = d.VisitStoredFields(func(field string, value []byte) bool {
		switch {
		case field == "_id":
			h.id = string(value)
		case c.m.storedSource != nil:
			// A source that fails to decompress is left out, like one
			// that cannot be read.
			if src, ok, err := c.m.storedSource(field, value); ok && err == nil {
				h.source = src
			}
		case field == "_source":
			h.source = append([]byte(nil), value...)
		}
		return true
	})
	c.insert(h, k)
}

func (c *topHitsColl) insert(h *hit, k int) {
	i := len(c.hits)
	for i > 0 && c.m.cmp(h.vals, c.hits[i-1].vals) < 0 {
		i--
	}
	if i >= k {
		return
	}
	c.hits = append(c.hits, nil)
	copy(c.hits[i+1:], c.hits[i:])
	c.hits[i] = h
	if len(c.hits) > k {
		c.hits = c.hits[:k]
	}
}

func (c *topHitsColl) merge(o coll) {
	x := o.(*topHitsColl)
	c.total += x.total
	c.maxScore = math.Max(c.maxScore, x.maxScore)
	for _, h := range x.hits {
		c.insert(h, c.m.from+c.m.size)
	}
}

func (c *topHitsColl) result(*node, *reducer) (result, error) { return c, nil }

func (c *topHitsColl) metric(name string) (float64, bool) {
	if name == "_count" || name == "doc_count" {
		return float64(c.total), true
	}
	return 0, false
}

func (c *topHitsColl) write(w *jw, _ *node, _ *reducer) {
	w.key("hits")
	w.begin('{')
	w.key("total")
	w.begin('{')
	w.kv("value", c.total)
	w.kv("relation", "eq")
	w.end('}')
	if c.m.byScore && c.total > 0 {
		w.kv("max_score", c.maxScore)
	} else {
		w.kv("max_score", nil)
	}
	w.key("hits")
	w.begin('[')
	for i, h := range c.hits {
		if i < c.m.from {
			continue
		}
		w.begin('{')
		w.kv("_index", c.m.index)
		w.kv("_type", "_doc")
		w.kv("_id", h.id)
		if c.m.byScore {
			w.kv("_score", h.score)
		} else {
			w.kv("_score", nil)
		}
		if src, ok, err := c.m.source.Apply(h.source); err == nil && ok && src != nil {
			w.kv("_source", json.RawMessage(src))
		}
		if c.m.sorted {
			w.key("sort")
			w.begin('[')
			for j, v := range h.vals {
				w.value(c.m.decoders[j].Decode(v))
			}
			w.end(']')
		}
		w.end('}')
	}
	w.end(']')
	w.end('}')
}
