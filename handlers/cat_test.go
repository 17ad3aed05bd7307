package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// catNode is a node with two indices, two documents and an alias.
func catNode(t *testing.T) *testNode {
	t.Helper()
	n := newTestNode(t)
	for _, req := range []struct{ method, path, body string }{
		{"PUT", "/books", `{"aliases":{"b":{"is_write_index":true,"routing":"r1"},"f":{"filter":{"term":{"t":"a"}}}}}`},
		{"PUT", "/logs", `{"settings":{"number_of_replicas":0,"number_of_shards":2}}`},
		{"PUT", "/books/_doc/1?refresh=true", `{"t":"a"}`},
		{"PUT", "/books/_doc/2?refresh=true", `{"t":"b"}`},
	} {
		if code, body := n.do(req.method, req.path, "application/json", req.body); code >= 300 {
			t.Fatalf("%s %s: %d %v", req.method, req.path, code, body)
		}
	}
	return n
}

func TestCatFormatter(t *testing.T) {
	n := catNode(t)
	id := n.Engine.LocalNode().ID
	books, _ := n.Engine.Index("books")
	logs, _ := n.Engine.Index("logs")
	cases := []struct {
		name, path, accept string
		status             int
		want               string
	}{
		{"aliases text", "/_cat/aliases", "", 200, "b books - r1 r1 true\nf books * -  -  -   \n"},
		{"aliases v", "/_cat/aliases?v", "", 200,
			"alias index filter routing.index routing.search is_write_index\n" +
				"b     books -      r1            r1             true          \n" +
				"f     books *      -             -              -             \n"},
		{"aliases json", "/_cat/aliases?format=json", "", 200,
			`[{"alias":"b","index":"books","filter":"-","routing.index":"r1","routing.search":"r1","is_write_index":"true"},{"alias":"f","index":"books","filter":"*","routing.index":"-","routing.search":"-","is_write_index":"-"}]`},
		{"aliases accept json", "/_cat/aliases/f", "application/json", 200,
			`[{"alias":"f","index":"books","filter":"*","routing.index":"-","routing.search":"-","is_write_index":"-"}]`},
		{"aliases yaml", "/_cat/aliases/b?format=yaml&h=alias,w", "", 200, "---\n- alias: \"b\"\n  w: \"true\"\n"},
		{"h with aliases keeps the given names", "/_cat/aliases?format=json&h=a,i", "", 200, `[{"a":"b","i":"books"},{"a":"f","i":"books"}]`},
		{"h wildcard", "/_cat/aliases?format=json&h=routing.*&s=alias:desc", "", 200,
			`[{"routing.index":"-","routing.search":"-"},{"routing.index":"r1","routing.search":"r1"}]`},
		{"sort desc", "/_cat/aliases?h=alias&s=alias:desc", "", 200, "f\nb\n"},
		{"sort unknown", "/_cat/aliases?s=nope", "", 400, ""},
		{"help", "/_cat/aliases?help", "", 200,
			"alias          | a                | alias name\n" +
				"index          | i,idx            | index alias points to\n" +
				"filter         | f,fi             | filter\n" +
				"routing.index  | ri,routingIndex  | index routing\n" +
				"routing.search | rs,routingSearch | search routing\n" +
				"is_write_index | w,isWriteIndex   | write index\n"},
		{"unsupported format", "/_cat/aliases?format=xml", "", 400, ""},
		{"count", "/_cat/count/books?h=count", "", 200, "2\n"},
		{"count all json", "/_cat/count?format=json&h=count", "", 200, `[{"count":"2"}]`},
		{"indices docs bytes=b", "/_cat/indices?h=index,pri,rep,docs.count,docs.deleted,health&format=json&s=index", "", 200,
			`[{"index":"books","pri":"1","rep":"1","docs.count":"2","docs.deleted":"0","health":"yellow"},{"index":"logs","pri":"2","rep":"0","docs.count":"0","docs.deleted":"0","health":"green"}]`},
		{"indices health filter", "/_cat/indices?health=green&h=i,uuid", "", 200, "logs " + logs.UUID() + "\n"},
		{"indices by name", "/_cat/indices/bo*?h=i,uuid", "", 200, "books " + books.UUID() + "\n"},
		{"indices missing", "/_cat/indices/nope", "", 404, ""},
		{"shards", "/_cat/shards?h=index,shard,prirep,state,docs,node&s=index,shard,prirep&v", "", 200,
			"index shard prirep state      docs node  \n" +
				"books     0 p      STARTED       2 node-1\n" +
				"books     0 r      UNASSIGNED            \n" +
				"logs      0 p      STARTED       0 node-1\n" +
				"logs      1 p      STARTED       0 node-1\n"},
		{"shards one index json", "/_cat/shards/logs?format=json&h=i,s,p,st&s=s", "", 200,
			`[{"i":"logs","s":"0","p":"p","st":"STARTED"},{"i":"logs","s":"1","p":"p","st":"STARTED"}]`},
		{"master", "/_cat/master?format=json", "", 200, `[{"id":"` + id + `","host":"127.0.0.1","ip":"127.0.0.1","node":"node-1"}]`},
		{"plugins", "/_cat/plugins?format=json", "", 200, `[]`},
		{"plugins text", "/_cat/plugins", "", 200, ""},
		{"nodes role and master", "/_cat/nodes?h=name,node.role,master,ip,http_address,version,id,full_id", "", 200, "node-1 dimr * 127.0.0.1 127.0.0.1:9200 7.17.0 " + id[:4] + "\n"},
		{"nodes full id", "/_cat/nodes?h=id&full_id=true", "", 200, id + "\n"},
		{"health no ts", "/_cat/health?ts=false&format=json", "", 200,
			`[{"cluster":"test-cluster","status":"yellow","node.total":"1","node.data":"1","shards":"3","pri":"3","relo":"0","init":"0","unassign":"1","pending_tasks":"0","max_task_wait_time":"-","active_shards_percent":"75.0%"}]`},
		{"health columns", "/_cat/health?h=cl,st,nt,sh,pri,u&v", "", 200, "cl           st     nt sh pri u\ntest-cluster yellow  1  3   3 1\n"},
		{"cat listing", "/_cat", "", 200, "=^.^=\n/_cat/aliases\n/_cat/aliases/{alias}\n/_cat/count\n/_cat/count/{index}\n/_cat/health\n/_cat/indices\n/_cat/indices/{index}\n/_cat/master\n/_cat/nodes\n/_cat/plugins\n/_cat/shards\n/_cat/shards/{index}\n/_cat/templates\n/_cat/templates/{name}\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", n.URL+tc.path, nil)
			if tc.accept != "" {
				req.Header.Set("Accept", tc.accept)
			}
			res, err := n.HTTP.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var b strings.Builder
			buf := make([]byte, 4096)
			for {
				k, err := res.Body.Read(buf)
				b.Write(buf[:k])
				if err != nil {
					break
				}
			}
			if res.StatusCode != tc.status {
				t.Fatalf("GET %s status = %d, want %d: %s", tc.path, res.StatusCode, tc.status, b.String())
			}
			if tc.status == 200 && b.String() != tc.want {
				t.Errorf("GET %s =\n%q\nwant\n%q", tc.path, b.String(), tc.want)
			}
		})
	}
}

func TestCatUnits(t *testing.T) {
	n := catNode(t)
	// logs holds no documents: its store size does not change.
	var logs [2]int64
	for _, s := range n.Engine.ShardStats(nil) {
		if s.Index == "logs" {
			logs[s.Shard] = s.StoreBytes
		}
	}
	cases := []struct{ path, want string }{
		{"/_cat/indices/logs?h=ss&bytes=b", itoa64(logs[0]+logs[1]) + "\n"},
		{"/_cat/indices/logs?h=ss&bytes=kb", itoa64((logs[0]+logs[1])/1024) + "\n"},
		{"/_cat/indices/logs?h=ss", itoa64(logs[0]+logs[1]) + "b\n"},
		{"/_cat/shards/logs?h=store&bytes=b&s=shard", itoa64(logs[0]) + "\n" + itoa64(logs[1]) + "\n"},
		{"/_cat/nodes?h=uptime&time=d", "0\n"},
	}
	for _, tc := range cases {
		code, body := n.raw("GET", tc.path, "", "")
		if code != 200 || string(body) != tc.want {
			t.Errorf("GET %s = %d %q, want %q", tc.path, code, body, tc.want)
		}
	}
}

func itoa64(n int64) string {
	var b []byte
	if n == 0 {
		return "0"
	}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
