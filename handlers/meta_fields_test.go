package handlers_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestMetaFieldQueries: queries on _index match all or none of an index's
// documents (ES ConstantFieldType); _routing is a searchable keyword.
func TestMetaFieldQueries(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/idx1/_doc/1?routing=r1&refresh=true", "application/json", `{"a":1}`)
	n.do("PUT", "/idx2/_doc/2?refresh=true", "application/json", `{"a":2}`)
	n.do("PUT", "/other/_doc/3?refresh=true", "application/json", `{"a":3}`)
	tests := []struct{ query, want string }{
		{`{"term":{"_index":"idx1"}}`, "1"},
		{`{"terms":{"_index":["idx2","nope"]}}`, "2"},
		{`{"prefix":{"_index":"idx"}}`, "1,2"},
		{`{"prefix":{"_index":{"value":"IDX","case_insensitive":true}}}`, "1,2"},
		{`{"wildcard":{"_index":"*2"}}`, "2"},
		{`{"wildcard":{"_index":"o?her"}}`, "3"},
		{`{"exists":{"field":"_index"}}`, "1,2,3"},
		{`{"match":{"_index":"other"}}`, "3"},
		{`{"query_string":{"query":"_index:idx1 OR _index:oth*"}}`, "1,3"},
		{`{"bool":{"must_not":{"term":{"_index":"idx1"}}}}`, "2,3"},
		{`{"term":{"_routing":"r1"}}`, "1"},
		{`{"terms":{"_id":["2","3"]}}`, "2,3"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			code, body := n.do("POST", "/_all/_search", "application/json", `{"query":`+tc.query+`,"sort":["_id"]}`)
			if code != 200 {
				t.Fatalf("status %d: %v", code, body)
			}
			if got := strings.Join(hitIDs(body), ","); got != tc.want {
				t.Errorf("ids = %q, want %q", got, tc.want)
			}
		})
	}
	code, body := n.do("POST", "/_all/_search", "application/json", `{"query":{"regexp":{"_index":"idx.*"}}}`)
	// Every index fails: one failed_shards entry per index.
	if code != 400 || jsonPath(body, "error.type") != "search_phase_execution_exception" {
		t.Fatalf("regexp on _index: %d %s", code, str(body))
	}
	checkAllShardsFailed(t, body)
	for i, name := range []string{"idx1", "idx2", "other"} {
		f := jsonPath(body, fmt.Sprintf("error.failed_shards.%d", i))
		if jsonPath(f, "index") != name || jsonPath(f, "reason.type") != "query_shard_exception" || jsonPath(f, "reason.index") != name ||
			jsonPath(f, "reason.reason") != "Can only use regexp queries on keyword and text fields - not on [_index] which is of type [_index]" {
			t.Errorf("failed_shards.%d = %s", i, str(f))
		}
	}
	if got := len(jsonPath(body, "error.failed_shards").([]any)); got != 3 {
		t.Errorf("%d failed_shards, want 3", got)
	}
	// _index queries inside _msearch entries over a point in time.
	_, pit := n.do("POST", "/idx*/_pit?keep_alive=1m", "", "")
	id := str(pit["id"])
	msearch := "{}\n" + `{"pit":{"id":` + id + `},"query":{"wildcard":{"_index":"*1"}}}` + "\n"
	code, body = n.do("POST", "/_msearch", "application/x-ndjson", msearch)
	if got := strings.Join(hitIDs(jsonPath(body, "responses.0").(map[string]any)), ","); code != 200 || got != "1" {
		t.Errorf("msearch with pit: %d %v", code, body)
	}
}
