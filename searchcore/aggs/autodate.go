package aggs

import (
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// autoRounding is one level of ES's auto_date_histogram rounding ladder.
type autoRounding struct {
	unit   string // second minute hour day month year
	abbr   string
	inners []int
}

var autoRoundings = []autoRounding{
	{"second", "s", []int{1, 5, 10, 30}},
	{"minute", "m", []int{1, 5, 10, 30}},
	{"hour", "h", []int{1, 3, 12}},
	{"day", "d", []int{1, 7}},
	{"month", "M", []int{1, 3}},
	{"year", "y", []int{1, 5, 10, 20, 50, 100}},
}

func (a autoRounding) maxInner() int { return a.inners[len(a.inners)-1] }

// autoDateImpl is auto_date_histogram: the finest rounding (and inner
// interval) giving at most "buckets" buckets, as ES reduces it.
type autoDateImpl struct {
	src      *source
	target   int
	minIdx   int
	loc      *time.Location
	dateHist *histImpl // for key formatting
}

func (m *autoDateImpl) fields() []string { return m.src.fields() }
func (m *autoDateImpl) typedKey() string { return "auto_date_histogram" }

func newAutoDate(cm *ctxMapping, p *params) (impl, error) {
	src, err := newSource(cm, p, true)
	if err != nil {
		return nil, err
	}
	src.date = true
	m := &autoDateImpl{src: src, loc: time.UTC}
	if m.target, err = p.integer("buckets", 10); err != nil {
		return nil, err
	}
	if m.target <= 0 {
		return nil, eserr.IllegalArgument("[buckets] must be greater than 0. Found [%d] in [%s]", m.target, p.agg)
	}
	tz, err := p.str("time_zone", "")
	if err != nil {
		return nil, err
	}
	if tz != "" {
		if m.loc, err = parseZone(tz); err != nil {
			return nil, err
		}
	}
	mi, err := p.str("minimum_interval", "")
	if err != nil {
		return nil, err
	}
	if mi != "" {
		idx := map[string]int{"second": 0, "minute": 1, "hour": 2, "day": 3, "month": 4, "year": 5}
		v, ok := idx[mi]
		if !ok {
			return nil, eserr.IllegalArgument("minimum_interval must be one of [year, month, day, hour, minute, second]")
		}
		m.minIdx = v
	}
	m.dateHist = &histImpl{date: true, src: src, loc: m.loc}
	return m, nil
}

// round truncates epoch ms to the unit of rounding idx in the time zone.
func (m *autoDateImpl) round(ms float64, idx int) int64 {
	t := time.UnixMilli(int64(math.Floor(ms))).In(m.loc)
	y, mo, d := t.Date()
	var r time.Time
	switch autoRoundings[idx].unit {
	case "second":
		r = time.Date(y, mo, d, t.Hour(), t.Minute(), t.Second(), 0, m.loc)
	case "minute":
		r = time.Date(y, mo, d, t.Hour(), t.Minute(), 0, 0, m.loc)
	case "hour":
		r = time.Date(y, mo, d, t.Hour(), 0, 0, 0, m.loc)
	case "day":
		r = time.Date(y, mo, d, 0, 0, 0, 0, m.loc)
	case "month":
		r = time.Date(y, mo, 1, 0, 0, 0, 0, m.loc)
	default:
		r = time.Date(y, 1, 1, 0, 0, 0, 0, m.loc)
	}
	return r.UnixMilli()
}

func (m *autoDateImpl) next(key int64, idx int) int64 {
	t := time.UnixMilli(key).In(m.loc)
	switch autoRoundings[idx].unit {
	case "second":
		t = t.Add(time.Second)
	case "minute":
		t = t.Add(time.Minute)
	case "hour":
		t = t.Add(time.Hour)
	case "day":
		t = t.AddDate(0, 0, 1)
	case "month":
		t = t.AddDate(0, 1, 0)
	default:
		t = t.AddDate(1, 0, 0)
	}
	return m.round(float64(t.UnixMilli()), idx)
}

type autoDateColl struct {
	m   *autoDateImpl
	n   *node
	e   *env
	idx int
	bs  map[int64]*tbucket
	buf []float64
}

func (m *autoDateImpl) newColl(n *node, e *env) coll {
	return &autoDateColl{m: m, n: n, e: e, idx: m.minIdx, bs: map[int64]*tbucket{}}
}

func (c *autoDateColl) collect(d *search.DocumentMatch) {
	c.buf = c.m.src.numbers(d, c.buf)
	last := int64(math.MinInt64)
	for _, v := range c.buf {
		k := c.m.round(v, c.idx)
		if k == last {
			continue
		}
		last = k
		b := c.bs[k]
		if b == nil {
			b = &tbucket{subs: newColls(c.n.subs, c.e)}
			c.bs[k] = b
		}
		b.count++
		collectAll(b.subs, d)
	}
	// like an ES shard, coarsen the rounding when too many buckets exist
	for len(c.bs) > c.m.target*autoRoundings[c.idx].maxInner() && c.idx < len(autoRoundings)-1 {
		c.rerounds(c.idx + 1)
	}
}

// rerounds re-keys the buckets at rounding idx, merging collisions.
func (c *autoDateColl) rerounds(idx int) {
	c.idx = idx
	nb := make(map[int64]*tbucket, len(c.bs))
	for k, b := range c.bs {
		nk := c.m.round(float64(k), idx)
		if a := nb[nk]; a != nil {
			a.count += b.count
			mergeAll(a.subs, b.subs)
		} else {
			nb[nk] = b
		}
	}
	c.bs = nb
}

func (c *autoDateColl) merge(o coll) {
	x := o.(*autoDateColl)
	if x.idx > c.idx {
		c.rerounds(x.idx)
	} else if x.idx < c.idx {
		x.rerounds(c.idx)
	}
	for k, b := range x.bs {
		if a := c.bs[k]; a != nil {
			a.count += b.count
			mergeAll(a.subs, b.subs)
		} else {
			c.bs[k] = b
		}
	}
}

func (c *autoDateColl) result(n *node, r *reducer) (result, error) {
	m := c.m
	for len(c.bs) > m.target*autoRoundings[c.idx].maxInner() && c.idx < len(autoRoundings)-1 {
		c.rerounds(c.idx + 1)
	}
	type kb struct {
		key int64
		b   *tbucket
	}
	build := func() []kb {
		var out []kb
		for k, b := range c.bs {
			out = append(out, kb{k, b})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
		// add empty buckets between the first and the last
		if len(out) > 1 {
			var filled []kb
			for i, e := range out {
				filled = append(filled, e)
				if i+1 < len(out) {
					for k := m.next(e.key, c.idx); k < out[i+1].key && len(filled) <= r.maxBuckets; k = m.next(k, c.idx) {
						filled = append(filled, kb{k, nil})
					}
				}
			}
			out = filled
		}
		return out
	}
	list := build()
	for len(list) > m.target*autoRoundings[c.idx].maxInner() && c.idx < len(autoRoundings)-1 {
		c.rerounds(c.idx + 1)
		list = build()
	}
	inner := 1
	if len(list) > m.target {
		for _, iv := range autoRoundings[c.idx].inners {
			res := (len(list) + iv - 1) / iv
			if res <= m.target {
				inner = iv
				break
			}
		}
	}
	var out []*bucket
	for i := 0; i < len(list); i += inner {
		b := &bucket{keyNum: float64(list[i].key), colls: newColls(n.subs, nil)}
		for _, e := range list[i:min(i+inner, len(list))] {
			if e.b != nil {
				b.docCount += e.b.count
				mergeAll(b.colls, e.b.subs)
			}
		}
		out = append(out, b)
	}
	if err := r.addEach(len(out)); err != nil {
		return nil, err
	}
	for _, b := range out {
		subs, err := r.subResults(n.subs, b.colls)
		if err != nil {
			return nil, err
		}
		b.subs = subs
		b.key = int64(b.keyNum)
		b.keyString, b.hasKeyStr, b.strFirst = m.dateHist.formatKey(b.keyNum), true, true
	}
	res := &autoDateResult{buckets: out, interval: strconv.Itoa(inner) + autoRoundings[c.idx].abbr}
	return res, r.parentPipelines(n, res)
}

type autoDateResult struct {
	buckets  []*bucket
	interval string
}

func (a *autoDateResult) bucketList() []*bucket         { return a.buckets }
func (a *autoDateResult) setBuckets(bs []*bucket)       { a.buckets = bs }
func (a *autoDateResult) metric(string) (float64, bool) { return 0, false }

func (a *autoDateResult) write(w *jw, n *node, r *reducer) {
	writeBuckets(w, n, r, a.buckets, false)
	w.kv("interval", a.interval)
}
