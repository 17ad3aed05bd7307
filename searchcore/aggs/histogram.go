package aggs

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// histImpl is histogram and date_histogram.
type histImpl struct {
	date        bool
	src         *source
	interval    float64 // histogram interval, or fixed date interval in ms
	calendar    string  // date calendar unit: minute hour day week month quarter year
	offset      float64
	loc         *time.Location
	minDocCount int64
	keyed       bool
	order       []orderKey
	extMin      *float64
	extMax      *float64
	hardMin     *float64
	hardMax     *float64
}

func (m *histImpl) fields() []string { return m.src.fields() }

func (m *histImpl) typedKey() string {
	if m.date {
		return "date_histogram"
	}
	return "histogram"
}

var fixedRe = regexp.MustCompile(`^(\d+)(nanos|micros|ms|s|m|h|d)$`)

var calendarUnits = map[string]string{
	"1m": "minute", "minute": "minute", "1h": "hour", "hour": "hour", "1d": "day", "day": "day",
	"1w": "week", "week": "week", "1M": "month", "month": "month", "1q": "quarter", "quarter": "quarter",
	"1y": "year", "year": "year",
}

// parseFixed parses an ES time value ("90m") to milliseconds.
func parseFixed(s string) (float64, bool) {
	g := fixedRe.FindStringSubmatch(s)
	if g == nil {
		return 0, false
	}
	n, err := strconv.ParseFloat(g[1], 64)
	if err != nil {
		return 0, false
	}
	mult := map[string]float64{"nanos": 1e-6, "micros": 1e-3, "ms": 1, "s": 1e3, "m": 6e4, "h": 36e5, "d": 864e5}[g[2]]
	return n * mult, true
}

func newHistogram(cm *ctxMapping, p *params, d *def) (impl, error) {
	date := p.typ == "date_histogram"
	src, err := newSource(cm, p, true)
	if err != nil {
		return nil, err
	}
	m := &histImpl{date: date, src: src, loc: time.UTC}
	if date {
		if src.kind == kindNumeric && !src.date {
			// ES accepts numeric fields as epoch millis
			src.date = true
		}
		if src.kind == kindNone {
			src.date = true
		}
		if err := m.parseDateInterval(p); err != nil {
			return nil, err
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
		off, err := p.str("offset", "")
		if err != nil {
			return nil, err
		}
		if off != "" {
			neg := strings.HasPrefix(off, "-")
			v, ok := parseFixed(strings.TrimLeft(off, "+-"))
			if !ok {
				return nil, eserr.IllegalArgument("failed to parse setting [date_histogram.offset] with value [%s] as a time value: unit is missing or unrecognized", off)
			}
			if neg {
				v = -v
			}
			m.offset = v
		}
	} else {
		iv, ok, err := p.num("interval", 0)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, eserr.IllegalArgument("[interval] must be >0 for histogram aggregation [%s]", p.agg)
		}
		if iv <= 0 {
			return nil, eserr.IllegalArgument("[interval] must be >0 for histogram aggregation [%s]", p.agg)
		}
		m.interval = iv
		if m.offset, _, err = p.num("offset", 0); err != nil {
			return nil, err
		}
	}
	mdc, err := p.integer("min_doc_count", 0)
	if err != nil {
		return nil, err
	}
	if mdc < 0 {
		return nil, eserr.IllegalArgument("[minDocCount] must be greater than or equal to 0. Found [%d] in [%s]", mdc, p.agg)
	}
	m.minDocCount = int64(mdc)
	if m.keyed, err = p.boolean("keyed", false); err != nil {
		return nil, err
	}
	if m.order, err = parseOrder(p, []orderKey{{"_key", false}}); err != nil {
		return nil, err
	}
	if err := validateOrderPaths(d, m.order); err != nil {
		return nil, err
	}
	// shown: each bound as the request wrote it, for the ES error text
	shown := map[string][2]string{}
	for _, b := range []struct {
		k        string
		min, max **float64
	}{{"extended_bounds", &m.extMin, &m.extMax}, {"hard_bounds", &m.hardMin, &m.hardMax}} {
		r := p.raw(b.k)
		if r == nil {
			continue
		}
		sub, err := subParams(p, b.k, r)
		if err != nil {
			return nil, err
		}
		for _, e := range []struct {
			k string
			t **float64
		}{{"min", b.min}, {"max", b.max}} {
			if !sub.has(e.k) {
				continue
			}
			var v float64
			if date {
				s, err := sub.str(e.k, "")
				if err != nil {
					return nil, err
				}
				sh := shown[b.k]
				sh[boolIndex(e.k == "max")] = s
				shown[b.k] = sh
				ms, err := parseDateMath(s, src.format, cm.now())
				if err != nil {
					return nil, err
				}
				v = float64(ms)
			} else {
				if v, _, err = sub.num(e.k, 0); err != nil {
					return nil, err
				}
				sh := shown[b.k]
				sh[boolIndex(e.k == "max")] = javaDouble(v)
				shown[b.k] = sh
			}
			*e.t = &v
		}
		if *b.min != nil && *b.max != nil && **b.min > **b.max {
			return nil, eserr.IllegalArgument("[%s.min][%s] cannot be greater than [%s.max][%s] for histogram aggregation [%s]",
				b.k, javaDouble(**b.min), b.k, javaDouble(**b.max), p.agg)
		}
	}
	if m.outsideHardBounds() {
		h, e := shown["hard_bounds"], shown["extended_bounds"]
		return nil, eserr.IllegalArgument("Extended bounds have to be inside hard bounds, hard bounds: [%s--%s], extended bounds: [%s--%s]",
			h[0], h[1], e[0], e[1])
	}
	return m, nil
}

// outsideHardBounds reports extended_bounds reaching past hard_bounds, which
// ES refuses. Date bounds are compared after rounding, as ES does.
func (m *histImpl) outsideHardBounds() bool {
	r := func(v float64) float64 { return v }
	if m.date {
		r = m.round
	}
	return m.hardMax != nil && m.extMax != nil && r(*m.extMax) > r(*m.hardMax) ||
		m.hardMin != nil && m.extMin != nil && r(*m.extMin) < r(*m.hardMin)
}

// boolIndex is 1 for true, 0 for false.
func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (m *histImpl) parseDateInterval(p *params) error {
	cal, err := p.str("calendar_interval", "")
	if err != nil {
		return err
	}
	fixed, err := p.str("fixed_interval", "")
	if err != nil {
		return err
	}
	legacy, err := p.str("interval", "")
	if err != nil {
		return err
	}
	switch {
	case cal != "" && fixed != "":
		return eserr.IllegalArgument("Cannot use [fixed_interval] with [calendar_interval] configuration option.")
	case cal != "":
		u, ok := calendarUnits[cal]
		if !ok {
			return eserr.IllegalArgument("The supplied interval [%s] could not be parsed as a calendar interval.", cal)
		}
		m.calendar = u
	case fixed != "":
		if _, ok := calendarUnits[fixed]; ok && !fixedRe.MatchString(fixed) {
			return eserr.IllegalArgument("failed to parse setting [date_histogram.fixedInterval] with value [%s] as a time value: unit is missing or unrecognized", fixed)
		}
		v, ok := parseFixed(fixed)
		if !ok || v <= 0 {
			return eserr.IllegalArgument("failed to parse setting [date_histogram.fixedInterval] with value [%s] as a time value: unit is missing or unrecognized", fixed)
		}
		m.interval = v
	case legacy != "":
		if u, ok := calendarUnits[legacy]; ok {
			m.calendar = u
		} else if v, ok := parseFixed(legacy); ok && v > 0 {
			m.interval = v
		} else {
			return eserr.IllegalArgument("failed to parse setting [date_histogram.interval] with value [%s] as a time value: unit is missing or unrecognized", legacy)
		}
	default:
		return eserr.IllegalArgument("Required one of fields [interval, calendar_interval, fixed_interval], but none were specified.")
	}
	return nil
}

var offsetZoneRe = regexp.MustCompile(`^([+-])(\d{2}):?(\d{2})$`)

func parseZone(tz string) (*time.Location, error) {
	if tz == "Z" || tz == "UTC" || tz == "utc" {
		return time.UTC, nil
	}
	if g := offsetZoneRe.FindStringSubmatch(tz); g != nil {
		h, _ := strconv.Atoi(g[2])
		mi, _ := strconv.Atoi(g[3])
		secs := h*3600 + mi*60
		if g[1] == "-" {
			secs = -secs
		}
		return time.FixedZone(tz, secs), nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, eserr.IllegalArgument("Unknown time-zone ID: %s", tz)
	}
	return loc, nil
}

// round returns the bucket key (epoch ms or histogram key) of v.
func (m *histImpl) round(v float64) float64 {
	if !m.date {
		return math.Floor((v-m.offset)/m.interval)*m.interval + m.offset
	}
	ms := v - m.offset
	if m.calendar == "" {
		// fixed intervals round in local time
		t := time.UnixMilli(int64(math.Floor(ms))).In(m.loc)
		_, off := t.Zone()
		local := ms + float64(off)*1000
		key := math.Floor(local/m.interval) * m.interval
		_, off2 := time.UnixMilli(int64(key - float64(off)*1000)).In(m.loc).Zone()
		return key - float64(off2)*1000 + m.offset
	}
	t := time.UnixMilli(int64(math.Floor(ms))).In(m.loc)
	y, mo, d := t.Date()
	var r time.Time
	switch m.calendar {
	case "minute":
		r = time.Date(y, mo, d, t.Hour(), t.Minute(), 0, 0, m.loc)
	case "hour":
		r = time.Date(y, mo, d, t.Hour(), 0, 0, 0, m.loc)
	case "day":
		r = time.Date(y, mo, d, 0, 0, 0, 0, m.loc)
	case "week":
		wd := (int(t.Weekday()) + 6) % 7 // Monday = 0
		r = time.Date(y, mo, d-wd, 0, 0, 0, 0, m.loc)
	case "month":
		r = time.Date(y, mo, 1, 0, 0, 0, 0, m.loc)
	case "quarter":
		r = time.Date(y, time.Month((int(mo)-1)/3*3+1), 1, 0, 0, 0, 0, m.loc)
	case "year":
		r = time.Date(y, 1, 1, 0, 0, 0, 0, m.loc)
	}
	return float64(r.UnixMilli()) + m.offset
}

// next returns the key following key (for empty-bucket filling).
func (m *histImpl) next(key float64) float64 {
	if !m.date {
		return key + m.interval
	}
	if m.calendar == "" {
		return m.round(key + m.interval)
	}
	t := time.UnixMilli(int64(key - m.offset)).In(m.loc)
	switch m.calendar {
	case "minute":
		t = t.Add(time.Minute)
	case "hour":
		t = t.Add(time.Hour)
	case "day":
		t = t.AddDate(0, 0, 1)
	case "week":
		t = t.AddDate(0, 0, 7)
	case "month":
		t = t.AddDate(0, 1, 0)
	case "quarter":
		t = t.AddDate(0, 3, 0)
	case "year":
		t = t.AddDate(1, 0, 0)
	}
	return m.round(float64(t.UnixMilli()) + m.offset)
}

type histColl struct {
	m   *histImpl
	n   *node
	e   *env
	bs  map[float64]*tbucket
	buf []float64
}

func (m *histImpl) newColl(n *node, e *env) coll {
	return &histColl{m: m, n: n, e: e, bs: map[float64]*tbucket{}}
}

func (c *histColl) collect(d *search.DocumentMatch) {
	c.buf = c.m.src.numbers(d, c.buf)
	last := math.NaN()
	for _, v := range c.buf {
		if c.m.hardMin != nil && v < *c.m.hardMin || c.m.hardMax != nil && v >= *c.m.hardMax {
			continue
		}
		k := c.m.round(v)
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
}

func (c *histColl) merge(o coll) {
	for k, b := range o.(*histColl).bs {
		if a := c.bs[k]; a != nil {
			a.count += b.count
			mergeAll(a.subs, b.subs)
		} else {
			c.bs[k] = b
		}
	}
}

func (c *histColl) result(n *node, r *reducer) (result, error) {
	m := c.m
	keys := make([]float64, 0, len(c.bs))
	for k, b := range c.bs {
		if b.count >= m.minDocCount {
			keys = append(keys, k)
		}
	}
	sort.Float64s(keys)
	// ES's reduce consumes the buckets with documents one at a time (every
	// collected bucket has some), then the empty ones it adds in one go.
	nonEmpty := len(keys)
	if err := r.addEach(nonEmpty); err != nil {
		return nil, err
	}
	if m.minDocCount == 0 {
		lo, hi := math.Inf(1), math.Inf(-1)
		if len(keys) > 0 {
			lo, hi = keys[0], keys[len(keys)-1]
		}
		if m.extMin != nil {
			lo = math.Min(lo, m.round(*m.extMin))
		}
		if m.extMax != nil {
			hi = math.Max(hi, m.round(*m.extMax))
		}
		if m.hardMin != nil {
			lo = math.Max(lo, m.round(*m.hardMin))
		}
		if m.hardMax != nil {
			hi = math.Min(hi, m.round(math.Nextafter(*m.hardMax, math.Inf(-1))))
		}
		if !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
			keys = keys[:0]
			for k := lo; k <= hi; {
				keys = append(keys, k)
				if len(keys) > r.maxBuckets {
					break
				}
				nk := m.next(k)
				if !(nk > k) { // interval below float resolution
					break
				}
				k = nk
			}
		}
	}
	if err := r.addBuckets(max(len(keys)-nonEmpty, 0)); err != nil {
		return nil, err
	}
	out := make([]*bucket, 0, len(keys))
	for _, k := range keys {
		b := &bucket{keyNum: k}
		if tb := c.bs[k]; tb != nil {
			b.docCount, b.colls = tb.count, tb.subs
		} else {
			b.colls = newColls(n.subs, nil)
		}
		subs, err := r.subResults(n.subs, b.colls)
		if err != nil {
			return nil, err
		}
		b.subs = subs
		if m.date {
			b.key = int64(k)
			b.keyString, b.hasKeyStr, b.strFirst = m.formatKey(k), true, true
		} else {
			b.key = k
			switch {
			case m.src.decimal != nil:
				b.keyString, b.hasKeyStr, b.strFirst = m.src.decimal(k), true, true
			case m.src.date:
				// a plain histogram on a date field keeps the field's
				// DocValueFormat: the key (a double) rendered as a date of
				// its (long) value, in UTC
				b.keyString, b.hasKeyStr, b.strFirst = mapping.FormatDate(int64(k), m.src.format), true, true
			}
		}
		out = append(out, b)
	}
	if !(len(m.order) == 1 && m.order[0].path == "_key" && !m.order[0].desc) {
		sortBuckets(n.subs, out, m.order, func(a, b *bucket) int { return cmpF(a.keyNum, b.keyNum) })
	}
	res := &histResult{m: m, buckets: out}
	if err := r.parentPipelines(n, res); err != nil {
		return nil, err
	}
	return res, nil
}

// formatKey renders a date bucket key in the aggregation's time zone.
func (m *histImpl) formatKey(k float64) string {
	ms := int64(k)
	if m.loc == time.UTC {
		return mapping.FormatDate(ms, m.src.format)
	}
	t := time.UnixMilli(ms).In(m.loc)
	if m.src.format == "" || strings.HasPrefix(m.src.format, "strict_date_optional_time") || strings.HasPrefix(m.src.format, "date_optional_time") {
		return t.Format("2006-01-02T15:04:05.000Z07:00")
	}
	_, off := t.Zone()
	return mapping.FormatDate(ms+int64(off)*1000, m.src.format)
}

type histResult struct {
	m       *histImpl
	buckets []*bucket
}

func (h *histResult) bucketList() []*bucket         { return h.buckets }
func (h *histResult) setBuckets(bs []*bucket)       { h.buckets = bs }
func (h *histResult) metric(string) (float64, bool) { return 0, false }

func (h *histResult) write(w *jw, n *node, r *reducer) {
	writeBuckets(w, n, r, h.buckets, h.m.keyed)
}

// writeBuckets renders "buckets" as an array or, when keyed, an object
// keyed by key_as_string (or the key).
func writeBuckets(w *jw, n *node, r *reducer, bs []*bucket, keyed bool) {
	w.key("buckets")
	if !keyed {
		w.begin('[')
		for _, b := range bs {
			r.writeBucket(w, n, b, true)
		}
		w.end(']')
		return
	}
	w.begin('{')
	for _, b := range bs {
		k := b.keyString
		if !b.hasKeyStr {
			switch x := b.key.(type) {
			case string:
				k = x
			case float64:
				k = javaDouble(x)
			case int64:
				k = strconv.FormatInt(x, 10)
			}
		}
		w.key(k)
		r.writeBucket(w, n, b, true)
	}
	w.end('}')
}
