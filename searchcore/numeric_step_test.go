package searchcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/numeric"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/mapping"
	"github.com/quarry-search/quarry/store"
)

// TestNumericStepRecorded: a new index records mapping.NumericStep in its
// metadata and indexes numbers with it; an index whose metadata has no
// step (created before it was recorded) keeps mapping.LegacyNumericStep.
// Range queries on numbers and dates find the same documents in both,
// also after a restart, through the engine's points or without them.
func TestNumericStepRecorded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const mappings = `{"properties":{"n":{"type":"long"},"d":{"type":"double"},"t":{"type":"date"}}}`
	e, closeFirst := openEngine(t, dir, searchcore.Config{})
	uuids := map[string]string{}
	for _, name := range []string{"legacy", "current"} {
		ix, err := e.CreateIndex(ctx, name, searchcore.CreateIndexRequest{Mappings: json.RawMessage(mappings)})
		if err != nil {
			t.Fatal(err)
		}
		uuids[name] = ix.UUID()
	}
	closeFirst()

	// Drop the recorded step of "legacy", as metadata written before it.
	db, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"legacy", "current"} {
		raw, err := db.GetMeta(ctx, "index/"+name)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if m["numeric_step"] != float64(mapping.NumericStep) {
			t.Fatalf("%s metadata numeric_step = %v, want %d", name, m["numeric_step"], mapping.NumericStep)
		}
		if name == "legacy" {
			delete(m, "numeric_step")
			raw, _ = json.Marshal(m)
			if err := db.PutMeta(ctx, "index/"+name, raw); err != nil {
				t.Fatal(err)
			}
		}
	}
	db.Close()

	e, closeSecond := openEngine(t, dir, searchcore.Config{})
	var body strings.Builder
	for i := 0; i < 300; i++ {
		for _, name := range []string{"legacy", "current"} {
			fmt.Fprintf(&body, `{"index":{"_index":%q,"_id":"%d"}}`+"\n", name, i)
			fmt.Fprintf(&body, `{"n":%d,"d":%g,"t":%d}`+"\n", i*7919%100000-50000, float64(i)/7-20, int64(1577836800000)+int64(i*i*1000))
		}
	}
	if !execBulk(t, e, body.String(), searchcore.RefreshTrue) {
		t.FailNow()
	}
	queries := []string{
		`{"range":{"n":{"gte":-10000,"lt":30000}}}`, `{"range":{"n":{"gt":-50000}}}`, `{"range":{"n":{"lte":0}}}`,
		`{"range":{"d":{"gte":-3.5,"lte":11.25}}}`, `{"range":{"d":{"gte":-0.0,"lte":0}}}`,
		`{"range":{"t":{"gte":"2020-01-01T00:10:00Z","lt":"2020-01-01T12:00:00Z"}}}`, `{"range":{"t":{"gte":"now-10y"}}}`,
		`{"bool":{"filter":[{"range":{"n":{"gte":0}}},{"range":{"t":{"lte":"2020-01-01T01:00:00Z"}}}]}}`,
	}
	// Every query's hits (and _count) with the engine's points, kept to
	// compare with an engine without them.
	results := map[string][]string{}
	search := func(e *searchcore.Engine) {
		t.Helper()
		for _, q := range queries {
			var got [2][]string
			for k, name := range []string{"legacy", "current"} {
				ix, ok := e.Index(name)
				if !ok {
					t.Fatalf("no index %s", name)
				}
				req := searchcore.NewSearchRequest()
				if err := searchcore.ParseSearchBody([]byte(`{"size":1000,"query":`+q+`}`), req); err != nil {
					t.Fatal(err)
				}
				res, err := e.Search(ctx, []*searchcore.Index{ix}, req)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				for _, h := range res.Hits {
					got[k] = append(got[k], h.ID)
				}
				sort.Strings(got[k])
			}
			if !reflect.DeepEqual(got[0], got[1]) || len(got[0]) == 0 && !strings.Contains(q, "-0.0") {
				t.Fatalf("%s: legacy %d hits, current %d hits", q, len(got[0]), len(got[1]))
			}
			ix, _ := e.Index("current")
			cnt, err := e.Count(ctx, []*searchcore.Index{ix}, json.RawMessage(q), 0)
			if err != nil || cnt.Count != int64(len(got[1])) {
				t.Fatalf("%s: _count %+v (%v), want %d", q, cnt, err, len(got[1]))
			}
			if prev, ok := results[q]; ok && !reflect.DeepEqual(prev, got[1]) {
				t.Fatalf("%s: %d hits, %d before", q, len(got[1]), len(prev))
			}
			results[q] = got[1]
		}
	}
	search(e)
	closeSecond()

	// The shard files hold the step each index was written with: the
	// legacy step's coarser terms in the field, the current step's in the
	// shift-terms field alone.
	for name, want := range map[string]uint{"legacy": mapping.LegacyNumericStep, "current": mapping.NumericStep} {
		r, err := bluge.OpenReader(bluge.DefaultConfig(filepath.Join(dir, "indices", uuids[name], "0")))
		if err != nil {
			t.Fatal(err)
		}
		for _, field := range []string{"n", mapping.ShiftTermsField("n")} {
			for _, shift := range []uint{0, 4, 16} {
				b := numeric.ShiftStartInt64 + byte(shift)
				it, err := r.DictionaryIterator(field, nil, []byte{b}, []byte{b + 1})
				if err != nil {
					t.Fatal(err)
				}
				de, _ := it.Next()
				_ = it.Close()
				wantHas := shift%want == 0 && (want == mapping.LegacyNumericStep) == (field == "n")
				if shift == 0 {
					wantHas = field == "n"
				}
				if has := de != nil; has != wantHas {
					t.Errorf("%s: %s has shift-%d terms = %v with step %d", name, field, shift, has, want)
				}
			}
		}
		_ = r.Close()
	}

	e, closeThird := openEngine(t, dir, searchcore.Config{})
	search(e)
	closeThird()
	// Without points, range queries read the term dictionaries, and
	// find the same.
	e, _ = openEngine(t, dir, searchcore.Config{PointsCacheBytes: -1})
	search(e)
}
