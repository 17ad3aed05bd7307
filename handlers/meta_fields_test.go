package handlers_test

import (
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
	if code != 400 || str(jsonPath(body, "error.reason")) != `"Can only use regexp queries on keyword and text fields - not on [_index] which is of type [_index]"` {
		t.Errorf("regexp on _index: %d %s", code, str(body))
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
