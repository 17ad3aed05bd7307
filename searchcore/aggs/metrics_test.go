package aggs_test

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// popStats is the independent reference for numeric metrics on population.
type popStats struct {
	count                int64
	sum, sumSq, min, max float64
	vals                 []float64
}

func statsOf(docs []map[string]any, field string, keep func(d map[string]any) bool) popStats {
	s := popStats{min: math.Inf(1), max: math.Inf(-1)}
	for _, d := range docs {
		if keep != nil && !keep(d) {
			continue
		}
		v, ok := fnum(d, field)
		if !ok {
			continue
		}
		s.count++
		s.sum += v
		s.sumSq += v * v
		s.min = math.Min(s.min, v)
		s.max = math.Max(s.max, v)
		s.vals = append(s.vals, v)
	}
	sort.Float64s(s.vals)
	return s
}

// TestMetricsWithSortOnSameField combines a sort on population with several
// aggregations on population (the bluge double-loading bug would double the
// sums and counts).
func TestMetricsWithSortOnSameField(t *testing.T) {
	f := cities(t)
	want := statsOf(f.docs, "population", nil)
	body := `{
		"mn":{"min":{"field":"population"}}, "mx":{"max":{"field":"population"}},
		"sm":{"sum":{"field":"population"}}, "av":{"avg":{"field":"population"}},
		"vc":{"value_count":{"field":"population"}}, "st":{"stats":{"field":"population"}},
		"ex":{"extended_stats":{"field":"population","sigma":3}},
		"card":{"cardinality":{"field":"population"}}}`
	for _, o := range []opts{{}, {sort: []string{"population"}}, {sort: []string{"-population", "country"}}} {
		t.Run(strings.Join(o.sort, ","), func(t *testing.T) {
			res := f.mustRun(t, body, o)
			eqNum(t, "min", get(t, res, "mn.value"), want.min)
			eqNum(t, "max", get(t, res, "mx.value"), want.max)
			eqNum(t, "sum", get(t, res, "sm.value"), want.sum)
			eqNum(t, "avg", get(t, res, "av.value"), want.sum/float64(want.count))
			eqInt(t, "value_count", get(t, res, "vc.value"), want.count)
			eqInt(t, "stats.count", get(t, res, "st.count"), want.count)
			eqNum(t, "stats.sum", get(t, res, "st.sum"), want.sum)
			eqNum(t, "stats.min", get(t, res, "st.min"), want.min)
			eqNum(t, "stats.max", get(t, res, "st.max"), want.max)
			eqNum(t, "stats.avg", get(t, res, "st.avg"), want.sum/float64(want.count))
			n := float64(want.count)
			mean := want.sum / n
			varPop := want.sumSq/n - mean*mean
			varSample := (want.sumSq - want.sum*want.sum/n) / (n - 1)
			eqNum(t, "sum_of_squares", get(t, res, "ex.sum_of_squares"), want.sumSq)
			eqNum(t, "variance", get(t, res, "ex.variance"), varPop)
			eqNum(t, "variance_sampling", get(t, res, "ex.variance_sampling"), varSample)
			eqNum(t, "std_deviation", get(t, res, "ex.std_deviation"), math.Sqrt(varPop))
			eqNum(t, "std_deviation_bounds.upper", get(t, res, "ex.std_deviation_bounds.upper"), mean+3*math.Sqrt(varPop))
			eqNum(t, "std_deviation_bounds.lower_sampling", get(t, res, "ex.std_deviation_bounds.lower_sampling"), mean-3*math.Sqrt(varSample))
			distinct := map[float64]bool{}
			for _, v := range want.vals {
				distinct[v] = true
			}
			eqInt(t, "cardinality", get(t, res, "card.value"), int64(len(distinct)))
		})
	}
}

func TestMetricsRawShape(t *testing.T) {
	f := cities(t)
	raw, err := f.run(t, `{"none":{"terms":{"field":"country","include":["ZZ"]},
		"aggs":{"a":{"avg":{"field":"population"}}}},
		"mn":{"min":{"field":"nope"}},"sm":{"sum":{"field":"nope"}},"vc":{"value_count":{"field":"nope"}},
		"st":{"stats":{"field":"nope"}},"av":{"avg":{"field":"nope"},"meta":{"b":[1,"two",{"c":null}]}},
		"one":{"max":{"field":"population"}}}`, opts{})
	if err != nil {
		t.Fatal(err)
	}
	want := statsOf(f.docs, "population", nil)
	exp := `{"none":{"doc_count_error_upper_bound":0,"sum_other_doc_count":0,"buckets":[]},` +
		`"mn":{"value":null},"sm":{"value":0.0},"vc":{"value":0},` +
		`"st":{"count":0,"min":null,"max":null,"avg":null,"sum":0.0},` +
		`"av":{"meta":{"b":[1,"two",{"c":null}]},"value":null},` +
		`"one":{"value":` + javaDoubleRef(want.max) + `}}`
	if string(raw) != exp {
		t.Errorf("raw =\n%s\nwant\n%s", raw, exp)
	}
}

// javaDoubleRef is Java's Double.toString for integral values (test-side).
func javaDoubleRef(v float64) string {
	if math.Abs(v) < 1e7 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatFloat(v, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e+")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	return mant + "E" + strings.TrimLeft(exp, "0")
}

func TestCardinalityKeyword(t *testing.T) {
	f := cities(t)
	countries, codes := map[string]bool{}, map[string]bool{}
	for _, d := range f.docs {
		c, _ := fstr(d, "country")
		countries[c] = true
		fc, _ := fstr(d, "feature_code")
		codes[fc] = true
	}
	res := f.mustRun(t, `{"c":{"cardinality":{"field":"country","precision_threshold":100}},
		"fc":{"cardinality":{"field":"feature_code"}},"fc2":{"value_count":{"field":"feature_code"}}}`,
		opts{sort: []string{"feature_code"}})
	eqInt(t, "country", get(t, res, "c.value"), int64(len(countries)))
	eqInt(t, "feature_code", get(t, res, "fc.value"), int64(len(codes)))
	eqInt(t, "value_count keyword", get(t, res, "fc2.value"), int64(len(f.docs)))
}

func TestPercentilesAndMAD(t *testing.T) {
	f := cities(t)
	want := statsOf(f.docs, "population", nil)
	res := f.mustRun(t, `{"p":{"percentiles":{"field":"population","percents":[0,100]}},
		"pk":{"percentiles":{"field":"population","percents":[0],"keyed":false}},
		"r":{"percentile_ranks":{"field":"population","values":[-1, 1e12]}},
		"mad":{"median_absolute_deviation":{"field":"population"}}}`, opts{sort: []string{"population"}})
	pv := get(t, res, "p.values").(map[string]any)
	eqNum(t, "p0", pv["0.0"], want.min)
	eqNum(t, "p100", pv["100.0"], want.max)
	eqNum(t, "pk key", get(t, res, "pk.values.0.key"), 0)
	eqNum(t, "pk value", get(t, res, "pk.values.0.value"), want.min)
	rv := get(t, res, "r.values").(map[string]any)
	eqNum(t, "rank low", rv["-1.0"], 0)
	eqNum(t, "rank high", rv["1.0E12"], 100)
	median := func(v []float64) float64 {
		n := len(v)
		if n%2 == 1 {
			return v[n/2]
		}
		return (v[n/2-1] + v[n/2]) / 2
	}
	med := median(want.vals)
	dev := make([]float64, len(want.vals))
	for i, v := range want.vals {
		dev[i] = math.Abs(v - med)
	}
	sort.Float64s(dev)
	eqNum(t, "mad", get(t, res, "mad.value"), median(dev))
}

func TestWeightedAvg(t *testing.T) {
	f := emails(t)
	// weight: spam (1/0) — the average date of spam mails.
	var sum, w float64
	for _, d := range f.docs {
		ds, ok := fstr(d, "date")
		if !ok || d["spam"] != true {
			continue
		}
		sum += float64(dateMillis(t, ds))
		w++
	}
	res := f.mustRun(t, `{"w":{"weighted_avg":{"value":{"field":"date"},"weight":{"field":"spam"}}}}`, opts{})
	eqNum(t, "weighted_avg", get(t, res, "w.value"), sum/w)
}
