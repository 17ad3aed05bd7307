package searchcore

import (
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/index"
)

func TestDeletedDocs(t *testing.T) {
	w, err := bluge.OpenWriter(bluge.DefaultConfig(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	count := func() (live uint64, deleted int64) {
		t.Helper()
		r, err := w.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		live, err = r.Count()
		if err != nil {
			t.Fatal(err)
		}
		deleted, ok := deletedDocs(r)
		if !ok {
			t.Fatal("deletedDocs: bluge reader layout not recognised")
		}
		return live, deleted
	}
	b := index.NewBatch()
	for _, id := range []string{"a", "b", "c"} {
		b.Update(bluge.Identifier(id), bluge.NewDocument(id))
	}
	if err := w.Batch(b); err != nil {
		t.Fatal(err)
	}
	if live, del := count(); live != 3 || del != 0 {
		t.Fatalf("after insert: live %d deleted %d, want 3 and 0", live, del)
	}
	// A delete-only batch marks documents of the one segment deleted and
	// creates no segment, so nothing merges them away.
	b = index.NewBatch()
	b.Delete(bluge.Identifier("a"))
	b.Delete(bluge.Identifier("c"))
	if err := w.Batch(b); err != nil {
		t.Fatal(err)
	}
	if live, del := count(); live != 1 || del != 2 {
		t.Fatalf("after delete: live %d deleted %d, want 1 and 2", live, del)
	}
	if n, ok := deletedDocs(nil); n != 0 || ok {
		t.Fatalf("deletedDocs(nil) = %d, %v", n, ok)
	}
}
