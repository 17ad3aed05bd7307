package handlers_test

import (
	"fmt"
	"sort"
	"testing"
)

// TestClosedIndexVisible checks that a closed index shows in _cat/indices,
// GET /{index}, HEAD /{index} and the cluster state as Elasticsearch 7.17
// shows it, across a restart.
func TestClosedIndexVisible(t *testing.T) {
	dir := t.TempDir()
	n := openTestNode(t, dir)
	n.do("PUT", "/logs_a", "application/json", `{"settings":{"number_of_replicas":1}}`)
	n.do("PUT", "/logs_b", "application/json", `{"settings":{"number_of_replicas":0}}`)
	n.do("PUT", "/logs_a/_doc/1?refresh=true", "application/json", `{"msg":"hello"}`)
	if code, body := n.do("POST", "/logs_a/_close", "", ""); code != 200 {
		t.Fatalf("close = %d %s", code, str(body))
	}
	// Everything below holds after a restart.
	n.Close()
	n = openTestNode(t, dir)
	_, ids := n.raw("GET", "/_cat/indices/logs_a?h=uuid,creation.date", "", "")
	var uuid, created string
	fmt.Sscan(string(ids), &uuid, &created)

	t.Run("cat", func(t *testing.T) {
		cases := []struct{ path, want string }{
			{"/_cat/indices?format=json&s=index&h=health,status,index,pri,rep,docs.count,docs.deleted",
				`[{"health":"yellow","status":"close","index":"logs_a","pri":"1","rep":"1","docs.count":null,"docs.deleted":null},` +
					`{"health":"green","status":"open","index":"logs_b","pri":"1","rep":"0","docs.count":"0","docs.deleted":"0"}]`},
			{"/_cat/indices/logs_a?format=json&h=index,uuid,creation.date,store.size,pri.store.size,indexing.index_total",
				`[{"index":"logs_a","uuid":"` + uuid + `","creation.date":"` + created + `","store.size":null,"pri.store.size":null,"indexing.index_total":null}]`},
			{"/_cat/indices?format=json&expand_wildcards=open&h=index", `[{"index":"logs_b"}]`},
			{"/_cat/indices?format=json&expand_wildcards=closed&h=index", `[{"index":"logs_a"}]`},
			{"/_cat/indices/logs_*?format=json&health=yellow&h=index,status", `[{"index":"logs_a","status":"close"}]`},
			{"/_cat/indices/logs_a?h=health,status,index,docs.count,store.size&v", "health status index  docs.count store.size\nyellow close  logs_a                      \n"},
		}
		for _, tc := range cases {
			code, body := n.raw("GET", tc.path, "", "")
			if code != 200 || string(body) != tc.want {
				t.Errorf("GET %s = %d\n%q\nwant\n%q", tc.path, code, body, tc.want)
			}
		}
	})

	t.Run("get index", func(t *testing.T) {
		closed := `"logs_a":{"aliases":{},"mappings":{"properties":{"msg":{"fields":{"keyword":{"ignore_above":256,"type":"keyword"}},"type":"text"}}},` +
			`"settings":{"index":{"creation_date":"` + created + `","number_of_replicas":"1","number_of_shards":"1","provided_name":"logs_a",` +
			`"routing":{"allocation":{"include":{"_tier_preference":"data_content"}}},` +
			`"uuid":"` + uuid + `","verified_before_close":"true","version":{"created":"7170099"}}}}`
		cases := []struct {
			path string
			code int
			want string
		}{
			{"/logs_a", 200, "{" + closed + "}"},
			{"/logs_a?expand_wildcards=open", 200, "{" + closed + "}"},
			{"/logs_*?expand_wildcards=closed", 200, "{" + closed + "}"},
			{"/logs_*", 200, `["logs_b"]`},
			{"/logs_*?expand_wildcards=all", 200, `["logs_a","logs_b"]`},
			{"/logs_a*?allow_no_indices=false", 404, `"index_not_found_exception"`},
		}
		for _, tc := range cases {
			code, body := n.do("GET", tc.path, "", "")
			got := str(body)
			switch {
			case code != 200:
				got = str(jsonPath(body, "error.type"))
			case tc.want[0] == '[':
				keys := []string{}
				for k := range body {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				got = str(keys)
			}
			if code != tc.code || got != tc.want {
				t.Errorf("GET %s = %d\n%s\nwant %d\n%s", tc.path, code, got, tc.code, tc.want)
			}
		}
	})

	t.Run("exists", func(t *testing.T) {
		for path, want := range map[string]int{"/logs_a": 200, "/logs_a*?allow_no_indices=false": 404, "/logs_a*?expand_wildcards=closed&allow_no_indices=false": 200} {
			if code, _ := n.raw("HEAD", path, "", ""); code != want {
				t.Errorf("HEAD %s = %d, want %d", path, code, want)
			}
		}
	})

	t.Run("cluster state", func(t *testing.T) {
		_, body := n.do("GET", "/_cluster/state/master_node,blocks,metadata,routing_table", "", "")
		node := str(body["master_node"])
		checks := []struct{ path, want string }{
			{"blocks", `{"indices":{"logs_a":{"4":{"description":"index closed","levels":["read","write"],"retryable":false}}}}`},
			{"metadata.indices.logs_a.state", `"close"`},
			{"metadata.indices.logs_a.settings.index.verified_before_close", `"true"`},
			{"metadata.indices.logs_b.state", `"open"`},
			{"metadata.indices.logs_b.settings.index.verified_before_close", `null`},
			{"routing_table.indices.logs_a", `{"shards":{"0":[{"index":"logs_a","node":` + node + `,"primary":true,"relocating_node":null,"shard":0,"state":"STARTED"},` +
				`{"index":"logs_a","node":null,"primary":false,"relocating_node":null,"shard":0,"state":"UNASSIGNED"}]}}`},
		}
		for _, c := range checks {
			if got := str(jsonPath(body, c.path)); got != c.want {
				t.Errorf("%s = %s, want %s", c.path, got, c.want)
			}
		}
		// Naming the closed index selects it; wildcards follow expand_wildcards.
		_, body = n.do("GET", "/_cluster/state/metadata/logs_a", "", "")
		if got := str(jsonPath(body, "metadata.indices.logs_a.state")); got != `"close"` {
			t.Errorf("state of the named closed index = %s", got)
		}
		_, body = n.do("GET", "/_cluster/state/metadata/logs_*", "", "")
		if got := str(jsonPath(body, "metadata.indices.logs_a")); got != "null" {
			t.Errorf("wildcard metadata lists the closed index: %s", got)
		}
	})

	// The setting is private.
	for _, r := range []struct{ method, path, body string }{
		{"PUT", "/logs_c", `{"settings":{"index.verified_before_close":true}}`},
		{"PUT", "/logs_b/_settings", `{"index":{"verified_before_close":"true"}}`},
	} {
		code, body := n.do(r.method, r.path, "application/json", r.body)
		if want := `{"reason":"private index setting [index.verified_before_close] can not be set explicitly","type":"illegal_argument_exception"}`; code != 400 || str(jsonPath(body, "error.root_cause.0")) != want {
			t.Errorf("%s %s = %d %s", r.method, r.path, code, str(body))
		}
	}

	// Opening removes the setting and the block.
	n.do("POST", "/logs_a/_open", "", "")
	_, body := n.do("GET", "/logs_a", "", "")
	if got := str(jsonPath(body, "logs_a.settings.index.verified_before_close")); got != "null" {
		t.Errorf("verified_before_close after open = %s", got)
	}
	_, body = n.do("GET", "/_cluster/state/blocks", "", "")
	if got := str(body["blocks"]); got != "{}" {
		t.Errorf("blocks after open = %s", got)
	}
}
