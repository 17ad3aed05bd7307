package aggs_test

import (
	"testing"
	"time"

	"github.com/blugelabs/bluge"
)

// TestAutoDateHistogram: a year of mails with buckets=10. Days (365 > 10*7)
// and then months are tried; the months (<= 10*3) are kept, empty months
// filled, and since more than 10 remain, groups of 3 consecutive months
// form the buckets ("3M"), keyed by each group's first month.
func TestAutoDateHistogram(t *testing.T) {
	f := emails(t)
	lo, hi := dateMillis(t, "2002-01-01T00:00:00Z"), dateMillis(t, "2003-01-01T00:00:00Z")
	q := bluge.NewNumericRangeInclusiveQuery(float64(lo), float64(hi), true, false).SetField("date")
	month := map[int64]int64{}
	spam := map[int64]float64{}
	first, last := int64(1<<62), int64(-1<<62)
	for _, d := range f.docs {
		s, ok := fstr(d, "date")
		if !ok {
			continue
		}
		ms := dateMillis(t, s)
		if ms < lo || ms >= hi {
			continue
		}
		tm := time.UnixMilli(ms).UTC()
		k := time.Date(tm.Year(), tm.Month(), 1, 0, 0, 0, 0, time.UTC).UnixMilli()
		month[k]++
		if d["spam"] == true {
			spam[k]++
		}
		first, last = min(first, k), max(last, k)
	}
	var months []int64
	for k := first; k <= last; k = time.UnixMilli(k).UTC().AddDate(0, 1, 0).UnixMilli() {
		months = append(months, k)
	}
	if len(months) <= 10 || len(months) > 30 {
		t.Skipf("data spans %d months; the expectation below assumes 11..30", len(months))
	}
	res := f.mustRun(t, `{"a":{"auto_date_histogram":{"field":"date","buckets":10},"aggs":{"s":{"sum":{"field":"spam"}}}}}`,
		opts{q: q, typedKeys: true})
	if get(t, res, "auto_date_histogram#a.interval") != "3M" {
		t.Errorf("interval = %v, want 3M", get(t, res, "auto_date_histogram#a.interval"))
	}
	bs := get(t, res, "auto_date_histogram#a.buckets").([]any)
	if want := (len(months) + 2) / 3; len(bs) != want {
		t.Fatalf("%d buckets, want %d", len(bs), want)
	}
	for i, b := range bs {
		var c int64
		var s float64
		for _, k := range months[i*3 : min(i*3+3, len(months))] {
			c += month[k]
			s += spam[k]
		}
		eqInt(t, "key", get(t, b, "key"), months[i*3])
		if get(t, b, "key_as_string") != time.UnixMilli(months[i*3]).UTC().Format("2006-01-02T15:04:05.000Z") {
			t.Errorf("key_as_string = %v", get(t, b, "key_as_string"))
		}
		eqInt(t, "doc_count", get(t, b, "doc_count"), c)
		eqNum(t, "spam", get(t, b, "sum#s.value"), s)
	}
}
