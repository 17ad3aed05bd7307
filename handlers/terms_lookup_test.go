package handlers_test

import (
	"strings"
	"testing"
)

func TestTermsLookup(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/people", "application/json", `{"settings":{"number_of_shards":3},"mappings":{"properties":{"user":{"type":"keyword"},"age":{"type":"long"}}}}`)
	var bulk []string
	for i, u := range []string{"ann", "bob", "cid", "dan"} {
		bulk = append(bulk, `{"index":{"_id":"`+u+`"}}`, `{"user":"`+u+`","age":`+string(rune('1'+i))+`0}`)
	}
	if code, body := n.do("POST", "/people/_bulk?refresh=true", "application/x-ndjson", strings.Join(bulk, "\n")+"\n"); code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("bulk = %d %v", code, body)
	}
	// Lookup documents: nested paths, dotted keys, arrays of objects, numbers, routing.
	n.do("PUT", "/lookup/_doc/1?refresh=true", "application/json", `{"followers":["ann","cid"],"meta":{"friends":[{"name":"bob"},{"name":"dan"}]},"ages":[20,40]}`)
	n.do("PUT", "/lookup/_doc/2?routing=r7&refresh=true", "application/json", `{"meta.friends.name":"dan"}`)
	tests := []struct {
		name, query, ids string
	}{
		{"flat array", `{"terms":{"user":{"index":"lookup","id":"1","path":"followers"}}}`, "ann,cid"},
		{"path through array of objects", `{"terms":{"user":{"index":"lookup","id":"1","path":"meta.friends.name"}}}`, "bob,dan"},
		{"numbers", `{"terms":{"age":{"index":"lookup","id":"1","path":"ages"}}}`, "bob,dan"},
		{"routing and dotted key", `{"terms":{"user":{"index":"lookup","id":"2","path":"meta.friends.name","routing":"r7"}}}`, "dan"},
		{"missing document", `{"terms":{"user":{"index":"lookup","id":"nope","path":"followers"}}}`, ""},
		{"missing path", `{"terms":{"user":{"index":"lookup","id":"1","path":"nothing"}}}`, ""},
		{"two clauses share one fetch", `{"bool":{"should":[{"terms":{"user":{"index":"lookup","id":"1","path":"followers"}}},{"terms":{"user":{"index":"lookup","id":"1","path":"meta.friends.name"}}}]}}`, "ann,bob,cid,dan"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", "/people/_search", "application/json", `{"query":`+tc.query+`,"sort":["user"]}`)
			if code != 200 {
				t.Fatalf("status %d: %v", code, body)
			}
			if got := strings.Join(hitIDs(body), ","); got != tc.ids {
				t.Errorf("ids = %q, want %q", got, tc.ids)
			}
		})
	}
	code, body := n.do("POST", "/people/_search", "application/json", `{"query":{"terms":{"user":{"index":"nowhere","id":"1","path":"followers"}}}}`)
	if code != 404 || str(jsonPath(body, "error.reason")) != `"no such index [nowhere]"` {
		t.Errorf("unknown lookup index: %d %v", code, body)
	}
	code, body = n.do("POST", "/people/_count", "application/json", `{"query":{"terms":{"user":{"index":"lookup","id":"1","path":"followers"}}}}`)
	if code != 200 || str(body["count"]) != "2" {
		t.Errorf("count with lookup: %d %v", code, body)
	}
	before := n.Engine.ShardStats(nil)
	var lookupGets int64
	for _, st := range before {
		if st.Index == "lookup" {
			lookupGets += st.GetTotal
		}
	}
	// One request over three shards with two clauses naming the same
	// document fetches it exactly once.
	n.do("POST", "/people/_search", "application/json", `{"query":{"bool":{"should":[{"terms":{"user":{"index":"lookup","id":"1","path":"followers"}}},{"terms":{"user":{"index":"lookup","id":"1","path":"ages"}}}]}}}`)
	var after int64
	for _, st := range n.Engine.ShardStats(nil) {
		if st.Index == "lookup" {
			after += st.GetTotal
		}
	}
	if after-lookupGets != 1 {
		t.Errorf("gets per request over 3 shards and 2 clauses = %d, want 1", after-lookupGets)
	}
}
