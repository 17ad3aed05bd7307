package aggs_test

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestCompositePaging(t *testing.T) {
	f := cities(t)
	type key struct{ c, fc string }
	want := map[key]int64{}
	sums := map[key]float64{}
	for _, d := range f.docs {
		c, _ := countryOf(d)
		fc, _ := fstr(d, "feature_code")
		p, _ := fnum(d, "population")
		want[key{c, fc}]++
		sums[key{c, fc}] += p
	}
	var keys []key
	for k := range want {
		keys = append(keys, k)
	}
	// country desc, feature_code asc
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].c != keys[j].c {
			return keys[i].c > keys[j].c
		}
		return keys[i].fc < keys[j].fc
	})
	var got []key
	after := ""
	for page := 0; page < 100; page++ {
		body := `{"c":{"composite":{"size":37,"sources":[{"country":{"terms":{"field":"country","order":"desc"}}},
			{"code":{"terms":{"field":"feature_code"}}}]` + after + `},"aggs":{"s":{"sum":{"field":"population"}}}}}`
		res := f.mustRun(t, body, opts{sort: []string{"population"}})
		bs := get(t, res, "c.buckets").([]any)
		if len(bs) == 0 {
			if _, has := get(t, res, "c").(map[string]any)["after_key"]; has {
				t.Errorf("empty page has after_key")
			}
			break
		}
		for _, b := range bs {
			k := key{get(t, b, "key.country").(string), get(t, b, "key.code").(string)}
			eqInt(t, fmt.Sprint(k), get(t, b, "doc_count"), want[k])
			eqNum(t, fmt.Sprint(k)+" sum", get(t, b, "s.value"), sums[k])
			got = append(got, k)
		}
		ak, _ := json.Marshal(get(t, res, "c.after_key"))
		last := bs[len(bs)-1].(map[string]any)["key"]
		lk, _ := json.Marshal(last)
		if string(ak) != string(lk) {
			t.Errorf("after_key %s != last key %s", ak, lk)
		}
		after = `,"after":` + string(ak)
	}
	if fmt.Sprint(got) != fmt.Sprint(keys) {
		t.Errorf("paged keys differ: got %d keys, want %d", len(got), len(keys))
	}
}

func TestCompositeHistogramSources(t *testing.T) {
	e := emails(t)
	type key struct {
		month int64
		null  bool
		spam  bool
	}
	want := map[key]int64{}
	for _, d := range e.docs {
		k := key{null: true, spam: d["spam"] == true}
		if s, ok := fstr(d, "date"); ok {
			ms := dateMillis(t, s)
			tm := time.UnixMilli(ms).UTC()
			k = key{month: time.Date(tm.Year(), tm.Month(), 1, 0, 0, 0, 0, time.UTC).UnixMilli(), spam: k.spam}
		}
		want[k]++
	}
	var keys []key
	for k := range want {
		keys = append(keys, k)
	}
	// month desc with nulls last (desc), then spam asc
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.null != b.null {
			return b.null
		}
		if a.month != b.month {
			return a.month > b.month
		}
		return !a.spam && b.spam
	})
	res := e.mustRun(t, `{"c":{"composite":{"size":5,"sources":[
		{"m":{"date_histogram":{"field":"date","calendar_interval":"month","order":"desc","missing_bucket":true}}},
		{"s":{"terms":{"field":"spam"}}}]}}}`, opts{})
	bs := get(t, res, "c.buckets").([]any)
	if len(bs) != 5 {
		t.Fatalf("%d buckets", len(bs))
	}
	for i, b := range bs {
		k := keys[i]
		eqInt(t, "month", get(t, b, "key.m"), k.month)
		if get(t, b, "key.s") != k.spam {
			t.Errorf("spam key = %v, want %v", get(t, b, "key.s"), k.spam)
		}
		eqInt(t, "count", get(t, b, "doc_count"), want[k])
	}
	// the last page holds the null-date buckets
	last := keys[len(keys)-3]
	after := fmt.Sprintf(`{"m":%d,"s":%v}`, last.month, last.spam)
	res = e.mustRun(t, `{"c":{"composite":{"size":10,"after":`+after+`,"sources":[
		{"m":{"date_histogram":{"field":"date","calendar_interval":"month","order":"desc","missing_bucket":true,"format":"yyyy-MM"}}},
		{"s":{"terms":{"field":"spam"}}}]}}}`, opts{})
	bs = get(t, res, "c.buckets").([]any)
	if len(bs) != 2 {
		t.Fatalf("last page: %d buckets, want 2", len(bs))
	}
	for i, b := range bs {
		k := keys[len(keys)-2+i]
		wantM := any(nil)
		if !k.null {
			wantM = time.UnixMilli(k.month).UTC().Format("2006-01")
		}
		if get(t, b, "key.m") != wantM {
			t.Errorf("key.m = %v, want %v", get(t, b, "key.m"), wantM)
		}
		eqInt(t, "tail count", get(t, b, "doc_count"), want[k])
	}
	// histogram source on population with a formatted date source absent
	f := cities(t)
	hist := map[float64]int64{}
	for _, d := range f.docs {
		p, _ := fnum(d, "population")
		hist[math.Floor(p/50000)*50000]++
	}
	res = f.mustRun(t, `{"c":{"composite":{"size":3,"sources":[{"h":{"histogram":{"field":"population","interval":50000}}}]}}}`, opts{})
	var hk []float64
	for k := range hist {
		hk = append(hk, k)
	}
	sort.Float64s(hk)
	for i := 0; i < 3; i++ {
		eqNum(t, "hist key", get(t, res, fmt.Sprintf("c.buckets.%d.key.h", i)), hk[i])
		eqInt(t, "hist count", get(t, res, fmt.Sprintf("c.buckets.%d.doc_count", i)), hist[hk[i]])
	}
	if !strings.Contains(fmt.Sprint(get(t, res, "c.after_key")), "h:100000") {
		t.Errorf("after_key = %v", get(t, res, "c.after_key"))
	}
}

// TestCompositeFormattedKeys pages a composite through its formatted keys:
// a date_histogram source with a date "format" and a numeric histogram
// source with a DecimalFormat render their keys (and after_key) as
// strings, and those strings, fed back as "after", parse to the same
// positions (ES's DocValueFormat parseLong / parseDouble).
func TestCompositeFormattedKeys(t *testing.T) {
	e := emails(t)
	months := map[string]int64{}
	for _, d := range e.docs {
		if s, ok := fstr(d, "date"); ok {
			months[time.UnixMilli(dateMillis(t, s)).UTC().Format("2006-01")]++
		}
	}
	var monthKeys []string
	for k := range months {
		monthKeys = append(monthKeys, k)
	}
	sort.Strings(monthKeys)

	f := cities(t)
	bins := map[float64]int64{}
	for _, d := range f.docs {
		p, _ := fnum(d, "population")
		bins[math.Floor(p/250000)*250000]++
	}
	var binKeys []float64
	for k := range bins {
		binKeys = append(binKeys, k)
	}
	sort.Float64s(binKeys)
	group := func(v float64) string { // "#,##0.0" independently
		s := strconv.FormatFloat(v, 'f', 1, 64)
		i, frac, _ := strings.Cut(s, ".")
		for j := len(i) - 3; j > 0; j -= 3 {
			i = i[:j] + "," + i[j:]
		}
		return i + "." + frac
	}

	for _, tc := range []struct {
		name   string
		fix    *fixture
		source string
		want   []string
		counts []int64
	}{
		{"date_histogram yyyy-MM", e, `{"k":{"date_histogram":{"field":"date","calendar_interval":"month","format":"yyyy-MM"}}}`, monthKeys, func() []int64 {
			var out []int64
			for _, k := range monthKeys {
				out = append(out, months[k])
			}
			return out
		}()},
		{"histogram #,##0.0", f, `{"k":{"histogram":{"field":"population","interval":250000,"format":"#,##0.0"}}}`, func() []string {
			var out []string
			for _, k := range binKeys {
				out = append(out, group(k))
			}
			return out
		}(), func() []int64 {
			var out []int64
			for _, k := range binKeys {
				out = append(out, bins[k])
			}
			return out
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			var counts []int64
			after := ""
			for page := 0; page < 1000; page++ {
				res := tc.fix.mustRun(t, `{"c":{"composite":{"size":7`+after+`,"sources":[`+tc.source+`]}}}`, opts{})
				bs := get(t, res, "c.buckets").([]any)
				if len(bs) == 0 {
					break
				}
				for _, b := range bs {
					k, ok := get(t, b, "key.k").(string)
					if !ok {
						t.Fatalf("key %v is not a formatted string", get(t, b, "key.k"))
					}
					got = append(got, k)
					counts = append(counts, int64(num(t, get(t, b, "doc_count"))))
				}
				ak := get(t, res, "c.after_key.k")
				if ak != got[len(got)-1] {
					t.Fatalf("after_key %v, want the last key %q", ak, got[len(got)-1])
				}
				raw, _ := json.Marshal(ak)
				after = `,"after":{"k":` + string(raw) + `}`
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || fmt.Sprint(counts) != fmt.Sprint(tc.counts) {
				t.Errorf("paged keys\n got  %v %v\n want %v %v", got, counts, tc.want, tc.counts)
			}
		})
	}
	// an after value the format cannot read
	_, err := f.run(t, `{"c":{"composite":{"after":{"k":"12 people"},"sources":[{"k":{"histogram":{"field":"population","interval":10,"format":"#,##0.0"}}}]}}}`, opts{})
	checkErr(t, err, "illegal_argument_exception", "invalid value for [after] in source [k]: 12 people")
}
