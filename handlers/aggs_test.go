package handlers_test

import (
	"strings"
	"testing"
)

func TestSearchAggregations(t *testing.T) {
	n := newTestNode(t)
	seedBooks(t, n) // 5 books over 2 shards: genres fable×2, essay×2, poetry×1
	tests := []struct {
		name, path, body string
		want             map[string]string // rawMember path -> exact JSON
		hits             string
	}{
		{
			name: "terms with avg, sorted on the aggregated field",
			path: "/books/_search",
			body: `{"size":2,"sort":[{"year":"asc"}],"aggs":{"g":{"terms":{"field":"genre"},"aggs":{"y":{"avg":{"field":"year"}}}},"maxy":{"max":{"field":"year"}},"cnt":{"value_count":{"field":"year"}}}}`,
			want: map[string]string{
				"aggregations.g.buckets": `[{"key":"essay","doc_count":2,"y":{"value":2015.0}},{"key":"fable","doc_count":2,"y":{"value":1995.5}},{"key":"poetry","doc_count":1,"y":{"value":1975.0}}]`,
				"aggregations.maxy":      `{"value":2015.0}`,
				"aggregations.cnt":       `{"value":5}`,
			},
			hits: "4,1",
		},
		{
			name: "post_filter narrows hits, not aggregations",
			path: "/books/_search",
			body: `{"post_filter":{"term":{"genre":"essay"}},"sort":["_id"],"aggs":{"g":{"terms":{"field":"genre","size":1}}}}`,
			want: map[string]string{
				"aggregations.g.buckets":             `[{"key":"essay","doc_count":2}]`,
				"aggregations.g.sum_other_doc_count": `3`,
			},
			hits: "3,5",
		},
		{
			name: "post_filter with aggregations on the sort field",
			path: "/books/_search",
			body: `{"post_filter":{"term":{"genre":"essay"}},"sort":[{"price":"desc"}],"aggs":{"s":{"sum":{"field":"price"}}}}`,
			want: map[string]string{
				"aggregations.s": `{"value":48.75}`,
			},
			hits: "3,5",
		},
		{
			name: "typed_keys",
			path: "/books/_search?typed_keys=true",
			body: `{"size":0,"aggs":{"g":{"terms":{"field":"genre","size":1}},"s":{"sum":{"field":"price"}}}}`,
			want: map[string]string{
				"aggregations.sterms#g.buckets": `[{"key":"essay","doc_count":2}]`,
				"aggregations.sum#s":            `{"value":48.75}`,
			},
			hits: "",
		},
		{
			name: "date_histogram by year",
			path: "/books/_search",
			body: `{"size":0,"query":{"range":{"published":{"gte":"2000-01-01"}}},"aggs":{"h":{"date_histogram":{"field":"published","calendar_interval":"year","min_doc_count":1}}}}`,
			want: map[string]string{
				"aggregations.h.buckets": `[{"key_as_string":"2001-01-01T00:00:00.000Z","key":978307200000,"doc_count":1},{"key_as_string":"2015-01-01T00:00:00.000Z","key":1420070400000,"doc_count":1}]`,
			},
			hits: "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, raw := n.raw("POST", tc.path, "application/json", tc.body)
			if code != 200 {
				t.Fatalf("status = %d: %s", code, raw)
			}
			for path, want := range tc.want {
				if got := rawMember(raw, path); got != want {
					t.Errorf("%s = %s, want %s", path, got, want)
				}
			}
			_, body := n.do("POST", tc.path, "application/json", tc.body)
			if got := strings.Join(hitIDs(body), ","); got != tc.hits {
				t.Errorf("hits = %q, want %q", got, tc.hits)
			}
		})
	}
	// Errors from aggregations are Elasticsearch's.
	code, body := n.do("POST", "/books/_search", "application/json", `{"aggs":{"t":{"terms":{"field":"title"}}}}`)
	if code != 400 || jsonPath(body, "error.root_cause.0.type") != "illegal_argument_exception" {
		t.Errorf("terms on text = %d %v", code, body)
	}
	code, body = n.do("POST", "/books/_search", "application/json", `{"aggs":{"t":{"nope":{"field":"title"}}}}`)
	if code != 400 || jsonPath(body, "error.type") != "parsing_exception" {
		t.Errorf("unknown aggregation = %d %v", code, body)
	}
	// A scroll returns the aggregations with its first page only.
	code, raw := n.raw("POST", "/books/_search?scroll=1m", "application/json", `{"size":2,"sort":["_doc"],"aggs":{"c":{"value_count":{"field":"year"}}}}`)
	if code != 200 || rawMember(raw, "aggregations.c") != `{"value":5}` {
		t.Fatalf("first scroll page = %d %s", code, raw)
	}
	id := strings.Trim(rawMember(raw, "_scroll_id"), `"`)
	code, raw = n.raw("POST", "/_search/scroll", "application/json", `{"scroll":"1m","scroll_id":"`+id+`"}`)
	if code != 200 || rawMember(raw, "aggregations") != "" {
		t.Errorf("second scroll page = %d %s", code, raw)
	}
}
