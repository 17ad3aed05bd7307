package query

import (
	"container/heap"
	"math"
	"sort"

	"github.com/RoaringBitmap/roaring"
	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/searcher"
	segment "github.com/blugelabs/bluge_segment_api"
)

// termDisjunctionSearcher is a bool query of term clauses alone (should,
// at least min of them), the query a match query with several terms
// compiles to. It finds and scores the documents as bluge's boolean
// searcher over a disjunction of term searchers does: each matching
// term's score summed in the disjunction's order (terms by descending
// document count), times the bool's boost. It walks the terms' postings
// itself, without a document match per term and document: 10% faster in
// BenchmarkTermSearchers (decoding the postings is most of the work
// either way), and about a fifth less of a match query's server time on
// the cities data set.
type termDisjunctionSearcher struct {
	termPostings
	boost   float64
	min     int
	started bool
	// matching lists the terms on the current document.
	matching []int
	// terms are the clauses, in the order of its.
	terms []*bluge.TermQuery
	// prune, once Prune turned it on, skips the documents that cannot
	// enter the collector's top.
	prune *disjunctionPruning
}

// Pruner is a top-level searcher that can skip the documents that cannot
// enter a top of matches by score, as Lucene's MaxScore does: a collector
// keeping the best keep matches by score alone calls Prune(keep) before
// the first Next and, whenever its worst kept match changes, SetMinScore
// with that match's score; the searcher may then skip any document whose
// score cannot reach it. It still returns every document that could, in
// order and scored as without pruning (so the kept matches, their order
// and the best score are the same), and Prune gives the exact number of
// matches, skipped ones included, for the hit total.
type Pruner interface {
	Prune(keep int) (total uint64, ok bool, err error)
	SetMinScore(min float64)
}

// MaxScorer is a scorer that knows the highest score it can give (a
// term's weight in BM25, as the term frequency grows); a negative result
// means it cannot bound its scores so (they are at most 0, but a sum of
// them is below each).
type MaxScorer interface {
	MaxScore() float64
}

// disjunctionPruning is a termDisjunctionSearcher's MaxScore state: terms
// whose highest scores sum (times the boost) below the score to beat are
// non-essential, and a document none of the others holds is skipped.
type disjunctionPruning struct {
	ub        []float64 // each term's highest score (order of its)
	byUB      []int     // the terms by ascending ub
	min       float64   // the score a match must beat
	essential []bool
	dirty     bool // min rose since essential was computed
}

// pruneMargin keeps the bound of non-essential terms above what summing
// their scores in another order may round to.
const pruneMargin = 1 + 1e-9

// partition recomputes which terms are essential.
func (p *disjunctionPruning) partition(boost float64) {
	p.dirty = false
	var sum float64
	for _, k := range p.byUB {
		sum += p.ub[k]
		p.essential[k] = !(sum*boost*pruneMargin < p.min)
	}
}

// Prune implements Pruner when the searcher needs one term per match
// (min 1), its boost is not negative, every term's scorer gives its
// highest score and the reader's segments can be read to count the
// matches. keep is how many matches the collector keeps.
func (s *termDisjunctionSearcher) Prune(keep int) (uint64, bool, error) {
	if s.started || s.min != 1 || !(s.boost >= 0) || math.IsInf(s.boost, 1) {
		return 0, false, nil
	}
	ub := make([]float64, len(s.scorers))
	for k, sc := range s.scorers {
		ms, ok := sc.(MaxScorer)
		if !ok {
			return 0, false, nil
		}
		if ub[k] = ms.MaxScore(); !(ub[k] >= 0) || math.IsInf(ub[k], 1) {
			return 0, false, nil
		}
	}
	total, ok, err := s.countMatches()
	if err != nil || !ok {
		return 0, false, err
	}
	p := &disjunctionPruning{ub: ub, byUB: make([]int, len(ub)), min: math.Inf(-1), essential: make([]bool, len(ub)), dirty: true}
	for k := range p.byUB {
		p.byUB[k] = k
	}
	sort.SliceStable(p.byUB, func(a, b int) bool { return ub[p.byUB[a]] < ub[p.byUB[b]] })
	if p.min, err = s.seedMinScore(ub, keep, total); err != nil {
		return 0, false, err
	}
	s.prune = p
	return total, true, nil
}

// seedMinScore is a score the keep-th best match reaches at least, read
// before the search from the postings of one term: the one with the
// highest bound among those holding at least keep documents but at most a
// quarter of the matches (-Inf when no term does). Scores add up from
// terms that score at least 0, so a document's score is at least its
// score for that term alone; keep documents reaching a score put the
// collector's keep-th best at or above it. Lucene's MaxScore starts from
// nothing and learns the score to beat as it collects; when the rare,
// high-scoring documents come late in index order, it prunes almost
// nothing.
func (s *termDisjunctionSearcher) seedMinScore(ub []float64, keep int, total uint64) (float64, error) {
	best := -1
	for k, it := range s.its {
		if n := it.Count(); n >= uint64(keep) && n <= total/4 && (best < 0 || ub[k] > ub[best]) {
			best = k
		}
	}
	if best < 0 {
		return math.Inf(-1), nil
	}
	tq := s.terms[best]
	it, err := s.reader.PostingsIterator([]byte(tq.Term()), tq.Field(), true, true, false)
	if err != nil {
		return 0, err
	}
	defer it.Close()
	top := make(minHeap, 0, keep)
	sc := s.scorers[best]
	var d segment.Posting
	for d, err = it.Next(); err == nil && d != nil; d, err = it.Next() {
		top.offer(sc.Score(d.Frequency(), d.Norm())*s.boost, keep)
	}
	if err != nil || len(top) < keep {
		return math.Inf(-1), err
	}
	// Below it by more than rounding.
	return top[0] / pruneMargin, nil
}

// SetMinScore implements Pruner.
func (s *termDisjunctionSearcher) SetMinScore(min float64) {
	if p := s.prune; p != nil && min > p.min {
		p.min, p.dirty = min, true
	}
}

// countMatches counts the live documents holding any of the terms, the
// union of their postings in each segment; false when a segment cannot
// be read so.
func (s *termDisjunctionSearcher) countMatches() (uint64, bool, error) {
	sr, ok := s.reader.(SegmentedReader)
	if !ok {
		return 0, false, nil
	}
	segs := sr.Segments()
	if segs == nil {
		return 0, false, nil
	}
	var total uint64
	union := roaring.New()
	var pl segment.PostingsList
	dicts := map[string]segment.Dictionary{} // a match's terms share a field
	for _, ss := range segs {
		hs, ok := ss.(segmentHolder)
		if !ok {
			return 0, false, nil
		}
		seg := hs.Segment()
		union.Clear()
		clear(dicts)
		for _, tq := range s.terms {
			var err error
			dict, ok := dicts[tq.Field()]
			if !ok {
				if dict, err = seg.Dictionary(tq.Field()); err != nil {
					return 0, false, err
				}
				dicts[tq.Field()] = dict
			}
			if pl, err = dict.PostingsList([]byte(tq.Term()), nil, pl); err != nil {
				return 0, false, err
			}
			or, ok := pl.(interface{ OrInto(*roaring.Bitmap) })
			if !ok {
				return 0, false, nil
			}
			or.OrInto(union)
		}
		if d := ss.Deleted(); d != nil {
			union.AndNot(d)
		}
		total += union.GetCardinality()
	}
	return total, true, nil
}

// termDisjunction returns the searcher of b when b is a disjunction of
// plain term queries bluge would search with its slice disjunction, or
// false.
func (b *boolQuery) termDisjunction(i search.Reader, o search.SearcherOptions) (search.Searcher, bool, error) {
	// Unscored searches take bluge's searchers, whose unscored
	// optimisations give scores of their own.
	if o.Explain || o.IncludeTermVectors || o.Score == "none" || len(b.must)+len(b.filter)+len(b.mustNot) > 0 ||
		len(b.should) < 2 || len(b.should) > searcher.DisjunctionHeapTakeover || len(b.should) > maxExactPhraseTerms {
		return nil, false, nil
	}
	terms := make([]*bluge.TermQuery, len(b.should))
	for k, q := range b.should {
		tq, ok := q.(*bluge.TermQuery)
		if !ok || tq.Field() == "" {
			return nil, false, nil
		}
		terms[k] = tq
	}
	s := &termDisjunctionSearcher{termPostings: termPostings{reader: i}, boost: b.boost, min: max(1, b.minShould), terms: make([]*bluge.TermQuery, len(terms))}
	stats := map[string]segment.CollectionStats{}
	for _, tq := range terms {
		st, ok := stats[tq.Field()]
		if !ok {
			var err error
			if st, err = i.CollectionStats(tq.Field()); err != nil {
				_ = s.Close()
				return nil, true, err
			}
			stats[tq.Field()] = st
		}
		if err := s.open(tq.Term(), tq.Field(), tq.Boost(), false, st, o); err != nil {
			_ = s.Close()
			return nil, true, err
		}
	}
	// The disjunction's order: descending count, ties in clause order.
	for k, was := range s.order(false) {
		s.terms[k] = terms[was]
	}
	s.matching = make([]int, 0, len(s.its))
	return s, true, nil
}

// Next implements search.Searcher.
func (s *termDisjunctionSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	if !s.started {
		s.started = true
		for k, it := range s.its {
			var err error
			if s.cur[k], err = it.Next(); err != nil {
				return nil, err
			}
		}
	} else if err := s.step(); err != nil {
		return nil, err
	}
	return s.match(ctx)
}

// Advance implements search.Searcher.
func (s *termDisjunctionSearcher) Advance(ctx *search.Context, number uint64) (*search.DocumentMatch, error) {
	if !s.started {
		s.started = true
		for k, it := range s.its {
			var err error
			if s.cur[k], err = it.Advance(number); err != nil {
				return nil, err
			}
		}
		return s.match(ctx)
	}
	if err := s.step(); err != nil {
		return nil, err
	}
	for k, p := range s.cur {
		if p != nil && p.Number() < number {
			var err error
			if s.cur[k], err = s.its[k].Advance(number); err != nil {
				return nil, err
			}
		}
	}
	return s.match(ctx)
}

// step moves the terms of the last document returned past it.
func (s *termDisjunctionSearcher) step() error {
	for _, k := range s.matching {
		var err error
		if s.cur[k], err = s.its[k].Next(); err != nil {
			return err
		}
	}
	s.matching = s.matching[:0]
	return nil
}

// match returns the first document from the current postings on that
// enough terms hold, leaving its terms in matching.
func (s *termDisjunctionSearcher) match(ctx *search.Context) (*search.DocumentMatch, error) {
	if s.prune != nil {
		return s.matchPruned(ctx)
	}
	for {
		s.matching = s.matching[:0]
		var doc uint64
		for k, p := range s.cur {
			switch {
			case p == nil:
			case len(s.matching) == 0 || p.Number() < doc:
				doc = p.Number()
				s.matching = append(s.matching[:0], k)
			case p.Number() == doc:
				s.matching = append(s.matching, k)
			}
		}
		if len(s.matching) == 0 {
			return nil, nil
		}
		if len(s.matching) >= s.min {
			return s.hit(ctx, doc, s.matching, s.boost), nil
		}
		if err := s.step(); err != nil {
			return nil, err
		}
	}
}

// matchPruned is match skipping the documents only non-essential terms
// hold: the next document is the first an essential term holds, and the
// non-essential terms behind it advance to it.
func (s *termDisjunctionSearcher) matchPruned(ctx *search.Context) (*search.DocumentMatch, error) {
	p := s.prune
	if p.dirty {
		p.partition(s.boost)
	}
	var doc uint64
	found := false
	for k, c := range s.cur {
		if c != nil && p.essential[k] && (!found || c.Number() < doc) {
			doc, found = c.Number(), true
		}
	}
	s.matching = s.matching[:0]
	if !found {
		return nil, nil // what is left cannot beat the kept matches
	}
	for k, c := range s.cur {
		if c != nil && c.Number() < doc {
			var err error
			if s.cur[k], err = s.its[k].Advance(doc); err != nil {
				return nil, err
			}
			c = s.cur[k]
		}
		if c != nil && c.Number() == doc {
			s.matching = append(s.matching, k)
		}
	}
	return s.hit(ctx, doc, s.matching, s.boost), nil
}

// minHeap keeps the largest values offered, the least of them first
// (container/heap's interface).
type minHeap []float64

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// offer adds x, keeping at most keep values.
func (h *minHeap) offer(x float64, keep int) {
	if h.Len() < keep {
		heap.Push(h, x)
	} else if x > (*h)[0] {
		(*h)[0] = x
		heap.Fix(h, 0)
	}
}
