package aggs

import (
	"math"

	"github.com/RoaringBitmap/roaring"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Fast returns a root for the column-wise path, and whether the request
// qualifies: every top-level aggregation is a terms aggregation on a keyword
// field without "missing", whose sub-aggregations are only min, max, sum,
// avg, value_count, stats or extended_stats. The fast root loads no doc
// values during the bluge search (Fields() is empty): its calculator only
// records the matching document numbers in a bitmap, and Complete then
// builds the very same per-shard collectors from the field's term
// dictionary and postings intersected with the matches, feeding each
// bucket's metrics in ascending document order like the per-document path,
// so Reduce renders byte-identical responses. Callers must call Complete
// with the shard's search.Reader after draining the search.
func (a *Root) Fast() (*Root, bool) {
	if a.env != nil || a.Profile || len(a.nodes) == 0 {
		return nil, false
	}
	for _, n := range a.nodes {
		t, ok := n.impl.(*termsImpl)
		if !ok || t.src.kind != kindKeyword || t.src.hasMissing || t.minDocCount < 1 {
			return nil, false
		}
		for _, s := range n.subs {
			if _, ok := s.impl.(*statsImpl); !ok || len(s.subs) > 0 {
				return nil, false
			}
		}
	}
	return &Root{nodes: a.nodes, excludeNested: a.excludeNested, fast: true}, true
}

// Complete computes a fast partial's aggregations from the recorded matches
// (see Root.Fast) on r, the shard's reader the search ran on; cols, when
// not nil, is the decoded-column cache of that reader's snapshot. It does
// nothing for a partial of the per-document path.
func (p *Partial) Complete(r search.Reader, cols *Columns) error {
	if p == nil || p.docs == nil {
		return nil
	}
	docs := p.docs
	p.docs = nil
	if p.overflow {
		return eserr.Errorf(eserr.Internal, "aggregation_execution_exception", "document number beyond the column-wise aggregation range")
	}
	if docs.IsEmpty() {
		return nil
	}
	for _, c := range p.colls {
		if err := c.(*termsColl).fill(r, docs, cols); err != nil {
			return err
		}
	}
	return nil
}

// consumeFast records a matching document of a fast partial.
func (p *Partial) consumeFast(d *search.DocumentMatch) {
	if d.Number > math.MaxUint32 {
		p.overflow = true
		return
	}
	p.docs.Add(uint32(d.Number))
}

// fill counts the matching documents of each accepted term of the keyword
// field from the field's ordinal column, cached in cols (a column for this
// call alone when cols is nil). With metric sub-aggregations it then feeds
// each matching document, in one ascending pass, to the metrics of its
// buckets (doc values are stored in compressed chunks: reading them term by
// term would decompress every chunk once per term); a bucket still sees its
// documents in ascending order, as in the per-document path.
func (c *termsColl) fill(r search.Reader, docs *roaring.Bitmap, cols *Columns) error {
	if cols == nil {
		cols = NewColumns()
	}
	oc, err := cols.ordinals(r, c.m.src.field)
	if err != nil {
		return err
	}
	counts := make([]uint32, len(oc.terms))
	var buf [256]uint32
	it := docs.ManyIterator()
	for k := it.NextMany(buf[:]); k > 0; k = it.NextMany(buf[:]) {
		for _, d := range buf[:k] {
			for _, o := range oc.ords(d) {
				counts[o]++
			}
		}
	}
	subs := len(c.n.subs) > 0
	var bk []*tbucket
	if subs {
		bk = make([]*tbucket, len(oc.terms))
	}
	for o, cnt := range counts {
		if cnt == 0 || !c.m.acceptTerm([]byte(oc.terms[o])) {
			continue
		}
		b := c.strBucket([]byte(oc.terms[o]))
		b.count += int64(cnt)
		if subs {
			bk[o] = b
		}
	}
	if !subs {
		return nil
	}
	if subCols, ok, err := c.numericSubColumns(r, docs, cols); err != nil || ok {
		if err != nil {
			return err
		}
		c.feedNumeric(docs, oc, bk, subCols)
		return nil
	}
	return c.fillSubs(r, docs, cols, func(d uint32, feed func(*tbucket)) {
		for _, o := range oc.ords(d) {
			if b := bk[o]; b != nil {
				feed(b)
			}
		}
	})
}

// fillSubs feeds the metric sub-aggregations of every matching document's
// buckets (listed by each) in ascending document order. Numeric fields are
// read from cols when given, other fields from the doc values.
func (c *termsColl) fillSubs(r search.Reader, docs *roaring.Bitmap, cols *Columns, each func(doc uint32, feed func(*tbucket))) error {
	// Sub-aggregation j reads column colOf[j] (>= 0), or the doc values
	// vals[slot[j]] of subFields[slot[j]] (slot -1: unmapped, no values).
	var subFields []string
	var columns []numColumn
	colOf := make([]int, len(c.n.subs))
	slot := make([]int, len(c.n.subs))
	colIdx := map[string]int{}
	for j, s := range c.n.subs {
		colOf[j], slot[j] = -1, -1
		src := s.impl.(*statsImpl).src
		f := src.fields()
		switch {
		case len(f) == 0:
		case cols != nil && src.kind == kindNumeric:
			i, ok := colIdx[f[0]]
			if !ok {
				col, err := cols.numeric(r, f[0], docs.Maximum())
				if err != nil {
					return err
				}
				i = len(columns)
				colIdx[f[0]] = i
				columns = append(columns, col)
			}
			colOf[j] = i
		default:
			slot[j] = len(subFields)
			for i, sf := range subFields {
				if sf == f[0] {
					slot[j] = i
				}
			}
			if slot[j] == len(subFields) {
				subFields = append(subFields, f[0])
			}
		}
	}
	vals := make([][][]byte, len(subFields))
	visit := func(f string, term []byte) {
		for i, sf := range subFields {
			if sf == f {
				vals[i] = append(vals[i], term)
				return
			}
		}
	}
	dv, err := r.DocumentValueReader(subFields)
	if err != nil {
		return err
	}
	var doc uint32
	feed := func(b *tbucket) {
		for j, s := range b.subs {
			sc := s.(*statsColl)
			switch {
			case colOf[j] >= 0:
				sc.collectNumbers(columns[colOf[j]].numbers(doc))
			case slot[j] >= 0:
				sc.collectValues(vals[slot[j]])
			default:
				sc.collectValues(nil)
			}
		}
	}
	it := docs.Iterator()
	for it.HasNext() {
		doc = it.Next()
		if len(subFields) > 0 {
			for i := range vals {
				vals[i] = vals[i][:0]
			}
			if err := dv.VisitDocumentValues(uint64(doc), visit); err != nil {
				return err
			}
		}
		each(doc, feed)
	}
	return nil
}

// IsFast reports whether p is a partial of the column-wise path (see
// Root.Fast), which only records the matching document numbers.
func (p *Partial) IsFast() bool { return p != nil && p.prof == nil && p.docs != nil }

// AddFast records matching document numbers of a fast partial, as Consume
// does one match at a time.
func (p *Partial) AddFast(docs []uint32) { p.docs.AddMany(docs) }

// numericSubColumns returns the cached column of each metric
// sub-aggregation's field, and whether all of them are numeric fields
// (read from cols) so that feedNumeric applies.
func (c *termsColl) numericSubColumns(r search.Reader, docs *roaring.Bitmap, cols *Columns) ([]numColumn, bool, error) {
	for _, s := range c.n.subs {
		src := s.impl.(*statsImpl).src
		if src.kind != kindNumeric || len(src.fields()) == 0 {
			return nil, false, nil
		}
	}
	out := make([]numColumn, len(c.n.subs))
	for j, s := range c.n.subs {
		f := s.impl.(*statsImpl).src.fields()[0]
		col, err := cols.numeric(r, f, docs.Maximum())
		if err != nil {
			return nil, false, err
		}
		out[j] = col
	}
	return out, true, nil
}

// feedNumeric feeds the matching documents of the buckets bk (by ordinal
// of oc, nil for none) to their metric sub-aggregations, sub-aggregation j
// reading column subCols[j], in ascending document order: fillSubs without
// its per-document indirections, for numeric sub-aggregation fields.
func (c *termsColl) feedNumeric(docs *roaring.Bitmap, oc *ordColumn, bk []*tbucket, subCols []numColumn) {
	// the metrics of each bucket, by ordinal
	stats := make([][]*statsColl, len(bk))
	for o, b := range bk {
		if b == nil {
			continue
		}
		stats[o] = make([]*statsColl, len(b.subs))
		for j, s := range b.subs {
			stats[o][j] = s.(*statsColl)
		}
	}
	kinds := make([]accKind, len(c.n.subs))
	for j, s := range c.n.subs {
		kinds[j] = accKindOf(s.impl.(*statsImpl).typ)
	}
	n := uint32(oc.docs())
	var buf [256]uint32
	it := docs.ManyIterator()
	if len(kinds) == 1 && !oc.multi() {
		// one metric of a single-valued keyword: no per-bucket metric list
		one := make([]*statsColl, len(stats))
		for o, ss := range stats {
			if ss != nil {
				one[o] = ss[0]
			}
		}
		col, kind := subCols[0], kinds[0]
		for k := it.NextMany(buf[:]); k > 0; k = it.NextMany(buf[:]) {
			for _, d := range buf[:k] {
				if d >= n || oc.ord[d] < 0 {
					continue
				}
				sc := one[oc.ord[d]]
				if sc == nil {
					continue
				}
				sc.feedValues(kind, col.numbers(d))
			}
		}
		return
	}
	for k := it.NextMany(buf[:]); k > 0; k = it.NextMany(buf[:]) {
		for _, d := range buf[:k] {
			for _, o := range oc.ords(d) {
				for j, sc := range stats[o] {
					sc.feedValues(kinds[j], subCols[j].numbers(d))
				}
			}
		}
	}
}

// accKind tells which of a statsColl's accumulators its metric type
// renders, orders by and merges into a result: feedNumeric updates only
// those (the others keep their initial values, which no result of that type
// reads).
type accKind uint8

const (
	accCount accKind = iota // value_count
	accSum                  // sum, avg: count and sum
	accMin                  // min: count and min
	accMax                  // max: count and max
	accStats                // stats: count, sum, min and max
	accAll                  // extended_stats: everything (statsColl.add)
)

// accKindOf returns the accumulators of a stats metric type.
func accKindOf(typ string) accKind {
	switch typ {
	case "value_count":
		return accCount
	case "sum", "avg":
		return accSum
	case "min":
		return accMin
	case "max":
		return accMax
	case "stats":
		return accStats
	}
	return accAll
}

// feedValues accumulates one document's values vs into the accumulators k
// of c, or the metric's missing value when the document has none.
func (c *statsColl) feedValues(k accKind, vs []float64) {
	if len(vs) == 0 && c.m.src.hasMissing {
		c.accumulate(k, c.m.src.missingNum)
	}
	for _, v := range vs {
		c.accumulate(k, v)
	}
}

// accumulate adds v to the accumulators k of c, as add does.
func (c *statsColl) accumulate(k accKind, v float64) {
	switch k {
	case accCount:
		c.count++
	case accSum:
		c.count++
		c.sum, c.comp = kahan(c.sum, c.comp, v)
	case accMin:
		c.count++
		c.min = math.Min(c.min, v)
	case accMax:
		c.count++
		c.max = math.Max(c.max, v)
	case accStats:
		c.count++
		c.sum, c.comp = kahan(c.sum, c.comp, v)
		c.min = math.Min(c.min, v)
		c.max = math.Max(c.max, v)
	default:
		c.add(v)
	}
}
