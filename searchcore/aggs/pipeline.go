package aggs

import (
	"encoding/json"
	"math"
	"sort"
	"strings"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// pipelineImpl is a pipeline aggregation: it has no collector and runs on
// reduced results. Sibling pipelines (parent == false) compute from a
// multi-bucket sibling; parent pipelines run inside a histogram.
type pipelineImpl struct {
	typ    string
	path   string
	parent bool
	gap    string // skip | insert_zeros
	unit   float64
	// decimal is the DecimalFormat "format" (nil: no value_as_string)
	decimal func(float64) string
	// bucket_sort
	sortBy []orderKey
	from   int
	size   int
}

func (pipelineImpl) isMetric() {}

func (m *pipelineImpl) fields() []string { return nil }

func (m *pipelineImpl) newColl(*node, *env) coll { return nil }

func (m *pipelineImpl) typedKey() string {
	switch m.typ {
	case "max_bucket", "min_bucket":
		return "bucket_metric_value"
	case "stats_bucket":
		return "stats_bucket"
	case "derivative":
		return "derivative"
	}
	return "simple_value"
}

func newPipeline(p *params, parent *def) (impl, error) {
	m := &pipelineImpl{typ: p.typ, gap: "skip", size: -1}
	var err error
	if m.path, err = p.str("buckets_path", ""); err != nil {
		return nil, err
	}
	if m.gap, err = p.str("gap_policy", "skip"); err != nil {
		return nil, err
	}
	if m.gap != "skip" && m.gap != "insert_zeros" && m.gap != "keep_values" {
		return nil, eserr.IllegalArgument("Invalid gap policy: [%s], accepted values: [insert_zeros, skip, keep_values]", m.gap)
	}
	if m.decimal, err = decimalParam(p); err != nil {
		return nil, err
	}
	switch p.typ {
	case "cumulative_sum", "derivative", "bucket_sort":
		m.parent = true
		if parent == nil || (parent.typ != "histogram" && parent.typ != "date_histogram" && parent.typ != "auto_date_histogram" && p.typ != "bucket_sort") {
			return nil, eserr.IllegalArgument("%s aggregation [%s] must have a histogram, date_histogram or auto_date_histogram as parent", p.typ, p.agg)
		}
		if p.typ == "bucket_sort" && parent.typ != "histogram" && parent.typ != "date_histogram" && parent.typ != "terms" && parent.typ != "significant_terms" && parent.typ != "range" && parent.typ != "date_range" {
			return nil, eserr.IllegalArgument("bucket_sort aggregation [%s] must be declared inside of another aggregation", p.agg)
		}
	}
	if p.typ == "derivative" {
		u, err := p.str("unit", "")
		if err != nil {
			return nil, err
		}
		if u != "" {
			ms, ok := parseFixed(u)
			if cu, isCal := calendarUnits[u]; isCal && !ok {
				ms = map[string]float64{"minute": 6e4, "hour": 36e5, "day": 864e5, "week": 7 * 864e5, "month": 30 * 864e5, "quarter": 90 * 864e5, "year": 365 * 864e5}[cu]
				ok = true
			}
			if !ok {
				return nil, eserr.IllegalArgument("failed to parse setting [unit] with value [%s] as a time value", u)
			}
			m.unit = ms
		}
	}
	if p.typ == "bucket_sort" {
		if r := p.raw("sort"); r != nil {
			var items []json.RawMessage
			if json.Unmarshal(r, &items) != nil {
				items = []json.RawMessage{r}
			}
			for _, it := range items {
				var s string
				if json.Unmarshal(it, &s) == nil {
					m.sortBy = append(m.sortBy, orderKey{path: s, desc: false})
					continue
				}
				ms, err := objectMembers(it)
				if err != nil || len(ms) != 1 {
					return nil, eserr.ParsingError("[bucket_sort] failed to parse field [sort]")
				}
				desc := false
				var o struct {
					Order string `json:"order"`
				}
				if json.Unmarshal(ms[0].val, &s) == nil {
					desc = strings.EqualFold(s, "desc")
				} else if json.Unmarshal(ms[0].val, &o) == nil {
					desc = strings.EqualFold(o.Order, "desc")
				}
				m.sortBy = append(m.sortBy, orderKey{path: ms[0].key, desc: desc})
			}
		}
		if m.from, err = p.integer("from", 0); err != nil {
			return nil, err
		}
		if m.size, err = p.integer("size", -1); err != nil {
			return nil, err
		}
		if m.from < 0 {
			return nil, eserr.IllegalArgument("[from] must be a non-negative integer: [%d]", m.from)
		}
		if p.has("size") && string(p.m["size"]) != "null" && m.size <= 0 {
			return nil, eserr.IllegalArgument("[size] must be a positive integer: [%d]", m.size)
		}
		if len(m.sortBy) == 0 && m.size < 0 && m.from == 0 {
			return nil, eserr.ValidationError("[" + p.agg + "] is configured to perform nothing. Please set either of [sort, size, from] to use bucket_sort")
		}
		return m, nil
	}
	if m.path == "" {
		return nil, eserr.IllegalArgument("Required one of fields [buckets_path], but none were specified.")
	}
	return m, nil
}

// value resolves buckets_path in bucket b under the gap policy, as ES's
// BucketHelpers.resolveBucketValue does (ok false = gap). A bucket without
// documents is a gap for skip and insert_zeros whatever its metric says
// (an empty bucket's sum is 0), except for the _count path; keep_values
// keeps a finite metric of an empty bucket.
func (m *pipelineImpl) value(nodes []*node, b *bucket) (float64, bool) {
	return gapValue(nodes, b, m.path, m.gap)
}

// gapValue resolves path in bucket b under gap policy gap (see value).
func gapValue(nodes []*node, b *bucket, path, gap string) (float64, bool) {
	v, ok := resolveBucketPath(nodes, b, path)
	missing := !ok || math.IsNaN(v) || math.IsInf(v, 0)
	empty := b.docCount == 0 && path != "_count"
	switch {
	case gap == "insert_zeros" && (missing || empty):
		return 0, true
	case missing, empty && gap != "keep_values":
		return 0, false
	}
	return v, true
}

// bucketSort is ES's BucketSortPipelineAggregator: without sort keys it
// only pages (from, size); with them, every sort value other than _key is
// resolved under the gap policy, a bucket whose every sort value is a gap
// is dropped (skip and keep_values), a gap sorts after any value whatever
// the order, and ties keep the parent's order (a stable sort).
func (m *pipelineImpl) bucketSort(nodes []*node, bs []*bucket) []*bucket {
	size := m.size
	if size < 0 {
		size = len(bs)
	}
	if m.from >= len(bs) {
		return []*bucket{}
	}
	if len(m.sortBy) == 0 {
		return bs[m.from:min(m.from+size, len(bs))]
	}
	type sortable struct {
		b    *bucket
		vals []float64
		ok   []bool
	}
	var kept []sortable
	for _, b := range bs {
		s := sortable{b: b, vals: make([]float64, len(m.sortBy)), ok: make([]bool, len(m.sortBy))}
		keep := false
		for i, o := range m.sortBy {
			if o.path == "_key" {
				s.ok[i] = true
			} else {
				s.vals[i], s.ok[i] = gapValue(nodes, b, o.path, m.gap)
			}
			keep = keep || s.ok[i]
		}
		if keep {
			kept = append(kept, s)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		for k, o := range m.sortBy {
			var c int
			switch {
			case !a.ok[k] && !b.ok[k]:
				continue
			case !a.ok[k]:
				return false
			case !b.ok[k]:
				return true
			case o.path == "_key":
				c = compareBucketKeys(a.b, b.b)
			default:
				c = cmpF(a.vals[k], b.vals[k])
			}
			if o.desc {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return false
	})
	out := []*bucket{}
	for i := m.from; i < min(m.from+size, len(kept)); i++ {
		out = append(out, kept[i].b)
	}
	return out
}

// compareBucketKeys orders two buckets by key as Java compares the keys ES
// returns from getKey: strings (terms on keywords, ranges) lexically,
// numbers and dates numerically.
func compareBucketKeys(a, b *bucket) int {
	as, aStr := a.key.(string)
	bs, bStr := b.key.(string)
	if aStr && bStr {
		return strings.Compare(as, bs)
	}
	return cmpF(bucketKeyNum(a), bucketKeyNum(b))
}

func bucketKeyNum(b *bucket) float64 {
	switch x := b.key.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return b.keyNum
}

// siblingPipelines computes the sibling pipelines of one level.
func (r *reducer) siblingPipelines(nodes []*node, res []result) error {
	for i, n := range nodes {
		pm, ok := n.impl.(*pipelineImpl)
		if !ok || pm.parent {
			continue
		}
		head, rest, _ := strings.Cut(pm.path, ">")
		var target multiBucket
		var tnode *node
		for j, s := range nodes {
			if s.d.name == head {
				target, _ = res[j].(multiBucket)
				tnode = s
			}
		}
		if target == nil || rest == "" {
			return eserr.IllegalArgument("No aggregation found for path [%s]", pm.path)
		}
		sub := &pipelineImpl{path: rest, gap: pm.gap}
		var vals []float64
		var keys []string
		for _, b := range target.bucketList() {
			v, ok := sub.value(tnode.subs, b)
			if !ok {
				continue
			}
			vals = append(vals, v)
			keys = append(keys, bucketKeyString(b))
		}
		res[i] = newBucketMetric(pm.typ, vals, keys)
		res[i].(*bucketMetric).decimal = pm.decimal
	}
	return nil
}

func bucketKeyString(b *bucket) string {
	if b.hasKeyStr {
		return b.keyString
	}
	switch x := b.key.(type) {
	case string:
		return x
	case float64:
		return javaDouble(x)
	case int64:
		return javaDouble(float64(x))
	}
	return ""
}

// bucketMetric is the result of avg/min/max/sum/stats_bucket.
type bucketMetric struct {
	typ           string
	count         int64
	sum, min, max float64
	keys          []string
	decimal       func(float64) string // "format", or nil
}

func newBucketMetric(typ string, vals []float64, keys []string) *bucketMetric {
	bm := &bucketMetric{typ: typ, min: math.Inf(1), max: math.Inf(-1)}
	for i, v := range vals {
		bm.count++
		bm.sum += v
		if v > bm.max {
			bm.max = v
		}
		if v < bm.min {
			bm.min = v
		}
		_ = i
	}
	for i, v := range vals {
		if typ == "max_bucket" && v == bm.max || typ == "min_bucket" && v == bm.min {
			bm.keys = append(bm.keys, keys[i])
		}
	}
	return bm
}

func (bm *bucketMetric) metric(name string) (float64, bool) {
	switch bm.typ {
	case "avg_bucket":
		return bm.sum / float64(bm.count), bm.count > 0 && (name == "" || name == "value")
	case "sum_bucket":
		return bm.sum, name == "" || name == "value"
	case "max_bucket":
		return bm.max, bm.count > 0 && (name == "" || name == "value")
	case "min_bucket":
		return bm.min, bm.count > 0 && (name == "" || name == "value")
	}
	switch name {
	case "count":
		return float64(bm.count), true
	case "sum":
		return bm.sum, true
	case "min":
		return bm.min, bm.count > 0
	case "max":
		return bm.max, bm.count > 0
	case "avg":
		return bm.sum / float64(bm.count), bm.count > 0
	}
	return 0, false
}

func (bm *bucketMetric) write(w *jw, _ *node, _ *reducer) {
	opt := func(k string, v float64, ok bool) {
		if ok {
			w.kv(k, v)
		} else {
			w.kv(k, nil)
		}
	}
	if bm.typ == "stats_bucket" {
		w.kv("count", bm.count)
		for _, k := range []string{"min", "max", "avg"} {
			v, ok := bm.metric(k)
			opt(k, v, ok)
		}
		w.kv("sum", bm.sum)
		if bm.decimal != nil && bm.count > 0 {
			for _, k := range []string{"min", "max", "avg", "sum"} {
				v, _ := bm.metric(k)
				w.kv(k+"_as_string", bm.decimal(v))
			}
		}
		return
	}
	v, ok := bm.metric("")
	opt("value", v, ok)
	if ok && bm.decimal != nil {
		w.kv("value_as_string", bm.decimal(v))
	}
	if bm.typ == "max_bucket" || bm.typ == "min_bucket" {
		w.key("keys")
		w.begin('[')
		for _, k := range bm.keys {
			w.value(k)
		}
		w.end(']')
	}
}

// simpleValue is the per-bucket result of cumulative_sum and derivative.
type simpleValue struct {
	v, norm float64
	ok      bool
	hasNorm bool
	decimal func(float64) string // "format", or nil
}

func (s *simpleValue) metric(name string) (float64, bool) {
	if name == "normalized_value" {
		return s.norm, s.hasNorm && s.ok
	}
	return s.v, s.ok && (name == "" || name == "value")
}

func (s *simpleValue) write(w *jw, _ *node, _ *reducer) {
	s.field(w, "value", s.v)
	if s.hasNorm {
		s.field(w, "normalized_value", s.norm)
	}
}

// field writes k (null when the value is a gap) and, with a format, its
// k_as_string.
func (s *simpleValue) field(w *jw, k string, v float64) {
	if !s.ok {
		w.kv(k, nil)
		return
	}
	w.kv(k, v)
	if s.decimal != nil {
		w.kv(k+"_as_string", s.decimal(v))
	}
}

// parentPipelines runs cumulative_sum, derivative and bucket_sort children
// of a multi-bucket result, in declaration order.
func (r *reducer) parentPipelines(n *node, res multiBucket) error {
	for i, s := range n.subs {
		pm, ok := s.impl.(*pipelineImpl)
		if !ok || !pm.parent {
			continue
		}
		bs := res.bucketList()
		switch pm.typ {
		case "cumulative_sum":
			sum := 0.0
			for _, b := range bs {
				if v, ok := pm.value(n.subs, b); ok {
					sum += v
				}
				b.subs[i] = &simpleValue{v: sum, ok: true, decimal: pm.decimal}
			}
		case "derivative":
			// As ES's DerivativePipelineAggregator: every bucket after the
			// first gets this value minus the previous one; a gap on
			// either side gives NaN, rendered "value": null.
			var prev, prevKey float64
			for j, b := range bs {
				v, ok := pm.value(n.subs, b)
				if !ok {
					v = math.NaN()
				}
				b.subs[i] = nil
				if j > 0 {
					d := v - prev
					sv := &simpleValue{v: d, ok: !math.IsNaN(d), decimal: pm.decimal}
					if pm.unit > 0 {
						sv.norm, sv.hasNorm = d/((b.keyNum-prevKey)/pm.unit), true
					}
					b.subs[i] = sv
				}
				prev, prevKey = v, b.keyNum
			}
		case "bucket_sort":
			res.setBuckets(pm.bucketSort(n.subs, bs))
		}
	}
	return nil
}
