package handlers

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/store"
)

// BenchmarkEncodeSearch measures rendering a search response of 100 city
// hits with _source and a terms aggregation (the engine's result is
// computed once; only the encoding is timed).
func BenchmarkEncodeSearch(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	db, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	eng, err := searchcore.Open(ctx, searchcore.Config{DataPath: dir, Storage: db, ClusterName: "c", NodeName: "n", AutoCreateIndex: true})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	countries := []string{"FR", "US", "DE", "ES", "IT"}
	reqs := make([]*searchcore.DocRequest, 500)
	for i := range reqs {
		reqs[i] = &searchcore.DocRequest{Op: searchcore.OpIndex, Index: "cities", ID: fmt.Sprint(i), Source: fmt.Appendf(nil,
			`{"name":"Sant Julià de Lòria %d","country":"%s","feature_code":"PPLA","population":%d,"location":{"lat":42.46372,"lon":1.49129}}`,
			i, countries[i%len(countries)], 1000+i)}
	}
	for _, r := range eng.ExecDocs(ctx, reqs, searchcore.RefreshTrue) {
		if r.Err != nil {
			b.Fatal(r.Err)
		}
	}
	req, err := parseSearch([]byte(`{"size":100,"aggs":{"c":{"terms":{"field":"country.keyword"}}}}`), cluster.SearchParams{})
	if err != nil {
		b.Fatal(err)
	}
	indices, err := eng.Resolve("cities", searchcore.ResolveOptions{ExpandOpen: true})
	if err != nil {
		b.Fatal(err)
	}
	res, err := eng.Search(ctx, indices, req)
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Hits) != 100 {
		b.Fatalf("%d hits", len(res.Hits))
	}
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(encodeSearch(res, req, false))
	}
	b.SetBytes(int64(n))
}
