package aggs_test

import (
	"fmt"
	"sort"
	"strconv"
	"testing"

	"github.com/blugelabs/bluge"
)

// expSig is an expected significant_terms bucket.
type expSig struct {
	key          string
	df, bg       int64
	score        float64
	subset, supr int64
}

// esSignificant computes significant_terms the ES 7.17 way from the raw
// documents: per shard (document i on shard i%numShards) the foreground
// are the documents fg accepts, the background every document of the
// shard; each shard keeps its shardSize best terms by JLH score with at
// least shardMin foreground documents; the reduce adds the counts of the
// returned terms, rescores against the summed sizes and keeps the size
// best scoring above 0 with at least minDoc documents. Ties go by key.
func esSignificant(docs []map[string]any, fg func(d map[string]any) bool, termOf func(d map[string]any) (string, bool), size, shardSize int, minDoc, shardMin int64) (out []expSig, subset, superset int64) {
	score := func(sf, ss, bf, bs int64) float64 {
		if ss == 0 || bs == 0 {
			return 0
		}
		if bf == 0 {
			bf = 1
		}
		p, q := float64(sf)/float64(ss), float64(bf)/float64(bs)
		if p-q <= 0 {
			return 0
		}
		return (p - q) * (p / q)
	}
	order := func(bs []expSig) {
		sort.SliceStable(bs, func(i, j int) bool {
			if bs[i].score != bs[j].score {
				return bs[i].score > bs[j].score
			}
			a, errA := strconv.ParseInt(bs[i].key, 10, 64)
			b, errB := strconv.ParseInt(bs[j].key, 10, 64)
			if errA == nil && errB == nil {
				return a < b
			}
			return bs[i].key < bs[j].key
		})
	}
	df, bg := map[string]int64{}, map[string]int64{}
	for s := 0; s < numShards; s++ {
		var sub, sup int64
		fgDf, bgDf := map[string]int64{}, map[string]int64{}
		for i, d := range docs {
			if shardOf(i) != s {
				continue
			}
			sup++
			t, ok := termOf(d)
			if ok {
				bgDf[t]++
			}
			if fg(d) {
				sub++
				if ok {
					fgDf[t]++
				}
			}
		}
		var bs []expSig
		for t, n := range fgDf {
			if n >= shardMin {
				bs = append(bs, expSig{key: t, df: n, bg: bgDf[t], score: score(n, sub, bgDf[t], sup)})
			}
		}
		order(bs)
		if len(bs) > shardSize {
			bs = bs[:shardSize]
		}
		for _, b := range bs {
			df[b.key] += b.df
			bg[b.key] += b.bg
		}
		subset += sub
		superset += sup
	}
	for t := range df {
		sc := score(df[t], subset, bg[t], superset)
		if sc > 0 && df[t] >= minDoc {
			out = append(out, expSig{key: t, df: df[t], bg: bg[t], score: sc})
		}
	}
	order(out)
	if len(out) > size {
		out = out[:size]
	}
	return out, subset, superset
}

func checkSig(t *testing.T, res any, path string, want []expSig, subset, superset int64) {
	t.Helper()
	eqInt(t, path+".doc_count", get(t, res, path+".doc_count"), subset)
	eqInt(t, path+".bg_count", get(t, res, path+".bg_count"), superset)
	bs := get(t, res, path+".buckets").([]any)
	if len(bs) != len(want) {
		t.Fatalf("%s: %d buckets, want %d (%v)", path, len(bs), len(want), want)
	}
	for i, w := range want {
		b := bs[i]
		if k := keyString(get(t, b, "key")); k != w.key {
			t.Errorf("%s bucket %d key = %s, want %s", path, i, k, w.key)
		}
		eqInt(t, path+" doc_count", get(t, b, "doc_count"), w.df)
		eqInt(t, path+" bg_count", get(t, b, "bg_count"), w.bg)
		eqNum(t, path+" score", get(t, b, "score"), w.score)
	}
}

func TestSignificantTerms(t *testing.T) {
	f := cities(t)
	at := func(d map[string]any) bool { c, _ := countryOf(d); return c == "AT" }
	feature := func(d map[string]any) (string, bool) { return fstr(d, "feature_code") }
	admin := func(d map[string]any) (string, bool) { return fstr(d, "admin_code") }
	pop := func(d map[string]any) (string, bool) {
		p, ok := fnum(d, "population")
		return strconv.FormatInt(int64(p), 10), ok
	}
	q := bluge.NewTermQuery("AT").SetField("country")
	for _, tc := range []struct {
		name, body string
		termOf     func(d map[string]any) (string, bool)
		size, ss   int
		minDoc, sm int64
	}{
		{"defaults", `{"s":{"significant_terms":{"field":"feature_code"}}}`, feature, 10, 50, 3, 0},
		{"size min_doc_count shard limits", `{"s":{"significant_terms":{"field":"admin_code","size":3,"shard_size":4,"min_doc_count":1,"shard_min_doc_count":2}}}`, admin, 3, 4, 1, 2},
		{"jlh explicit", `{"s":{"significant_terms":{"field":"feature_code","size":2,"min_doc_count":10,"jlh":{}}}}`, feature, 2, 50, 10, 0},
		{"numeric field", `{"s":{"significant_terms":{"field":"population","min_doc_count":2}}}`, pop, 10, 50, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, sub, sup := esSignificant(f.docs, at, tc.termOf, tc.size, tc.ss, tc.minDoc, tc.sm)
			if len(want) == 0 {
				t.Fatal("the case expects no bucket; pick another")
			}
			res := f.mustRun(t, tc.body, opts{q: q})
			checkSig(t, res, "s", want, sub, sup)
		})
	}
	// under a terms bucket the foreground is the bucket's documents
	perCountry := map[string]int64{}
	for _, d := range f.docs {
		c, _ := countryOf(d)
		perCountry[c]++
	}
	var top []string
	for c := range perCountry {
		top = append(top, c)
	}
	sort.Slice(top, func(i, j int) bool {
		if perCountry[top[i]] != perCountry[top[j]] {
			return perCountry[top[i]] > perCountry[top[j]]
		}
		return top[i] < top[j]
	})
	res := f.mustRun(t, `{"c":{"terms":{"field":"country","size":3,"shard_size":1000},
		"aggs":{"s":{"significant_terms":{"field":"feature_code","size":4,"min_doc_count":2}}}}}`, opts{typedKeys: true})
	for i, c := range top[:3] {
		if k := get(t, res, fmt.Sprintf("sterms#c.buckets.%d.key", i)); k != c {
			t.Fatalf("country bucket %d = %v, want %s", i, k, c)
		}
		in := func(d map[string]any) bool { k, _ := countryOf(d); return k == c }
		want, sub, sup := esSignificant(f.docs, in, feature, 4, 50, 2, 0)
		checkSig(t, res, fmt.Sprintf("sterms#c.buckets.%d.sigsterms#s", i), want, sub, sup)
	}
	// bad input
	for _, e := range []struct{ body, typ, reason string }{
		{`{"s":{"significant_terms":{"field":"feature_code","size":0}}}`, "illegal_argument_exception", "[size] must be greater than 0. Found [0] in [s]"},
		{`{"s":{"significant_terms":{"field":"feature_code","shard_min_doc_count":-1}}}`, "illegal_argument_exception", "[shardMinDocCount] must be greater than or equal to 0. Found [-1] in [s]"},
		{`{"s":{"significant_terms":{"field":"name"}}}`, "illegal_argument_exception", ""},
		{`{"s":{"significant_terms":{"field":"feature_code","chi_square":{}}}}`, "parsing_exception", "[significant_terms] unknown field [chi_square]"},
	} {
		_, err := f.run(t, e.body, opts{})
		checkErr(t, err, e.typ, e.reason)
	}
}
