package searchcore

import (
	"reflect"
	"unsafe"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/index"
)

// deletedDocs counts the documents of a reader's segments that are marked
// deleted and not yet merged away (Elasticsearch's docs.deleted). bluge
// v0.2.2 keeps the segment snapshot in an unexported field of Reader, so
// this reads it by reflection; TestDeletedDocs fails if that layout
// changes with a bluge upgrade. ok is false when the snapshot is not found.
func deletedDocs(r *bluge.Reader) (n int64, ok bool) {
	if r == nil {
		return 0, false
	}
	f := reflect.ValueOf(r).Elem().FieldByName("reader")
	if !f.IsValid() || f.Type() != reflect.TypeOf((*index.Snapshot)(nil)) {
		return 0, false
	}
	snap := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(*index.Snapshot)
	if snap == nil {
		return 0, false
	}
	for _, seg := range snap.Segments() {
		if d := seg.Deleted(); d != nil {
			n += int64(d.GetCardinality())
		}
	}
	return n, true
}
