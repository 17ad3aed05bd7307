package aggs

import (
	"encoding/json"
	"math"

	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// rangeImpl is range and date_range.
type rangeImpl struct {
	date   bool
	src    *source
	ranges []rng
	keyed  bool
}

type rng struct {
	key      string
	from, to float64 // -Inf / +Inf when open
}

func (m *rangeImpl) fields() []string { return m.src.fields() }

func (m *rangeImpl) typedKey() string {
	if m.date {
		return "date_range"
	}
	return "range"
}

func newRange(cm *ctxMapping, p *params) (impl, error) {
	src, err := newSource(cm, p, true)
	if err != nil {
		return nil, err
	}
	m := &rangeImpl{date: p.typ == "date_range", src: src}
	if m.date && !src.date {
		src.date = true
	}
	if m.keyed, err = p.boolean("keyed", false); err != nil {
		return nil, err
	}
	if _, err := p.str("time_zone", ""); err != nil {
		return nil, err
	}
	raw := p.raw("ranges")
	var items []json.RawMessage
	if raw == nil || json.Unmarshal(raw, &items) != nil {
		return nil, eserr.IllegalArgument("No [ranges] specified for the [%s] aggregation", p.agg)
	}
	if len(items) == 0 {
		return nil, eserr.IllegalArgument("No [ranges] specified for the [%s] aggregation", p.agg)
	}
	for _, it := range items {
		sub, err := subParams(p, "ranges", it)
		if err != nil {
			return nil, err
		}
		r := rng{from: math.Inf(-1), to: math.Inf(1)}
		if r.key, err = sub.str("key", ""); err != nil {
			return nil, err
		}
		for _, e := range []struct {
			k string
			v *float64
		}{{"from", &r.from}, {"to", &r.to}} {
			if !sub.has(e.k) || string(sub.raw(e.k)) == "null" {
				continue
			}
			if m.date {
				s, err := sub.str(e.k, "")
				if err != nil {
					return nil, err
				}
				ms, err := parseDateMath(s, src.format, cm.now())
				if err != nil {
					return nil, err
				}
				*e.v = ms
			} else if *e.v, _, err = sub.num(e.k, 0); err != nil {
				return nil, err
			}
		}
		if err := sub.unknown(&def{typ: "range", body: mustMembers(it)}); err != nil {
			return nil, err
		}
		m.ranges = append(m.ranges, r)
	}
	return m, nil
}

func mustMembers(r json.RawMessage) []member { ms, _ := objectMembers(r); return ms }

type rangeColl struct {
	m      *rangeImpl
	counts []int64
	subs   [][]coll
	buf    []float64
}

func (m *rangeImpl) newColl(n *node, e *env) coll {
	c := &rangeColl{m: m, counts: make([]int64, len(m.ranges)), subs: make([][]coll, len(m.ranges))}
	for i := range m.ranges {
		c.subs[i] = newColls(n.subs, e)
	}
	return c
}

func (c *rangeColl) collect(d *search.DocumentMatch) {
	c.buf = c.m.src.numbers(d, c.buf)
	for i, r := range c.m.ranges {
		for _, v := range c.buf {
			if v >= r.from && v < r.to {
				c.counts[i]++
				collectAll(c.subs[i], d)
				break
			}
		}
	}
}

func (c *rangeColl) merge(o coll) {
	x := o.(*rangeColl)
	for i := range c.counts {
		c.counts[i] += x.counts[i]
		mergeAll(c.subs[i], x.subs[i])
	}
}

func (c *rangeColl) bound(v float64) (any, string) {
	if c.m.src.formatted() {
		return v, c.m.src.formatValue(v)
	}
	return v, javaDouble(v)
}

func (c *rangeColl) result(n *node, r *reducer) (result, error) {
	if err := r.addBuckets(len(c.m.ranges)); err != nil {
		return nil, err
	}
	out := make([]*bucket, len(c.m.ranges))
	for i, rg := range c.m.ranges {
		b := &bucket{docCount: c.counts[i], colls: c.subs[i], keyNum: rg.from}
		fromS, toS := "*", "*"
		if !math.IsInf(rg.from, 0) {
			v, s := c.bound(rg.from)
			fromS = s
			b.pre = append(b.pre, kvp{"from", v})
			if c.m.src.formatted() {
				b.pre = append(b.pre, kvp{"from_as_string", s})
			}
		}
		if !math.IsInf(rg.to, 0) {
			v, s := c.bound(rg.to)
			toS = s
			b.pre = append(b.pre, kvp{"to", v})
			if c.m.src.formatted() {
				b.pre = append(b.pre, kvp{"to_as_string", s})
			}
		}
		b.key = rg.key
		if rg.key == "" {
			b.key = fromS + "-" + toS
		}
		subs, err := r.subResults(n.subs, b.colls)
		if err != nil {
			return nil, err
		}
		b.subs = subs
		out[i] = b
	}
	res := &rangeResult{m: c.m, buckets: out}
	if err := r.parentPipelines(n, res); err != nil {
		return nil, err
	}
	return res, nil
}

type rangeResult struct {
	m       *rangeImpl
	buckets []*bucket
}

func (h *rangeResult) bucketList() []*bucket         { return h.buckets }
func (h *rangeResult) setBuckets(bs []*bucket)       { h.buckets = bs }
func (h *rangeResult) metric(string) (float64, bool) { return 0, false }

func (h *rangeResult) write(w *jw, n *node, r *reducer) {
	if !h.m.keyed {
		writeBuckets(w, n, r, h.buckets, false)
		return
	}
	// Keyed range buckets are named by their key and do not repeat it.
	w.key("buckets")
	w.begin('{')
	for _, b := range h.buckets {
		w.key(b.key.(string))
		r.writeBucket(w, n, b, false)
	}
	w.end('}')
}

// missingImpl is the missing aggregation (single bucket).
type missingImpl struct{ src *source }

func (m *missingImpl) fields() []string { return m.src.fields() }
func (m *missingImpl) typedKey() string { return "missing" }

func newMissing(cm *ctxMapping, p *params) (impl, error) {
	src, err := newSource(cm, p, false)
	if err != nil {
		return nil, err
	}
	return &missingImpl{src: src}, nil
}

type missingColl struct {
	m     *missingImpl
	count int64
	subs  []coll
}

func (m *missingImpl) newColl(n *node, e *env) coll {
	return &missingColl{m: m, subs: newColls(n.subs, e)}
}

func (c *missingColl) collect(d *search.DocumentMatch) {
	if !c.m.src.has(d) {
		c.count++
		collectAll(c.subs, d)
	}
}

func (c *missingColl) merge(o coll) {
	x := o.(*missingColl)
	c.count += x.count
	mergeAll(c.subs, x.subs)
}

func (c *missingColl) result(n *node, r *reducer) (result, error) {
	subs, err := r.subResults(n.subs, c.subs)
	if err != nil {
		return nil, err
	}
	return &singleBucket{b: &bucket{docCount: c.count, subs: subs}}, nil
}
