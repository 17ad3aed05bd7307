package aggs_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/blugelabs/bluge"
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

// TestBucketSortGaps checks bucket_sort against ES's
// BucketSortPipelineAggregator: with gap_policy skip a bucket whose every
// sort value is a gap is dropped, a gap sorts last in both directions
// (and never drops a bucket that also sorts on _key), insert_zeros sorts
// gaps as 0, and without sort keys from/size only page the parent's order.
func TestBucketSortGaps(t *testing.T) {
	f := cities(t)
	type country struct {
		key string
		big float64 // largest population of a city >= 1M (gap: none)
		has bool
	}
	byKey := map[string]*country{}
	for _, d := range f.docs {
		c, _ := countryOf(d)
		p, _ := fnum(d, "population")
		if byKey[c] == nil {
			byKey[c] = &country{key: c}
		}
		if p >= 1000000 && (!byKey[c].has || p > byKey[c].big) {
			byKey[c].big, byKey[c].has = p, true
		}
	}
	var all []*country // the parent's order: key asc
	for _, c := range byKey {
		all = append(all, c)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].key < all[j].key })
	var withBig, gaps []*country
	for _, c := range all {
		if c.has {
			withBig = append(withBig, c)
		} else {
			gaps = append(gaps, c)
		}
	}
	if len(withBig) < 5 || len(gaps) < 5 {
		t.Fatalf("fixture: %d countries with a 1M city, %d without", len(withBig), len(gaps))
	}
	byBigDesc := append([]*country(nil), withBig...)
	sort.SliceStable(byBigDesc, func(i, j int) bool { return byBigDesc[i].big > byBigDesc[j].big })
	byBigAsc := append([]*country(nil), withBig...)
	sort.SliceStable(byBigAsc, func(i, j int) bool { return byBigAsc[i].big < byBigAsc[j].big })
	gapsKeyDesc := append([]*country(nil), gaps...)
	sort.Slice(gapsKeyDesc, func(i, j int) bool { return gapsKeyDesc[i].key > gapsKeyDesc[j].key })

	const sub = `"big":{"filter":{"range":{"population":{"gte":1000000}}},"aggs":{"m":{"max":{"field":"population"}}}}`
	terms := func(bs string) string {
		return `{"c":{"terms":{"field":"country","size":1000,"order":{"_key":"asc"}},"aggs":{` + sub + `,"bs":{"bucket_sort":` + bs + `}}}}`
	}
	keys := func(cs []*country) []string {
		out := []string{}
		for _, c := range cs {
			out = append(out, c.key)
		}
		return out
	}
	insertZerosAsc := append(append([]*country(nil), gaps...), byBigAsc...) // 0 < any 1M value; ties keep key order
	for _, tc := range []struct {
		name, bs string
		want     []string
	}{
		{"skip drops gaps", `{"sort":[{"big>m":"desc"}]}`, keys(byBigDesc)},
		{"skip asc pages after dropping", `{"sort":[{"big>m":{"order":"asc"}}],"from":2,"size":3}`, keys(byBigAsc[2:5])},
		{"keep_values drops gaps too", `{"sort":[{"big>m":"asc"}],"gap_policy":"keep_values"}`, keys(byBigAsc)},
		{"gap sorts last then by _key", `{"sort":[{"big>m":"desc"},{"_key":{"order":"desc"}}]}`, keys(append(append([]*country(nil), byBigDesc...), gapsKeyDesc...))},
		{"insert_zeros keeps gaps as 0", `{"sort":[{"big>m":"asc"}],"gap_policy":"insert_zeros"}`, keys(insertZerosAsc)},
		{"from size without sort", `{"from":2,"size":3}`, keys(all[2:5])},
		{"size only", `{"size":2}`, keys(all[:2])},
		{"from past the end", `{"from":100000}`, []string{}},
		{"from past the sorted buckets", `{"sort":[{"big>m":"desc"}],"from":` + fmt.Sprint(len(withBig)) + `}`, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := f.mustRun(t, terms(tc.bs), opts{})
			got := []string{}
			for _, b := range get(t, res, "c.buckets").([]any) {
				got = append(got, get(t, b, "key").(string))
				c := byKey[get(t, b, "key").(string)]
				if c.has {
					eqNum(t, "big.m "+c.key, get(t, b, "big.m.value"), c.big)
				} else if v := get(t, b, "big.m.value"); v != nil {
					t.Errorf("%s: big.m.value = %v, want null", c.key, v)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("keys\n got  %v\n want %v", got, tc.want)
			}
		})
	}
}
