package aggs

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"sort"
	"strconv"

	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// statsImpl covers min, max, sum, avg, value_count, stats, extended_stats.
type statsImpl struct {
	typ   string
	src   *source
	sigma float64 // extended_stats std_deviation_bounds multiplier
}

func (statsImpl) isMetric() {}

func (m *statsImpl) fields() []string { return m.src.fields() }

func (m *statsImpl) typedKey() string { return m.typ }

func (m *statsImpl) newColl(*node, *env) coll {
	return &statsColl{m: m, min: math.Inf(1), max: math.Inf(-1)}
}

func newStats(cm *ctxMapping, p *params) (impl, error) {
	src, err := newSource(cm, p, p.typ != "value_count")
	if err != nil {
		return nil, err
	}
	m := &statsImpl{typ: p.typ, src: src, sigma: 2}
	if p.typ == "extended_stats" {
		if m.sigma, _, err = p.num("sigma", 2); err != nil {
			return nil, err
		}
		if m.sigma < 0 {
			return nil, eserr.IllegalArgument("[sigma] must be greater than or equal to 0. Found [%s] in [%s]", javaDouble(m.sigma), p.agg)
		}
	}
	return m, nil
}

// statsColl accumulates count, Kahan-compensated sums, min and max.
type statsColl struct {
	m             *statsImpl
	count         int64
	sum, comp     float64
	sumSq, compSq float64
	min, max      float64
	buf           []float64
}

func kahan(sum, comp, v float64) (float64, float64) {
	if math.IsInf(v, 0) || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return sum + v, comp
	}
	y := v - comp
	t := sum + y
	return t, (t - sum) - y
}

func (c *statsColl) add(v float64) {
	c.count++
	c.sum, c.comp = kahan(c.sum, c.comp, v)
	c.sumSq, c.compSq = kahan(c.sumSq, c.compSq, v*v)
	c.min = math.Min(c.min, v)
	c.max = math.Max(c.max, v)
}

func (c *statsColl) collect(d *search.DocumentMatch) {
	c.collectValues(d.DocValues(c.m.src.field))
}

// collectNumbers adds one document whose decoded numeric values are vs (a
// numeric field's column; see Columns).
func (c *statsColl) collectNumbers(vs []float64) {
	if len(vs) == 0 && c.m.src.hasMissing {
		c.add(c.m.src.missingNum)
		return
	}
	for _, v := range vs {
		c.add(v)
	}
}

// collectValues adds one document whose doc values of the field are vals.
func (c *statsColl) collectValues(vals [][]byte) {
	if c.m.src.kind == kindKeyword {
		c.count += int64(len(c.m.src.termsOf(vals)))
		return
	}
	c.buf = c.m.src.numbersOf(vals, c.buf)
	for _, v := range c.buf {
		c.add(v)
	}
}

func (c *statsColl) merge(o coll) {
	x := o.(*statsColl)
	c.count += x.count
	c.sum, c.comp = kahan(c.sum, c.comp, x.sum)
	c.sumSq, c.compSq = kahan(c.sumSq, c.compSq, x.sumSq)
	c.min = math.Min(c.min, x.min)
	c.max = math.Max(c.max, x.max)
}

func (c *statsColl) result(*node, *reducer) (result, error) { return c, nil }

func (c *statsColl) avg() float64 { return c.sum / float64(c.count) }

func (c *statsColl) variance(sample bool) float64 {
	n := float64(c.count)
	if sample {
		n--
	}
	v := (c.sumSq - c.sum*c.sum/float64(c.count)) / n
	if v < 0 {
		return 0
	}
	return v
}

func (c *statsColl) metric(name string) (float64, bool) {
	switch c.m.typ {
	case "min":
		return c.min, (name == "" || name == "value") && c.count > 0
	case "max":
		return c.max, (name == "" || name == "value") && c.count > 0
	case "sum":
		return c.sum, name == "" || name == "value"
	case "avg":
		return c.avg(), (name == "" || name == "value") && c.count > 0
	case "value_count":
		return float64(c.count), name == "" || name == "value"
	}
	switch name {
	case "count":
		return float64(c.count), true
	case "sum":
		return c.sum, true
	}
	switch name {
	case "min":
		return c.min, c.count > 0 // +Inf when empty, as ES orders it
	case "max":
		return c.max, c.count > 0 // -Inf when empty
	}
	if c.count == 0 {
		return 0, false
	}
	switch name {
	case "avg":
		return c.avg(), true
	}
	if c.m.typ != "extended_stats" {
		return 0, false
	}
	switch name {
	case "sum_of_squares":
		return c.sumSq, true
	case "variance", "variance_population":
		return c.variance(false), true
	case "variance_sampling":
		return c.variance(true), true
	case "std_deviation", "std_deviation_population":
		return math.Sqrt(c.variance(false)), true
	case "std_deviation_sampling":
		return math.Sqrt(c.variance(true)), true
	}
	return 0, false
}

func (c *statsColl) write(w *jw, _ *node, _ *reducer) {
	src := c.m.src
	switch c.m.typ {
	case "min", "max", "avg", "sum":
		v, ok := c.metric("")
		if !ok {
			w.kv("value", nil)
			return
		}
		if src.formatted() {
			w.kv("value", v)
			w.kv("value_as_string", src.formatValue(v))
			return
		}
		w.kv("value", v)
		return
	case "value_count":
		w.kv("value", c.count)
		return
	}
	w.kv("count", c.count)
	mn, ok := c.metric("min")
	writeOpt(w, "min", mn, ok)
	mx, ok := c.metric("max")
	writeOpt(w, "max", mx, ok)
	av, ok := c.metric("avg")
	writeOpt(w, "avg", av, ok)
	w.kv("sum", c.sum)
	// As ES's InternalStats and InternalExtendedStats: the four stats
	// *_as_string members follow sum; extended_stats adds its members, then
	// (with a format and documents) each of them formatted the same way.
	formatted := src.formatted() && c.count > 0
	if formatted {
		w.kv("min_as_string", src.formatValue(mn))
		w.kv("max_as_string", src.formatValue(mx))
		w.kv("avg_as_string", src.formatValue(av))
		w.kv("sum_as_string", src.formatValue(c.sum))
	}
	if c.m.typ != "extended_stats" {
		return
	}
	names := []string{"sum_of_squares", "variance", "variance_population", "variance_sampling",
		"std_deviation", "std_deviation_population", "std_deviation_sampling"}
	bounds := []string{"upper", "lower", "upper_population", "lower_population", "upper_sampling", "lower_sampling"}
	vals := map[string]float64{}
	for _, k := range names {
		v, ok := c.metric(k)
		if c.count == 1 && (k == "variance_sampling" || k == "std_deviation_sampling") {
			v, ok = math.NaN(), true
		}
		vals[k] = v
		writeOpt(w, k, v, ok)
	}
	sd, sdp, sds := vals["std_deviation"], vals["std_deviation_population"], vals["std_deviation_sampling"]
	bv := []float64{av + sd*c.m.sigma, av - sd*c.m.sigma, av + sdp*c.m.sigma, av - sdp*c.m.sigma, av + sds*c.m.sigma, av - sds*c.m.sigma}
	w.key("std_deviation_bounds")
	w.begin('{')
	for i, k := range bounds {
		writeOpt(w, k, bv[i], c.count > 0)
	}
	w.end('}')
	if !formatted {
		return
	}
	for _, k := range names {
		w.kv(k+"_as_string", src.formatValue(vals[k]))
	}
	w.key("std_deviation_bounds_as_string")
	w.begin('{')
	for i, k := range bounds {
		w.kv(k, src.formatValue(bv[i]))
	}
	w.end('}')
}

// writeOpt writes k: v, or k: null when the value does not exist.
func writeOpt(w *jw, k string, v float64, ok bool) {
	if !ok {
		w.kv(k, nil)
		return
	}
	w.kv(k, v)
}

// cardinalityImpl counts distinct values. Per shard it keeps the set of
// 64-bit value hashes, so shard partials merge exactly (the count is exact
// up to hash collisions, where ES's HyperLogLog++ is exact below
// precision_threshold and approximate above).
type cardinalityImpl struct {
	src       *source
	threshold int
}

func (cardinalityImpl) isMetric() {}

func (m *cardinalityImpl) fields() []string { return m.src.fields() }

func (m *cardinalityImpl) typedKey() string { return "cardinality" }

func (m *cardinalityImpl) newColl(*node, *env) coll {
	return &cardColl{m: m, set: map[uint64]struct{}{}}
}

func newCardinality(cm *ctxMapping, p *params) (impl, error) {
	src, err := newSource(cm, p, false)
	if err != nil {
		return nil, err
	}
	t, err := p.integer("precision_threshold", 3000)
	if err != nil {
		return nil, err
	}
	if t < 0 {
		return nil, eserr.IllegalArgument("[precisionThreshold] must be greater than or equal to 0. Found [%d] in [%s]", t, p.agg)
	}
	if _, err := p.str("execution_hint", ""); err != nil {
		return nil, err
	}
	return &cardinalityImpl{src: src, threshold: t}, nil
}

var hashSeed = maphash.MakeSeed()

type cardColl struct {
	m   *cardinalityImpl
	set map[uint64]struct{}
	buf []float64
}

func (c *cardColl) collect(d *search.DocumentMatch) {
	if c.m.src.kind == kindKeyword || (c.m.src.kind == kindNone && c.m.src.hasMissing) {
		for _, t := range c.m.src.terms(d) {
			c.set[maphash.Bytes(hashSeed, t)] = struct{}{}
		}
		return
	}
	c.buf = c.m.src.numbers(d, c.buf)
	var b [8]byte
	for _, v := range c.buf {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		c.set[maphash.Bytes(hashSeed, b[:])] = struct{}{}
	}
}

func (c *cardColl) merge(o coll) {
	for h := range o.(*cardColl).set {
		c.set[h] = struct{}{}
	}
}

func (c *cardColl) result(*node, *reducer) (result, error) { return c, nil }

func (c *cardColl) metric(name string) (float64, bool) {
	return float64(len(c.set)), name == "" || name == "value"
}

func (c *cardColl) write(w *jw, _ *node, _ *reducer) { w.kv("value", int64(len(c.set))) }

// valuesImpl covers aggregations that need every value: percentiles,
// percentile_ranks and median_absolute_deviation. Values are kept exactly
// per shard and merged by concatenation, so results are exact quantiles.
type valuesImpl struct {
	typ      string
	src      *source
	percents []float64 // percentiles / percentile_ranks "values"
	keyed    bool
}

func (valuesImpl) isMetric() {}

func (m *valuesImpl) fields() []string { return m.src.fields() }

func (m *valuesImpl) typedKey() string {
	switch m.typ {
	case "percentiles":
		return "tdigest_percentiles"
	case "percentile_ranks":
		return "tdigest_percentile_ranks"
	}
	return m.typ
}

func (m *valuesImpl) newColl(*node, *env) coll { return &valuesColl{m: m} }

func newValues(cm *ctxMapping, p *params) (impl, error) {
	src, err := newSource(cm, p, true)
	if err != nil {
		return nil, err
	}
	m := &valuesImpl{typ: p.typ, src: src}
	if m.keyed, err = p.boolean("keyed", true); err != nil {
		return nil, err
	}
	if _, _, err := p.num("compression", 100); err != nil {
		return nil, err
	}
	if p.has("hdr") {
		return nil, eserr.IllegalArgument("[hdr] percentiles are not supported for aggregation [%s]; use the default tdigest", p.agg)
	}
	p.raw("tdigest")
	key := "percents"
	switch p.typ {
	case "percentiles":
		m.percents = []float64{1, 5, 25, 50, 75, 95, 99}
	case "percentile_ranks":
		key = "values"
		if !p.has("values") {
			return nil, eserr.IllegalArgument("[values] must not be null: [%s]", p.agg)
		}
	default:
		return m, nil
	}
	if r := p.raw(key); r != nil {
		var vs []float64
		if err := jsonUnmarshal(r, &vs); err != nil {
			return nil, eserr.ParsingError("[%s] failed to parse field [%s]", p.typ, key)
		}
		if len(vs) == 0 && p.typ == "percentiles" {
			return nil, eserr.IllegalArgument("[percents] must not be empty: [%s]", p.agg)
		}
		for _, v := range vs {
			if p.typ == "percentiles" && (v < 0 || v > 100) {
				return nil, eserr.IllegalArgument("percent must be in [0,100], got [%s]: [%s]", javaDouble(v), p.agg)
			}
		}
		m.percents = vs
	}
	return m, nil
}

type valuesColl struct {
	m    *valuesImpl
	vals []float64
	buf  []float64
}

func (c *valuesColl) collect(d *search.DocumentMatch) {
	c.buf = c.m.src.numbers(d, c.buf)
	c.vals = append(c.vals, c.buf...)
}

func (c *valuesColl) merge(o coll) { c.vals = append(c.vals, o.(*valuesColl).vals...) }

func (c *valuesColl) result(*node, *reducer) (result, error) {
	sort.Float64s(c.vals)
	return c, nil
}

// quantile is the linearly interpolated quantile q (0..1) of sorted vals,
// with the t-digest convention used by ES for exact singleton centroids.
func quantile(vals []float64, q float64) float64 {
	n := len(vals)
	if n == 0 {
		return math.NaN()
	}
	if n == 1 || q <= 0 {
		return vals[0]
	}
	if q >= 1 {
		return vals[n-1]
	}
	idx := q * float64(n)
	// centroid i covers weight [i, i+1), its center at i+0.5
	if idx <= 0.5 {
		return vals[0]
	}
	if idx >= float64(n)-0.5 {
		return vals[n-1]
	}
	lo := int(math.Floor(idx - 0.5))
	frac := idx - 0.5 - float64(lo)
	return vals[lo] + frac*(vals[lo+1]-vals[lo])
}

// rank is the percentage of values <= v (t-digest cdf for singletons).
func rank(vals []float64, v float64) float64 {
	n := len(vals)
	if n == 0 {
		return math.NaN()
	}
	if v < vals[0] {
		return 0
	}
	if v >= vals[n-1] {
		return 100
	}
	below := sort.SearchFloat64s(vals, v)
	eq := sort.SearchFloat64s(vals, math.Nextafter(v, math.Inf(1))) - below
	if eq > 0 {
		return (float64(below) + float64(eq)/2) / float64(n) * 100
	}
	// interpolate between the neighbouring centroids
	a, b := vals[below-1], vals[below]
	return (float64(below) - 0.5 + (v-a)/(b-a)) / float64(n) * 100
}

func (c *valuesColl) mad() float64 {
	if len(c.vals) == 0 {
		return math.NaN()
	}
	med := quantile(c.vals, 0.5)
	dev := make([]float64, len(c.vals))
	for i, v := range c.vals {
		dev[i] = math.Abs(v - med)
	}
	sort.Float64s(dev)
	return quantile(dev, 0.5)
}

func (c *valuesColl) metric(name string) (float64, bool) {
	switch c.m.typ {
	case "median_absolute_deviation":
		v := c.mad()
		return v, !math.IsNaN(v) && (name == "" || name == "value")
	}
	p, err := strconv.ParseFloat(name, 64)
	if err != nil {
		return 0, false
	}
	var v float64
	if c.m.typ == "percentiles" {
		v = quantile(c.vals, p/100)
	} else {
		v = rank(c.vals, p)
	}
	return v, !math.IsNaN(v)
}

func (c *valuesColl) write(w *jw, _ *node, _ *reducer) {
	if c.m.typ == "median_absolute_deviation" {
		v, ok := c.metric("")
		if !ok {
			w.kv("value", nil)
			return
		}
		w.kv("value", v)
		return
	}
	key := func(p float64) string { return javaDouble(p) }
	val := func(p float64) float64 {
		if c.m.typ == "percentiles" {
			return quantile(c.vals, p/100)
		}
		return rank(c.vals, p)
	}
	w.key("values")
	if c.m.keyed {
		w.begin('{')
		for _, p := range c.m.percents {
			v := val(p)
			if math.IsNaN(v) {
				w.kv(key(p), nil)
				continue
			}
			w.kv(key(p), v)
			if c.m.src.formatted() {
				w.kv(key(p)+"_as_string", c.m.src.formatValue(v))
			}
		}
		w.end('}')
		return
	}
	w.begin('[')
	for _, p := range c.m.percents {
		w.begin('{')
		w.kv("key", p)
		v := val(p)
		if math.IsNaN(v) {
			w.kv("value", nil)
		} else {
			w.kv("value", v)
			if c.m.src.formatted() {
				w.kv("value_as_string", c.m.src.formatValue(v))
			}
		}
		w.end('}')
	}
	w.end(']')
}

// weightedAvgImpl is weighted_avg: sum(v*w)/sum(w) over documents with a
// single weight value.
type weightedAvgImpl struct {
	value, weight *source
	decimal       func(float64) string // "format", or nil
}

func (weightedAvgImpl) isMetric() {}

func (m *weightedAvgImpl) fields() []string {
	return append(m.value.fields(), m.weight.fields()...)
}

func (m *weightedAvgImpl) typedKey() string { return "weighted_avg" }

func (m *weightedAvgImpl) newColl(*node, *env) coll { return &wavgColl{m: m} }

func newWeightedAvg(cm *ctxMapping, p *params) (impl, error) {
	var srcs [2]*source
	for i, k := range []string{"value", "weight"} {
		r := p.raw(k)
		if r == nil {
			return nil, eserr.IllegalArgument("Required one of fields [%s], but none were specified.", k)
		}
		sub, err := subParams(p, k, r)
		if err != nil {
			return nil, err
		}
		if srcs[i], err = newSource(cm, sub, true); err != nil {
			return nil, err
		}
	}
	decimal, err := decimalParam(p)
	if err != nil {
		return nil, err
	}
	p.raw("value_type")
	return &weightedAvgImpl{value: srcs[0], weight: srcs[1], decimal: decimal}, nil
}

func subParams(p *params, k string, r []byte) (*params, error) {
	ms, err := objectMembers(r)
	if err != nil {
		return nil, eserr.ParsingError("[%s] failed to parse field [%s]", p.typ, k)
	}
	return newParams(&def{name: p.agg, typ: p.typ, body: ms}), nil
}

type wavgColl struct {
	m                    *weightedAvgImpl
	sum, comp, wsum, wcp float64
	vb, wb               []float64
}

func (c *wavgColl) collect(d *search.DocumentMatch) {
	c.wb = c.m.weight.numbers(d, c.wb)
	if len(c.wb) == 0 {
		return
	}
	wt := c.wb[0]
	c.vb = c.m.value.numbers(d, c.vb)
	for _, v := range c.vb {
		c.sum, c.comp = kahan(c.sum, c.comp, v*wt)
		c.wsum, c.wcp = kahan(c.wsum, c.wcp, wt)
	}
}

func (c *wavgColl) merge(o coll) {
	x := o.(*wavgColl)
	c.sum, c.comp = kahan(c.sum, c.comp, x.sum)
	c.wsum, c.wcp = kahan(c.wsum, c.wcp, x.wsum)
}

func (c *wavgColl) result(*node, *reducer) (result, error) { return c, nil }

func (c *wavgColl) metric(name string) (float64, bool) {
	return c.sum / c.wsum, c.wsum != 0 && (name == "" || name == "value")
}

func (c *wavgColl) write(w *jw, _ *node, _ *reducer) {
	v, ok := c.metric("")
	if !ok {
		w.kv("value", nil)
		return
	}
	w.kv("value", v)
	if c.m.decimal != nil {
		w.kv("value_as_string", c.m.decimal(v))
	}
}
