package handlers_test

import (
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/quarry-search/quarry/clients/clusterclient"
	core "github.com/quarry-search/quarry/searchcore/cluster"
)

// nodeKeys returns the member names of the single node of a nodes response.
func nodeKeys(t *testing.T, body map[string]any) (string, []string) {
	t.Helper()
	nodes, _ := body["nodes"].(map[string]any)
	if len(nodes) != 1 {
		t.Fatalf("nodes = %v; want one node", str(body["nodes"]))
	}
	for id, n := range nodes {
		var keys []string
		for k := range n.(map[string]any) {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return id, keys
	}
	return "", nil
}

var coreNodeKeys = []string{"attributes", "build_flavor", "build_hash", "build_type", "host", "ip", "name", "roles", "transport_address", "version"}

func withKeys(extra ...string) string {
	k := append(append([]string{}, coreNodeKeys...), extra...)
	sort.Strings(k)
	return strings.Join(k, ",")
}

func TestNodesInfoPathForms(t *testing.T) {
	n := newTestNode(t)
	all := withKeys("http", "ingest", "jvm", "modules", "os", "plugins", "process", "settings", "thread_pool", "total_indexing_buffer_in_bytes", "transport")
	id := n.Engine.LocalNode().ID
	cases := []struct {
		name, path string
		wantKeys   string // "" means no node selected
	}{
		{"all nodes all metrics", "/_nodes", all},
		{"metric list", "/_nodes/os,process", withKeys("os", "process")},
		{"single metric", "/_nodes/plugins", withKeys("modules", "plugins")},
		{"node _local", "/_nodes/_local", all},
		{"node _all", "/_nodes/_all", all},
		{"node _master", "/_nodes/_master", all},
		{"node by name", "/_nodes/node-1", all},
		{"node by id", "/_nodes/" + id, all},
		{"node by wildcard", "/_nodes/node-*", all},
		{"node by role", "/_nodes/master:true", all},
		{"role false", "/_nodes/master:false", ""},
		{"unknown node", "/_nodes/nope", ""},
		{"node list with unknown", "/_nodes/nope,_local", all},
		{"_all with metrics", "/_nodes/_all/ingest", withKeys("ingest")},
		{"node and metrics", "/_nodes/_local/os,jvm", withKeys("jvm", "os")},
		{"info form", "/_nodes/_local/info/indices", withKeys("total_indexing_buffer_in_bytes")},
		{"node and _all", "/_nodes/node-1/_all", all},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do(http.MethodGet, tc.path, "", "")
			if code != http.StatusOK {
				t.Fatalf("GET %s status = %d, want 200: %v", tc.path, code, body)
			}
			if got := str(body["cluster_name"]); got != `"test-cluster"` {
				t.Errorf("cluster_name = %s", got)
			}
			total := 1
			if tc.wantKeys == "" {
				total = 0
			}
			if got, want := str(body["_nodes"]), `{"failed":0,"successful":`+strconv.Itoa(total)+`,"total":`+strconv.Itoa(total)+`}`; got != want {
				t.Errorf("_nodes = %s, want %s", got, want)
			}
			if tc.wantKeys == "" {
				if got := str(body["nodes"]); got != "{}" {
					t.Errorf("nodes = %s, want {}", got)
				}
				return
			}
			gotID, keys := nodeKeys(t, body)
			if gotID != id {
				t.Errorf("node id = %s, want %s", gotID, id)
			}
			if got := strings.Join(keys, ","); got != tc.wantKeys {
				t.Errorf("GET %s keys = %s\nwant %s", tc.path, got, tc.wantKeys)
			}
		})
	}
}

func TestNodesInfoSections(t *testing.T) {
	n := newTestNode(t)
	id := n.Engine.LocalNode().ID
	_, body := n.do(http.MethodGet, "/_nodes/_local/os,process,plugins,ingest,http,transport,thread_pool?human", "", "")
	node := jsonPath(body, "nodes."+id)
	osInfo := core.ReadOSInfo(core.AllocatedProcessors(0))
	cases := []struct{ path, want string }{
		{"name", `"node-1"`},
		{"transport_address", `"127.0.0.1:9300"`},
		{"host", `"127.0.0.1"`},
		{"ip", `"127.0.0.1"`},
		{"version", `"7.17.0"`},
		{"build_flavor", `"default"`},
		{"build_type", `"tar"`},
		{"roles", `["data","ingest","master","remote_cluster_client"]`},
		{"attributes", `{}`},
		{"os.refresh_interval_in_millis", `1000`},
		{"os.name", `"` + osInfo.Name + `"`},
		{"os.arch", `"` + runtime.GOARCH + `"`},
		{"os.version", `"` + osInfo.Version + `"`},
		{"os.available_processors", strconv.Itoa(runtime.NumCPU())},
		{"os.allocated_processors", strconv.Itoa(min(runtime.NumCPU(), 32))},
		{"process.refresh_interval_in_millis", `1000`},
		{"process.id", strconv.Itoa(os.Getpid())},
		{"process.mlockall", `false`},
		{"plugins", `[]`},
		{"modules.0.name", `"analysis-common"`},
		{"modules.0.has_native_controller", `false`},
		{"modules.0.classname", `""`},
		{"ingest", `{"processors":[]}`},
		{"http.bound_address", `["127.0.0.1:9200"]`},
		{"http.publish_address", `"127.0.0.1:9200"`},
		{"http.max_content_length", `"8mb"`},
		{"http.max_content_length_in_bytes", `8388608`},
		{"transport", `{"bound_address":[],"profiles":{}}`},
		{"thread_pool", `{"get":{"type":"direct"},"management":{"type":"direct"},"search":{"type":"direct"},"write":{"type":"direct"}}`},
	}
	for _, tc := range cases {
		if got := str(jsonPath(node, tc.path)); got != tc.want {
			t.Errorf("nodes.%s.%s = %s, want %s", id, tc.path, got, tc.want)
		}
	}
}

func TestNodesInfoSettingsAndErrors(t *testing.T) {
	n := newTestNode(t)
	id := n.Engine.LocalNode().ID
	cases := []struct {
		name, path string
		status     int
		check      string // dotted path into the body
		want       string
	}{
		{"unknown metric", "/_nodes/_local/bogus", 400, "error.reason", `"request [/_nodes/_local/bogus] contains unrecognized metric: [bogus]"`},
		{"unknown metrics", "/_nodes/_local/os,foo,bar", 400, "error.reason", `"request [/_nodes/_local/os,foo,bar] contains unrecognized metrics: [foo, bar]"`},
		{"_all with others", "/_nodes/_local/_all,os", 400, "error.reason", `"request [/_nodes/_local/_all,os] contains _all and individual metrics [_all,os]"`},
		{"error type", "/_nodes/_local/bogus", 400, "error.type", `"illegal_argument_exception"`},
		{"settings nested", "/_nodes/settings", 200, "nodes." + id + ".settings", `{}`},
		{"unknown param", "/_nodes?bogus=1", 400, "error.type", `"illegal_argument_exception"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do(http.MethodGet, tc.path, "", "")
			if code != tc.status {
				t.Fatalf("GET %s status = %d, want %d: %v", tc.path, code, tc.status, body)
			}
			if got := str(jsonPath(body, tc.check)); got != tc.want {
				t.Errorf("GET %s %s = %s, want %s", tc.path, tc.check, got, tc.want)
			}
		})
	}
}

// TestNodesInfoClient goes through the generated client.
func TestNodesInfoClient(t *testing.T) {
	n := newTestNode(t)
	res, err := n.Client.NodesInfoNodeIdMetricWithResponse(t.Context(), "_local", "os,process,plugins,ingest", &clusterclient.NodesInfoNodeIdMetricParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.JSON200 == nil {
		t.Fatalf("status %d: %s", res.StatusCode(), res.Body)
	}
	node := res.JSON200.Nodes[n.Engine.LocalNode().ID]
	if node.Os == nil || node.Os.AllocatedProcessors != min(runtime.NumCPU(), 32) || node.Process == nil || node.Process.Mlockall || node.Ingest == nil || node.Plugins == nil {
		t.Errorf("node = %+v", node)
	}
	if res.JSON200.NodesHeader.Total != 1 || res.JSON200.ClusterName != "test-cluster" {
		t.Errorf("header = %+v, cluster_name = %s", res.JSON200.NodesHeader, res.JSON200.ClusterName)
	}
}
