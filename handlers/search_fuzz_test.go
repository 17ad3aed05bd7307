package handlers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quarry-search/quarry/searchcore"
)

// FuzzSearchBody runs arbitrary search bodies through the whole search
// path (ParseSearchBody with its query, sort, _source and aggregation
// parsers, then compilation and execution on a real two-shard index): it
// must never panic and may only fail with a client error (no 5xx).
func FuzzSearchBody(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"query":{"match_all":{}}}`,
		`{"query":{"bool":{"must":[{"match":{"title":{"query":"quick fox","operator":"and","fuzziness":"AUTO"}}}],"filter":{"range":{"year":{"gte":2000,"lt":"2020"}}},"should":[{"term":{"genre":"essay"}}],"minimum_should_match":1}},"sort":[{"price":{"order":"desc","mode":"avg","missing":"_first"}},"_score"],"from":1,"size":3}`,
		`{"query":{"query_string":{"query":"title:(quick OR \"brown fox\"~2) AND year:[1990 TO *] -genre:poetry"}},"_source":["t*"],"track_total_hits":2}`,
		`{"query":{"function_score":{"query":{"match":{"title":"fox"}},"field_value_factor":{"field":"year","modifier":"log1p"},"boost_mode":"replace"}},"min_score":0.5}`,
		`{"query":{"geo_distance":{"distance":"10km","loc":{"lat":1,"lon":2}}},"sort":[{"_geo_distance":{"loc":[2,1],"order":"asc"}}]}`,
		`{"query":{"regexp":{"genre":{"value":"(.*a){5}","flags":"ALL"}}},"post_filter":{"exists":{"field":"price"}}}`,
		`{"size":0,"aggs":{"g":{"terms":{"field":"genre","size":2,"order":{"y":"desc"}},"aggs":{"y":{"avg":{"field":"year"}},"top":{"top_hits":{"size":1}}}},"h":{"histogram":{"field":"price","interval":5,"min_doc_count":0}},"d":{"date_histogram":{"field":"published","calendar_interval":"month"}},"s":{"sum_bucket":{"buckets_path":"g>y"}}}}`,
		`{"size":0,"aggs":{"c":{"composite":{"sources":[{"g":{"terms":{"field":"genre"}}},{"y":{"histogram":{"field":"year","interval":10}}}],"after":{"g":"essay","y":2010}}},"p":{"percentiles":{"field":"price"}},"card":{"cardinality":{"field":"genre"}}}}`,
		`{"size":0,"aggs":{"f":{"filters":{"other_bucket":true,"filters":{"a":{"term":{"genre":"fable"}}}},"aggs":{"st":{"extended_stats":{"field":"price"}}}},"r":{"range":{"field":"year","ranges":[{"to":2000},{"from":2000}]}},"gg":{"geohash_grid":{"field":"loc","precision":3}}}}`,
		`{"search_after":[1,"x"],"sort":[{"year":"asc"},{"genre":"desc"}]}`,
		`{"query":{"terms":{"genre":{"index":"books","id":"1","path":"genre"}}}}`,
		`{"sort":[{"year":{"order":"desc","nested":{"path":"genre","filter":{"term":{"genre":"x"}}}}}]}`,
		`{"query":{"x":{}}}`, `{"aggs":{"a":{"terms":{"field":"title"}}}}`, `{"from":-1}`, `{"size":"x"}`,
	} {
		f.Add(s)
	}
	n := newTestNode(f)
	n.do("PUT", "/books", "application/json", `{"settings":{"number_of_shards":2},"mappings":{"properties":{
		"title":{"type":"text"},"genre":{"type":"keyword"},"year":{"type":"integer"},"price":{"type":"double"},
		"published":{"type":"date"},"loc":{"type":"geo_point"}}}}`)
	docs := []string{
		`{"index":{"_id":"1"}}`, `{"title":"The Quick Brown Fox","genre":"fable","year":1990,"price":[9.5,3],"published":"1990-05-01","loc":"1,2"}`,
		`{"index":{"_id":"2"}}`, `{"title":"Lazy Dogs Sleep","genre":["fable","essay"],"year":2001,"price":12,"published":"2001-01-15","loc":[3,4]}`,
		`{"index":{"_id":"3"}}`, `{"title":"Quick Thinking","genre":"essay","year":2015,"published":"2015-07-30"}`,
		`{"index":{"_id":"4"}}`, `{"title":"A Fox in the Snow","year":1975}`,
	}
	if code, body := n.do("POST", "/books/_bulk?refresh=true", "application/x-ndjson", strings.Join(docs, "\n")+"\n"); code != 200 || str(body["errors"]) != "false" {
		f.Fatalf("bulk = %d %v", code, body)
	}
	indices, err := n.Engine.Resolve("books", searchcore.DefaultResolve)
	if err != nil {
		f.Fatal(err)
	}
	check := func(t *testing.T, what, body string, err error) {
		if err == nil {
			return
		}
		e, ok := searchcore.AsError(err)
		if !ok {
			t.Fatalf("%s(%s) returned %T %v; want *eserr.Error", what, body, err, err)
		}
		if e.Code == searchcore.Internal {
			t.Fatalf("%s(%s) failed with an internal error: %v", what, body, err)
		}
	}
	f.Fuzz(func(t *testing.T, body string) {
		req := searchcore.NewSearchRequest()
		if err := searchcore.ParseSearchBody([]byte(body), req); err != nil {
			check(t, "ParseSearchBody", body, err)
			return
		}
		if req.Size > 100 {
			req.Size = 100 // keep iterations fast; windows are checked below it
		}
		_, err := n.Engine.Search(context.Background(), indices, req)
		check(t, "Search", body, err)
	})
}
