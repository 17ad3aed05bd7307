package query

import (
	"encoding/json"
	"testing"

	"github.com/blugelabs/bluge"

	"github.com/quarry-search/quarry/searchcore/analysis"
	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// newNestedIndex indexes documents with nested objects the way the shards
// do (root document plus hidden nested documents).
func newNestedIndex(tb testing.TB) *testIndex {
	tb.Helper()
	reg, err := analysis.NewRegistry(nil)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := mapping.Parse(json.RawMessage(`{"properties":{"t":{"type":"keyword"},
		"c":{"type":"nested","properties":{"a":{"type":"keyword"},"n":{"type":"integer"},"r":{"type":"nested","properties":{"w":{"type":"keyword"}}}}}}}`), reg)
	if err != nil {
		tb.Fatal(err)
	}
	w, err := bluge.OpenWriter(bluge.InMemoryOnlyConfig())
	if err != nil {
		tb.Fatal(err)
	}
	batch := bluge.NewBatch()
	for _, d := range [][2]string{
		{"1", `{"t":"x","c":[{"a":"p","n":1,"r":[{"w":"u"}]},{"a":"q","n":2}]}`},
		{"2", `{"t":"y","c":{"a":"q","n":3,"r":{"w":"v"}}}`},
		{"3", `{"t":"z"}`},
	} {
		doc := bluge.NewDocument(d[0])
		_, nested, err := m.ParseDocumentNested(d[0], []byte(d[1]), reg, doc, mapping.NestedObjectsLimit)
		if err != nil {
			tb.Fatal(err)
		}
		batch.Update(doc.ID(), doc)
		for _, n := range nested {
			batch.Insert(n)
		}
	}
	if err := w.Batch(batch); err != nil {
		tb.Fatal(err)
	}
	r, err := w.Reader()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	return &testIndex{reader: r, ctx: &Context{Mapping: m, Analyzers: reg, Now: fixedNow, Index: "test", IndexUUID: "uuid"}}
}

func TestNestedJoin(t *testing.T) {
	ix := newNestedIndex(t)
	tests := []struct {
		q    string
		want map[string]float64
	}{
		{`{"nested":{"path":"c","query":{"constant_score":{"filter":{"term":{"c.a":"q"}},"boost":3}}}}`, map[string]float64{"1": 3, "2": 3}},
		{`{"nested":{"path":"c","score_mode":"sum","query":{"constant_score":{"filter":{"range":{"c.n":{"gte":1}}},"boost":2}}}}`, map[string]float64{"1": 4, "2": 2}},
		{`{"nested":{"path":"c","query":{"bool":{"filter":[{"term":{"c.a":"p"}},{"term":{"c.n":2}}]}}}}`, map[string]float64{}},
		{`{"nested":{"path":"c","score_mode":"max","query":{"nested":{"path":"c.r","query":{"constant_score":{"filter":{"term":{"c.r.w":"v"}}}}}}}}`, map[string]float64{"2": 1}},
		{`{"nested":{"path":"c.r","query":{"constant_score":{"filter":{"exists":{"field":"c.r.w"}}}}}}`, map[string]float64{"1": 1, "2": 1}},
		{`{"term":{"c.a":"q"}}`, map[string]float64{}},
	}
	for _, tc := range tests {
		n, err := Parse(json.RawMessage(tc.q))
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		q, err := n.Compile(ix.ctx)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		got := map[string]float64{}
		for _, h := range ix.run(t, ExcludeNested(q), nil, nil) {
			got[h.id] = h.score
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s = %v, want %v", tc.q, got, tc.want)
			continue
		}
		for id, s := range tc.want {
			if got[id] != s {
				t.Errorf("%s = %v, want %v", tc.q, got, tc.want)
			}
		}
	}
}

// FuzzNestedQuery checks that parsing, compiling and running nested
// queries (with inner_hits) never panics and fails only with
// *searchcore.Error values.
func FuzzNestedQuery(f *testing.F) {
	for _, s := range []string{
		`{"nested":{"path":"c","query":{"term":{"c.a":"q"}}}}`,
		`{"nested":{"path":"c","score_mode":"min","ignore_unmapped":true,"boost":2,"_name":"n","query":{"match_all":{}},"inner_hits":{"name":"x","from":1,"size":2,"sort":[{"c.n":"desc"}],"_source":["c.a"]}}}`,
		`{"nested":{"path":"c","query":{"nested":{"path":"c.r","score_mode":"none","query":{"exists":{"field":"c.r.w"}}}}}}`,
		`{"nested":{"path":"t","query":{}}}`, `{"nested":{"path":["c"],"query":{"match_all":{}}}}`,
		`{"nested":{"query":{"match_all":{}},"inner_hits":{"size":-1}}}`, `{"nested":{"path":"zz","score_mode":"median"}}`,
	} {
		f.Add([]byte(s))
	}
	ix := newNestedIndex(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := Parse(json.RawMessage(data))
		if err != nil {
			if _, ok := err.(*searchcore.Error); !ok {
				t.Fatalf("Parse returned %T %v", err, err)
			}
			return
		}
		ctx := *ix.ctx
		q, err := n.Compile(&ctx)
		if err != nil {
			if _, ok := err.(*searchcore.Error); !ok {
				t.Fatalf("Compile returned %T %v", err, err)
			}
			return
		}
		if it, err := ix.reader.Search(t.Context(), bluge.NewTopNSearch(10, ExcludeNested(q))); err == nil {
			for m, err := it.Next(); m != nil && err == nil; m, err = it.Next() {
			}
		}
		for _, spec := range ctx.InnerHits {
			req := bluge.NewTopNSearch(spec.From+spec.Size+1, NestedDocsOf(spec.Query, "1")).SortByCustom(spec.Order)
			if it, err := ix.reader.Search(t.Context(), req); err == nil {
				for m, err := it.Next(); m != nil && err == nil; m, err = it.Next() {
				}
			}
		}
	})
}
