package aggs

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"sort"
	"strings"

	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// compositeImpl is the composite aggregation (terms, histogram and
// date_histogram sources, after paging). Shards keep every composite key,
// so the reduce is exact.
type compositeImpl struct {
	sources []*compSource
	size    int
	after   []compVal
}

type compSource struct {
	name          string
	typ           string // terms | histogram | date_histogram
	src           *source
	hist          *histImpl
	desc          bool
	missingBucket bool
	format        string
	// parseDecimal reads an "after" value written with a numeric source's
	// DecimalFormat "format" (nil: no format)
	parseDecimal func(string) (float64, bool)
}

// compVal is one source value of a composite key.
type compVal struct {
	null bool
	s    string
	f    float64
}

func (m *compositeImpl) fields() []string {
	var out []string
	for _, s := range m.sources {
		out = append(out, s.src.fields()...)
	}
	return out
}

func (m *compositeImpl) typedKey() string { return "composite" }

func newComposite(cm *ctxMapping, p *params) (impl, error) {
	m := &compositeImpl{}
	var err error
	if m.size, err = p.integer("size", 10); err != nil {
		return nil, err
	}
	if m.size <= 0 {
		return nil, eserr.IllegalArgument("[size] must be greater than 0. Found [%d] in [%s]", m.size, p.agg)
	}
	var items []json.RawMessage
	raw := p.raw("sources")
	if raw == nil || json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return nil, eserr.IllegalArgument("Composite [sources] cannot be null or empty")
	}
	names := map[string]bool{}
	for _, it := range items {
		ms, err := objectMembers(it)
		if err != nil || len(ms) != 1 {
			return nil, eserr.ParsingError("[composite] failed to parse field [sources]")
		}
		tms, err := objectMembers(ms[0].val)
		if err != nil || len(tms) != 1 {
			return nil, eserr.ParsingError("[composite] failed to parse field [sources]")
		}
		cs := &compSource{name: ms[0].key, typ: tms[0].key}
		if names[cs.name] {
			return nil, eserr.IllegalArgument("Composite source names must be unique, found duplicates: [%s]", cs.name)
		}
		names[cs.name] = true
		sp, err := subParams(&params{agg: p.agg, typ: cs.typ}, cs.typ, tms[0].val)
		if err != nil {
			return nil, err
		}
		order, err := sp.str("order", "asc")
		if err != nil {
			return nil, err
		}
		if order != "asc" && order != "desc" {
			return nil, eserr.IllegalArgument("Unknown order: [%s]", order)
		}
		cs.desc = order == "desc"
		delete(sp.m, "order")
		switch cs.typ {
		case "terms":
			if cs.src, err = newSource(cm, sp, false); err != nil {
				return nil, err
			}
		case "histogram", "date_histogram":
			h, err := newHistogram(cm, sp, &def{name: p.agg, typ: cs.typ})
			if err != nil {
				return nil, err
			}
			cs.hist = h.(*histImpl)
			cs.src = cs.hist.src
			if cs.hist.keyed || cs.hist.minDocCount != 0 || cs.hist.extMin != nil || cs.hist.extMax != nil {
				return nil, eserr.ParsingError("[%s] unknown field [keyed, min_doc_count or extended_bounds]", cs.typ)
			}
		default:
			return nil, eserr.ParsingError("Unknown value source type [%s] in composite aggregation [%s]", cs.typ, p.agg)
		}
		if cs.missingBucket, err = sp.boolean("missing_bucket", false); err != nil {
			return nil, err
		}
		if cs.format, err = sp.str("format", ""); err != nil {
			return nil, err
		}
		if cs.src.decimal != nil {
			// as ES's DocValueFormat.Decimal: keys render formatted and
			// "after" values parse back through the same pattern
			if cs.parseDecimal, err = mapping.DecimalParser(cs.format); err != nil {
				return nil, err
			}
		}
		if cs.typ == "terms" {
			sp.raw("value_type")
			if err := sp.unknown(&def{typ: cs.typ, body: mustMembers(tms[0].val)}); err != nil {
				return nil, err
			}
		}
		m.sources = append(m.sources, cs)
	}
	if r := p.raw("after"); r != nil {
		ms, err := objectMembers(r)
		if err != nil {
			return nil, eserr.ParsingError("[composite] failed to parse field [after]")
		}
		vals := map[string]json.RawMessage{}
		for _, mb := range ms {
			vals[mb.key] = mb.val
		}
		if len(ms) != len(m.sources) {
			return nil, eserr.IllegalArgument("[after] has %d value(s) but [sources] has %d", len(ms), len(m.sources))
		}
		for _, cs := range m.sources {
			v, ok := vals[cs.name]
			if !ok {
				return nil, eserr.IllegalArgument("[after] has no value for source [%s]", cs.name)
			}
			cv, err := cs.parseAfter(v)
			if err != nil {
				return nil, err
			}
			m.after = append(m.after, cv)
		}
	}
	return m, nil
}

func (cs *compSource) isString() bool {
	return cs.typ == "terms" && (cs.src.kind == kindKeyword || cs.src.kind == kindNone)
}

func (cs *compSource) parseAfter(r json.RawMessage) (compVal, error) {
	if string(r) == "null" {
		if !cs.missingBucket {
			return compVal{}, eserr.IllegalArgument("Cannot set after key in the composite aggregation [%s] - missing_bucket is not set", cs.name)
		}
		return compVal{null: true}, nil
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		if cs.isString() {
			return compVal{s: s}, nil
		}
		if cs.src.boolean && (s == "true" || s == "false") {
			if s == "true" {
				return compVal{f: 1}, nil
			}
			return compVal{f: 0}, nil
		}
		if cs.src.date {
			ms, err := mapping.ParseDate(s, firstNonEmpty(cs.format, cs.src.format))
			if err != nil {
				return compVal{}, err
			}
			return compVal{f: float64(ms)}, nil
		}
		if cs.parseDecimal != nil {
			f, ok := cs.parseDecimal(s)
			if !ok {
				return compVal{}, eserr.IllegalArgument("invalid value for [after] in source [%s]: %s", cs.name, s)
			}
			return compVal{f: f}, nil
		}
		f, err := parseJavaDouble(s)
		if err != nil {
			return compVal{}, eserr.IllegalArgument("invalid value for [after] in source [%s]: %s", cs.name, s)
		}
		return compVal{f: f}, nil
	}
	var bv bool
	if json.Unmarshal(r, &bv) == nil {
		if cs.isString() {
			return compVal{s: string(r)}, nil
		}
		if bv {
			return compVal{f: 1}, nil
		}
		return compVal{f: 0}, nil
	}
	var f float64
	if err := json.Unmarshal(r, &f); err != nil {
		return compVal{}, eserr.IllegalArgument("invalid value for [after] in source [%s]", cs.name)
	}
	if cs.isString() {
		return compVal{s: strings.TrimSuffix(javaDouble(f), ".0")}, nil
	}
	return compVal{f: f}, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// cmpVal compares two values of a source (nulls first ascending).
func (cs *compSource) cmp(a, b compVal) int {
	var c int
	switch {
	case a.null && b.null:
		c = 0
	case a.null:
		c = -1
	case b.null:
		c = 1
	case cs.isString():
		c = strings.Compare(a.s, b.s)
	default:
		c = cmpF(a.f, b.f)
	}
	if cs.desc {
		return -c
	}
	return c
}

func (m *compositeImpl) cmpKeys(a, b []compVal) int {
	for i, cs := range m.sources {
		if c := cs.cmp(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

type compBucket struct {
	key   []compVal
	count int64
	subs  []coll
}

type compositeColl struct {
	m    *compositeImpl
	n    *node
	e    *env
	bs   map[string]*compBucket
	vals [][]compVal
	buf  []float64
	kb   []byte
}

func (m *compositeImpl) newColl(n *node, e *env) coll {
	return &compositeColl{m: m, n: n, e: e, bs: map[string]*compBucket{}, vals: make([][]compVal, len(m.sources))}
}

func (c *compositeColl) collect(d *search.DocumentMatch) {
	for i, cs := range c.m.sources {
		vs := c.vals[i][:0]
		if cs.isString() {
			for _, t := range cs.src.terms(d) {
				vs = append(vs, compVal{s: string(t)})
			}
		} else {
			c.buf = cs.src.numbers(d, c.buf)
			last := math.NaN()
			for _, v := range c.buf {
				if cs.hist != nil {
					if cs.hist.hardMin != nil && v < *cs.hist.hardMin || cs.hist.hardMax != nil && v >= *cs.hist.hardMax {
						continue
					}
					v = cs.hist.round(v)
				}
				if v == last {
					continue
				}
				last = v
				vs = append(vs, compVal{f: v})
			}
		}
		if len(vs) == 0 {
			if !cs.missingBucket {
				c.vals[i] = vs
				return
			}
			vs = append(vs, compVal{null: true})
		}
		c.vals[i] = vs
	}
	c.product(d, 0, make([]compVal, len(c.m.sources)))
}

// product visits every combination of the document's source values.
func (c *compositeColl) product(d *search.DocumentMatch, i int, key []compVal) {
	if i == len(key) {
		c.kb = encodeKey(c.kb[:0], key)
		b := c.bs[string(c.kb)]
		if b == nil {
			b = &compBucket{key: append([]compVal(nil), key...), subs: newColls(c.n.subs, c.e)}
			c.bs[string(c.kb)] = b
		}
		b.count++
		collectAll(b.subs, d)
		return
	}
	for _, v := range c.vals[i] {
		key[i] = v
		c.product(d, i+1, key)
	}
}

func encodeKey(b []byte, key []compVal) []byte {
	for _, v := range key {
		switch {
		case v.null:
			b = append(b, 0)
		case v.s != "":
			b = append(b, 1)
			b = binary.AppendUvarint(b, uint64(len(v.s)))
			b = append(b, v.s...)
		default:
			b = append(b, 2)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.f))
		}
	}
	return b
}

func (c *compositeColl) merge(o coll) {
	for k, b := range o.(*compositeColl).bs {
		if a := c.bs[k]; a != nil {
			a.count += b.count
			mergeAll(a.subs, b.subs)
		} else {
			c.bs[k] = b
		}
	}
}

func (c *compositeColl) result(n *node, r *reducer) (result, error) {
	m := c.m
	all := make([]*compBucket, 0, len(c.bs))
	for _, b := range c.bs {
		if m.after != nil && m.cmpKeys(b.key, m.after) <= 0 {
			continue
		}
		all = append(all, b)
	}
	sort.Slice(all, func(i, j int) bool { return m.cmpKeys(all[i].key, all[j].key) < 0 })
	if len(all) > m.size {
		all = all[:m.size]
	}
	if err := r.addEach(len(all)); err != nil {
		return nil, err
	}
	res := &compositeResult{m: m}
	for _, cb := range all {
		subs, err := r.subResults(n.subs, cb.subs)
		if err != nil {
			return nil, err
		}
		res.buckets = append(res.buckets, &bucket{key: m.render(cb.key), docCount: cb.count, subs: subs})
		res.last = cb.key
	}
	return res, r.parentPipelines(n, res)
}

// render turns a composite key into its JSON object.
func (m *compositeImpl) render(key []compVal) json.RawMessage {
	w := &jw{}
	w.begin('{')
	for i, cs := range m.sources {
		v := key[i]
		w.key(cs.name)
		switch {
		case v.null:
			w.value(nil)
		case cs.isString():
			w.value(v.s)
		case cs.src.boolean && cs.typ == "terms":
			w.value(v.f != 0)
		case cs.format != "" && cs.src.date:
			w.value(mapping.FormatDate(int64(v.f), cs.format))
		case cs.src.decimal != nil:
			w.value(cs.src.decimal(v.f))
		case cs.src.date || cs.src.integral && cs.typ == "terms":
			w.value(int64(v.f))
		default:
			w.value(v.f)
		}
	}
	w.end('}')
	return json.RawMessage(w.b.Bytes())
}

type compositeResult struct {
	m       *compositeImpl
	buckets []*bucket
	last    []compVal
}

func (c *compositeResult) bucketList() []*bucket         { return c.buckets }
func (c *compositeResult) setBuckets(bs []*bucket)       { c.buckets = bs }
func (c *compositeResult) metric(string) (float64, bool) { return 0, false }

func (c *compositeResult) write(w *jw, n *node, r *reducer) {
	if c.last != nil {
		w.kv("after_key", c.m.render(c.last))
	}
	writeBuckets(w, n, r, c.buckets, false)
}
