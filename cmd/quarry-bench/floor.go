package main

import (
	"strings"

	"github.com/blugelabs/bluge"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

// floorBatch is the offline writer's batch size for the floor index.
const floorBatch = 10000

// buildFloor measures the smallest bluge index that still answers the
// queries dynamic mapping promises for ds: every document is converted by
// the service's mapping code (with the numeric step of new indices), then only the fields a mapped path needs are
// kept (text with positions, keyword and numeric terms with their doc
// values, and _id, indexed only). Nothing is stored (no _source), no
// metadata field is written (_field_names, _exact.*, the coarser numeric
// terms under _shift.*), and bluge's offline writer merges everything into
// one segment. The service needs at least this much disk for the same
// documents, plus its badger copy of every source; the bench reports it
// beside the disk target so that the target can be read against what the
// stack allows.
func buildFloor(ds *dataset, dir string) (int64, error) {
	w, err := bluge.OpenOfflineWriter(bluge.DefaultConfig(dir), floorBatch, 2)
	if err != nil {
		return 0, err
	}
	mp := newMapper(mapping.NumericStep)
	for i := range ds.docs {
		doc, err := mp.doc(ds, i)
		if err != nil {
			_ = w.Close()
			return 0, err
		}
		kept := (*doc)[:0]
		for _, f := range *doc {
			name := f.Name()
			if name == mapping.FieldNamesField || strings.HasPrefix(name, mapping.ShiftTermsPrefix) || strings.HasPrefix(name, mapping.ExactValuesPrefix) {
				continue
			}
			if tf, ok := f.(*bluge.TermField); ok {
				tf.FieldOptions &^= bluge.Store
				if name == "_id" {
					tf.FieldOptions &^= bluge.Sortable | bluge.Aggregatable
				}
			}
			kept = append(kept, f)
		}
		*doc = kept
		if err := w.Insert(doc); err != nil {
			_ = w.Close()
			return 0, err
		}
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return diskUsage(dir)
}
