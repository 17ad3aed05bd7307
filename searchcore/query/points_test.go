package query

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/index"
	"github.com/blugelabs/bluge/numeric"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

// TestPointsCache checks the cache's bookkeeping: points are read once per
// segment and field however many searches ask at once, the cache keeps
// within its bound by evicting the least recently used, and a dropped
// scope frees its points.
func TestPointsCache(t *testing.T) {
	w, err := bluge.OpenWriter(bluge.InMemoryOnlyConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Four segments of 100 documents, document i holding the value 3i
	// (and 3i+1 when i is even).
	for b := 0; b < 4; b++ {
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
	var segs []index.SegmentSnapshot
	if _, err := r.Search(context.Background(), bluge.NewTopNSearch(1, segmentsCapture{&segs})); err != nil {
		t.Fatal(err)
	}
	if len(segs) < 2 {
		t.Fatalf("%d segments, want several", len(segs))
	}

	// What each segment's points hold: every value of its documents, in
	// order.
	sizes := make([]int64, len(segs))
	for i, ss := range segs {
		p, err := buildPoints(ss.(segmentHolder).Segment(), "n")
		if err != nil {
			t.Fatal(err)
		}
		if n := ss.(segmentHolder).Segment().Count(); len(p.vals) != int(n+n/2) {
			t.Fatalf("%d values in a segment of %d documents, want %d", len(p.vals), n, n+n/2)
		}
		for i := 1; i < len(p.vals); i++ {
			if p.vals[i] < p.vals[i-1] {
				t.Fatalf("values out of order at %d", i)
			}
		}
		sizes[i] = p.bytes()
	}
	last := len(segs) - 1
	// Room for the points of the last two segments, not three.
	limit := sizes[last] + sizes[last-1] + slices.Min(sizes)/2
	cache := NewPointsCache(limit)
	scope := cache.Scope()
	var wg sync.WaitGroup
	got := make([][]*Points, 8)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, ss := range segs {
				p, err := scope.points(ss.ID(), ss.(segmentHolder).Segment(), "n")
				if err != nil {
					t.Error(err)
					return
				}
				got[g] = append(got[g], p)
				if size := cache.Size(); size > limit {
					t.Errorf("cache holds %d bytes over its bound %d", size, limit)
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	// In order once more: the last two segments stay.
	var lastPoints []*Points
	for _, ss := range segs {
		p, err := scope.points(ss.ID(), ss.(segmentHolder).Segment(), "n")
		if err != nil {
			t.Fatal(err)
		}
		lastPoints = append(lastPoints, p)
	}
	if size := cache.Size(); size != sizes[last]+sizes[last-1] {
		t.Fatalf("cache holds %d bytes, want the last two segments' %d", size, sizes[last]+sizes[last-1])
	}
	for _, i := range []int{last - 1, last} {
		again, err := scope.points(segs[i].ID(), segs[i].(segmentHolder).Segment(), "n")
		if err != nil {
			t.Fatal(err)
		}
		if again != lastPoints[i] {
			t.Fatalf("segment %d: read again though cached", i)
		}
	}
	// Concurrent first uses in a cache with room for all build once: every
	// goroutine gets the same points.
	big := NewPointsCache(0).Scope()
	shared := make([]*Points, 8)
	start := make(chan struct{})
	for g := range shared {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			p, err := big.points(segs[last].ID(), segs[last].(segmentHolder).Segment(), "n")
			if err != nil {
				t.Error(err)
			}
			shared[g] = p
		}()
	}
	close(start)
	wg.Wait()
	for g := range shared {
		if shared[g] == nil || shared[g] != shared[0] {
			t.Fatalf("goroutine %d got other points than goroutine 0", g)
		}
	}

	// A range over the cached points: values 3i and 3i+1 in [30, 61] are
	// the documents 10..20.
	var set docSet
	var offset uint64
	for _, ss := range segs {
		p, err := scope.points(ss.ID(), ss.(segmentHolder).Segment(), "n")
		if err != nil {
			t.Fatal(err)
		}
		p.collect(numeric.Float64ToInt64(30), numeric.Float64ToInt64(61), ss.Deleted(), offset, &set)
		offset += ss.(segmentHolder).Segment().Count()
	}
	if set.n != 11 {
		t.Fatalf("range [30, 61] holds %d documents, want 11", set.n)
	}
	if cache.Size() > limit {
		t.Fatalf("cache holds %d bytes over its bound %d", cache.Size(), limit)
	}
	scope.Drop()
	if cache.Size() != 0 {
		t.Fatalf("a dropped scope leaves %d bytes", cache.Size())
	}
}

// segmentsCapture is a query that records the reader's segments.
type segmentsCapture struct{ segs *[]index.SegmentSnapshot }

func (c segmentsCapture) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	if sr, ok := i.(SegmentedReader); ok {
		*c.segs = sr.Segments()
	}
	return bluge.NewMatchNoneQuery().Searcher(i, o)
}
