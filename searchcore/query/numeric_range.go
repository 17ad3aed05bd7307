package query

import (
	"math"

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
// are read from the dictionary. With the legacy step this ORs the very
// terms bluge's numeric range searcher does (which assumes that step), but
// without enumerating every candidate term of a run: bluge's enumeration
// also walks invalid byte strings and never ends on runs like [-0, +0].
func (n *numericRangeQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	if n.lo > n.hi {
		return searcher.NewMatchNoneSearcher(i, o)
	}
	sc := similarity.ConstantScorer(n.score)
	step, err := numericStepOf(i, n.field)
	if err != nil {
		return nil, err
	}
	terms, err := numericRangeTerms(i, n.field, float64ToSortable(n.lo), float64ToSortable(n.hi), step)
	if err != nil {
		return nil, err
	}
	return searcher.NewMultiTermSearcherBytes(i, terms, n.field, 1, sc, sc, o, true)
}

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
// terms of one shift each, and each run is read from the term dictionary
// (a run may span up to 2^step values, so its terms are not enumerated).
func numericRangeTerms(i dictionaryReader, field string, lo, hi int64, step uint) ([][]byte, error) {
	var terms [][]byte
	var err error
	splitInt64Range(lo, hi, step, func(from, to int64, shift uint) bool {
		to |= int64(1)<<shift - 1
		start := numeric.MustNewPrefixCodedInt64(from, shift)
		end := append(numeric.MustNewPrefixCodedInt64(to, shift), 0) // inclusive
		var it segment.DictionaryIterator
		if it, err = i.DictionaryIterator(field, nil, start, end); err != nil {
			return false
		}
		var de segment.DictionaryEntry
		for de, err = it.Next(); err == nil && de != nil; de, err = it.Next() {
			terms = append(terms, []byte(de.Term()))
		}
		if cerr := it.Close(); err == nil {
			err = cerr
		}
		return err == nil
	})
	return terms, err
}

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
