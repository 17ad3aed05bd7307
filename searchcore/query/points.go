package query

import (
	"container/list"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

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
	if cap(p.vals) > len(p.vals) || cap(p.docs) > len(p.docs) {
		// What the cache counts is what it holds.
		vals, docs := make([]int64, len(p.vals)), make([]uint32, len(p.docs))
		copy(vals, p.vals)
		copy(docs, p.docs)
		p.vals, p.docs = vals, docs
	}
	return p, nil
}

// bytes is the memory the points hold.
func (p *Points) bytes() int64 { return pointsBytes(int64(len(p.vals))) }

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
// given: room for 5.6 million values, the points of five numeric fields
// of a million documents.
const DefaultPointsCacheBytes int64 = 64 << 20

// pointsIdle is how long the points of a segment stay unread before the
// cache may evict them for others. The cache never evicts points read
// more recently: when those fill it, a segment it has no room for is
// searched through its term dictionary, so that searches over more points
// than fit do not rebuild them in turn.
const pointsIdle = 10 * time.Second

// pointsExpiry is how long points stay cached unread (Expire): those of
// segments merged away are read no more.
const pointsExpiry = 5 * time.Minute

// pointsShare is the largest fraction of the cache one segment's points
// may take (the points of larger segments are not built).
const pointsShare = 4

// PointsCache keeps the Points of segments within a memory bound. Each
// shard reads it through its own PointsScope. A PointsCache is safe for
// concurrent use; build it with NewPointsCache.
type PointsCache struct {
	limit  int64
	now    func() time.Time
	scopes atomic.Uint64

	mu   sync.Mutex
	size int64     // the bytes of the points held and being built
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
	elem  *list.Element
	size  int64 // counted in the cache's size: estimated while building
	used  time.Time
	// real, on an entry without points, is the size the points turned
	// out to have when they could not be kept: the next use is admitted
	// (or refused) on it instead of reading them again.
	real int64
}

// NewPointsCache returns a cache holding at most limit bytes of points
// (limit ≤ 0 means DefaultPointsCacheBytes); now is the clock of its
// idleness (nil: time.Now).
func NewPointsCache(limit int64, now func() time.Time) *PointsCache {
	if limit <= 0 {
		limit = DefaultPointsCacheBytes
	}
	if now == nil {
		now = time.Now
	}
	return &PointsCache{limit: limit, now: now, m: map[pointsKey]*pointsEntry{}}
}

// Scope returns a new scope of the cache for one bluge index, whose
// segment ids it keys by.
func (c *PointsCache) Scope() *PointsScope {
	return &PointsScope{c: c, id: c.scopes.Add(1)}
}

// Size is the memory the cached points hold (or are estimated to, while
// they are read).
func (c *PointsCache) Size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// Expire drops the points unread for pointsExpiry (the engine calls it
// periodically).
func (c *PointsCache) Expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	// The list is in order of last use: the oldest at the back.
	for back := c.lru.Back(); back != nil; back = c.lru.Back() {
		e := back.Value.(*pointsEntry)
		if now.Sub(e.used) < pointsExpiry {
			return
		}
		c.remove(e)
	}
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
// reading them on first use if the cache has room for them; nil (and no
// error) when it has not, or s is nil. Concurrent first uses read once.
func (s *PointsScope) points(segID uint64, seg segment.Segment, field string) (*Points, error) {
	if s == nil || seg.Count() > math.MaxUint32 {
		return nil, nil
	}
	return s.get(segID, field, seg.Count(), func() (*Points, error) { return buildPoints(seg, field) })
}

// get is points with the segment's document count and the reading of its
// points given.
func (s *PointsScope) get(segID uint64, field string, count uint64, build func() (*Points, error)) (*Points, error) {
	c := s.c
	key := pointsKey{scope: s.id, seg: segID, field: field}
	c.mu.Lock()
	now := c.now()
	e := c.m[key]
	if e != nil && e.count != count { // another segment's
		c.remove(e)
		e = nil
	}
	if e != nil && e.real == 0 {
		c.touch(e, now)
		c.mu.Unlock()
		<-e.ready
		return e.p, e.err
	}
	// A value per document is the estimate (several values per document
	// are corrected once read), unless the size is remembered.
	est := pointsBytes(int64(count))
	if e != nil {
		est = e.real
	}
	if !c.admits(est, now) {
		if e != nil {
			c.touch(e, now) // still too large: remembered on
		}
		c.mu.Unlock()
		return nil, nil // search the dictionary
	}
	if e != nil {
		c.remove(e)
	}
	e = &pointsEntry{key: key, count: count, ready: make(chan struct{}), size: est, used: now}
	e.elem = c.lru.PushFront(e)
	c.m[key] = e
	c.size += est
	c.mu.Unlock()

	func() {
		defer func() {
			if r := recover(); r != nil {
				e.p, e.err = nil, fmt.Errorf("reading the points of [%s]: %v", field, r)
			}
			close(e.ready)
		}()
		e.p, e.err = build()
	}()

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[key] != e {
		return e.p, e.err // evicted or dropped while read
	}
	if e.err != nil {
		c.remove(e)
		return nil, e.err
	}
	c.size -= e.size
	e.size = e.p.bytes()
	c.size += e.size
	if e.size > c.limit/pointsShare || !c.makeRoom(0, c.now()) {
		// More values than estimated, and no room: this search only.
		c.remove(e)
		c.remember(key, count, e.size, c.now())
	}
	return e.p, nil
}

// touch marks e read at now; c.mu is held.
func (c *PointsCache) touch(e *pointsEntry, now time.Time) {
	e.used = now
	c.lru.MoveToFront(e.elem)
}

// admits tells whether points of n more bytes may be kept, making room
// for them: at most a quarter of the cache, freed from idle points if
// need be; c.mu is held.
func (c *PointsCache) admits(n int64, now time.Time) bool {
	return n <= c.limit/pointsShare && c.makeRoom(n, now)
}

// remember keeps, without the points, the size a segment's points have,
// so that its next use is admitted on it; c.mu is held.
func (c *PointsCache) remember(key pointsKey, count uint64, real int64, now time.Time) {
	e := &pointsEntry{key: key, count: count, ready: make(chan struct{}), real: real, used: now}
	close(e.ready)
	e.elem = c.lru.PushFront(e)
	c.m[key] = e
}

// makeRoom evicts idle points, least recently used first, so that n more
// bytes fit, and tells whether they do; when idle points cannot free
// enough it evicts nothing. c.mu is held.
func (c *PointsCache) makeRoom(n int64, now time.Time) bool {
	need := c.size + n - c.limit
	if need <= 0 {
		return true
	}
	var victims []*pointsEntry
	var free int64
	for el := c.lru.Back(); el != nil && free < need; el = el.Prev() {
		e := el.Value.(*pointsEntry)
		if now.Sub(e.used) < pointsIdle {
			return false // the rest were read more recently still
		}
		victims = append(victims, e)
		free += e.size
	}
	if free < need {
		return false
	}
	for _, e := range victims {
		c.remove(e)
	}
	return true
}

// remove takes e out of the cache; c.mu is held.
func (c *PointsCache) remove(e *pointsEntry) {
	if c.m[e.key] != e {
		return
	}
	delete(c.m, e.key)
	c.lru.Remove(e.elem)
	c.size -= e.size
}

// pointsBytes is the memory of the points of n values.
func pointsBytes(n int64) int64 { return n*12 + 64 }

// PointsReader is a reader whose range queries may read the points of
// its segments (a shard's statsReader): a nil scope means they may not.
type PointsReader interface {
	PointsScope() *PointsScope
}
