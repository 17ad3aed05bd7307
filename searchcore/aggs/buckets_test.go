package aggs_test

import (
	"encoding/json"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blugelabs/bluge"
)

func dateMillis(tb testing.TB, s string) int64 {
	tb.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		tb.Fatal(err)
	}
	return tm.UnixMilli()
}

func checkTerms(t *testing.T, res any, path string, want []expBucket, errBound, other int64) {
	t.Helper()
	eqInt(t, path+".doc_count_error_upper_bound", get(t, res, path+".doc_count_error_upper_bound"), errBound)
	eqInt(t, path+".sum_other_doc_count", get(t, res, path+".sum_other_doc_count"), other)
	bs := get(t, res, path+".buckets").([]any)
	if len(bs) != len(want) {
		t.Fatalf("%s: %d buckets, want %d (%v)", path, len(bs), len(want), want)
	}
	for i, w := range want {
		b := bs[i].(map[string]any)
		if k := keyString(b["key"]); k != w.key {
			t.Errorf("%s[%d].key = %v, want %s", path, i, b["key"], w.key)
		}
		eqInt(t, path+".doc_count", b["doc_count"], w.count)
	}
}

func keyString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return ""
}

func countryOf(d map[string]any) (string, bool) { return fstr(d, "country") }

func TestTermsShardReduce(t *testing.T) {
	f := cities(t)
	for _, tc := range []struct {
		name     string
		body     string
		size, ss int
		less     func(a, b expBucket) bool
		keyOf    func(d map[string]any) (string, bool)
	}{
		{"default", `{"t":{"terms":{"field":"country","size":5}}}`, 5, 17, countDesc, countryOf},
		{"shard_size", `{"t":{"terms":{"field":"country","size":3,"shard_size":3}}}`, 3, 3, countDesc, countryOf},
		{"size10", `{"t":{"terms":{"field":"feature_code"}}}`, 10, 25, countDesc, func(d map[string]any) (string, bool) { return fstr(d, "feature_code") }},
		{"key_asc", `{"t":{"terms":{"field":"country","size":4,"order":{"_key":"asc"}}}}`, 4, 4,
			func(a, b expBucket) bool { return a.key < b.key }, countryOf},
		{"key_desc", `{"t":{"terms":{"field":"country","size":4,"order":{"_term":"desc"}}}}`, 4, 4,
			func(a, b expBucket) bool { return a.key > b.key }, countryOf},
		{"include_regex", `{"t":{"terms":{"field":"country","size":5,"include":"C.*","exclude":["CN"]}}}`, 5, 17, countDesc,
			func(d map[string]any) (string, bool) {
				c, ok := countryOf(d)
				return c, ok && strings.HasPrefix(c, "C") && c != "CN"
			}},
		{"exclude_regex", `{"t":{"terms":{"field":"country","size":5,"exclude":"A[UT]|B.*"}}}`, 5, 17, countDesc,
			func(d map[string]any) (string, bool) {
				c, ok := countryOf(d)
				return c, ok && !regexp.MustCompile(`^(?:A[UT]|B.*)$`).MatchString(c)
			}},
		{"numeric", `{"t":{"terms":{"field":"population","size":3}}}`, 3, 14, countDesc,
			func(d map[string]any) (string, bool) {
				v, ok := fnum(d, "population")
				return strconv.FormatInt(int64(v), 10), ok
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// sorting on the same field must not change anything
			res := f.mustRun(t, tc.body, opts{sort: []string{"country"}})
			less := tc.less
			if tc.name == "numeric" {
				less = func(a, b expBucket) bool {
					if a.count != b.count {
						return a.count > b.count
					}
					x, _ := strconv.ParseFloat(a.key, 64)
					y, _ := strconv.ParseFloat(b.key, 64)
					return x < y
				}
			}
			want, errB, other := esTerms(f.docs, tc.keyOf, tc.size, tc.ss, less)
			if strings.HasPrefix(tc.name, "key_") {
				errB = 0 // key order is exact
			}
			checkTerms(t, res, "t", want, errB, other)
		})
	}
}

func TestTermsPartitionsCoverAll(t *testing.T) {
	f := cities(t)
	seen := map[string]int64{}
	for p := 0; p < 4; p++ {
		res := f.mustRun(t, `{"t":{"terms":{"field":"country","size":100,"include":{"partition":`+strconv.Itoa(p)+`,"num_partitions":4}}}}`, opts{})
		for _, b := range get(t, res, "t.buckets").([]any) {
			m := b.(map[string]any)
			k := m["key"].(string)
			if _, dup := seen[k]; dup {
				t.Errorf("term %s in two partitions", k)
			}
			seen[k] = int64(num(t, m["doc_count"]))
		}
	}
	want := map[string]int64{}
	for _, d := range f.docs {
		c, _ := countryOf(d)
		want[c]++
	}
	if len(seen) != len(want) {
		t.Fatalf("partitions cover %d terms, want %d", len(seen), len(want))
	}
	for k, c := range want {
		if seen[k] != c {
			t.Errorf("%s = %d, want %d", k, seen[k], c)
		}
	}
}

func TestTermsMissingMinDocCount(t *testing.T) {
	f := cities(t)
	counts := map[string]int64{}
	for _, d := range f.docs {
		a, ok := fstr(d, "admin_code")
		if !ok {
			a = "NONE"
		}
		counts[a]++
	}
	var want []expBucket
	for k, c := range counts {
		if c >= 500 {
			want = append(want, expBucket{k, c})
		}
	}
	sort.Slice(want, func(i, j int) bool { return countDesc(want[i], want[j]) })
	res := f.mustRun(t, `{"t":{"terms":{"field":"admin_code","size":1000,"min_doc_count":500,"missing":"NONE"}},
		"m":{"missing":{"field":"admin_code"}}}`, opts{})
	checkTerms(t, res, "t", want, 0, 0)
	eqInt(t, "missing", get(t, res, "m.doc_count"), counts["NONE"])

	e := emails(t)
	var noDate int64
	var spamNoDate int64
	for _, d := range e.docs {
		if _, ok := fstr(d, "date"); !ok {
			noDate++
			if d["spam"] == true {
				spamNoDate++
			}
		}
	}
	res = e.mustRun(t, `{"m":{"missing":{"field":"date"},"aggs":{"s":{"sum":{"field":"spam"}}}},
		"t":{"terms":{"field":"date","missing":"1970-01-01T00:00:00Z","include":[0]}}}`, opts{sort: []string{"date"}})
	eqInt(t, "missing date", get(t, res, "m.doc_count"), noDate)
	eqNum(t, "missing date spam", get(t, res, "m.s.value"), float64(spamNoDate))
	eqInt(t, "terms missing date", get(t, res, "t.buckets.0.doc_count"), noDate)
	if get(t, res, "t.buckets.0.key_as_string") != "1970-01-01T00:00:00.000Z" {
		t.Errorf("missing date key_as_string = %v", get(t, res, "t.buckets.0.key_as_string"))
	}
}

// TestNestedDepth3 checks terms > terms > metrics, ordered by a sub-aggregation,
// with sibling pipelines at two levels and a sort on the metric field.
func TestNestedDepth3(t *testing.T) {
	f := cities(t)
	type agg struct {
		n        int64
		sum, max float64
		codes    map[string]*agg
	}
	byCountry := map[string]*agg{}
	for _, d := range f.docs {
		c, _ := countryOf(d)
		fc, _ := fstr(d, "feature_code")
		p, _ := fnum(d, "population")
		a := byCountry[c]
		if a == nil {
			a = &agg{codes: map[string]*agg{}, max: math.Inf(-1)}
			byCountry[c] = a
		}
		a.n++
		a.sum += p
		a.max = math.Max(a.max, p)
		b := a.codes[fc]
		if b == nil {
			b = &agg{max: math.Inf(-1)}
			a.codes[fc] = b
		}
		b.n++
		b.sum += p
		b.max = math.Max(b.max, p)
	}
	// countries ordered by average population desc; all fit in shard_size
	var cs []string
	for c := range byCountry {
		cs = append(cs, c)
	}
	avg := func(c string) float64 { return byCountry[c].sum / float64(byCountry[c].n) }
	sort.Slice(cs, func(i, j int) bool {
		if avg(cs[i]) != avg(cs[j]) {
			return avg(cs[i]) > avg(cs[j])
		}
		return cs[i] < cs[j]
	})
	res := f.mustRun(t, `{"c":{"terms":{"field":"country","size":100,"order":{"avg_pop":"desc"}},
		"aggs":{"avg_pop":{"avg":{"field":"population"}},
			"codes":{"terms":{"field":"feature_code","size":20,"order":[{"biggest":"desc"},{"_key":"asc"}]},
				"aggs":{"biggest":{"max":{"field":"population"}},"total":{"sum":{"field":"population"}}}},
			"max_code_total":{"max_bucket":{"buckets_path":"codes>total"}}}},
		"avg_of_avgs":{"avg_bucket":{"buckets_path":"c>avg_pop"}},
		"sum_of_counts":{"sum_bucket":{"buckets_path":"c>_count"}},
		"stats_avgs":{"stats_bucket":{"buckets_path":"c>avg_pop"}},
		"min_avg":{"min_bucket":{"buckets_path":"c>avg_pop"}}}`, opts{sort: []string{"-population"}})
	bs := get(t, res, "c.buckets").([]any)
	if len(bs) != len(cs) {
		t.Fatalf("%d countries, want %d", len(bs), len(cs))
	}
	sumAvg, minAvg, maxAvg := 0.0, math.Inf(1), math.Inf(-1)
	for i, c := range cs {
		b := bs[i]
		if get(t, b, "key") != c {
			t.Fatalf("bucket %d = %v, want %s", i, get(t, b, "key"), c)
		}
		a := byCountry[c]
		eqInt(t, c+" doc_count", get(t, b, "doc_count"), a.n)
		eqNum(t, c+" avg", get(t, b, "avg_pop.value"), avg(c))
		sumAvg += avg(c)
		minAvg = math.Min(minAvg, avg(c))
		maxAvg = math.Max(maxAvg, avg(c))
		var codes []string
		for k := range a.codes {
			codes = append(codes, k)
		}
		sort.Slice(codes, func(i, j int) bool {
			x, y := a.codes[codes[i]], a.codes[codes[j]]
			if x.max != y.max {
				return x.max > y.max
			}
			return codes[i] < codes[j]
		})
		cb := get(t, b, "codes.buckets").([]any)
		if len(cb) != len(codes) {
			t.Fatalf("%s: %d codes, want %d", c, len(cb), len(codes))
		}
		bestTotal, bestKeys := math.Inf(-1), []string{}
		for j, k := range codes {
			x := a.codes[k]
			if get(t, cb[j], "key") != k {
				t.Errorf("%s code %d = %v, want %s", c, j, get(t, cb[j], "key"), k)
			}
			eqInt(t, "code doc_count", get(t, cb[j], "doc_count"), x.n)
			eqNum(t, "biggest", get(t, cb[j], "biggest.value"), x.max)
			eqNum(t, "total", get(t, cb[j], "total.value"), x.sum)
		}
		for _, k := range codes {
			if s := a.codes[k].sum; s > bestTotal {
				bestTotal, bestKeys = s, []string{k}
			} else if s == bestTotal {
				bestKeys = append(bestKeys, k)
			}
		}
		eqNum(t, c+" max_code_total", get(t, b, "max_code_total.value"), bestTotal)
		got := get(t, b, "max_code_total.keys").([]any)
		sort.Strings(bestKeys)
		var gotKeys []string
		for _, g := range got {
			gotKeys = append(gotKeys, g.(string))
		}
		sort.Strings(gotKeys)
		if strings.Join(gotKeys, ",") != strings.Join(bestKeys, ",") {
			t.Errorf("%s max_code_total.keys = %v, want %v", c, gotKeys, bestKeys)
		}
	}
	eqNum(t, "avg_bucket", get(t, res, "avg_of_avgs.value"), sumAvg/float64(len(cs)))
	eqNum(t, "sum_bucket", get(t, res, "sum_of_counts.value"), float64(len(f.docs)))
	eqInt(t, "stats_bucket.count", get(t, res, "stats_avgs.count"), int64(len(cs)))
	eqNum(t, "stats_bucket.max", get(t, res, "stats_avgs.max"), maxAvg)
	eqNum(t, "min_bucket", get(t, res, "min_avg.value"), minAvg)
}

func TestRangeAndHistogram(t *testing.T) {
	f := cities(t)
	edges := []float64{0, 1000, 10000, 100000}
	var rc [5]int64 // *-1000? computed below
	hist := map[float64]int64{}
	hard := map[float64]int64{}
	for _, d := range f.docs {
		p, ok := fnum(d, "population")
		if !ok {
			continue
		}
		if p < 1000 {
			rc[0]++
		}
		if p >= 1000 && p < 10000 {
			rc[1]++
		}
		if p >= 10000 {
			rc[2]++
		}
		k := math.Floor((p-500)/250000)*250000 + 500
		hist[k]++
		if p >= 0 && p < 1000000 {
			hard[math.Floor(p/100000)*100000]++
		}
	}
	_ = edges
	res := f.mustRun(t, `{"r":{"range":{"field":"population","ranges":[{"to":1000},{"from":1000,"to":10000},{"key":"big","from":10000}]}},
		"rk":{"range":{"field":"population","keyed":true,"ranges":[{"to":1000}]}},
		"h":{"histogram":{"field":"population","interval":250000,"offset":500}},
		"hb":{"histogram":{"field":"population","interval":100000,"hard_bounds":{"min":0,"max":1000000},"min_doc_count":1}},
		"he":{"histogram":{"field":"population","interval":100000,"extended_bounds":{"min":-200000,"max":0},"hard_bounds":{"min":-300000,"max":100000}}}}`,
		opts{sort: []string{"population"}})
	eqInt(t, "r0", get(t, res, "r.buckets.0.doc_count"), rc[0])
	if get(t, res, "r.buckets.0.key") != "*-1000.0" {
		t.Errorf("range key = %v", get(t, res, "r.buckets.0.key"))
	}
	eqNum(t, "r0.to", get(t, res, "r.buckets.0.to"), 1000)
	eqInt(t, "r1", get(t, res, "r.buckets.1.doc_count"), rc[1])
	if get(t, res, "r.buckets.1.key") != "1000.0-10000.0" || get(t, res, "r.buckets.2.key") != "big" {
		t.Errorf("range keys = %v %v", get(t, res, "r.buckets.1.key"), get(t, res, "r.buckets.2.key"))
	}
	eqInt(t, "r2", get(t, res, "r.buckets.2.doc_count"), rc[2])
	eqInt(t, "keyed", get(t, get(t, res, "rk.buckets").(map[string]any)["*-1000.0"], "doc_count"), rc[0])
	// histogram with offset: every key from the min to the max key, empty ones included
	var ks []float64
	for k := range hist {
		ks = append(ks, k)
	}
	sort.Float64s(ks)
	hb := get(t, res, "h.buckets").([]any)
	n := int((ks[len(ks)-1]-ks[0])/250000) + 1
	if len(hb) != n {
		t.Fatalf("histogram: %d buckets, want %d", len(hb), n)
	}
	for i, b := range hb {
		k := ks[0] + float64(i)*250000
		eqNum(t, "h key", get(t, b, "key"), k)
		eqInt(t, "h count", get(t, b, "doc_count"), hist[k])
	}
	hbb := get(t, res, "hb.buckets").([]any)
	if len(hbb) != len(hard) {
		t.Fatalf("hard_bounds: %d buckets, want %d", len(hbb), len(hard))
	}
	for _, b := range hbb {
		k := num(t, get(t, b, "key"))
		eqInt(t, "hb count", get(t, b, "doc_count"), hard[k])
	}
	// extended_bounds below the data, limited by hard_bounds
	he := get(t, res, "he.buckets").([]any)
	if len(he) != 3 || num(t, get(t, he[0], "key")) != -200000 || num(t, get(t, he[2], "key")) != 0 {
		t.Errorf("extended/hard bounds buckets = %v", he)
	}
	eqInt(t, "he empty", get(t, he[0], "doc_count"), 0)
	eqInt(t, "he 0", get(t, he[2], "doc_count"), hard[0])
}

func TestDateHistogram(t *testing.T) {
	f := emails(t)
	lo, hi := dateMillis(t, "2002-01-01T00:00:00Z"), dateMillis(t, "2003-01-01T00:00:00Z")
	q := bluge.NewNumericRangeInclusiveQuery(float64(lo), float64(hi), true, false).SetField("date")
	inRange := func(d map[string]any) (int64, bool) {
		s, ok := fstr(d, "date")
		if !ok {
			return 0, false
		}
		ms := dateMillis(t, s)
		return ms, ms >= lo && ms < hi
	}
	month := map[int64]int64{}
	monthSpam := map[int64]int64{}
	weekTZ := map[int64]int64{}
	fixed := map[int64]int64{}
	var total int64
	minMs, maxMs := int64(math.MaxInt64), int64(math.MinInt64)
	tz := time.FixedZone("-05:00", -5*3600)
	for _, d := range f.docs {
		ms, ok := inRange(d)
		if !ok {
			continue
		}
		total++
		minMs, maxMs = min(minMs, ms), max(maxMs, ms)
		tm := time.UnixMilli(ms).UTC()
		k := time.Date(tm.Year(), tm.Month(), 1, 0, 0, 0, 0, time.UTC).UnixMilli()
		month[k]++
		if d["spam"] == true {
			monthSpam[k]++
		}
		lt := time.UnixMilli(ms).In(tz)
		wd := (int(lt.Weekday()) + 6) % 7
		weekTZ[time.Date(lt.Year(), lt.Month(), lt.Day()-wd, 0, 0, 0, 0, tz).UnixMilli()]++
		day := int64(86400000)
		fixed[(ms-3600000)/(10*day)*(10*day)+3600000]++
	}
	res := f.mustRun(t, `{"m":{"date_histogram":{"field":"date","calendar_interval":"month","min_doc_count":1},
		"aggs":{"spam":{"terms":{"field":"spam"}},"cum":{"cumulative_sum":{"buckets_path":"_count"}},
			"deriv":{"derivative":{"buckets_path":"_count"}}}},
		"w":{"date_histogram":{"field":"date","calendar_interval":"1w","time_zone":"-05:00","min_doc_count":1}},
		"fx":{"date_histogram":{"field":"date","fixed_interval":"10d","offset":"+1h","format":"yyyy-MM-dd","keyed":true,"min_doc_count":1}},
		"mn":{"min":{"field":"date"}},"mx":{"max":{"field":"date"}},
		"dr":{"date_range":{"field":"date","ranges":[{"to":"2002-07-01"},{"from":"2002-07-01T00:00:00Z"}]}},
		"spam":{"terms":{"field":"spam"}},
		"max_month":{"max_bucket":{"buckets_path":"m>_count"}}}`, opts{q: q, sort: []string{"date"}})
	var mk []int64
	for k := range month {
		mk = append(mk, k)
	}
	sort.Slice(mk, func(i, j int) bool { return mk[i] < mk[j] })
	mb := get(t, res, "m.buckets").([]any)
	if len(mb) != len(mk) {
		t.Fatalf("months: %d buckets, want %d", len(mb), len(mk))
	}
	var cum, best int64
	for i, k := range mk {
		b := mb[i]
		eqInt(t, "month key", get(t, b, "key"), k)
		if s := get(t, b, "key_as_string"); s != time.UnixMilli(k).UTC().Format("2006-01-02T15:04:05.000Z") {
			t.Errorf("key_as_string = %v", s)
		}
		eqInt(t, "month count", get(t, b, "doc_count"), month[k])
		cum += month[k]
		best = max(best, month[k])
		eqNum(t, "cumulative_sum", get(t, b, "cum.value"), float64(cum))
		if i == 0 {
			if _, has := b.(map[string]any)["deriv"]; has {
				t.Errorf("first bucket has a derivative")
			}
		} else {
			eqNum(t, "derivative", get(t, b, "deriv.value"), float64(month[k]-month[mk[i-1]]))
		}
		var spamCount int64
		for _, sb := range get(t, b, "spam.buckets").([]any) {
			if get(t, sb, "key_as_string") == "true" {
				eqInt(t, "spam key", get(t, sb, "key"), 1)
				spamCount = int64(num(t, get(t, sb, "doc_count")))
			}
		}
		if spamCount != monthSpam[k] {
			t.Errorf("month %d spam = %d, want %d", k, spamCount, monthSpam[k])
		}
	}
	eqNum(t, "max_bucket", get(t, res, "max_month.value"), float64(best))
	var wk []int64
	for k := range weekTZ {
		wk = append(wk, k)
	}
	sort.Slice(wk, func(i, j int) bool { return wk[i] < wk[j] })
	wb := get(t, res, "w.buckets").([]any)
	if len(wb) != len(wk) {
		t.Fatalf("weeks: %d buckets, want %d", len(wb), len(wk))
	}
	for i, k := range wk {
		eqInt(t, "week key", get(t, wb[i], "key"), k)
		eqInt(t, "week count", get(t, wb[i], "doc_count"), weekTZ[k])
		if s := get(t, wb[i], "key_as_string"); s != time.UnixMilli(k).In(tz).Format("2006-01-02T15:04:05.000-07:00") {
			t.Errorf("week key_as_string = %v", s)
		}
	}
	fb := get(t, res, "fx.buckets").(map[string]any)
	if len(fb) != len(fixed) {
		t.Fatalf("fixed: %d buckets, want %d", len(fb), len(fixed))
	}
	for k, c := range fixed {
		name := time.UnixMilli(k).UTC().Format("2006-01-02")
		eqInt(t, "fixed "+name, get(t, fb[name], "doc_count"), c)
		eqInt(t, "fixed key", get(t, fb[name], "key"), k)
	}
	eqNum(t, "min date", get(t, res, "mn.value"), float64(minMs))
	if s := get(t, res, "mn.value_as_string"); s != time.UnixMilli(minMs).UTC().Format("2006-01-02T15:04:05.000Z") {
		t.Errorf("min value_as_string = %v", s)
	}
	eqNum(t, "max date", get(t, res, "mx.value"), float64(maxMs))
	july := dateMillis(t, "2002-07-01T00:00:00Z")
	var before int64
	for _, d := range f.docs {
		if ms, ok := inRange(d); ok && ms < july {
			before++
		}
	}
	eqInt(t, "date_range 0", get(t, res, "dr.buckets.0.doc_count"), before)
	eqInt(t, "date_range 1", get(t, res, "dr.buckets.1.doc_count"), total-before)
	if get(t, res, "dr.buckets.0.key") != "*-2002-07-01T00:00:00.000Z" || get(t, res, "dr.buckets.1.from_as_string") != "2002-07-01T00:00:00.000Z" {
		t.Errorf("date_range keys: %v / %v", get(t, res, "dr.buckets.0.key"), get(t, res, "dr.buckets.1.from_as_string"))
	}
}

// TestHistogramOnDateField checks a plain histogram on a date field: the
// keys are the numeric (epoch ms) floor of the interval, and the field's
// date format renders key_as_string (the default format, or "format").
func TestHistogramOnDateField(t *testing.T) {
	e := emails(t)
	const interval = 90 * 86400000
	want := map[int64]int64{}
	for _, d := range e.docs {
		if s, ok := fstr(d, "date"); ok {
			ms := dateMillis(t, s)
			want[int64(math.Floor(float64(ms)/interval))*interval]++
		}
	}
	var ks []int64
	for k := range want {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	res := e.mustRun(t, `{"h":{"histogram":{"field":"date","interval":7776000000,"min_doc_count":1}},
		"f":{"histogram":{"field":"date","interval":7776000000,"min_doc_count":1,"format":"yyyy-MM-dd"}}}`, opts{})
	for _, agg := range []struct{ name, layout string }{{"h", "2006-01-02T15:04:05.000Z"}, {"f", "2006-01-02"}} {
		bs := get(t, res, agg.name+".buckets").([]any)
		if len(bs) != len(ks) {
			t.Fatalf("%s: %d buckets, want %d", agg.name, len(bs), len(ks))
		}
		for i, b := range bs {
			eqNum(t, agg.name+" key", get(t, b, "key"), float64(ks[i]))
			eqInt(t, agg.name+" doc_count", get(t, b, "doc_count"), want[ks[i]])
			if got, w := get(t, b, "key_as_string"), time.UnixMilli(ks[i]).UTC().Format(agg.layout); got != w {
				t.Errorf("%s key_as_string = %v, want %s", agg.name, got, w)
			}
		}
	}
}
