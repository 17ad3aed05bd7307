package query

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strconv"
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// TestNumericRangeSegments checks the per-segment range path on an index
// of many segments with updated and deleted documents: every range gives
// exactly the live documents whose value lies in it, for both steps.
func TestNumericRangeSegments(t *testing.T) {
	reg, err := analysis.NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := mapping.Parse(json.RawMessage(`{"properties":{"l":{"type":"long"}}}`), reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []uint{mapping.LegacyNumericStep, mapping.NumericStep} {
		rnd := rand.New(rand.NewSource(11))
		w, err := bluge.OpenWriter(bluge.InMemoryOnlyConfig())
		if err != nil {
			t.Fatal(err)
		}
		live := map[string]int64{}
		for b := 0; b < 12; b++ {
			batch := bluge.NewBatch()
			seen := map[string]bool{} // one operation per id and batch, as the shard writer does
			for k := 0; k < 40; k++ {
				id := strconv.Itoa(rnd.Intn(300))
				if seen[id] {
					continue
				}
				seen[id] = true
				if rnd.Intn(6) == 0 {
					batch.Delete(bluge.Identifier(id))
					delete(live, id)
					continue
				}
				v := int64(rnd.Intn(200_000)) - 20_000
				doc := bluge.NewDocument(id)
				if _, _, err := m.ParseDocumentWith(id, []byte(fmt.Sprintf(`{"l":%d}`, v)), reg, doc,
					mapping.DocOptions{NestedLimit: mapping.NestedObjectsLimit, NumericStep: step}); err != nil {
					t.Fatal(err)
				}
				batch.Update(doc.ID(), doc)
				live[id] = v
			}
			if err := w.Batch(batch); err != nil {
				t.Fatal(err)
			}
		}
		r, err := w.Reader()
		if err != nil {
			t.Fatal(err)
		}
		ix := &testIndex{reader: r, ctx: &Context{Mapping: m, Analyzers: reg, Now: fixedNow, Index: "test", IndexUUID: "uuid"}}
		segs := 0
		if err := probeSegments(r, &segs); err != nil {
			t.Fatal(err)
		}
		if segs < 2 {
			t.Fatalf("step %d: %d segments, want several", step, segs)
		}
		for n := 0; n < 150; n++ {
			lo := int64(rnd.Intn(240_000)) - 30_000
			hi := lo + int64(rnd.Intn(70_000))
			var want []string
			for id, v := range live {
				if v >= lo && v <= hi {
					want = append(want, id)
				}
			}
			sort.Strings(want)
			got := ix.ids(t, fmt.Sprintf(`{"range":{"l":{"gte":%d,"lte":%d}}}`, lo, hi))
			if len(want) == 0 {
				want = nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("step %d, [%d, %d]: %d hits, want %d", step, lo, hi, len(got), len(want))
			}
		}
		_ = r.Close()
		_ = w.Close()
	}
}

// probeSegments counts the segments a search's reader exposes through
// SegmentedReader.
func probeSegments(r *bluge.Reader, n *int) error {
	_, err := r.Search(context.Background(), bluge.NewTopNSearch(1, &segmentProbe{n: n}))
	return err
}

// segmentProbe is a query that records the number of segments.
type segmentProbe struct{ n *int }

func (p *segmentProbe) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	if sr, ok := i.(SegmentedReader); ok {
		*p.n = len(sr.Segments())
	}
	return bluge.NewMatchNoneQuery().Searcher(i, o)
}
