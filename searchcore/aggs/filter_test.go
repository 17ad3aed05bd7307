package aggs_test

import (
	"math"
	"sort"
	"testing"

	"github.com/blugelabs/bluge"
)

func TestFilterFiltersGlobal(t *testing.T) {
	f := cities(t)
	inQuery := func(d map[string]any) bool { c, _ := countryOf(d); return c == "AU" || c == "AT" }
	q := bluge.NewBooleanQuery().AddShould(bluge.NewTermQuery("AU").SetField("country"), bluge.NewTermQuery("AT").SetField("country"))
	all := statsOf(f.docs, "population", nil)
	type cnt struct {
		n, ppl, big, other int64
		pplMax             float64
	}
	per := map[string]*cnt{}
	var qn, qppl, qbig, qother, qboth int64
	for _, d := range f.docs {
		if !inQuery(d) {
			continue
		}
		c, _ := countryOf(d)
		fc, _ := fstr(d, "feature_code")
		p, _ := fnum(d, "population")
		x := per[c]
		if x == nil {
			x = &cnt{pplMax: math.Inf(-1)}
			per[c] = x
		}
		x.n++
		qn++
		isPPL, isBig := fc == "PPL", p >= 10000
		if isPPL {
			x.ppl++
			qppl++
			x.pplMax = math.Max(x.pplMax, p)
		}
		if isBig {
			qbig++
		}
		if isPPL && isBig {
			qboth++
		}
		if !isPPL && !isBig {
			qother++
		}
	}
	res := f.mustRun(t, `{
		"all":{"global":{},"aggs":{"avg_pop":{"avg":{"field":"population"}},"n":{"value_count":{"field":"country"}}}},
		"c":{"terms":{"field":"country"},"aggs":{"ppl":{"filter":{"term":{"feature_code":"PPL"}},
			"aggs":{"mx":{"max":{"field":"population"}}}}}},
		"k":{"filters":{"filters":{"ppl":{"term":{"feature_code":"PPL"}},"big":{"range":{"population":{"gte":10000}}}},"other_bucket_key":"rest"}},
		"a":{"filters":{"filters":[{"term":{"feature_code":"PPL"}},{"bool":{"filter":[{"term":{"feature_code":"PPL"}},{"range":{"population":{"gte":10000}}}]}}]}},
		"best_ppl":{"max_bucket":{"buckets_path":"c>ppl>mx"}}}`, opts{q: q, sort: []string{"population"}})
	eqInt(t, "global doc_count", get(t, res, "all.doc_count"), int64(len(f.docs)))
	eqNum(t, "global avg", get(t, res, "all.avg_pop.value"), all.sum/float64(all.count))
	eqInt(t, "global value_count", get(t, res, "all.n.value"), int64(len(f.docs)))
	var cs []string
	for c := range per {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool { return per[cs[i]].n > per[cs[j]].n })
	best := math.Inf(-1)
	for i, c := range cs {
		b := get(t, res, "c.buckets").([]any)[i]
		if get(t, b, "key") != c {
			t.Fatalf("bucket %d = %v, want %s", i, get(t, b, "key"), c)
		}
		eqInt(t, c, get(t, b, "doc_count"), per[c].n)
		eqInt(t, c+" ppl", get(t, b, "ppl.doc_count"), per[c].ppl)
		eqNum(t, c+" ppl max", get(t, b, "ppl.mx.value"), per[c].pplMax)
		best = math.Max(best, per[c].pplMax)
	}
	eqNum(t, "max_bucket through filter", get(t, res, "best_ppl.value"), best)
	kb := get(t, res, "k.buckets").(map[string]any)
	eqInt(t, "keyed ppl", get(t, kb["ppl"], "doc_count"), qppl)
	eqInt(t, "keyed big", get(t, kb["big"], "doc_count"), qbig)
	eqInt(t, "keyed other", get(t, kb["rest"], "doc_count"), qother)
	eqInt(t, "anon 0", get(t, res, "a.buckets.0.doc_count"), qppl)
	eqInt(t, "anon 1", get(t, res, "a.buckets.1.doc_count"), qboth)
	_ = qn
}
