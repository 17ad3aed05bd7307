package searchcore

import (
	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
)

// The doc-order fast path. When a sort starts with _doc or _shard_doc
// ascending, a shard's top n hits after a search_after (or scroll) key are
// simply its next n matches in document-number order, so each shard
// advances to the key and stops after n+1 matches instead of scanning every
// match (this needs no hit count: track_total_hits false, or a scroll whose
// total is known from its first page).

// docRangeQuery yields at most limit matches of inner, starting at the
// first match with a document number >= start.
type docRangeQuery struct {
	inner bluge.Query
	start uint64
	limit int
}

func (d *docRangeQuery) Searcher(r search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	in, err := d.inner.Searcher(r, o)
	if err != nil {
		return nil, err
	}
	return &docRangeSearcher{Searcher: in, start: d.start, left: d.limit}, nil
}

type docRangeSearcher struct {
	search.Searcher
	start   uint64
	started bool
	left    int
}

func (s *docRangeSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	if s.left <= 0 {
		return nil, nil
	}
	var dm *search.DocumentMatch
	var err error
	if !s.started && s.start > 0 {
		s.started = true
		dm, err = s.Searcher.Advance(ctx, s.start)
	} else {
		s.started = true
		dm, err = s.Searcher.Next(ctx)
	}
	if dm != nil {
		s.left--
	}
	return dm, err
}

func (s *docRangeSearcher) Advance(ctx *search.Context, number uint64) (*search.DocumentMatch, error) {
	if s.left <= 0 {
		return nil, nil
	}
	if !s.started {
		s.started = true
		if number < s.start {
			number = s.start
		}
	}
	dm, err := s.Searcher.Advance(ctx, number)
	if dm != nil {
		s.left--
	}
	return dm, err
}

// docOrderStart returns where shard ord starts for a doc-led ascending sort
// after the raw key (nil: from the beginning), and false when the shard
// holds nothing after the key. shardDoc tells whether the first clause is
// _shard_doc (else _doc); shardDocAt1 whether the second clause is the
// _shard_doc tiebreaker (scrolls), which makes the start exact.
func docOrderStart(key [][]byte, decode func([]byte) any, shardDoc, shardDocAt1 bool, ord int) (uint64, bool) {
	if len(key) == 0 {
		return 0, true
	}
	v, ok := decode(key[0]).(int64)
	if !ok || v < 0 {
		return 0, true
	}
	if shardDoc {
		sAfter, d := int(v>>32), uint64(v&0xffffffff)
		switch {
		case ord < sAfter:
			return 0, false
		case ord > sAfter:
			return 0, true
		}
		return d, true
	}
	d := uint64(v)
	if shardDocAt1 && len(key) > 1 {
		if t, ok := decode(key[1]).(int64); ok && ord <= int(t>>32) {
			return d + 1, true
		}
	}
	return d, true
}
