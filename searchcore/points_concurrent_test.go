package searchcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarry-search/quarry/searchcore"
)

// TestRangePointsConcurrent runs range queries from several goroutines
// while a writer updates and deletes documents and refreshes (so segments
// come, merge and go under the points cache): on one point in time, the
// total of each range read through the points equals the total read
// through the term dictionaries (a profiled search, which reads no points),
// and after the writes stop both equal the count of the final values.
func TestRangePointsConcurrent(t *testing.T) {
	ctx := context.Background()
	e, _ := openEngine(t, t.TempDir(), searchcore.Config{})
	ix, err := e.CreateIndex(ctx, "pts", searchcore.CreateIndexRequest{Mappings: json.RawMessage(`{"properties":{"v":{"type":"long"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	const ids = 2000
	final := make([]int, ids) // the last value written per id; -1: deleted
	write := func(rnd *rand.Rand, n int) {
		var body strings.Builder
		for k := 0; k < n; k++ {
			id := rnd.Intn(ids)
			if rnd.Intn(8) == 0 {
				fmt.Fprintf(&body, `{"delete":{"_index":"pts","_id":"%d"}}`+"\n", id)
				final[id] = -1
				continue
			}
			v := rnd.Intn(100_000)
			fmt.Fprintf(&body, `{"index":{"_index":"pts","_id":"%d"}}`+"\n"+`{"v":%d}`+"\n", id, v)
			final[id] = v
		}
		execBulk(t, e, body.String(), searchcore.RefreshTrue)
	}
	for i := range final {
		final[i] = -1
	}
	write(rand.New(rand.NewSource(1)), 3000)

	total := func(q string, pit string, profile bool) int64 {
		req := searchcore.NewSearchRequest()
		body := fmt.Sprintf(`{"size":0,"track_total_hits":true,"profile":%v,"query":%s`, profile, q)
		if pit != "" {
			body += fmt.Sprintf(`,"pit":{"id":%q}`, pit)
		}
		if err := searchcore.ParseSearchBody([]byte(body+"}"), req); err != nil {
			t.Error(err)
			return -1
		}
		var in []*searchcore.Index
		if pit == "" {
			in = []*searchcore.Index{ix}
		}
		res, err := e.Search(ctx, in, req)
		if err != nil {
			t.Error(err)
			return -1
		}
		return res.Total
	}
	ranges := func(rnd *rand.Rand) (string, int, int) {
		lo := rnd.Intn(100_000)
		hi := lo + rnd.Intn(40_000)
		return fmt.Sprintf(`{"range":{"v":{"gte":%d,"lte":%d}}}`, lo, hi), lo, hi
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rnd := rand.New(rand.NewSource(2))
		for {
			select {
			case <-stop:
				return
			default:
			}
			write(rnd, 200)
		}
	}()
	var checks sync.WaitGroup
	for g := 0; g < 4; g++ {
		checks.Add(1)
		go func() {
			defer checks.Done()
			rnd := rand.New(rand.NewSource(int64(10 + g)))
			for n := 0; n < 40 && !t.Failed(); n++ {
				pit, err := e.OpenPointInTime([]*searchcore.Index{ix}, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				q, _, _ := ranges(rnd)
				if a, b := total(q, pit, false), total(q, pit, true); a != b {
					t.Errorf("%s on one point in time: %d through the points, %d through the dictionaries", q, a, b)
				}
				if _, err := e.ClosePointInTime(pit); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	checks.Wait()
	close(stop)
	wg.Wait()

	rnd := rand.New(rand.NewSource(3))
	for n := 0; n < 50; n++ {
		q, lo, hi := ranges(rnd)
		want := int64(0)
		for _, v := range final {
			if v >= lo && v <= hi {
				want++
			}
		}
		if got, dict := total(q, "", false), total(q, "", true); got != want || dict != want {
			t.Fatalf("%s: %d through the points, %d through the dictionaries, want %d", q, got, dict, want)
		}
	}
}
