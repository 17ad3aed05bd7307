package handlers_test

import (
	"strings"
	"testing"
)

// TestShardFailures: exceptions raised while a shard builds its search
// (the query against the mapping, a sort or aggregation on a text field, the
// result window) are shard failures as in Elasticsearch 7.17: a
// search_phase_execution_exception when every shard failed, the other
// shards' answer with _shards.failures otherwise.
func TestShardFailures(t *testing.T) {
	n := newTestNode(t)
	steps := []httpStep{
		{"create t", "PUT", "/t", `{"mappings":{"properties":{"title":{"type":"text"},"n":{"type":"integer"}}}}`, 200, ""},
		{"create t2", "PUT", "/t2", `{"settings":{"number_of_shards":2},"mappings":{"properties":{"n":{"type":"integer"}}}}`, 200, ""},
		{"create a", "PUT", "/a", `{"mappings":{"properties":{"tag":{"type":"text"},"v":{"type":"integer"}}}}`, 200, ""},
		{"create b", "PUT", "/b", `{"mappings":{"properties":{"tag":{"type":"keyword"},"v":{"type":"keyword"}}}}`, 200, ""},
		{"doc t", "PUT", "/t/_doc/1?refresh=true", `{"title":"hello world","n":1}`, 201, ""},
		{"doc a", "PUT", "/a/_doc/1?refresh=true", `{"tag":"red","v":7}`, 201, ""},
		{"doc b", "PUT", "/b/_doc/1?refresh=true", `{"tag":"blue","v":"x"}`, 201, ""},
		{"doc b2", "PUT", "/b/_doc/2?refresh=true", `{"tag":"blue","v":"7"}`, 201, ""},
	}
	n.runSteps(steps)
	for _, st := range []httpStep{
		{"agg", "POST", "/t/_search", `{"size":0,"aggs":{"x":{"terms":{"field":"title"}}}}`, 400, ""},
		{"q", "POST", "/t2/_search", `{"query":{"term":{"n":"abc"}}}`, 400, ""},
		{"w", "POST", "/t/_search", `{"from":10000,"size":1}`, 400, ""},
		{"partial", "POST", "/a,b/_search", `{"size":0,"aggs":{"x":{"terms":{"field":"tag"}}}}`, 200, ""},
		{"partial q", "POST", "/a,b/_search", `{"query":{"term":{"v":"x"}}}`, 200, ""},
		{"count", "POST", "/t2/_count", `{"query":{"term":{"n":"abc"}}}`, 400, ""},
		{"count partial", "POST", "/a,b/_count", `{"query":{"term":{"v":"x"}}}`, 200, ""},
	} {
		code, b := n.raw(st.method, st.path, "application/json", st.body)
		t.Logf("%s %d %s", st.name, code, b)
	}
	code, b := n.raw("POST", "/_msearch", "application/x-ndjson", strings.Join([]string{`{"index":"t"}`, `{"size":0,"aggs":{"x":{"terms":{"field":"title"}}}}`, ""}, "\n"))
	t.Logf("msearch %d %s", code, b)
}
