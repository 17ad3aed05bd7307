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
	blugeanalysis "github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/numeric"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/similarity"

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
	// "mixed" writes every other batch as indices before the shift-terms
	// field did: step-16 coarser terms in the field itself.
	for _, mode := range []string{"legacy", "current", "mixed"} {
		step := mapping.NumericStep
		if mode == "legacy" {
			step = mapping.LegacyNumericStep
		}
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
				if mode == "mixed" && b%2 == 1 {
					doc.AddField(combinedStep16Field("l", float64(v)))
				} else if _, _, err := m.ParseDocumentWith(id, []byte(fmt.Sprintf(`{"l":%d}`, v)), reg, doc,
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
			t.Fatalf("%s: %d segments, want several", mode, segs)
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
			q := fmt.Sprintf(`{"range":{"l":{"gte":%d,"lte":%d}}}`, lo, hi)
			if len(want) == 0 {
				want = nil
			}
			nq := ix.compile(t, q).(*numericRangeQuery)
			// The per-segment path, the snapshot's terms and bluge's
			// multi-term searchers (explanations) find the same documents.
			for _, path := range []struct {
				name string
				q    bluge.Query
			}{{"segments", nq}, {"snapshot", snapshotRange{nq, false}}, {"multi-term", snapshotRange{nq, true}}} {
				var got []string
				for _, h := range ix.run(t, path.q, nil, nil) {
					got = append(got, h.id)
				}
				sort.Strings(got)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, %s [%d, %d]: %d hits, want %d", mode, path.name, lo, hi, len(got), len(want))
				}
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

// snapshotRange runs a range query through the snapshot's terms: the
// bitset union, or bluge's multi-term searchers when multiTerm.
type snapshotRange struct {
	*numericRangeQuery
	multiTerm bool
}

func (q snapshotRange) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	step, err := numericStepOf(i, q.field)
	if err != nil {
		return nil, err
	}
	terms, err := numericRangeTerms(i, q.field, float64ToSortable(q.lo), float64ToSortable(q.hi), step)
	if err != nil {
		return nil, err
	}
	if q.multiTerm {
		return terms.multiTermSearcher(i, q.field, similarity.ConstantScorer(q.score), o)
	}
	return unionSearcher(i, terms, q.field, q.score)
}

// combinedStep16Field is a long field as written before
// mapping.ShiftTermsField: its step-16 coarser terms in the field itself
// (and in its doc values).
func combinedStep16Field(name string, x float64) *bluge.TermField {
	f := bluge.NewKeywordFieldBytes(name, numeric.MustNewPrefixCodedInt64(numeric.Float64ToInt64(x), 0)).WithAnalyzer(combinedStep16{})
	f.FieldOptions = bluge.Index | bluge.Sortable | bluge.Aggregatable
	return f
}

type combinedStep16 struct{}

func (combinedStep16) Analyze(input []byte) blugeanalysis.TokenStream {
	v, _ := numeric.PrefixCoded(input).Int64()
	ts := blugeanalysis.TokenStream{{Term: input, End: len(input), PositionIncr: 1, Type: blugeanalysis.Numeric}}
	for shift := uint(16); shift < 64; shift += 16 {
		t := numeric.MustNewPrefixCodedInt64(v, shift)
		ts = append(ts, &blugeanalysis.Token{Term: t, End: len(t), Type: blugeanalysis.Numeric})
	}
	return ts
}
