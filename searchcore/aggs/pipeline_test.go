package aggs_test

import (
	"github.com/blugelabs/bluge"
	"sort"
	"testing"
)

func TestBucketSort(t *testing.T) {
	f := cities(t)
	sums := map[string]float64{}
	counts := map[string]int64{}
	for _, d := range f.docs {
		c, _ := countryOf(d)
		p, _ := fnum(d, "population")
		sums[c] += p
		counts[c]++
	}
	var cs []string
	for c := range sums {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool {
		if sums[cs[i]] != sums[cs[j]] {
			return sums[cs[i]] > sums[cs[j]]
		}
		return cs[i] < cs[j]
	})
	// terms (all countries, key order) re-sorted by the sum, page 2 of 3
	res := f.mustRun(t, `{"c":{"terms":{"field":"country","size":100,"order":{"_key":"asc"}},
		"aggs":{"s":{"sum":{"field":"population"}},
			"bs":{"bucket_sort":{"sort":[{"s":{"order":"desc"}}],"from":3,"size":3}}}},
		"h":{"histogram":{"field":"population","interval":1000000,"min_doc_count":1},
			"aggs":{"bs":{"bucket_sort":{"sort":[{"_count":"asc"}],"size":1}}}}}`, opts{sort: []string{"population"}})
	bs := get(t, res, "c.buckets").([]any)
	if len(bs) != 3 {
		t.Fatalf("%d buckets, want 3", len(bs))
	}
	for i, b := range bs {
		want := cs[3+i]
		if get(t, b, "key") != want {
			t.Errorf("bucket %d = %v, want %s", i, get(t, b, "key"), want)
		}
		eqNum(t, "sum", get(t, b, "s.value"), sums[want])
		eqInt(t, "count", get(t, b, "doc_count"), counts[want])
	}
	hist := map[float64]int64{}
	for _, d := range f.docs {
		p, _ := fnum(d, "population")
		hist[float64(int64(p)/1000000*1000000)]++
	}
	best, bestKey := int64(1<<62), 0.0
	var keys []float64
	for k := range hist {
		keys = append(keys, k)
	}
	sort.Float64s(keys)
	for _, k := range keys {
		if hist[k] < best {
			best, bestKey = hist[k], k
		}
	}
	hb := get(t, res, "h.buckets").([]any)
	if len(hb) != 1 {
		t.Fatalf("histogram bucket_sort: %d buckets", len(hb))
	}
	eqNum(t, "smallest bucket key", get(t, hb[0], "key"), bestKey)
	eqInt(t, "smallest bucket count", get(t, hb[0], "doc_count"), best)
}

func TestTermsMinDocCountZero(t *testing.T) {
	f := cities(t)
	counts := map[string]int64{}
	for _, d := range f.docs {
		fc, _ := fstr(d, "feature_code")
		if _, ok := counts[fc]; !ok {
			counts[fc] = 0
		}
		if c, _ := countryOf(d); c == "AU" {
			counts[fc]++
		}
	}
	var want []expBucket
	for k, c := range counts {
		if k != "PPLX" {
			want = append(want, expBucket{k, c})
		}
	}
	sort.Slice(want, func(i, j int) bool { return countDesc(want[i], want[j]) })
	res := f.mustRun(t, `{"t":{"terms":{"field":"feature_code","size":50,"min_doc_count":0,"exclude":["PPLX"]}}}`,
		opts{q: bluge.NewTermQuery("AU").SetField("country")})
	checkTerms(t, res, "t", want, 0, 0)
}
