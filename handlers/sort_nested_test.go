package handlers_test

import (
	"strings"
	"testing"
)

// TestSortNested sorts root documents by fields of their nested objects
// (the sort's nested option and the deprecated nested_path/nested_filter):
// the mode picks among the values of the nested objects matching the
// filters, max_children keeps the first ones, deeper levels narrow by
// their own filters, roots without a value sort as missing.
func TestSortNested(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/shop", "application/json", `{"mappings":{"properties":{"offers":{"type":"nested","properties":{
		"seller":{"type":"keyword"},"price":{"type":"long"},
		"lines":{"type":"nested","properties":{"qty":{"type":"long"},"kind":{"type":"keyword"}}}}}}}}`)
	bulk := strings.Join([]string{
		`{"index":{"_id":"p1"}}`, `{"offers":[{"seller":"a","price":10,"lines":[{"qty":5,"kind":"x"},{"qty":1,"kind":"y"}]},{"seller":"b","price":30,"lines":[{"qty":7,"kind":"y"}]}]}`,
		`{"index":{"_id":"p2"}}`, `{"offers":[{"seller":"b","price":20,"lines":[{"qty":2,"kind":"x"}]}]}`,
		`{"index":{"_id":"p3"}}`, `{"offers":[{"seller":"a","price":5}]}`,
		`{"index":{"_id":"p4"}}`, `{}`,
	}, "\n") + "\n"
	if code, body := n.do("POST", "/shop/_bulk?refresh=true", "application/x-ndjson", bulk); code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("bulk = %d %v", code, body)
	}
	const hi, lo = "9223372036854775807", "-9223372036854775808"
	tests := []struct{ name, sort, ids, sorts string }{
		{"min ascending", `{"offers.price":{"order":"asc","nested":{"path":"offers"}}}`,
			"p3,p1,p2,p4", `[5,10,20,` + hi + `]`},
		{"max descending", `{"offers.price":{"order":"desc","nested":{"path":"offers"}}}`,
			"p1,p2,p3,p4", `[30,20,5,` + lo + `]`},
		{"filter", `{"offers.price":{"order":"asc","nested":{"path":"offers","filter":{"term":{"offers.seller":"b"}}}}}`,
			"p2,p1,p3,p4", `[20,30,` + hi + `,` + hi + `]`},
		{"avg mode", `{"offers.price":{"order":"asc","mode":"avg","nested":{"path":"offers"}}}`,
			"p3,p1,p2,p4", `[5,20,20,` + hi + `]`},
		{"max_children keeps the first objects", `{"offers.price":{"order":"desc","nested":{"path":"offers","max_children":1}}}`,
			"p2,p1,p3,p4", `[20,10,5,` + lo + `]`},
		{"keyword values", `{"offers.seller":{"order":"desc","nested":{"path":"offers"}}}`,
			"p1,p2,p3,p4", `["b","b","a",null]`},
		{"two levels, both filtered", `{"offers.lines.qty":{"order":"asc","nested":{"path":"offers","filter":{"term":{"offers.seller":"a"}},
			"nested":{"path":"offers.lines","filter":{"term":{"offers.lines.kind":"x"}}}}}}`,
			"p1,p2,p3,p4", `[5,` + hi + `,` + hi + `,` + hi + `]`},
		{"two levels, inner filter only", `{"offers.lines.qty":{"order":"asc","nested":{"path":"offers",
			"nested":{"path":"offers.lines","filter":{"term":{"offers.lines.kind":"x"}}}}}}`,
			"p2,p1,p3,p4", `[2,5,` + hi + `,` + hi + `]`},
		{"nested_path and nested_filter", `{"offers.price":{"order":"asc","nested_path":"offers","nested_filter":{"term":{"offers.seller":"b"}}}}`,
			"p2,p1,p3,p4", `[20,30,` + hi + `,` + hi + `]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkSorted(t, n, "/shop/_search", `{"_source":false,"sort":[`+tt.sort+`,"_doc"]}`, "sort.0", tt.ids, tt.sorts)
		})
	}
	errs := []struct{ name, sort, errType, reason string }{
		{"path not nested", `{"offers.price":{"nested":{"path":"offers.price"}}}`, "search_phase_execution_exception/query_shard_exception", "[nested] nested object under path [offers.price] is not of nested type"},
		{"unknown path", `{"offers.price":{"nested":{"path":"nope"}}}`, "search_phase_execution_exception/query_shard_exception", "[nested] failed to find nested object under path [nope]"},
		{"both forms", `{"offers.price":{"nested_path":"offers","nested":{"path":"offers"}}}`, "illegal_argument_exception", "Setting both nested_path/nested_filter and nested not allowed"},
	}
	for _, tt := range errs {
		code, body := n.do("POST", "/shop/_search", "application/json", `{"sort":[`+tt.sort+`]}`)
		if typ, reason := searchErrorOf(t, body); code != 400 || typ != tt.errType || reason != tt.reason {
			t.Errorf("%s: %d %s %q, want %s %q", tt.name, code, typ, reason, tt.errType, tt.reason)
		}
	}
}
