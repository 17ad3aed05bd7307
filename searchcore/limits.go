package searchcore

import (
	"sort"
	"time"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
)

// Per-shard search limits applied while matching: terminate_after stops a
// shard after that many matches, timeout stops it once the deadline passed
// (the hits collected so far are returned, with timed_out), and min_score
// drops matches scoring below it (so counts and aggregations skip them too,
// like Elasticsearch's MinimumScoreCollector).

// stopState records why a shard stopped early.
type stopState struct {
	terminated, timedOut bool
}

// limitQuery applies terminate_after, timeout and min_score to inner.
type limitQuery struct {
	inner    bluge.Query
	limit    int // 0: none
	deadline time.Time
	minScore *float64
	st       *stopState
}

// Unwrap implements query.Wrapper.
func (l *limitQuery) Unwrap() bluge.Query { return l.inner }

func (l *limitQuery) Searcher(r search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	in, err := l.inner.Searcher(r, o)
	if err != nil {
		return nil, err
	}
	return &limitSearcher{Searcher: in, q: l}, nil
}

type limitSearcher struct {
	search.Searcher
	q     *limitQuery
	seen  int
	calls int
}

// stop reports whether the shard must stop before returning another match.
func (s *limitSearcher) stop() bool {
	if s.q.limit > 0 && s.seen >= s.q.limit {
		s.q.st.terminated = true
		return true
	}
	if !s.q.deadline.IsZero() {
		s.calls++
		if s.calls&63 == 1 && time.Now().After(s.q.deadline) {
			s.q.st.timedOut = true
			return true
		}
	}
	return false
}

func (s *limitSearcher) filter(ctx *search.Context, dm *search.DocumentMatch, err error) (*search.DocumentMatch, error) {
	for err == nil && dm != nil && s.q.minScore != nil && dm.Score < *s.q.minScore {
		ctx.DocumentMatchPool.Put(dm)
		if s.stop() {
			return nil, nil
		}
		dm, err = s.Searcher.Next(ctx)
	}
	if dm != nil {
		s.seen++
	}
	return dm, err
}

func (s *limitSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	if s.stop() {
		return nil, nil
	}
	dm, err := s.Searcher.Next(ctx)
	return s.filter(ctx, dm, err)
}

func (s *limitSearcher) Advance(ctx *search.Context, n uint64) (*search.DocumentMatch, error) {
	if s.stop() {
		return nil, nil
	}
	dm, err := s.Searcher.Advance(ctx, n)
	return s.filter(ctx, dm, err)
}

// docSetQuery matches the documents of inner among docs (sorted document
// numbers of one shard): rescoring and matched_queries score or test a
// known set of hits without scanning every match.
type docSetQuery struct {
	inner bluge.Query
	docs  []uint64
}

func newDocSetQuery(inner bluge.Query, docs []uint64) *docSetQuery {
	d := append([]uint64(nil), docs...)
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return &docSetQuery{inner: inner, docs: d}
}

// Unwrap implements query.Wrapper.
func (d *docSetQuery) Unwrap() bluge.Query { return d.inner }

func (d *docSetQuery) Searcher(r search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	in, err := d.inner.Searcher(r, o)
	if err != nil {
		return nil, err
	}
	return &docSetSearcher{Searcher: in, docs: d.docs}, nil
}

type docSetSearcher struct {
	search.Searcher
	docs []uint64
	at   int
}

func (s *docSetSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	for s.at < len(s.docs) {
		dm, err := s.Searcher.Advance(ctx, s.docs[s.at])
		if err != nil || dm == nil {
			s.at = len(s.docs)
			return nil, err
		}
		for s.at < len(s.docs) && s.docs[s.at] < dm.Number {
			s.at++
		}
		if s.at < len(s.docs) && s.docs[s.at] == dm.Number {
			s.at++
			return dm, nil
		}
		ctx.DocumentMatchPool.Put(dm)
	}
	return nil, nil
}

func (s *docSetSearcher) Advance(ctx *search.Context, n uint64) (*search.DocumentMatch, error) {
	for s.at < len(s.docs) && s.docs[s.at] < n {
		s.at++
	}
	return s.Next(ctx)
}
