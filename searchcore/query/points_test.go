package query

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/numeric"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

// TestBuildPoints checks what a segment's points hold: every value of its
// documents in order, each with its document, and that a range collects
// exactly the documents with a value in it.
func TestBuildPoints(t *testing.T) {
	w, err := bluge.OpenWriter(bluge.InMemoryOnlyConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Documents i = 0..299 hold the value 3i, and 3i+1 when i is even.
	for b := 0; b < 3; b++ {
		batch := bluge.NewBatch()
		for k := 0; k < 100; k++ {
			i := b*100 + k
			doc := bluge.NewDocument(strconv.Itoa(i))
			doc.AddField(mapping.NumericField("n", float64(3*i), mapping.NumericStep))
			if i%2 == 0 {
				doc.AddField(mapping.NumericField("n", float64(3*i+1), mapping.NumericStep))
			}
			batch.Update(doc.ID(), doc)
		}
		if err := w.Batch(batch); err != nil {
			t.Fatal(err)
		}
	}
	r, err := w.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	segs, err := readerSegments(r)
	if err != nil {
		t.Fatal(err)
	}
	var set docSet
	var offset uint64
	values := 0
	for _, ss := range segs {
		seg := ss.(segmentHolder).Segment()
		p, err := buildPoints(seg, "n")
		if err != nil {
			t.Fatal(err)
		}
		values += len(p.vals)
		for i := range p.vals {
			if i > 0 && p.vals[i] < p.vals[i-1] {
				t.Fatalf("values out of order at %d", i)
			}
			if p.docs[i] >= uint32(seg.Count()) {
				t.Fatalf("document %d in a segment of %d", p.docs[i], seg.Count())
			}
		}
		if p.bytes() != pointsBytes(int64(len(p.vals))) || cap(p.vals) != len(p.vals) {
			t.Fatalf("points of %d values count %d bytes (capacity %d)", len(p.vals), p.bytes(), cap(p.vals))
		}
		// Values 3i and 3i+1 in [30, 61] are the documents 10..20.
		p.collect(numeric.Float64ToInt64(30), numeric.Float64ToInt64(61), ss.Deleted(), offset, &set)
		offset += seg.Count()
	}
	if values != 450 {
		t.Fatalf("%d values, want 450", values)
	}
	if set.n != 11 {
		t.Fatalf("range [30, 61] holds %d documents, want 11", set.n)
	}
}

// TestPointsCache checks the cache's policy on points of known sizes: it
// admits a segment's points while they fit, never evicting points read
// within pointsIdle (a segment without room is searched through its
// dictionary: nil points), evicts idle ones least recently used first,
// refuses a segment over a quarter of it, corrects its estimate once
// points are read, forgets failed reads, reads once for concurrent first
// uses, expires points unread for pointsExpiry, and frees a dropped scope.
func TestPointsCache(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time { return now }
	const limit = 4000 // 50 values take 664 bytes: six fit
	cache := NewPointsCache(limit, clock)
	scope := cache.Scope()
	var builds atomic.Int32
	values := func(n int) func() (*Points, error) {
		return func() (*Points, error) {
			builds.Add(1)
			return &Points{vals: make([]int64, n), docs: make([]uint32, n)}, nil
		}
	}
	get := func(seg uint64, count uint64, build func() (*Points, error)) *Points {
		t.Helper()
		p, err := scope.get(seg, "f", count, build)
		if err != nil {
			t.Fatal(err)
		}
		if size := cache.Size(); size > limit {
			t.Fatalf("segment %d: cache holds %d bytes, over %d", seg, size, limit)
		}
		return p
	}
	wantBuilds := func(n int32) {
		t.Helper()
		if got := builds.Swap(0); got != n {
			t.Fatalf("%d reads of points, want %d", got, n)
		}
	}

	// Over a quarter of the cache: never read.
	if p := get(100, 100, values(100)); p != nil {
		t.Fatal("points of 100 values admitted in a cache of 4000 bytes")
	}
	wantBuilds(0)
	// Six segments fit, the seventh has no room while the others are
	// fresh.
	held := map[uint64]*Points{}
	for seg := uint64(1); seg <= 6; seg++ {
		if held[seg] = get(seg, 50, values(50)); held[seg] == nil {
			t.Fatalf("segment %d not admitted", seg)
		}
	}
	wantBuilds(6)
	if cache.Size() != 6*664 {
		t.Fatalf("cache holds %d bytes, want %d", cache.Size(), 6*664)
	}
	if p := get(7, 50, values(50)); p != nil {
		t.Fatal("segment 7 admitted over fresh points")
	}
	wantBuilds(0)
	// Cached points are read once.
	if get(1, 50, values(50)) != held[1] {
		t.Fatal("segment 1 read again")
	}
	wantBuilds(0)
	// Once idle, the least recently used (segment 2: segment 1 was just
	// read) make room.
	now = now.Add(pointsIdle)
	if get(7, 50, values(50)) == nil {
		t.Fatal("segment 7 not admitted over idle points")
	}
	wantBuilds(1)
	if get(1, 50, values(50)) != held[1] || get(3, 50, values(50)) != held[3] {
		t.Fatal("segments 1 and 3 should still be cached")
	}
	wantBuilds(0)
	if p := get(2, 50, values(50)); p == held[2] {
		t.Fatal("segment 2 should have been evicted")
	}
	wantBuilds(1) // segment 2 again, evicting idle segment 4
	// Segments 5 and 6, idle, make room for 4 and 5; then every segment
	// held is fresh, and 6 is refused.
	if get(4, 50, values(50)) == nil || get(5, 50, values(50)) == nil {
		t.Fatal("segments 4 and 5 not admitted over idle points")
	}
	wantBuilds(2)
	if get(6, 50, values(50)) != nil {
		t.Fatal("segment 6 admitted over fresh points")
	}
	wantBuilds(0)

	// A second cache with room for the estimate of a segment (10 values)
	// but not for what it holds (60: several values per document): the
	// points are read and returned, but kept only once idle points make
	// room for them.
	cache2 := NewPointsCache(limit, clock)
	scope2 := cache2.Scope()
	for seg := uint64(1); seg <= 5; seg++ {
		if p, err := scope2.get(seg, "f", 50, values(50)); p == nil || err != nil {
			t.Fatalf("segment %d: %v, %v", seg, p, err)
		}
	}
	wantBuilds(5)
	for round, wantSize := range []int64{5 * 664, 4*664 + pointsBytes(60)} {
		p, err := scope2.get(8, "f", 10, values(60))
		if err != nil || p == nil || len(p.vals) != 60 {
			t.Fatalf("round %d: segment 8: %v, %v", round, p, err)
		}
		wantBuilds(1)
		if cache2.Size() != wantSize {
			t.Fatalf("round %d: cache holds %d bytes, want %d", round, cache2.Size(), wantSize)
		}
		now = now.Add(pointsIdle)
	}
	if p, _ := scope2.get(8, "f", 10, values(60)); p == nil {
		t.Fatal("segment 8 not kept")
	}
	wantBuilds(0)
	// A failed read is not kept, and the next use reads again.
	boom := errors.New("boom")
	if _, err := scope2.get(9, "f", 1, func() (*Points, error) { builds.Add(1); return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	wantBuilds(1)
	if p, err := scope2.get(9, "f", 1, values(1)); p == nil || err != nil {
		t.Fatalf("segment 9 after a failure: %v, %v", p, err)
	}
	wantBuilds(1)
	if cache2.Size() > limit {
		t.Fatalf("cache holds %d bytes, over %d", cache2.Size(), limit)
	}
	// A segment whose points turn out over a quarter of the cache (many
	// values per document) is read once: not kept, evicting nothing, and
	// its size remembered, so that later uses search its dictionary
	// without reading the points again.
	cache3 := NewPointsCache(limit, clock)
	scope3 := cache3.Scope()
	small, err := scope3.get(1, "f", 1, values(1))
	if err != nil || small == nil {
		t.Fatalf("segment 1: %v, %v", small, err)
	}
	now = now.Add(pointsIdle)
	for round := 0; round < 3; round++ {
		p, err := scope3.get(2, "f", 10, values(300))
		if err != nil || (round == 0) != (p != nil) {
			t.Fatalf("round %d: segment 2: %v, %v", round, p, err)
		}
		wantBuilds(map[bool]int32{true: 2, false: 0}[round == 0]) // with segment 1's
		if cache3.Size() != pointsBytes(1) {
			t.Fatalf("round %d: cache holds %d bytes, want segment 1's %d", round, cache3.Size(), pointsBytes(1))
		}
	}
	// Idle points too small to make room are not evicted for nothing.
	for seg := uint64(3); seg <= 7; seg++ {
		if p, err := scope3.get(seg, "f", 50, values(50)); p == nil || err != nil {
			t.Fatalf("segment %d: %v, %v", seg, p, err)
		}
	}
	wantBuilds(5)
	if p, _ := scope3.get(8, "f", 60, values(60)); p != nil {
		t.Fatal("segment 8 admitted without room")
	}
	if p, _ := scope3.get(1, "f", 1, values(1)); p != small {
		t.Fatal("segment 1 evicted though that could not make room")
	}
	wantBuilds(0)

	// A read that panics fails the search, and is not kept.
	if _, err := scope3.get(9, "f", 1, func() (*Points, error) { panic("boom") }); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("a panicking read: %v", err)
	}

	// Concurrent first uses of a segment read its points once.
	release := make(chan struct{})
	shared := make([]*Points, 8)
	var wg sync.WaitGroup
	for g := range shared {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := scope.get(10, "f", 5, func() (*Points, error) {
				<-release
				return values(5)()
			})
			if err != nil {
				t.Error(err)
			}
			shared[g] = p
		}()
	}
	// Let the goroutines reach the cache before the read ends.
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	wantBuilds(1)
	for g := range shared {
		if shared[g] == nil || shared[g] != shared[0] {
			t.Fatalf("goroutine %d got other points than goroutine 0", g)
		}
	}

	// Points unread for pointsExpiry expire; those read since stay.
	now = now.Add(time.Second)
	if get(1, 50, values(50)) != held[1] {
		t.Fatal("segment 1 read again")
	}
	wantBuilds(0)
	now = now.Add(pointsExpiry - time.Second)
	cache.Expire()
	if size := cache.Size(); size != 664 {
		t.Fatalf("after expiry the cache holds %d bytes, want segment 1's 664", size)
	}
	scope.Drop()
	if cache.Size() != 0 {
		t.Fatalf("a dropped scope leaves %d bytes", cache.Size())
	}
	var nilScope *PointsScope
	if p, err := nilScope.points(1, nil, "f"); p != nil || err != nil {
		t.Fatalf("a nil scope gives %v, %v", p, err)
	}
}
