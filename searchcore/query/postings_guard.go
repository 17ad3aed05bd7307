package query

import (
	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/index"
	"github.com/blugelabs/bluge/search"
	segment "github.com/blugelabs/bluge_segment_api"
)

// bluge's snapshot postings iterator restarts itself when asked to advance
// to a document at or before the last one it returned, and it does so by
// closing itself first: Close hands the iterator back to the snapshot's
// pool of iterators while it stays in use, and its owner's later Close
// hands it back a second time. Two later searches on the snapshot then get
// the same iterator, and both find the wrong documents, until the next
// refresh. bluge's own searchers ask for such advances: its disjunction
// advances a term that is already exhausted (a bool query with
// minimum_should_match of 2 or more under a conjunction, for one).
// GuardPostings leaves bluge's iterator out of it: it opens a fresh
// iterator for the restart and closes the old one once.

// GuardReader returns r with its postings iterators guarded
// (GuardPostings).
func GuardReader(r search.Reader) search.Reader { return guardReader{Reader: r} }

// GuardReaderWithPoints is GuardReader whose range queries read the
// numeric points of ps (nil: the reader's own, if any).
func GuardReaderWithPoints(r search.Reader, ps *PointsScope) search.Reader {
	return guardReader{Reader: r, points: ps}
}

// Guarded returns q searching on a GuardReader, for searches that do not
// run on the engine's statsReader (which guards its postings itself).
func Guarded(q bluge.Query) bluge.Query { return guardedQuery{q} }

// guardedQuery is a query searching on a GuardReader.
type guardedQuery struct{ q bluge.Query }

// Searcher implements bluge.Query.
func (g guardedQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	return g.q.Searcher(GuardReader(i), o)
}

// guardReader is a search.Reader whose postings iterators are guarded.
type guardReader struct {
	search.Reader
	points *PointsScope
}

// Segments implements SegmentedReader when the reader does, so that range
// queries still read the segments one by one.
func (r guardReader) Segments() []index.SegmentSnapshot {
	if sr, ok := r.Reader.(SegmentedReader); ok {
		return sr.Segments()
	}
	return nil
}

// PointsScope implements PointsReader: the scope the guard was given, or
// the reader's.
func (r guardReader) PointsScope() *PointsScope {
	if r.points != nil {
		return r.points
	}
	if pr, ok := r.Reader.(PointsReader); ok {
		return pr.PointsScope()
	}
	return nil
}

// PostingsIterator implements search.Reader.
func (r guardReader) PostingsIterator(term []byte, field string, freq, norm, vectors bool) (segment.PostingsIterator, error) {
	return GuardPostings(r.Reader, term, field, freq, norm, vectors)
}

// GuardPostings opens the postings of term in field of r, guarded against
// advancing backwards: such an advance reopens the postings and closes the
// iterator it replaces.
func GuardPostings(r search.Reader, term []byte, field string, freq, norm, vectors bool) (segment.PostingsIterator, error) {
	it, err := r.PostingsIterator(term, field, freq, norm, vectors)
	if err != nil {
		return nil, err
	}
	return &guardedPostings{PostingsIterator: it, reopen: func() (segment.PostingsIterator, error) {
		return r.PostingsIterator(term, field, freq, norm, vectors)
	}}, nil
}

// guardedPostings is a postings iterator that restarts itself through a
// fresh iterator.
type guardedPostings struct {
	segment.PostingsIterator
	reopen  func() (segment.PostingsIterator, error)
	last    uint64 // the last document returned
	started bool
}

// Next implements segment.PostingsIterator.
func (g *guardedPostings) Next() (segment.Posting, error) {
	p, err := g.PostingsIterator.Next()
	if p != nil {
		g.last, g.started = p.Number(), true
	}
	return p, err
}

// Advance implements segment.PostingsIterator: the first posting at or
// after number, from the start of the postings again when number is not
// past the last document returned.
func (g *guardedPostings) Advance(number uint64) (segment.Posting, error) {
	if g.started && number <= g.last {
		fresh, err := g.reopen()
		if err != nil {
			return nil, err
		}
		_ = g.PostingsIterator.Close()
		g.PostingsIterator, g.started = fresh, false
	}
	p, err := g.PostingsIterator.Advance(number)
	if p != nil {
		g.last, g.started = p.Number(), true
	}
	return p, err
}

// Optimize implements segment.Optimizable when the iterator does, so that
// bluge's conjunction optimisations still apply.
func (g *guardedPostings) Optimize(kind string, octx segment.OptimizableContext) (segment.OptimizableContext, error) {
	o, ok := g.PostingsIterator.(segment.Optimizable)
	if !ok {
		return nil, nil
	}
	return o.Optimize(kind, octx)
}
