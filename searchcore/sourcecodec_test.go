package searchcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/blugelabs/bluge"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/store"
)

// TestCompressedSources: the first write bringing enough sources gives the
// index a dictionary; later sources are stored compressed with it, earlier
// ones stay plain, and every read of a stored source (hits, top_hits, a
// non-realtime get) returns the bytes sent, also after a restart.
func TestCompressedSources(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, closeFirst := openEngine(t, dir, searchcore.Config{})
	if _, err := e.CreateIndex(ctx, "places", searchcore.CreateIndexRequest{}); err != nil {
		t.Fatal(err)
	}
	source := func(i int) string {
		// Odd spacing and key order must survive byte for byte.
		return fmt.Sprintf(`{"name" : "Place %d",  "country":"C%d","population":%d, "location":{"lat":%d.25,"lon":-%d.5}}`, i, i%7, i*131, i%90, i%180)
	}
	bulk := func(e *searchcore.Engine, from, to int) {
		t.Helper()
		var body strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&body, `{"index":{"_index":"places","_id":"%d"}}`+"\n%s\n", i, source(i))
		}
		if !execBulk(t, e, body.String(), searchcore.RefreshTrue) {
			t.FailNow()
		}
	}
	bulk(e, 0, 5)     // too little to sample: stored plain
	bulk(e, 5, 400)   // sampled: stored compressed
	bulk(e, 400, 410) // compressed with the same dictionary
	check := func(e *searchcore.Engine) {
		t.Helper()
		res := searchIndex(t, e, "places", `{"size":500,"sort":[{"population":"asc"}],"aggs":{"top":{"top_hits":{"size":3,"sort":[{"population":"desc"}]}}}}`)
		if len(res.Hits) != 410 {
			t.Fatalf("%d hits", len(res.Hits))
		}
		for i, h := range res.Hits {
			if h.ID != fmt.Sprint(i) || string(h.Source) != source(i) {
				t.Fatalf("hit %d: %s %s, want %s", i, h.ID, h.Source, source(i))
			}
		}
		var aggs struct {
			Top struct {
				Hits struct {
					Hits []struct {
						ID     string          `json:"_id"`
						Source json.RawMessage `json:"_source"`
					} `json:"hits"`
				} `json:"hits"`
			} `json:"top"`
		}
		if err := json.Unmarshal(res.Aggregations, &aggs); err != nil {
			t.Fatal(err)
		}
		for k, h := range aggs.Top.Hits.Hits {
			if want := source(409 - k); h.ID != fmt.Sprint(409-k) || string(h.Source) != want {
				t.Fatalf("top_hits %d: %s %s, want %s", k, h.ID, h.Source, want)
			}
		}
		if len(aggs.Top.Hits.Hits) != 3 {
			t.Fatalf("top_hits: %s", res.Aggregations)
		}
		for _, id := range []int{2, 250, 405} {
			_, rec, err := e.Get(ctx, "places", fmt.Sprint(id), searchcore.GetOptions{Realtime: false})
			if err != nil || rec == nil || string(rec.Source) != source(id) {
				t.Fatalf("get %d (snapshot): %v %+v", id, err, rec)
			}
		}
	}
	check(e)
	ix, _ := e.Index("places")
	uuid := ix.UUID()
	closeFirst()

	// The stored fields: plain before the dictionary, compressed after.
	r, err := bluge.OpenReader(bluge.DefaultConfig(filepath.Join(dir, "indices", uuid, "0")))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id, field string
	}{{"3", "_source"}, {"7", "_source_z"}, {"404", "_source_z"}} {
		it, err := r.Search(ctx, bluge.NewTopNSearch(1, bluge.NewTermQuery(c.id).SetField("_id")))
		if err != nil {
			t.Fatal(err)
		}
		dm, err := it.Next()
		if err != nil || dm == nil {
			t.Fatalf("doc %s: %v", c.id, err)
		}
		var fields []string
		_ = dm.VisitStoredFields(func(field string, value []byte) bool {
			if strings.HasPrefix(field, "_source") {
				fields = append(fields, field)
				if field == "_source_z" && len(value) >= len(source(0)) {
					t.Errorf("doc %s: compressed source of %d bytes", c.id, len(value))
				}
			}
			return true
		})
		if len(fields) != 1 || fields[0] != c.field {
			t.Errorf("doc %s: stored %v, want [%s]", c.id, fields, c.field)
		}
	}
	_ = r.Close()

	e, _ = openEngine(t, dir, searchcore.Config{})
	check(e)
}

// TestCompressedSourcesConcurrentFirstWrites: concurrent first bulks into
// a new index agree on one dictionary, and every source reads back.
func TestCompressedSourcesConcurrentFirstWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, closeFirst := openEngine(t, dir, searchcore.Config{})
	if _, err := e.CreateIndex(ctx, "c", searchcore.CreateIndexRequest{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var body strings.Builder
			for i := range 200 {
				fmt.Fprintf(&body, `{"index":{"_index":"c","_id":"%d-%d"}}`+"\n"+`{"w":%d,"i":%d,"text":"writer %d document %d"}`+"\n", w, i, w, i, w, i)
			}
			execBulk(t, e, body.String(), searchcore.RefreshFalse)
		}()
	}
	wg.Wait()
	closeFirst()
	db, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := db.GetMeta(ctx, "index/c")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		SourceDict []byte `json:"source_dict"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || len(m.SourceDict) == 0 {
		t.Fatalf("metadata has no dictionary: %v %s", err, raw)
	}
	e, _ = openEngine(t, dir, searchcore.Config{})
	res := searchIndex(t, e, "c", `{"size":1000}`)
	if len(res.Hits) != 800 {
		t.Fatalf("%d hits", len(res.Hits))
	}
	for _, h := range res.Hits {
		var w, i int
		if _, err := fmt.Sscanf(h.ID, "%d-%d", &w, &i); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(`{"w":%d,"i":%d,"text":"writer %d document %d"}`, w, i, w, i); string(h.Source) != want {
			t.Fatalf("%s: %s, want %s", h.ID, h.Source, want)
		}
	}
}

// searchIndex runs a search body on one index.
func searchIndex(t *testing.T, e *searchcore.Engine, index, body string) *searchcore.SearchResult {
	t.Helper()
	ix, ok := e.Index(index)
	if !ok {
		t.Fatalf("no index %s", index)
	}
	req := searchcore.NewSearchRequest()
	if err := searchcore.ParseSearchBody([]byte(body), req); err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(context.Background(), []*searchcore.Index{ix}, req)
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return res
}
