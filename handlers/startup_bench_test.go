package handlers_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/quarry-search/quarry/handlers"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/store"
)

// BenchmarkNewServer measures building the HTTP stack (spec load and
// validator), the bulk of start-up on an empty data folder.
func BenchmarkNewServer(b *testing.B) {
	dir := b.TempDir()
	db, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	eng, err := searchcore.Open(context.Background(), searchcore.Config{DataPath: dir, Storage: db, ClusterName: "c", NodeName: "n"})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := handlers.NewServer(eng, handlers.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
