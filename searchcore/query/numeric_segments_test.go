package query

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"sort"
	"strconv"
	"testing"

	"github.com/blugelabs/bluge"
	blugeanalysis "github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/index"
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
	m, err := mapping.Parse(json.RawMessage(`{"properties":{"l":{"type":"long"},"d":{"type":"double"}}}`), reg)
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
		liveD := map[string][]float64{}
		// One cache for every snapshot of the index, as a shard keeps it:
		// the points of a segment read in one snapshot serve the next,
		// whose deletions differ. A tiny cache (which admits no points:
		// every segment is read through its dictionary) answers the same.
		cache := NewPointsCache(0, nil)
		scope, tiny := cache.Scope(), NewPointsCache(1, nil).Scope()
		points := func(nq *numericRangeQuery) []rangePath {
			return []rangePath{{"points", pointsRange{nq, scope}}, {"uncached points", pointsRange{nq, tiny}}}
		}
		maxSegs := 0
		// snapshot opens a reader on what is written so far.
		snapshot := func() (*bluge.Reader, *testIndex) {
			r, err := w.Reader()
			if err != nil {
				t.Fatal(err)
			}
			segs := 0
			if err := probeSegments(r, &segs); err != nil {
				t.Fatal(err)
			}
			maxSegs = max(maxSegs, segs)
			return r, &testIndex{reader: r, ctx: &Context{Mapping: m, Analyzers: reg, Now: fixedNow, Index: "test", IndexUUID: "uuid"}}
		}
		lvals := func(id string) []float64 { return []float64{float64(live[id])} }
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
				ds := make([]float64, 1+rnd.Intn(3))
				for i := range ds {
					ds[i] = (rnd.Float64() - 0.3) * 1e4
				}
				ds[0] = math.Copysign(0, ds[0]) // -0 and +0 are values too
				dj, _ := json.Marshal(ds)
				doc := bluge.NewDocument(id)
				if mode == "mixed" && b%2 == 1 {
					doc.AddField(combinedStep16Field("l", float64(v)))
					for _, d := range ds {
						doc.AddField(combinedStep16Field("d", d))
					}
				} else if _, _, err := m.ParseDocumentWith(id, []byte(fmt.Sprintf(`{"l":%d,"d":%s}`, v, dj)), reg, doc,
					mapping.DocOptions{NestedLimit: mapping.NestedObjectsLimit, NumericStep: step}); err != nil {
					t.Fatal(err)
				}
				batch.Update(doc.ID(), doc)
				live[id] = v
				liveD[id] = ds
			}
			if err := w.Batch(batch); err != nil {
				t.Fatal(err)
			}
			if b < 6 {
				continue
			}
			// Snapshots along the way: the points path against the
			// documents live at that moment.
			r, ix := snapshot()
			for n := 0; n < 20; n++ {
				lo := int64(rnd.Intn(240_000)) - 30_000
				hi := lo + int64(rnd.Intn(70_000))
				checkRange(t, ix, fmt.Sprintf("%s batch %d l", mode, b), "l", float64(lo), float64(hi), lvals, live, points)
				dlo := (rnd.Float64() - 0.4) * 1e4
				dhi := dlo + rnd.Float64()*4e3
				switch n {
				case 0:
					dlo, dhi = 0, 0 // +0 only: -0 sorts before it, as in Lucene
				case 1:
					dlo, dhi = math.Copysign(0, -1), math.Copysign(0, -1)
				case 2:
					dlo, dhi = math.Copysign(0, -1), 0
				}
				checkRange(t, ix, fmt.Sprintf("%s batch %d d", mode, b), "d", dlo, dhi, func(id string) []float64 { return liveD[id] }, live, points)
			}
			_ = r.Close()
		}
		if cache.Size() == 0 || cache.Size() > DefaultPointsCacheBytes {
			t.Fatalf("%s: points cache holds %d bytes", mode, cache.Size())
		}
		scope.Drop()
		if cache.Size() != 0 {
			t.Fatalf("%s: a dropped scope leaves %d bytes", mode, cache.Size())
		}
		r, ix := snapshot()
		if maxSegs < 2 {
			t.Fatalf("%s: at most %d segments, want several", mode, maxSegs)
		}
		for n := 0; n < 150; n++ {
			lo := int64(rnd.Intn(240_000)) - 30_000
			hi := lo + int64(rnd.Intn(70_000))
			// The per-segment path, the snapshot's terms and bluge's
			// multi-term searchers (explanations) find the same documents.
			checkRange(t, ix, mode, "l", float64(lo), float64(hi), lvals, live, func(nq *numericRangeQuery) []rangePath {
				return []rangePath{{"snapshot", snapshotRange{nq, false}}, {"multi-term", snapshotRange{nq, true}}}
			})
		}
		_ = r.Close()
		_ = w.Close()
	}
}

// rangePath is one way of running a range query.
type rangePath struct {
	name string
	q    bluge.Query
}

// checkRange runs a [lo, hi] range on field through the per-segment path
// and the paths given for the compiled query, and wants exactly the live
// documents with a value in it, in the order of sortable values (where -0
// comes before +0).
func checkRange(t *testing.T, ix *testIndex, name, field string, lo, hi float64, values func(id string) []float64, live map[string]int64, paths func(nq *numericRangeQuery) []rangePath) {
	t.Helper()
	var want []string
	for id := range live {
		for _, v := range values(id) {
			if s := numeric.Float64ToInt64(v); s >= numeric.Float64ToInt64(lo) && s <= numeric.Float64ToInt64(hi) {
				want = append(want, id)
				break
			}
		}
	}
	sort.Strings(want)
	nq := ix.compile(t, fmt.Sprintf(`{"range":{%q:{"gte":%v,"lte":%v}}}`, field, lo, hi)).(*numericRangeQuery)
	for _, path := range append([]rangePath{{"segments", nq}}, paths(nq)...) {
		var got []string
		for _, h := range ix.run(t, path.q, nil, nil) {
			got = append(got, h.id)
		}
		sort.Strings(got)
		if !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("%s, %s [%v, %v]: %d hits, want %d", name, path.name, lo, hi, len(got), len(want))
		}
	}
}

// pointsRange runs a range query on a reader whose range queries read the
// points of scope.
type pointsRange struct {
	*numericRangeQuery
	scope *PointsScope
}

func (q pointsRange) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	if _, ok := i.(SegmentedReader); !ok {
		return nil, fmt.Errorf("the test reader has no segments")
	}
	return q.numericRangeQuery.Searcher(GuardReaderWithPoints(i, q.scope), o)
}

// readerSegments returns the segments a search's reader exposes through
// SegmentedReader.
func readerSegments(r *bluge.Reader) ([]index.SegmentSnapshot, error) {
	var segs []index.SegmentSnapshot
	_, err := r.Search(context.Background(), bluge.NewTopNSearch(1, segmentsCapture{&segs}))
	return segs, err
}

// probeSegments counts the segments readerSegments returns.
func probeSegments(r *bluge.Reader, n *int) error {
	segs, err := readerSegments(r)
	*n = len(segs)
	return err
}

// segmentsCapture is a query that records the reader's segments.
type segmentsCapture struct{ segs *[]index.SegmentSnapshot }

func (c segmentsCapture) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	if sr, ok := i.(SegmentedReader); ok {
		*c.segs = sr.Segments()
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
