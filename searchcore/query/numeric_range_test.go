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
	"github.com/blugelabs/bluge/numeric"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/searcher"
	"github.com/blugelabs/bluge/search/similarity"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// TestSplitInt64RangeCovers: the runs of every step cover [lo, hi]
// exactly once.
func TestSplitInt64RangeCovers(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	edges := []int64{math.MinInt64, math.MinInt64 + 1, -65537, -65536, -1, 0, 1, 65535, 65536, math.MaxInt64 - 1, math.MaxInt64}
	pick := func() int64 {
		switch rnd.Intn(4) {
		case 0:
			return edges[rnd.Intn(len(edges))]
		case 1:
			return int64(rnd.Intn(1 << 20))
		case 2:
			return int64(rnd.Uint64())
		}
		return edges[rnd.Intn(len(edges))] + int64(rnd.Intn(1000)) - 500
	}
	for _, step := range []uint{4, 8, 16} {
		for n := 0; n < 3000; n++ {
			lo, hi := pick(), pick()
			if lo > hi {
				lo, hi = hi, lo
			}
			type run struct{ from, to int64 }
			var runs []run
			splitInt64Range(lo, hi, step, func(from, to int64, shift uint) bool {
				to |= int64(1)<<shift - 1
				if from&(int64(1)<<shift-1) != 0 {
					t.Fatalf("step %d [%d,%d]: run from %d not aligned to shift %d", step, lo, hi, from, shift)
				}
				runs = append(runs, run{from, to})
				return true
			})
			sort.Slice(runs, func(i, j int) bool { return runs[i].from < runs[j].from })
			if len(runs) == 0 || runs[0].from != lo || runs[len(runs)-1].to != hi {
				t.Fatalf("step %d [%d,%d]: runs %v", step, lo, hi, runs)
			}
			for i := 1; i < len(runs); i++ {
				if runs[i-1].to+1 != runs[i].from {
					t.Fatalf("step %d [%d,%d]: gap or overlap in %v", step, lo, hi, runs)
				}
			}
		}
	}
}

// TestNumericRangeStepsAgree: range queries on numbers and dates find the
// same documents in an index written with mapping.NumericStep as in one
// written with mapping.LegacyNumericStep (read with bluge's searcher), and
// those are the documents holding a value in the range.
func TestNumericRangeStepsAgree(t *testing.T) {
	rnd := rand.New(rand.NewSource(7))
	reg, err := analysis.NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := mapping.Parse(json.RawMessage(`{"properties":{"d":{"type":"double"},"l":{"type":"long"},
		"t":{"type":"date"},"n":{"type":"date_nanos"},"h":{"type":"half_float"},"b":{"type":"boolean"}}}`), reg)
	if err != nil {
		t.Fatal(err)
	}
	specials := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1e-300, -1e-300, 1e300, -1e300, 42, 43, 1 << 53}
	var doubles []float64
	var longs []int64
	var docs [][2]string
	const base = int64(1577836800000) // 2020-01-01
	var dates []int64
	for i := 0; i < 600; i++ {
		var d float64
		switch rnd.Intn(4) {
		case 0:
			d = specials[rnd.Intn(len(specials))]
		case 1:
			d = float64(rnd.Intn(2000) - 1000)
		case 2:
			d = rnd.NormFloat64() * 1000
		default:
			d = math.Ldexp(rnd.Float64(), rnd.Intn(200)-100) * float64(1-2*rnd.Intn(2))
		}
		l := int64(rnd.Intn(1_000_000)) - 500_000
		if i%10 == 0 {
			l = rnd.Int63() - rnd.Int63()
		}
		ms := base + int64(rnd.Intn(86_400_000))
		if i%3 == 0 {
			ms = base + int64(i) // dense milliseconds
		}
		doubles, longs, dates = append(doubles, d), append(longs, l), append(dates, ms)
		docs = append(docs, [2]string{strconv.Itoa(i), fmt.Sprintf(`{"d":%s,"l":%d,"t":%d,"n":%d,"h":%s,"b":%v}`,
			strconv.FormatFloat(d, 'g', -1, 64), l, ms, ms, strconv.FormatFloat(float64(rnd.Intn(100))/4, 'g', -1, 64), i%2 == 0)})
	}
	legacy := buildIndexStep(t, m, reg, docs, mapping.LegacyNumericStep)
	current := buildIndexStep(t, m, reg, docs, mapping.NumericStep)
	for _, c := range []struct {
		ix   *testIndex
		want uint
	}{{legacy, mapping.LegacyNumericStep}, {current, mapping.NumericStep}} {
		for _, f := range []string{"d", "l", "t", "n", "h", "b"} {
			if got, err := numericStepOf(c.ix.reader, f); err != nil || got != c.want {
				t.Fatalf("numericStepOf(%s) = %d, %v, want %d", f, got, err, c.want)
			}
		}
		if got, _ := numericStepOf(c.ix.reader, "missing"); got != mapping.NumericStep {
			t.Fatalf("numericStepOf(missing) = %d", got)
		}
	}
	ops := []string{"gte", "gt", "lte", "lt"}
	compared := 0
	check := func(q string, want []string) {
		t.Helper()
		a, b := legacy.ids(t, q), current.ids(t, q)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: legacy %d hits, current %d hits", q, len(a), len(b))
		}
		// bluge's own searcher on the legacy index, when it ends: both
		// ends on one side of the sign boundary.
		if nq, ok := legacy.compile(t, q).(*numericRangeQuery); ok && nq.lo <= nq.hi &&
			(float64ToSortable(nq.lo) >= 0) == (float64ToSortable(nq.hi) >= 0) {
			var ids []string
			for _, h := range legacy.run(t, blugeNumericRange{nq}, nil, nil) {
				ids = append(ids, h.id)
			}
			sort.Strings(ids)
			compared++
			if !reflect.DeepEqual(a, ids) {
				t.Fatalf("%s: %d hits, bluge's searcher %d", q, len(a), len(ids))
			}
		}
		if want != nil && !reflect.DeepEqual(a, want) {
			t.Fatalf("%s: %d hits, want %d", q, len(a), len(want))
		}
	}
	// bound compares like Lucene (and the index): in sortable-bits order,
	// where -0 < +0.
	bound := func(lof float64, loOp string, xf float64) bool {
		lo, x := numeric.Float64ToInt64(lof), numeric.Float64ToInt64(xf)
		switch loOp {
		case "gte":
			return x >= lo
		case "gt":
			return x > lo
		case "lte":
			return x <= lo
		}
		return x < lo
	}
	for n := 0; n < 400; n++ {
		i, j := rnd.Intn(len(docs)), rnd.Intn(len(docs))
		o1, o2 := ops[rnd.Intn(2)], ops[2+rnd.Intn(2)]
		lo, hi := math.Min(doubles[i], doubles[j]), math.Max(doubles[i], doubles[j])
		if rnd.Intn(5) == 0 {
			lo = math.Nextafter(lo, math.Inf(-1))
		}
		var want []string
		for k, d := range doubles {
			if bound(lo, o1, d) && bound(hi, o2, d) {
				want = append(want, strconv.Itoa(k))
			}
		}
		sort.Strings(want)
		if o1 != "gte" || o2 != "lte" {
			want = nil // exclusive ends go through the parser's nextUp/nextDown (-0, +0 rules); only compared across steps
		}
		check(fmt.Sprintf(`{"range":{"d":{%q:%s,%q:%s}}}`, o1, strconv.FormatFloat(lo, 'g', -1, 64), o2, strconv.FormatFloat(hi, 'g', -1, 64)), want)
		if rnd.Intn(4) == 0 { // one open end
			check(fmt.Sprintf(`{"range":{"d":{%q:%s}}}`, o1, strconv.FormatFloat(lo, 'g', -1, 64)), nil)
		}
		li, lj := min(longs[i], longs[j]), max(longs[i], longs[j])
		check(fmt.Sprintf(`{"range":{"l":{%q:%d,%q:%d}}}`, o1, li, o2, lj), nil)
		ti, tj := min(dates[i], dates[j]), max(dates[i], dates[j])
		for _, f := range []string{"t", "n"} {
			check(fmt.Sprintf(`{"range":{%q:{%q:%d,%q:%d,"format":"epoch_millis"}}}`, f, o1, ti, o2, tj), nil)
		}
		check(fmt.Sprintf(`{"range":{"h":{%q:%d,%q:%d}}}`, o1, rnd.Intn(30), o2, rnd.Intn(30)), nil)
	}
	for _, q := range []string{`{"range":{"b":{"gte":false}}}`, `{"range":{"b":{"gt":false}}}`, `{"range":{"b":{"lt":true}}}`,
		`{"range":{"t":{"gte":"2020-01-01||+1h/h","lt":"2020-01-01||+5h"}}}`, `{"range":{"d":{"gte":null}}}`,
		`{"term":{"d":42}}`, `{"terms":{"l":[1,2,3]}}`, `{"range":{"l":{"gte":-9223372036854775808,"lte":9223372036854775807}}}`,
		`{"range":{"d":{"gte":-0.0,"lte":0}}}`, `{"range":{"d":{"gte":-1e-300,"lte":1e-300}}}`} {
		check(q, nil)
	}
	if compared < 500 {
		t.Fatalf("compared with bluge's searcher %d times", compared)
	}
}

// blugeNumericRange runs a numeric range with bluge's searcher.
type blugeNumericRange struct{ *numericRangeQuery }

func (q blugeNumericRange) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	sc := similarity.ConstantScorer(q.score)
	return searcher.NewNumericRangeSearcher(i, q.lo, q.hi, true, true, q.field, 1, sc, sc, o)
}

// BenchmarkNumericRange compares range queries on indices written with
// the legacy and the current precision step: sparse integers (cities-like
// populations) and dense millisecond dates (a document a second for ten
// days), where the coarser step reads more terms.
func BenchmarkNumericRange(b *testing.B) {
	m, err := mapping.Parse(json.RawMessage(`{"properties":{"pop":{"type":"long"},"t":{"type":"date"}}}`), nil)
	if err != nil {
		b.Fatal(err)
	}
	rnd := rand.New(rand.NewSource(3))
	const n = 100_000
	docs := make([][2]string, n)
	for i := range docs {
		pop := int(math.Exp(rnd.Float64() * 14)) // 1 .. 1.2M, log-uniform
		docs[i] = [2]string{strconv.Itoa(i), fmt.Sprintf(`{"pop":%d,"t":%d}`, pop, 1577836800000+int64(i)*8640)}
	}
	queries := map[string]string{
		"pop-100k-500k": `{"range":{"pop":{"gte":100000,"lt":500000}}}`,
		"pop-gte-1000":  `{"range":{"pop":{"gte":1000}}}`,
		"t-3days":       `{"range":{"t":{"gte":"2020-01-02T01:02:03.456Z","lt":"2020-01-05T07:08:09.123Z"}}}`,
		"t-1hour":       `{"range":{"t":{"gte":"2020-01-03T01:02:03.456Z","lt":"2020-01-03T02:08:09.123Z"}}}`,
	}
	// The dictionary paths of both steps, and the points of a shard's
	// cache (read on the first search, outside the timing).
	for _, step := range []uint{mapping.LegacyNumericStep, mapping.NumericStep, 0} {
		path := fmt.Sprintf("step%d", step)
		var scope *PointsScope
		if step == 0 {
			step, path, scope = mapping.NumericStep, "points", NewPointsCache(0, nil).Scope()
		}
		ix := buildIndexStep(b, m, nil, docs, step)
		for _, name := range []string{"pop-100k-500k", "pop-gte-1000", "t-3days", "t-1hour"} {
			q := bluge.Query(ix.compile(b, queries[name]).(*numericRangeQuery))
			if scope != nil {
				q = pointsRange{q.(*numericRangeQuery), scope}
			}
			b.Run(fmt.Sprintf("%s/%s", name, path), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					req := bluge.NewTopNSearch(10, q).WithStandardAggregations()
					it, err := ix.reader.Search(context.Background(), req)
					if err != nil {
						b.Fatal(err)
					}
					for d, err := it.Next(); d != nil || err != nil; d, err = it.Next() {
						if err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}
