package query

import (
	"math"
	mathbits "math/bits"

	"github.com/RoaringBitmap/roaring"
	"github.com/blugelabs/bluge/index"
	"github.com/blugelabs/bluge/numeric"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/searcher"
	"github.com/blugelabs/bluge/search/similarity"
	segment "github.com/blugelabs/bluge_segment_api"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

// Searcher finds the documents with a value in [lo, hi]. The range is
// split into runs of same-shift terms with the precision step the field
// was indexed with (mapping.LegacyNumericStep for indices created before
// the step was recorded, mapping.NumericStep after) and each run's terms
// are read from the dictionary: the field's for shift 0, for a coarser
// shift both the field's (the legacy step, and segments written before
// mapping.ShiftTermsField) and the shift-terms field's. With the legacy
// step this ORs the very terms bluge's numeric range searcher does (which
// assumes that step), but enumerates only valid terms: bluge's
// enumeration of a run walks every byte string between its ends and never
// ends on runs like [-0, +0]. Segments with points (PointsReader) are read
// from them instead.
func (n *numericRangeQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	if n.lo > n.hi {
		return searcher.NewMatchNoneSearcher(i, o)
	}
	lo, hi := float64ToSortable(n.lo), float64ToSortable(n.hi)
	// The step is read from the dictionary only when terms are read: not
	// when every segment has points.
	var step uint
	stepOf := func() (uint, error) {
		if step == 0 {
			var err error
			if step, err = numericStepOf(i, n.field); err != nil {
				return 0, err
			}
		}
		return step, nil
	}
	if sr, ok := i.(SegmentedReader); ok && !o.Explain && !o.IncludeTermVectors {
		if segs := sr.Segments(); segs != nil {
			var ps *PointsScope
			if pr, ok := i.(PointsReader); ok {
				ps = pr.PointsScope()
			}
			return segmentUnionSearcher(i, segs, ps, n.field, lo, hi, stepOf, n.score)
		}
	}
	if _, err := stepOf(); err != nil {
		return nil, err
	}
	terms, err := numericRangeTerms(i, n.field, lo, hi, step)
	if err != nil {
		return nil, err
	}
	if o.Explain || o.IncludeTermVectors || len(terms.own)+len(terms.shifted) < 2 {
		return terms.multiTermSearcher(i, n.field, similarity.ConstantScorer(n.score), o)
	}
	return unionSearcher(i, terms, n.field, n.score)
}

// rangeTerms are the indexed terms covering a range: those of the field
// and those of its shift-terms field.
type rangeTerms struct {
	own, shifted [][]byte
}

// multiTermSearcher is bluge's constant-score searcher of the terms, the
// disjunction of one per field when both fields have terms (with the
// constant scorer as the disjunction's, a document matching in both still
// scores the constant).
func (t rangeTerms) multiTermSearcher(i search.Reader, field string, sc similarity.ConstantScorer, o search.SearcherOptions) (search.Searcher, error) {
	if len(t.shifted) == 0 {
		return searcher.NewMultiTermSearcherBytes(i, t.own, field, 1, sc, sc, o, true)
	}
	shifted, err := searcher.NewMultiTermSearcherBytes(i, t.shifted, mapping.ShiftTermsField(field), 1, sc, sc, o, true)
	if err != nil || len(t.own) == 0 {
		return shifted, err
	}
	own, err := searcher.NewMultiTermSearcherBytes(i, t.own, field, 1, sc, sc, o, true)
	if err != nil {
		_ = shifted.Close()
		return nil, err
	}
	return searcher.NewDisjunctionSearcher(i, []search.Searcher{own, shifted}, 1, sc, o)
}

// unionSearcher matches the documents holding any of terms, each scored
// score, like a constant-score disjunction of term searchers (Lucene's
// constant-score rewrite of multi-term queries): it reads the terms'
// postings once into a bitset instead of merging one iterator per term
// for every hit.
func unionSearcher(i search.Reader, terms rangeTerms, field string, score float64) (search.Searcher, error) {
	var set docSet
	add := func(terms [][]byte, field string) error {
		for _, term := range terms {
			it, err := i.PostingsIterator(term, field, false, false, false)
			if err != nil {
				return err
			}
			var p segment.Posting
			for p, err = it.Next(); err == nil && p != nil; p, err = it.Next() {
				set.add(p.Number())
			}
			if cerr := it.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(terms.own, field); err != nil {
		return nil, err
	}
	if err := add(terms.shifted, mapping.ShiftTermsField(field)); err != nil {
		return nil, err
	}
	return &bitsetSearcher{set: set.words, count: set.n, score: score, reader: i}, nil
}

// SegmentedReader is a reader whose segments can be read one by one
// (bluge's index.Snapshot). A nil result means the reader's segments must
// not be read directly.
type SegmentedReader interface {
	Segments() []index.SegmentSnapshot
}

// segmentUnionSearcher is unionSearcher reading each segment's dictionary
// on its own: a run's terms are iterated (or, for a short run, probed) in
// each segment, so a term is looked up only in the segments that hold
// values of its run. Through the snapshot, every term of the range was
// looked up in every segment, which with a coarse step (a run holds up to
// 2^16 values, in practice hundreds of distinct terms) cost more than
// reading the postings. A segment whose Points ps holds, or admits, is
// read from them instead (ps nil: none is).
func segmentUnionSearcher(i search.Reader, segs []index.SegmentSnapshot, ps *PointsScope, field string, lo, hi int64, stepOf func() (uint, error), score float64) (search.Searcher, error) {
	type run struct {
		from, to int64
		shift    uint
	}
	var runs []run // split on the first segment read through its terms
	var set docSet
	var offset uint64
	var pl segment.PostingsList
	var pit segment.PostingsIterator
	add := func(dict segment.Dictionary, term []byte, deleted *roaring.Bitmap) error {
		var err error
		if pl, err = dict.PostingsList(term, deleted, pl); err != nil {
			return err
		}
		if pl.Count() == 0 {
			return nil
		}
		if pit, err = pl.Iterator(false, false, false, pit); err != nil {
			return err
		}
		var p segment.Posting
		for p, err = pit.Next(); err == nil && p != nil; p, err = pit.Next() {
			set.add(offset + p.Number())
		}
		return err
	}
	// readTerms adds the segment's documents with a term of the range.
	readTerms := func(seg segment.Segment, deleted *roaring.Bitmap) error {
		if runs == nil {
			step, err := stepOf()
			if err != nil {
				return err
			}
			splitInt64Range(lo, hi, step, func(from, to int64, shift uint) bool {
				runs = append(runs, run{from, to, shift})
				return true
			})
		}
		own, err := seg.Dictionary(field)
		if err != nil {
			return err
		}
		shifted, err := seg.Dictionary(mapping.ShiftTermsField(field))
		if err != nil {
			return err
		}
		readRun := func(dict segment.Dictionary, r run) error {
			visit := func(term []byte) error { return add(dict, term, deleted) }
			return eachRunTerm(r.from, r.to, r.shift, visit, func(start, end []byte) error {
				return drainTerms(dict.Iterator(nil, start, end), visit)
			})
		}
		for _, r := range runs {
			if err := readRun(own, r); err != nil {
				return err
			}
			if r.shift == 0 {
				continue
			}
			if err := readRun(shifted, r); err != nil {
				return err
			}
		}
		return nil
	}
	for _, ss := range segs {
		hs, ok := ss.(segmentHolder)
		if !ok {
			step, err := stepOf()
			if err != nil {
				return nil, err
			}
			return unionSearcherOf(i, field, lo, hi, step, score)
		}
		seg := hs.Segment()
		p, err := ps.points(ss.ID(), seg, field)
		if err == nil {
			if p != nil {
				p.collect(lo, hi, ss.Deleted(), offset, &set)
			} else {
				err = readTerms(seg, ss.Deleted())
			}
		}
		if err != nil {
			return nil, err
		}
		offset += seg.Count()
	}
	return &bitsetSearcher{set: set.words, count: set.n, score: score, reader: i}, nil
}

// segmentHolder is bluge's segment snapshot, whose segment it exposes
// (index.SegmentSnapshot does not declare it).
type segmentHolder interface {
	Segment() segment.Segment
}

// unionSearcherOf is the snapshot-level union of the range's terms.
func unionSearcherOf(i search.Reader, field string, lo, hi int64, step uint, score float64) (search.Searcher, error) {
	terms, err := numericRangeTerms(i, field, lo, hi, step)
	if err != nil {
		return nil, err
	}
	return unionSearcher(i, terms, field, score)
}

// docSet is a growing bitset of document numbers.
type docSet struct {
	words []uint64 // bit n set: document n is in the set
	n     uint64   // documents in the set
}

// add puts document num in the set.
func (s *docSet) add(num uint64) {
	w := int(num >> 6)
	if w >= len(s.words) {
		s.words = append(s.words, make([]uint64, w+1-len(s.words)+len(s.words)/2)...)
	}
	if s.words[w]&(1<<(num&63)) == 0 {
		s.words[w] |= 1 << (num & 63)
		s.n++
	}
}

// bitsetSearcher replays the documents of a bitset in order, each scored
// score (one bit per document of the index, rather than a list of hits).
type bitsetSearcher struct {
	set    []uint64
	next   uint64 // the first document not yet returned
	count  uint64
	score  float64
	reader search.Reader
}

func (s *bitsetSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	for w := s.next >> 6; w < uint64(len(s.set)); w++ {
		bits := s.set[w]
		if w == s.next>>6 {
			bits &^= 1<<(s.next&63) - 1 // documents before next are done
		}
		if bits != 0 {
			num := w<<6 | uint64(mathbits.TrailingZeros64(bits))
			s.next = num + 1
			dm := ctx.DocumentMatchPool.Get()
			dm.Number = num
			dm.Score = s.score
			dm.SetReader(s.reader)
			return dm, nil
		}
	}
	s.next = uint64(len(s.set)) << 6
	return nil, nil
}

func (s *bitsetSearcher) Advance(ctx *search.Context, number uint64) (*search.DocumentMatch, error) {
	if number > s.next {
		s.next = number
	}
	return s.Next(ctx)
}

func (s *bitsetSearcher) Close() error               { return nil }
func (s *bitsetSearcher) Count() uint64              { return s.count }
func (s *bitsetSearcher) Min() int                   { return 0 }
func (s *bitsetSearcher) Size() int                  { return 64 + 8*len(s.set) }
func (s *bitsetSearcher) DocumentMatchPoolSize() int { return 1 }

// numericStepOf tells the precision step field was indexed with. Every
// value indexed with mapping.LegacyNumericStep has a shift-4 term, which
// no other step writes; a field without one (or without any term) is read
// with mapping.NumericStep.
func numericStepOf(i dictionaryReader, field string) (uint, error) {
	shift4 := numeric.ShiftStartInt64 + byte(mapping.LegacyNumericStep)
	it, err := i.DictionaryIterator(field, nil, []byte{shift4}, []byte{shift4 + 1})
	if err != nil {
		return 0, err
	}
	de, err := it.Next()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	if de != nil {
		return mapping.LegacyNumericStep, nil
	}
	return mapping.NumericStep, nil
}

// dictionaryReader reads term dictionaries (search.Reader, bluge.Reader).
type dictionaryReader interface {
	DictionaryIterator(field string, automaton segment.Automaton, start, end []byte) (segment.DictionaryIterator, error)
}

// float64ToSortable is the sortable int64 of x (bluge's order of numeric
// terms), infinities mapped to the int64 ends like bluge's range searcher.
func float64ToSortable(x float64) int64 {
	switch {
	case math.IsInf(x, -1):
		return math.MinInt64
	case math.IsInf(x, 1):
		return math.MaxInt64
	}
	return numeric.Float64ToInt64(x)
}

// numericRangeTerms lists the indexed terms of field that together cover
// [lo, hi] (sortable int64s, inclusive) for an index written with step:
// the range is split like Lucene's NumericUtils.splitRange into runs of
// terms of one shift each. A short run's candidate terms are looked up one
// by one; a longer one (up to 2^step values with a coarse step) is read by
// iterating its part of the term dictionary.
func numericRangeTerms(i search.Reader, field string, lo, hi int64, step uint) (rangeTerms, error) {
	var terms rangeTerms
	var err error
	fields := [2]string{field, mapping.ShiftTermsField(field)}
	var lookups [2]segment.DictionaryLookup
	readRun := func(k int, from, to int64, shift uint) error {
		out := &terms.own
		if k == 1 {
			out = &terms.shifted
		}
		probe := func(term []byte) error {
			// A short run: its few candidates are looked up (bluge's way).
			if lookups[k] == nil {
				l, err := i.DictionaryLookup(fields[k])
				if err != nil {
					return err
				}
				lookups[k] = l
			}
			found, err := lookups[k].Contains(term)
			if found {
				*out = append(*out, term)
			}
			return err
		}
		return eachRunTerm(from, to, shift, probe, func(start, end []byte) error {
			it, err := i.DictionaryIterator(fields[k], nil, start, end)
			if err != nil {
				return err
			}
			return drainTerms(it, func(term []byte) error {
				*out = append(*out, term)
				return nil
			})
		})
	}
	splitInt64Range(lo, hi, step, func(from, to int64, shift uint) bool {
		if err = readRun(0, from, to, shift); err != nil || shift == 0 {
			return err == nil
		}
		err = readRun(1, from, to, shift)
		return err == nil
	})
	for _, l := range lookups {
		if l == nil {
			continue
		}
		if cerr := l.Close(); err == nil {
			err = cerr
		}
	}
	return terms, err
}

// eachRunTerm reads the run [from, to] of shift-shift terms: a short run
// (under maxProbedRun values) by probing each candidate term, a longer one
// by iterating its part of a dictionary, [start, end] with end exclusive.
func eachRunTerm(from, to int64, shift uint, probe func(term []byte) error, iterate func(start, end []byte) error) error {
	if uint64(to-from)>>shift < maxProbedRun {
		for v := from; ; v += int64(1) << shift {
			if err := probe(numeric.MustNewPrefixCodedInt64(v, shift)); err != nil {
				return err
			}
			if v>>shift == to>>shift {
				return nil
			}
		}
	}
	to |= int64(1)<<shift - 1
	start := numeric.MustNewPrefixCodedInt64(from, shift)
	end := append(numeric.MustNewPrefixCodedInt64(to, shift), 0) // inclusive
	return iterate(start, end)
}

// drainTerms visits every term of it (a copy each) and closes it.
func drainTerms(it segment.DictionaryIterator, visit func(term []byte) error) error {
	var de segment.DictionaryEntry
	var err error
	for de, err = it.Next(); err == nil && de != nil; de, err = it.Next() {
		if err = visit([]byte(de.Term())); err != nil {
			break
		}
	}
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return err
}

// maxProbedRun is the longest run of terms (in values of its shift) that
// numericRangeTerms looks up term by term rather than iterating the
// dictionary: a lookup is cheaper than setting up an iterator on every
// segment, for the up to 15 values of a legacy-step run.
const maxProbedRun = 16

// splitInt64Range calls run for each run of same-shift terms covering
// [minBound, maxBound] (bluge's splitInt64Range, which this generalises to
// any step): the finest runs at both ends first, coarser towards the
// middle. It stops when run returns false.
func splitInt64Range(minBound, maxBound int64, step uint, run func(from, to int64, shift uint) bool) {
	if minBound > maxBound {
		return
	}
	for shift := uint(0); ; shift += step {
		diff := int64(1) << (shift + step)
		mask := (int64(1)<<step - 1) << shift
		hasLower := minBound&mask != 0
		hasUpper := maxBound&mask != mask
		next := func(b int64, has bool, d int64) int64 {
			if has {
				return (b + d) &^ mask
			}
			return b &^ mask
		}
		nextMin := next(minBound, hasLower, diff)
		nextMax := next(maxBound, hasUpper, -diff)
		if shift+step >= 64 || nextMin > nextMax || nextMin < minBound || nextMax > maxBound {
			// the coarsest level, or no coarser term fits: one last run
			run(minBound, maxBound, shift)
			return
		}
		if hasLower && !run(minBound, minBound|mask, shift) {
			return
		}
		if hasUpper && !run(maxBound&^mask, maxBound, shift) {
			return
		}
		minBound, maxBound = nextMin, nextMax
	}
}
