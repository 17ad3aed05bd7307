package handlers_test

import (
	"strings"
	"testing"
)

// TestSortValuesPerIndex sorts one field name that is a date in one index
// and a date_nanos in another: each hit's sort value is rendered by its own
// index (milliseconds for the date, nanoseconds for the date_nanos), the
// merge order compares raw longs unless numeric_type converts them, and a
// display format keeps the sub-millisecond digits of date_nanos values.
func TestSortValuesPerIndex(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/sm_ms", "application/json", `{"settings":{"number_of_shards":2},"mappings":{"properties":{"d":{"type":"date"},"v":{"type":"long"}}}}`)
	n.do("PUT", "/sm_ns", "application/json", `{"mappings":{"properties":{"d":{"type":"date_nanos"},"v":{"type":"double"}}}}`)
	bulk := strings.Join([]string{
		`{"index":{"_index":"sm_ms","_id":"m1"}}`, `{"d":"2022-02-02T00:00:00Z","v":7}`,
		`{"index":{"_index":"sm_ms","_id":"m2"}}`, `{"d":"2019-03-03T00:00:00.5Z","v":1}`,
		`{"index":{"_index":"sm_ns","_id":"n1"}}`, `{"d":"2020-06-01T00:00:00.123456Z","v":2.5}`,
	}, "\n") + "\n"
	if code, body := n.do("POST", "/_bulk?refresh=true", "application/x-ndjson", bulk); code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("bulk = %d %v", code, body)
	}
	// 2022-02-02 = 1643760000000 ms; 2019-03-03T00:00:00.5 = 1551571200500 ms;
	// 2020-06-01T00:00:00.123456 = 1590969600123 ms + 456 µs.
	tests := []struct {
		name, sort, ids, sorts string
	}{
		{"raw longs: nanos above millis", `[{"d":"desc"}]`, "n1,m1,m2",
			`[[1590969600123456000],[1643760000000],[1551571200500]]`},
		{"raw longs ascending", `[{"d":"asc"}]`, "m2,m1,n1",
			`[[1551571200500],[1643760000000],[1590969600123456000]]`},
		{"format keeps raw-long order", `[{"d":{"order":"desc","format":"yyyy-MM-dd"}}]`, "n1,m1,m2",
			`[["2020-06-01"],["2022-02-02"],["2019-03-03"]]`},
		{"numeric_type date", `[{"d":{"order":"desc","numeric_type":"date"}}]`, "m1,n1,m2",
			`[[1643760000000],[1590969600123],[1551571200500]]`},
		{"numeric_type date_nanos", `[{"d":{"order":"desc","numeric_type":"date_nanos"}}]`, "m1,n1,m2",
			`[[1643760000000000000],[1590969600123456000],[1551571200500000000]]`},
		{"numeric_type date_nanos with nanos format", `[{"d":{"order":"desc","numeric_type":"date_nanos","format":"strict_date_optional_time_nanos"}}]`, "m1,n1,m2",
			`[["2022-02-02T00:00:00.000Z"],["2020-06-01T00:00:00.123456Z"],["2019-03-03T00:00:00.500Z"]]`},
		{"long and double: each index renders its type", `[{"v":"desc"}]`, "m1,n1,m2",
			`[[7],[2.5],[1]]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkSorted(t, n, "/sm_*/_search", `{"_source":false,"sort":`+tt.sort+`}`, "sort", tt.ids, tt.sorts)
		})
	}
}

// checkSorted runs a sorted search and compares its hit ids (joined by
// commas) and the JSON list of each hit's value at valuePath ("sort",
// "sort.0") with the expectations.
func checkSorted(t *testing.T, n *testNode, path, body, valuePath, ids, sorts string) {
	t.Helper()
	code, res := n.do("POST", path, "application/json", body)
	if code != 200 {
		t.Fatalf("status %d %v", code, res)
	}
	if got := strings.Join(hitIDs(res), ","); got != ids {
		t.Errorf("order = %s, want %s", got, ids)
	}
	var vals []any
	for _, h := range jsonPath(res, "hits.hits").([]any) {
		vals = append(vals, jsonPath(h, valuePath))
	}
	if got := str(vals); got != sorts {
		t.Errorf("sort values = %s\nwant          %s", got, sorts)
	}
}
