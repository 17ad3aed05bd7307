package appsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/appsearch"
	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/store"
)

// openService opens a core and a service on dir.
func openService(t *testing.T, dir string, cfg appsearch.Config) *appsearch.Service {
	t.Helper()
	db, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	core, err := searchcore.Open(context.Background(), searchcore.Config{DataPath: dir, Storage: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { core.Close(); db.Close() })
	cfg.Core, cfg.Store = core, db
	svc, err := appsearch.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func raws(docs ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(docs))
	for i, d := range docs {
		out[i] = json.RawMessage(d)
	}
	return out
}

func TestEngineDocumentsSchemaDurable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	svc := openService(t, dir, appsearch.Config{})
	if _, err := svc.CreateEngine(ctx, appsearch.EngineSpec{Name: "movies"}); err != nil {
		t.Fatal(err)
	}
	res, err := svc.IndexDocuments(ctx, "movies", raws(`{"id":"1","title":"Heat","year":1995,"loc":"40.1,-70.2"}`, `{"id":2,"title":"Alien","year":"1979","tags":["a","b"]}`, `{"Bad":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(res); got != `[{"id":"1","errors":[]},{"id":"2","errors":[]},{"id":null,"errors":["Fields can only contain lowercase letters, numbers, and underscores: Bad."]}]` {
		t.Errorf("index = %s", got)
	}
	sc, err := svc.UpdateSchema(ctx, "movies", map[string]string{"year": "number", "loc": "geolocation"})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(sc); got != `{"loc":"geolocation","tags":"text","title":"text","year":"number"}` {
		t.Errorf("schema = %s", got)
	}
	docs, meta, err := svc.ListDocuments(ctx, "movies", appsearch.Page{Current: 1, Size: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(docs); got != `[{"title":"Heat","year":"1995","loc":"40.1,-70.2","id":"1"},{"title":"Alien","year":"1979","tags":["a","b"],"id":"2"}]` {
		t.Errorf("list = %s", got)
	}
	if meta.TotalResults != 2 || meta.TotalPages != 1 {
		t.Errorf("meta = %+v", meta)
	}
	e, _ := svc.Engine("movies")
	if e.Index != ".as-engine-movies.1" {
		t.Errorf("index = %s", e.Index)
	}
	// The typed field works in the core: a range on year.
	idx, _ := svc.CoreIndex(e)
	n, err := svc.Core().Count(ctx, []*searchcore.Index{idx}, json.RawMessage(`{"range":{"year":{"gte":1990}}}`), 0)
	if err != nil || n.Count != 1 {
		t.Errorf("count = %+v, %v", n, err)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestMetaEngineLimits(t *testing.T) {
	ctx := context.Background()
	svc := openService(t, t.TempDir(), appsearch.Config{Limits: appsearch.Limits{SourceEngines: 2}})
	for _, n := range []string{"a", "b", "c"} {
		if _, err := svc.CreateEngine(ctx, appsearch.EngineSpec{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		spec appsearch.EngineSpec
		want string
	}{
		{appsearch.EngineSpec{Name: "m", Type: "meta", SourceEngines: []string{"a", "b", "c"}}, `["Meta engines can have at most 2 source engines"]`},
		{appsearch.EngineSpec{Name: "m", Type: "meta", SourceEngines: []string{"a", "a", "b"}}, ``},
		{appsearch.EngineSpec{Name: "x", Type: "meta", SourceEngines: []string{"m"}}, `["Source engine cannot be a meta engine: m"]`},
		{appsearch.EngineSpec{Name: "y", SourceEngines: []string{"a"}}, `["Source engines can only be set on meta engines"]`},
		{appsearch.EngineSpec{Name: "z", Type: "meta", Language: ptr("en"), SourceEngines: []string{"a"}}, `["Language cannot be set on meta engines"]`},
		{appsearch.EngineSpec{Name: "-x"}, `["Name can only contain lowercase letters, numbers, and hyphens"]`},
	} {
		_, err := svc.CreateEngine(ctx, tc.spec)
		got := ""
		if err != nil {
			e, _ := eserr.AsError(err)
			got = mustJSON(appsearch.Messages(e))
		}
		if got != tc.want {
			t.Errorf("CreateEngine(%+v) = %s; want %s", tc.spec, got, tc.want)
		}
	}
	if _, err := svc.AddSourceEngines(ctx, "m", []string{"c"}); err == nil || !strings.Contains(err.Error(), "at most 2") {
		t.Errorf("add third source = %v", err)
	}
	m, _ := svc.Engine("m")
	if mustJSON(m.SourceEngines) != `["a","b"]` {
		t.Errorf("sources = %v", m.SourceEngines)
	}
}

func ptr[T any](v T) *T { return &v }

// TestConcurrentWritesAndReindex: writes racing schema changes (reindexes)
// lose nothing.
func TestConcurrentWritesAndReindex(t *testing.T) {
	ctx := context.Background()
	svc := openService(t, t.TempDir(), appsearch.Config{})
	if _, err := svc.CreateEngine(ctx, appsearch.EngineSpec{Name: "e"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for b := 0; b < 5; b++ {
				var docs []json.RawMessage
				for i := 0; i < 5; i++ {
					docs = append(docs, json.RawMessage(fmt.Sprintf(`{"id":"%d-%d-%d","n":"%d"}`, w, b, i, i)))
				}
				res, err := svc.IndexDocuments(ctx, "e", docs)
				if err != nil {
					t.Error(err)
					return
				}
				for _, r := range res {
					if len(r.Errors) > 0 {
						t.Errorf("index: %v", r.Errors)
					}
				}
			}
		}(w)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i, typ := range []string{"number", "text", "number"} {
			if _, err := svc.UpdateSchema(ctx, "e", map[string]string{"n": typ}); err != nil {
				t.Errorf("schema change %d: %v", i, err)
			}
		}
	}()
	wg.Wait()
	_, meta, err := svc.ListDocuments(ctx, "e", appsearch.Page{Current: 1, Size: 1})
	if err != nil || meta.TotalResults != 100 {
		t.Errorf("documents = %d, %v; want 100", meta.TotalResults, err)
	}
	e, _ := svc.Engine("e")
	idx, _ := svc.CoreIndex(e)
	if n, err := svc.Core().Count(ctx, []*searchcore.Index{idx}, json.RawMessage(`{"range":{"n":{"gte":0}}}`), 0); err != nil || n.Count != 100 || e.Schema["n"] != appsearch.Number {
		t.Errorf("typed documents = %+v, %v (%s)", n, err, e.Schema["n"])
	}
	if got := len(svc.Core().Indices()); got != 1 {
		t.Errorf("core indices = %d, want 1 (old generations dropped)", got)
	}
}

// TestOrphanedIndicesDropped: a hidden index no engine records (a crash
// between creating it and recording it) is dropped on start-up.
func TestOrphanedIndicesDropped(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	core, err := searchcore.Open(ctx, searchcore.Config{DataPath: dir, Storage: db})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { core.Close(); db.Close() }()
	for _, n := range []string{".as-engine-ghost", ".as-engine-kept.3", "plain"} {
		if _, err := core.CreateIndex(ctx, n, searchcore.CreateIndexRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	svc, err := appsearch.New(ctx, appsearch.Config{Core: core, Store: db})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateEngine(ctx, appsearch.EngineSpec{Name: "kept"}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, idx := range core.Indices() {
		names = append(names, idx.Name())
	}
	if got := strings.Join(names, ","); got != ".as-engine-kept,plain" {
		t.Errorf("indices = %s", got)
	}
}
