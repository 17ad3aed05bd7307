package query

import (
	"container/list"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring"
	"github.com/blugelabs/bluge/numeric"
	segment "github.com/blugelabs/bluge_segment_api"
)

// Points are the values of one numeric field in one segment, sorted, each
// with its document: an in-memory points index that answers a range with
// two binary searches, where the term dictionary needs one lookup per
// distinct value at the range's ends (about 150 per segment for the
// cities' population range of the bench, on 13 segments). They are read
// once from the field's shift-0 terms (every precision step writes one per
// value, in the field itself) and hold 12 bytes per value. A segment's
// points never change; its deletions belong to the snapshot and are
// applied when a range is collected.
type Points struct {
	vals []int64  // sortable values (numeric.Float64ToInt64), ascending
	docs []uint32 // docs[i] is the segment-local document holding vals[i]
}

// buildPoints reads field's shift-0 terms of seg in dictionary order, which
// is the order of their values.
func buildPoints(seg segment.Segment, field string) (*Points, error) {
	if seg.Count() > math.MaxUint32 {
		return nil, fmt.Errorf("segment of %d documents is too large for points", seg.Count())
	}
	dict, err := seg.Dictionary(field)
	if err != nil {
		return nil, err
	}
	p := &Points{}
	var pl segment.PostingsList
	var pit segment.PostingsIterator
	visit := func(term []byte) error {
		v, err := numeric.PrefixCoded(term).Int64()
		if err != nil {
			return err
		}
		if pl, err = dict.PostingsList(term, nil, pl); err != nil {
			return err
		}
		if pit, err = pl.Iterator(false, false, false, pit); err != nil {
			return err
		}
		var d segment.Posting
		for d, err = pit.Next(); err == nil && d != nil; d, err = pit.Next() {
			p.vals = append(p.vals, v)
			p.docs = append(p.docs, uint32(d.Number()))
		}
		return err
	}
	err = drainTerms(dict.Iterator(nil, []byte{numeric.ShiftStartInt64}, []byte{numeric.ShiftStartInt64 + 1}), visit)
	if err != nil {
		return nil, err
	}
	if cap(p.vals) > len(p.vals) {
		// What the cache counts is what it holds.
		p.vals, p.docs = slices.Clone(p.vals), slices.Clone(p.docs)
	}
	return p, nil
}

// bytes is the memory the points hold.
func (p *Points) bytes() int64 { return int64(cap(p.vals))*8 + int64(cap(p.docs))*4 + 64 }

// collect adds offset+doc to set for every value in [lo, hi] whose
// document is not deleted.
func (p *Points) collect(lo, hi int64, deleted *roaring.Bitmap, offset uint64, set *docSet) {
	if deleted != nil && deleted.IsEmpty() {
		deleted = nil
	}
	i := sort.Search(len(p.vals), func(i int) bool { return p.vals[i] >= lo })
	for ; i < len(p.vals) && p.vals[i] <= hi; i++ {
		d := p.docs[i]
		if deleted != nil && deleted.Contains(d) {
			continue
		}
		set.add(offset + uint64(d))
	}
}

// DefaultPointsCacheBytes bounds a PointsCache when no other limit is
// given: room for the points of a dozen numeric fields of a million
// documents.
const DefaultPointsCacheBytes int64 = 64 << 20

// PointsCache keeps the Points of segments within a memory bound, the
// least recently used evicted first. Each shard reads it through its own
// PointsScope. A PointsCache is safe for concurrent use; build it with
// NewPointsCache.
type PointsCache struct {
	limit  int64
	scopes atomic.Uint64

	mu   sync.Mutex
	size int64
	lru  list.List // of *pointsEntry, most recently used first
	m    map[pointsKey]*pointsEntry
}

type pointsKey struct {
	scope, seg uint64
	field      string
}

type pointsEntry struct {
	key   pointsKey
	count uint64        // the segment's documents, a check of the key
	ready chan struct{} // closed once p and err are set
	p     *Points
	err   error
	elem  *list.Element // in lru once built
	size  int64
}

// NewPointsCache returns a cache holding at most limit bytes of points
// (limit ≤ 0 means DefaultPointsCacheBytes).
func NewPointsCache(limit int64) *PointsCache {
	if limit <= 0 {
		limit = DefaultPointsCacheBytes
	}
	return &PointsCache{limit: limit, m: map[pointsKey]*pointsEntry{}}
}

// Scope returns a new scope of the cache for one bluge index, whose
// segment ids it keys by.
func (c *PointsCache) Scope() *PointsScope {
	return &PointsScope{c: c, id: c.scopes.Add(1)}
}

// Size is the memory the cached points hold.
func (c *PointsCache) Size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// PointsScope is a PointsCache seen by one bluge index (a shard): its
// segment ids name segments only within it.
type PointsScope struct {
	c  *PointsCache
	id uint64
}

// Drop forgets the scope's points (the shard closed).
func (s *PointsScope) Drop() {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		if k.scope == s.id {
			c.remove(e)
		}
	}
}

// points returns the Points of field in the segment with id segID,
// building them on first use. Concurrent first uses build once.
func (s *PointsScope) points(segID uint64, seg segment.Segment, field string) (*Points, error) {
	c := s.c
	key := pointsKey{scope: s.id, seg: segID, field: field}
	count := seg.Count()
	c.mu.Lock()
	if e := c.m[key]; e != nil {
		if e.count == count {
			if e.elem != nil {
				c.lru.MoveToFront(e.elem)
			}
			c.mu.Unlock()
			<-e.ready
			return e.p, e.err
		}
		c.remove(e)
	}
	e := &pointsEntry{key: key, count: count, ready: make(chan struct{})}
	c.m[key] = e
	c.mu.Unlock()

	e.p, e.err = buildPoints(seg, field)
	close(e.ready)

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[key] != e {
		return e.p, e.err // dropped while building
	}
	if e.err != nil {
		delete(c.m, key)
		return nil, e.err
	}
	if e.size = e.p.bytes(); e.size > c.limit {
		delete(c.m, key)
		return e.p, nil
	}
	e.elem = c.lru.PushFront(e)
	c.size += e.size
	for c.size > c.limit {
		c.remove(c.lru.Back().Value.(*pointsEntry))
	}
	return e.p, nil
}

// remove takes e out of the cache; c.mu is held.
func (c *PointsCache) remove(e *pointsEntry) {
	if c.m[e.key] == e {
		delete(c.m, e.key)
	}
	if e.elem != nil {
		c.lru.Remove(e.elem)
		e.elem = nil
		c.size -= e.size
	}
}

// PointsReader is a reader whose range queries may read the points of
// its segments (a shard's statsReader): a nil scope means they may not.
type PointsReader interface {
	PointsScope() *PointsScope
}
