package aggs_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/quarry-search/quarry/searchcore/aggs"
	"github.com/quarry-search/quarry/searchcore/query"
)

func TestTopHits(t *testing.T) {
	f := cities(t)
	byCountry := map[string][]map[string]any{}
	for _, d := range f.docs {
		c, _ := countryOf(d)
		byCountry[c] = append(byCountry[c], d)
	}
	res := f.mustRun(t, `{"c":{"terms":{"field":"country","size":3},"aggs":{
		"top":{"top_hits":{"size":2,"sort":[{"population":"desc"},{"id":"asc"}],"_source":["name","population"]}},
		"low":{"top_hits":{"from":1,"size":1,"sort":["population","id"],"_source":false}}}}}`,
		opts{sort: []string{"population"}})
	for i, b := range get(t, res, "c.buckets").([]any) {
		c := get(t, b, "key").(string)
		docs := append([]map[string]any(nil), byCountry[c]...)
		sort.SliceStable(docs, func(i, j int) bool {
			pi, _ := fnum(docs[i], "population")
			pj, _ := fnum(docs[j], "population")
			if pi != pj {
				return pi > pj
			}
			return docs[i]["id"].(string) < docs[j]["id"].(string)
		})
		eqInt(t, c+" total", get(t, b, "top.hits.total.value"), int64(len(docs)))
		if get(t, b, "top.hits.max_score") != nil {
			t.Errorf("max_score = %v, want null for a field sort", get(t, b, "top.hits.max_score"))
		}
		for j := 0; j < 2; j++ {
			h := get(t, b, fmt.Sprintf("top.hits.hits.%d", j))
			d := docs[j]
			if get(t, h, "_id") != d["id"] {
				t.Errorf("%s hit %d _id = %v, want %v", c, j, get(t, h, "_id"), d["id"])
			}
			src := get(t, h, "_source").(map[string]any)
			if len(src) != 2 || src["name"] != d["name"] {
				t.Errorf("%s hit %d _source = %v", c, j, src)
			}
			eqInt(t, "sort[0]", get(t, h, "sort.0"), int64(d["population"].(float64)))
			if get(t, h, "sort.1") != d["id"] {
				t.Errorf("sort[1] = %v", get(t, h, "sort.1"))
			}
		}
		// ascending, from 1: the second smallest
		last := docs[len(docs)-1]
		asc := append([]map[string]any(nil), docs...)
		sort.SliceStable(asc, func(i, j int) bool {
			pi, _ := fnum(asc[i], "population")
			pj, _ := fnum(asc[j], "population")
			if pi != pj {
				return pi < pj
			}
			return asc[i]["id"].(string) < asc[j]["id"].(string)
		})
		_ = last
		lh := get(t, b, "low.hits.hits").([]any)
		if len(lh) != 1 || get(t, lh[0], "_id") != asc[1]["id"] {
			t.Errorf("%s low hit = %v, want %v", c, lh, asc[1]["id"])
		}
		if _, has := lh[0].(map[string]any)["_source"]; has {
			t.Errorf("_source false still renders _source")
		}
		_ = i
	}
	// default sort: _score, with max_score and the full _source
	res = f.mustRun(t, `{"t":{"top_hits":{"size":1}}}`, opts{})
	eqNum(t, "max_score", get(t, res, "t.hits.max_score"), 1)
	eqInt(t, "total", get(t, res, "t.hits.total.value"), int64(len(f.docs)))
	if get(t, res, "t.hits.hits.0._source.id") != get(t, res, "t.hits.hits.0._id") {
		t.Errorf("_source/_id mismatch: %v", get(t, res, "t.hits.hits.0"))
	}
	if _, err := aggs.Parse(json.RawMessage(`{"t":{"top_hits":{"size":101}}}`)); err != nil {
		t.Fatal(err)
	}
	req, _ := aggs.Parse(json.RawMessage(`{"t":{"top_hits":{"size":101}}}`))
	_, err := req.Prepare(&query.Context{Mapping: f.m}, nil)
	checkErr(t, err, "illegal_argument_exception", "Top hits result window is too large, the top hits aggregator [t]'s from + size must be less than or equal to: [100] but was [101]. This limit can be set by changing the [index.max_inner_result_window] index level setting.")
}
