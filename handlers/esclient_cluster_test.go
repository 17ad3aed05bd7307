package handlers_test

// The official Go client (github.com/elastic/go-elasticsearch/v7) against a
// real node: nodes info, the cat APIs in JSON and cluster settings with
// remote seeds, as an application using the client calls them.

import (
	"context"
	"encoding/json"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/elastic/go-elasticsearch/v7"
)

func TestOfficialGoClientCluster(t *testing.T) {
	n := newTestNode(t)
	es, err := elasticsearch.NewClient(elasticsearch.Config{Addresses: []string{n.URL}, Transport: n.HTTP.Transport})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id := n.Engine.LocalNode().ID
	for _, req := range []struct{ path, body string }{
		{"/gc-a", `{"settings":{"number_of_replicas":0},"aliases":{"gc-alias":{}}}`},
		{"/gc-a/_doc/1?refresh=true", `{"n":1}`},
		{"/gc-a/_doc/2?refresh=true", `{"n":2}`},
	} {
		if code, body := n.do("PUT", req.path, "application/json", req.body); code >= 300 {
			t.Fatalf("PUT %s: %d %v", req.path, code, body)
		}
	}

	t.Run("nodes.info os,process,plugins,ingest", func(t *testing.T) {
		code, body, _ := ecDecode(t, "nodes.info")(es.Nodes.Info(es.Nodes.Info.WithContext(ctx),
			es.Nodes.Info.WithNodeID("_local"), es.Nodes.Info.WithMetric("os", "process", "plugins", "ingest")))
		if code != 200 {
			t.Fatalf("status = %d: %v", code, body)
		}
		node := jsonPath(body, "nodes."+id)
		checks := map[string]string{
			"name":                    `"node-1"`,
			"os.allocated_processors": itoaInt(min(runtime.NumCPU(), 32)),
			"process.mlockall":        `false`,
			"plugins":                 `[]`,
			"ingest":                  `{"processors":[]}`,
			"jvm":                     `null`,
		}
		for path, want := range checks {
			if got := str(jsonPath(node, path)); got != want {
				t.Errorf("nodes.%s.%s = %s, want %s", id, path, got, want)
			}
		}
	})

	t.Run("cat with format=json", func(t *testing.T) {
		cases := []struct {
			what string
			do   func() (int, []byte)
			want string
		}{
			{"cat.indices", func() (int, []byte) {
				res, err := es.Cat.Indices(es.Cat.Indices.WithIndex("gc-*"), es.Cat.Indices.WithFormat("json"), es.Cat.Indices.WithH("index", "health", "docs.count"))
				return readAll(t, res.StatusCode, res.Body, err)
			}, `[{"index":"gc-a","health":"green","docs.count":"2"}]`},
			{"cat.count", func() (int, []byte) {
				res, err := es.Cat.Count(es.Cat.Count.WithIndex("gc-a"), es.Cat.Count.WithFormat("json"), es.Cat.Count.WithH("count"))
				return readAll(t, res.StatusCode, res.Body, err)
			}, `[{"count":"2"}]`},
			{"cat.aliases", func() (int, []byte) {
				res, err := es.Cat.Aliases(es.Cat.Aliases.WithFormat("json"), es.Cat.Aliases.WithH("alias", "index"))
				return readAll(t, res.StatusCode, res.Body, err)
			}, `[{"alias":"gc-alias","index":"gc-a"}]`},
			{"cat.master", func() (int, []byte) {
				res, err := es.Cat.Master(es.Cat.Master.WithFormat("json"), es.Cat.Master.WithH("id", "node"))
				return readAll(t, res.StatusCode, res.Body, err)
			}, `[{"id":"` + id + `","node":"node-1"}]`},
			{"cat.nodes", func() (int, []byte) {
				res, err := es.Cat.Nodes(es.Cat.Nodes.WithFormat("json"), es.Cat.Nodes.WithH("name", "master", "node.role"))
				return readAll(t, res.StatusCode, res.Body, err)
			}, `[{"name":"node-1","master":"*","node.role":"dimr"}]`},
			{"cat.health", func() (int, []byte) {
				res, err := es.Cat.Health(es.Cat.Health.WithFormat("json"), es.Cat.Health.WithH("cluster", "status"))
				return readAll(t, res.StatusCode, res.Body, err)
			}, `[{"cluster":"test-cluster","status":"green"}]`},
			{"cat.shards", func() (int, []byte) {
				res, err := es.Cat.Shards(es.Cat.Shards.WithIndex("gc-a"), es.Cat.Shards.WithFormat("json"), es.Cat.Shards.WithH("index", "prirep", "docs"))
				return readAll(t, res.StatusCode, res.Body, err)
			}, `[{"index":"gc-a","prirep":"p","docs":"2"}]`},
			{"cat.plugins", func() (int, []byte) {
				res, err := es.Cat.Plugins(es.Cat.Plugins.WithFormat("json"))
				return readAll(t, res.StatusCode, res.Body, err)
			}, `[]`},
		}
		for _, tc := range cases {
			code, raw := tc.do()
			if code != 200 || !jsonEqual(raw, tc.want) {
				t.Errorf("%s = %d %s, want %s", tc.what, code, raw, tc.want)
			}
		}
	})

	t.Run("cluster.putSettings with remote seeds", func(t *testing.T) {
		code, _, raw := ecDecode(t, "cluster.put_settings")(es.Cluster.PutSettings(
			strings.NewReader(`{"persistent":{"cluster":{"remote":{"leader":{"seeds":["127.0.0.1:9300"]}}}}}`),
			es.Cluster.PutSettings.WithContext(ctx)))
		if want := `{"acknowledged":true,"persistent":{"cluster":{"remote":{"leader":{"seeds":["127.0.0.1:9300"]}}}},"transient":{}}`; code != 200 || !jsonEqual(raw, want) {
			t.Errorf("put = %d %s, want %s", code, raw, want)
		}
		code, _, raw = ecDecode(t, "cluster.get_settings")(es.Cluster.GetSettings(es.Cluster.GetSettings.WithFlatSettings(true)))
		if want := `{"persistent":{"cluster.remote.leader.seeds":["127.0.0.1:9300"]},"transient":{}}`; code != 200 || !jsonEqual(raw, want) {
			t.Errorf("get = %d %s, want %s", code, raw, want)
		}
		code, _, raw = ecDecode(t, "cluster.remote_info")(es.Cluster.RemoteInfo())
		if want := `{"leader":{"connected":false,"mode":"sniff","seeds":["127.0.0.1:9300"],"num_nodes_connected":0,"max_connections_per_cluster":3,"initial_connect_timeout":"30s","skip_unavailable":false}}`; code != 200 || !jsonEqual(raw, want) {
			t.Errorf("remote info = %d %s, want %s", code, raw, want)
		}
	})
}

func readAll(t *testing.T, code int, body io.ReadCloser, err error) (int, []byte) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer body.Close()
	b, _ := io.ReadAll(body)
	return code, b
}

func jsonEqual(a []byte, b string) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func itoaInt(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
