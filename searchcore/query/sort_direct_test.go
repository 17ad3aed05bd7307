package query

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
)

// captureReader is a search that keeps the reader it runs on.
type captureReader struct {
	*bluge.TopNSearch
	r search.Reader
}

func (c *captureReader) Searcher(r search.Reader, config bluge.Config) (search.Searcher, error) {
	c.r = r
	return c.TopNSearch.Searcher(r, config)
}

// TestDocValueSorterMatchesValue requires a DocValueSorter to compute, for
// every document, the sort value bluge computes through the clause's source
// after loading its fields (bluge's missing replacement aside: nil).
func TestDocValueSorterMatchesValue(t *testing.T) {
	ix := newTestIndex(t)
	sorts := []string{
		`"count"`, `{"count":"desc"}`, `{"count":{"missing":"_first"}}`, `{"count":{"order":"desc","missing":"_first"}}`,
		`{"count":{"missing":7}}`, `{"count":{"mode":"max"}}`, `{"count":{"mode":"min","order":"desc"}}`,
		`{"count":{"mode":"sum"}}`, `{"count":{"mode":"avg"}}`, `{"count":{"mode":"median","order":"desc"}}`,
		`"price"`, `{"price":{"mode":"avg"}}`, `{"price":{"numeric_type":"long","order":"desc"}}`,
		`{"count":{"numeric_type":"double"}}`, `"ratio"`, `{"ratio":"desc"}`, `"tag"`, `{"tag":"desc"}`,
		`{"tag":{"missing":"bb"}}`, `{"tag":{"mode":"max"}}`, `{"title.keyword":"desc"}`, `"date"`,
		`{"date":{"format":"yyyy-MM-dd"}}`, `{"date":{"numeric_type":"date_nanos"}}`, `"flag"`,
		`{"user.age":"desc"}`, `"_id"`, `[{"tag":"asc"},{"count":"desc"}]`,
		`[{"count":{"mode":"sum"}},{"count":{"mode":"sum","order":"desc"}}]`, `["_score",{"_id":"desc"}]`,
	}
	direct := 0
	for _, raw := range sorts {
		fields, err := ParseSort(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		order, dec, err := CompileSort(fields, ix.ctx)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		req := &captureReader{TopNSearch: bluge.NewTopNSearch(1000, bluge.NewMatchAllQuery()).SortByCustom(order)}
		it, err := ix.reader.Search(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		sorters := make([]*DocValueSorter, len(dec))
		for k, d := range dec {
			if ds, ok := d.DocValueSort(); ok {
				if sorters[k], err = ds.Sorter(req.r); err != nil {
					t.Fatal(err)
				}
				direct++
			} else if !d.ReadsNoDocValues() {
				t.Errorf("%s: clause %d neither a doc-value sort nor free of doc values", raw, k)
			}
		}
		for {
			m, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if m == nil {
				break
			}
			for k, s := range sorters {
				if s == nil {
					continue
				}
				v, err := s.Value(m.Number)
				if err != nil {
					t.Fatal(err)
				}
				if v != nil && !bytes.Equal(v, m.SortValue[k]) {
					t.Errorf("%s: doc %d clause %d: direct %x, bluge %x", raw, m.Number, k, v, m.SortValue[k])
				}
			}
		}
	}
	if direct == 0 {
		t.Fatal("no clause took the direct path")
	}
}
