package query

import (
	"sort"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
	segment "github.com/blugelabs/bluge_segment_api"
)

// phraseQuery is a match_phrase: bluge's MultiPhraseQuery, whose searcher
// it replaces by exactPhraseSearcher for the common exact phrase (no
// slop, one term per position) when neither explanations nor term
// vectors are asked for.
type phraseQuery struct {
	*bluge.MultiPhraseQuery
}

// newPhraseQuery is the phrase of slots (one slot per position, "" or no
// term for a gap) in field.
func newPhraseQuery(slots [][]string, field string, slop int) *phraseQuery {
	return &phraseQuery{bluge.NewMultiPhraseQuery(slots).SetField(field).SetSlop(slop)}
}

// Searcher implements bluge.Query.
func (q *phraseQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	if s, ok, err := newExactPhraseSearcher(i, q.Terms(), q.Field(), q.Slop(), o); ok || err != nil {
		return s, err
	}
	return q.MultiPhraseQuery.Searcher(i, o)
}

// exactPhraseSearcher finds the documents holding the terms of an exact
// phrase at consecutive positions (gaps kept), as bluge's phrase searcher
// does with no slop, and scores them as it does: the sum of each term's
// score, in the order of its conjunction (terms by ascending document
// count). It intersects the terms' postings itself and compares their
// positions directly, where bluge builds a map of every candidate's term
// locations: a third of the time in BenchmarkTermSearchers, and the
// bench's phrase query on the emails data set went from 2.1 to 0.84 ms
// over HTTP.
type exactPhraseSearcher struct {
	termPostings
	offsets []int // each term's position in the phrase
	all     []int // every term, in order
	started bool
	done    bool
	// pos[k] holds term k's positions minus its offset (the phrase start
	// each occurrence implies); idx[k] walks it.
	pos [][]int
	idx []int
}

// maxExactPhraseTerms bounds the fast path: bluge orders a conjunction's
// searchers with sort.Sort, which is a stable insertion sort up to 12
// elements; beyond, its order (and so its score sums) is not reproduced.
const maxExactPhraseTerms = 12

// newExactPhraseSearcher returns the searcher of the phrase, or false when
// the phrase needs bluge's (slop, several terms at a position, too many
// terms, explanations, term vectors).
func newExactPhraseSearcher(i search.Reader, slots [][]string, field string, slop int, o search.SearcherOptions) (search.Searcher, bool, error) {
	if slop != 0 || o.Explain || o.IncludeTermVectors || o.Score == "none" {
		return nil, false, nil
	}
	type termAt struct {
		term   string
		offset int
	}
	var terms []termAt
	first := -1
	for k, slot := range slots {
		switch {
		case len(slot) == 0 || len(slot) == 1 && slot[0] == "":
			continue // a gap; leading gaps constrain nothing (bluge's prevPos 0)
		case len(slot) > 1:
			return nil, false, nil
		}
		if first < 0 {
			first = k
		}
		terms = append(terms, termAt{slot[0], k - first})
	}
	if len(terms) < 2 || len(terms) > maxExactPhraseTerms {
		return nil, false, nil
	}
	s := &exactPhraseSearcher{termPostings: termPostings{reader: i}}
	stats, err := i.CollectionStats(field)
	if err != nil {
		return nil, true, err
	}
	for _, t := range terms {
		if err := s.open(t.term, field, 1, true, stats, o); err != nil {
			_ = s.Close()
			return nil, true, err
		}
	}
	// The conjunction's order: ascending count, ties in phrase order.
	order := s.order(true)
	n := len(order)
	s.offsets, s.all = make([]int, n), make([]int, n)
	for k, was := range order {
		s.offsets[k], s.all[k] = terms[was].offset, k
	}
	s.pos, s.idx = make([][]int, n), make([]int, n)
	// Let each segment iterate only the documents holding every term.
	var octx segment.OptimizableContext
	for _, it := range s.its {
		op, ok := it.(segment.Optimizable)
		if !ok {
			octx = nil
			break
		}
		var err error
		if octx, err = op.Optimize("conjunction", octx); err != nil {
			_ = s.Close()
			return nil, true, err
		}
		if octx == nil {
			break
		}
	}
	if octx != nil {
		if _, err := octx.Finish(); err != nil {
			_ = s.Close()
			return nil, true, err
		}
	}
	return s, true, nil
}

// docFreq is search.TermStats of a term's document count.
type docFreq uint64

func (d docFreq) DocumentFrequency() uint64 { return uint64(d) }

// Next implements search.Searcher.
func (s *exactPhraseSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	if s.done {
		return nil, nil
	}
	var err error
	if !s.started {
		s.started = true
		for k, it := range s.its {
			if s.cur[k], err = it.Next(); err != nil || s.cur[k] == nil {
				s.done = true
				return nil, err
			}
		}
	} else if s.cur[0], err = s.its[0].Next(); err != nil || s.cur[0] == nil {
		s.done = true
		return nil, err
	}
	return s.match(ctx)
}

// Advance implements search.Searcher.
func (s *exactPhraseSearcher) Advance(ctx *search.Context, number uint64) (*search.DocumentMatch, error) {
	if s.done {
		return nil, nil
	}
	if !s.started {
		s.started = true
		for k, it := range s.its {
			var err error
			if s.cur[k], err = it.Advance(number); err != nil || s.cur[k] == nil {
				s.done = true
				return nil, err
			}
		}
		return s.match(ctx)
	}
	if s.cur[0].Number() >= number {
		return s.Next(ctx)
	}
	var err error
	if s.cur[0], err = s.its[0].Advance(number); err != nil || s.cur[0] == nil {
		s.done = true
		return nil, err
	}
	return s.match(ctx)
}

// match moves the iterators to the first document at or after the
// current one of the first term that holds the phrase, and returns it.
func (s *exactPhraseSearcher) match(ctx *search.Context) (*search.DocumentMatch, error) {
	for {
		target := s.cur[0].Number()
		all := true
		for k := 1; k < len(s.its); k++ {
			if n := s.cur[k].Number(); n < target {
				var err error
				if s.cur[k], err = s.its[k].Advance(target); err != nil || s.cur[k] == nil {
					s.done = true
					return nil, err
				}
			}
			if n := s.cur[k].Number(); n > target {
				// The first term catches up with a later document.
				var err error
				if s.cur[0], err = s.its[0].Advance(n); err != nil || s.cur[0] == nil {
					s.done = true
					return nil, err
				}
				all = false
				break
			}
		}
		if !all {
			continue
		}
		if s.phraseAt() {
			return s.hit(ctx, target, s.all, 1), nil
		}
		var err error
		if s.cur[0], err = s.its[0].Next(); err != nil || s.cur[0] == nil {
			s.done = true
			return nil, err
		}
	}
}

// phraseAt reports whether the current document (all iterators on it)
// holds the terms at consecutive positions: some start position every
// term's occurrences imply.
func (s *exactPhraseSearcher) phraseAt() bool {
	for k, p := range s.cur {
		locs := p.Locations()
		starts := s.pos[k][:0]
		for _, l := range locs {
			starts = append(starts, l.Pos()-s.offsets[k])
		}
		if len(starts) == 0 {
			return false
		}
		sort.Ints(starts) // positions come in order; a field's values may not
		s.pos[k] = starts
	}
	// Intersect the sorted start lists.
	idx := s.idx
	for k := range idx {
		idx[k] = 0
	}
	for {
		want := s.pos[0][idx[0]]
		agreed := true
		for k := 1; k < len(s.pos); k++ {
			for idx[k] < len(s.pos[k]) && s.pos[k][idx[k]] < want {
				idx[k]++
			}
			if idx[k] == len(s.pos[k]) {
				return false
			}
			if v := s.pos[k][idx[k]]; v > want {
				for idx[0] < len(s.pos[0]) && s.pos[0][idx[0]] < v {
					idx[0]++
				}
				if idx[0] == len(s.pos[0]) {
					return false
				}
				agreed = false
				break
			}
		}
		if agreed {
			return true
		}
	}
}

// termPostings is what the term-level searchers share: the terms'
// postings, which Count, Size and Close answer for. Count is what bluge's
// phrase and boolean searchers report, their conjunction's or
// disjunction's worst case: the sum of the terms' counts.
type termPostings struct {
	reader  search.Reader
	its     []segment.PostingsIterator
	scorers []search.Scorer
	cur     []segment.Posting // each term's posting (nil: exhausted)
}

// open adds the postings of term in field (with term vectors when asked)
// and their scorer, boosted by boost.
func (t *termPostings) open(term, field string, boost float64, vectors bool, stats segment.CollectionStats, o search.SearcherOptions) error {
	it, err := t.reader.PostingsIterator([]byte(term), field, true, true, vectors)
	if err != nil {
		return err
	}
	t.its = append(t.its, it)
	t.scorers = append(t.scorers, o.SimilarityForField(field).Scorer(boost, stats, docFreq(it.Count())))
	return nil
}

// order puts the terms in the order bluge's conjunction (ascending
// document count) or disjunction (descending) keeps its searchers in,
// ties in the order opened, and returns where each term was: order[k] is
// the index, in the order opened, of the term now at k.
func (t *termPostings) order(ascending bool) []int {
	order := make([]int, len(t.its))
	counts := make([]uint64, len(t.its))
	for k, it := range t.its {
		order[k], counts[k] = k, it.Count()
	}
	sort.SliceStable(order, func(a, b int) bool {
		if ascending {
			return counts[order[a]] < counts[order[b]]
		}
		return counts[order[a]] > counts[order[b]]
	})
	its, scorers := make([]segment.PostingsIterator, len(order)), make([]search.Scorer, len(order))
	for k, was := range order {
		its[k], scorers[k] = t.its[was], t.scorers[was]
	}
	t.its, t.scorers, t.cur = its, scorers, make([]segment.Posting, len(its))
	return order
}

// hit is the match of document doc, scored as the sum of the scores of
// terms (indices of its), in that order, times boost.
func (t *termPostings) hit(ctx *search.Context, doc uint64, terms []int, boost float64) *search.DocumentMatch {
	dm := ctx.DocumentMatchPool.Get()
	dm.SetReader(t.reader)
	dm.Number = doc
	var sum float64
	for _, k := range terms {
		sum += t.scorers[k].Score(t.cur[k].Frequency(), t.cur[k].Norm())
	}
	dm.Score = sum * boost
	return dm
}

// Count implements search.Searcher.
func (t *termPostings) Count() uint64 {
	var n uint64
	for _, it := range t.its {
		n += it.Count()
	}
	return n
}

// Min implements search.Searcher (0, as bluge's phrase and boolean
// searchers).
func (t *termPostings) Min() int { return 0 }

// Size implements search.Searcher.
func (t *termPostings) Size() int {
	n := 64
	for _, it := range t.its {
		n += it.Size()
	}
	return n
}

// DocumentMatchPoolSize implements search.Searcher: one match at a time.
func (t *termPostings) DocumentMatchPoolSize() int { return 1 }

// Close implements search.Searcher.
func (t *termPostings) Close() error {
	var first error
	for _, it := range t.its {
		if err := it.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
