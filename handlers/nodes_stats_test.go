package handlers_test

import (
	"net/http"
	"sort"
	"strings"
	"testing"
)

func keysOf(v any) string {
	m, _ := v.(map[string]any)
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func TestNodesStats(t *testing.T) {
	n := newTestNode(t)
	id := n.Engine.LocalNode().ID
	for _, req := range []struct{ method, path, body string }{
		{"PUT", "/s1", `{"settings":{"number_of_shards":2}}`},
		// One routing and one bulk: a single segment, in which the delete
		// marks a document deleted (docs.deleted 1) with nothing to merge.
		{"POST", "/s1/_bulk?refresh=true&routing=r", "{\"index\":{\"_id\":\"1\"}}\n{\"a\":1}\n{\"index\":{\"_id\":\"2\"}}\n{\"a\":2}\n"},
		{"DELETE", "/s1/_doc/2?refresh=true&routing=r", ``},
		{"PUT", "/s2/_doc/1?refresh=true", `{"a":1}`},
	} {
		ct := ""
		if req.body != "" {
			ct = "application/json"
		}
		if code, body := n.do(req.method, req.path, ct, req.body); code >= 300 || body["errors"] == true {
			t.Fatalf("%s %s: %d %v", req.method, req.path, code, body)
		}
	}
	cases := []struct {
		name, path string
		status     int
		check      string
		want       string
	}{
		{"all metrics", "/_nodes/stats", 200, "nodes." + id, "breakers,fs,host,http,indices,ip,jvm,name,os,process,roles,thread_pool,timestamp,transport_address"},
		{"one metric", "/_nodes/stats/jvm", 200, "nodes." + id, "host,ip,jvm,name,roles,timestamp,transport_address"},
		{"node and metric", "/_nodes/_local/stats/os,fs", 200, "nodes." + id, "fs,host,ip,name,os,roles,timestamp,transport_address"},
		{"node only", "/_nodes/node-1/stats", 200, "nodes." + id + ".indices", "docs,get,indexing,refresh,search,store"},
		{"index metric", "/_nodes/stats/indices/search", 200, "nodes." + id + ".indices", "search"},
		{"node and index metric", "/_nodes/_all/stats/indices/docs,indexing", 200, "nodes." + id + ".indices", "docs,indexing"},
		{"ES index metric not measured", "/_nodes/stats/indices/fielddata", 200, "nodes." + id + ".indices", ""},
		{"unknown node", "/_nodes/nope/stats", 200, "nodes", ""},
		{"level indices", "/_nodes/stats/indices/docs?level=indices", 200, "nodes." + id + ".indices.indices", "s1,s2"},
		{"level shards", "/_nodes/stats/indices/docs?level=shards", 200, "nodes." + id + ".indices.shards", "s1,s2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do(http.MethodGet, tc.path, "", "")
			if code != tc.status {
				t.Fatalf("GET %s status = %d, want %d: %v", tc.path, code, tc.status, body)
			}
			if got := keysOf(jsonPath(body, tc.check)); got != tc.want {
				t.Errorf("GET %s %s keys = %s, want %s", tc.path, tc.check, got, tc.want)
			}
		})
	}

	// Exact measured figures.
	_, body := n.do(http.MethodGet, "/_nodes/stats/indices?level=indices", "", "")
	ix := jsonPath(body, "nodes."+id+".indices")
	exact := []struct{ path, want string }{
		{"docs", `{"count":2,"deleted":1}`},
		{"indexing", `{"delete_total":1,"index_total":3}`},
		{"indices.s1.docs", `{"count":1,"deleted":1}`},
		{"indices.s1.indexing", `{"delete_total":1,"index_total":2}`},
		{"indices.s2.docs", `{"count":1,"deleted":0}`},
		{"search.open_contexts", `0`},
	}
	for _, e := range exact {
		if got := str(jsonPath(ix, e.path)); got != e.want {
			t.Errorf("indices.%s = %s, want %s", e.path, got, e.want)
		}
	}
	// Open a scroll: open_contexts counts it.
	if code, b := n.do("POST", "/s1/_search?scroll=1m", "application/json", `{"size":1}`); code != 200 {
		t.Fatalf("scroll: %d %v", code, b)
	}
	_, body = n.do(http.MethodGet, "/_nodes/stats/indices/search", "", "")
	if got := str(jsonPath(body, "nodes."+id+".indices.search.open_contexts")); got != "1" {
		t.Errorf("open_contexts after a scroll = %s, want 1", got)
	}

	errs := []struct{ path, reason string }{
		{"/_nodes/stats/bogus", "request [/_nodes/stats/bogus] contains unrecognized metric: [bogus]"},
		{"/_nodes/stats/indices/bogus,nope", "request [/_nodes/stats/indices/bogus,nope] contains unrecognized index metrics: [bogus, nope]"},
		{"/_nodes/stats/os/docs", "request [/_nodes/stats/os/docs] contains index metrics [docs] but indices stats not requested"},
		{"/_nodes/stats/_all,os", "request [/_nodes/stats/_all,os] contains _all and individual metrics [_all,os]"},
	}
	for _, e := range errs {
		code, body := n.do(http.MethodGet, e.path, "", "")
		if got := str(jsonPath(body, "error.reason")); code != 400 || got != `"`+e.reason+`"` {
			t.Errorf("GET %s = %d %s, want 400 %q", e.path, code, got, e.reason)
		}
	}
}
