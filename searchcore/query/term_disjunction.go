package query

import (
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
	s := &termDisjunctionSearcher{termPostings: termPostings{reader: i}, boost: b.boost, min: max(1, b.minShould)}
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
	s.order(false)
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
