package aggs_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/aggs"
	"github.com/quarry-search/quarry/searchcore/mapping"
	"github.com/quarry-search/quarry/searchcore/query"
)

// TestMultiIndexReduce prepares one request against two mappings (as for a
// search over two indices) and reduces the shards together.
func TestMultiIndexReduce(t *testing.T) {
	f := cities(t)
	run := func(body string, other string) (map[string]any, error) {
		req, err := aggs.Parse(json.RawMessage(body))
		if err != nil {
			t.Fatal(err)
		}
		m2, err := mapping.Parse(json.RawMessage(other), nil)
		if err != nil {
			t.Fatal(err)
		}
		var parts []*search.Bucket
		for i, r := range f.shards {
			m := f.m
			if i == 1 {
				m = m2
			}
			root, err := req.Prepare(&query.Context{Mapping: m}, nil)
			if err != nil {
				return nil, err
			}
			sr := bluge.NewTopNSearch(0, bluge.NewMatchAllQuery())
			sr.AddAggregation(aggs.RootName, root)
			it, err := r.Search(context.Background(), sr)
			if err != nil {
				t.Fatal(err)
			}
			for m, err := it.Next(); m != nil || err != nil; m, err = it.Next() {
				if err != nil {
					t.Fatal(err)
				}
			}
			parts = append(parts, it.Aggregations())
		}
		raw, err := req.Reduce(parts, true)
		if err != nil {
			return nil, err
		}
		return decode(t, raw), nil
	}
	// population unmapped in the second "index": only shard 0 counts
	counts := map[int64]int64{}
	for i, d := range f.docs {
		if shardOf(i) == 0 {
			p, _ := fnum(d, "population")
			counts[int64(p)]++
		}
	}
	var best int64
	for k, c := range counts {
		if c > counts[best] || c == counts[best] && k < best {
			best = k
		}
	}
	res, err := run(`{"p":{"terms":{"field":"population","size":1}}}`, `{"properties":{}}`)
	if err != nil {
		t.Fatal(err)
	}
	if get(t, res, "lterms#p.buckets.0.key").(json.Number).String() != strconv.FormatInt(best, 10) {
		t.Errorf("key = %v, want %d", get(t, res, "lterms#p.buckets.0.key"), best)
	}
	eqInt(t, "count", get(t, res, "lterms#p.buckets.0.doc_count"), counts[best])
	// country keyword in one index, long in the other
	_, err = run(`{"c":{"terms":{"field":"country"}}}`, `{"properties":{"country":{"type":"long"}}}`)
	checkErr(t, err, "illegal_argument_exception", "Merging/Reducing the aggregations failed when computing the aggregation [c] because the field you gave in the aggregation query existed as two different types in two different indices")
}
