package query

import (
	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/searcher"
	"github.com/blugelabs/bluge/search/similarity"
)

// Custom bluge queries for phrase prefixes, dis_max and boosting.

// phrasePrefixQuery is Lucene's MultiPhrasePrefixQuery: the phrase terms
// followed by any of the first maxExpansions indexed terms (in term order)
// starting with prefix. Without phrase terms it is a scoring disjunction of
// the expansions.
type phrasePrefixQuery struct {
	field         string
	terms         [][]string
	prefix        string
	slop          int
	maxExpansions int
}

func (p *phrasePrefixQuery) expand(i search.Reader) ([]string, error) {
	beg := []byte(p.prefix)
	var end []byte
	if len(beg) > 0 {
		end = incrementBytes(beg)
	}
	dict, err := i.DictionaryIterator(p.field, nil, beg, end)
	if err != nil {
		return nil, err
	}
	var terms []string
	tfd, err := dict.Next()
	for err == nil && tfd != nil && len(terms) < p.maxExpansions {
		terms = append(terms, tfd.Term())
		tfd, err = dict.Next()
	}
	if cerr := dict.Close(); err == nil {
		err = cerr
	}
	return terms, err
}

func (p *phrasePrefixQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	exp, err := p.expand(i)
	if err != nil {
		return nil, err
	}
	if len(exp) == 0 {
		return searcher.NewMatchNoneSearcher(i, o)
	}
	if len(p.terms) == 0 {
		return searcher.NewMultiTermSearcher(i, exp, p.field, 1, nil, similarity.NewCompositeSumScorer(), o, false)
	}
	slots := append(append([][]string(nil), p.terms...), exp)
	return bluge.NewMultiPhraseQuery(slots).SetField(p.field).SetSlop(p.slop).Searcher(i, o)
}

// disMaxScorer scores a document matched by several clauses as the best
// clause score plus tieBreaker times the other clause scores.
type disMaxScorer struct{ tieBreaker float64 }

func (d disMaxScorer) ScoreComposite(cs []*search.DocumentMatch) float64 {
	var sum, best float64
	for i, c := range cs {
		sum += c.Score
		if i == 0 || c.Score > best {
			best = c.Score
		}
	}
	return best + d.tieBreaker*(sum-best)
}

func (d disMaxScorer) ExplainComposite(cs []*search.DocumentMatch) *search.Explanation {
	var children []*search.Explanation
	for _, c := range cs {
		if c.Explanation != nil {
			children = append(children, c.Explanation)
		}
	}
	return search.NewExplanation(d.ScoreComposite(cs),
		"max plus tie_breaker times others of:", children...)
}

// disMaxQuery is Lucene's DisjunctionMaxQuery.
type disMaxQuery struct {
	clauses    []bluge.Query
	tieBreaker float64
}

func (d *disMaxQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	if len(d.clauses) == 0 {
		return searcher.NewMatchNoneSearcher(i, o)
	}
	ss := make([]search.Searcher, 0, len(d.clauses))
	for _, q := range d.clauses {
		s, err := q.Searcher(i, o)
		if err != nil {
			closeAll(ss)
			return nil, err
		}
		ss = append(ss, s)
	}
	s, err := searcher.NewDisjunctionSearcher(i, ss, 1, disMaxScorer{d.tieBreaker}, o)
	if err != nil {
		closeAll(ss)
		return nil, err
	}
	return s, nil
}

// docCursor walks a searcher forward to answer "does document n match?"
// for increasing n.
type docCursor struct {
	s    search.Searcher
	cur  *search.DocumentMatch
	done bool
}

// matches reports whether the searcher matches document number n; calls
// must come with non-decreasing n.
func (c *docCursor) matches(ctx *search.Context, n uint64) (bool, error) {
	if c.done {
		return false, nil
	}
	if c.cur == nil || c.cur.Number < n {
		if c.cur != nil {
			ctx.DocumentMatchPool.Put(c.cur)
			c.cur = nil
		}
		dm, err := c.s.Advance(ctx, n)
		if err != nil {
			return false, err
		}
		if dm == nil {
			c.done = true
			return false, nil
		}
		c.cur = dm
	}
	return c.cur.Number == n, nil
}

// boostingQuery is Lucene's BoostingQuery as ES builds it: the matches of
// positive, with the score multiplied by negBoost when negative matches.
type boostingQuery struct {
	positive, negative bluge.Query
	negBoost           float64
	boost              float64
}

func (b *boostingQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	pos, err := b.positive.Searcher(i, o)
	if err != nil {
		return nil, err
	}
	neg, err := b.negative.Searcher(i, o)
	if err != nil {
		_ = pos.Close()
		return nil, err
	}
	return &boostingSearcher{Searcher: pos, neg: &docCursor{s: neg}, negBoost: b.negBoost, boost: b.boost,
		explain: o.Explain}, nil
}

type boostingSearcher struct {
	search.Searcher
	neg      *docCursor
	negBoost float64
	boost    float64
	explain  bool
}

func (s *boostingSearcher) apply(ctx *search.Context, dm *search.DocumentMatch, err error) (*search.DocumentMatch, error) {
	if dm == nil || err != nil {
		return dm, err
	}
	hit, err := s.neg.matches(ctx, dm.Number)
	if err != nil {
		return nil, err
	}
	if hit {
		dm.Score *= s.negBoost
	}
	dm.Score *= s.boost
	if s.explain {
		nb := 1.0
		if hit {
			nb = s.negBoost
		}
		dm.Explanation = search.NewExplanation(dm.Score, "boosting, product of:", dm.Explanation,
			search.NewExplanation(nb, "negative_boost"), search.NewExplanation(s.boost, "boost"))
	}
	return dm, nil
}

func (s *boostingSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	dm, err := s.Searcher.Next(ctx)
	return s.apply(ctx, dm, err)
}

func (s *boostingSearcher) Advance(ctx *search.Context, n uint64) (*search.DocumentMatch, error) {
	dm, err := s.Searcher.Advance(ctx, n)
	return s.apply(ctx, dm, err)
}

func (s *boostingSearcher) Close() error {
	err := s.Searcher.Close()
	if nerr := s.neg.s.Close(); err == nil {
		err = nerr
	}
	return err
}

func (s *boostingSearcher) DocumentMatchPoolSize() int {
	return s.Searcher.DocumentMatchPoolSize() + s.neg.s.DocumentMatchPoolSize() + 1
}
