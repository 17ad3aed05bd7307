package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestClusterStateAndVotingExclusions(t *testing.T) {
	dir := t.TempDir()
	n := openTestNode(t, dir)
	id := n.Engine.LocalNode().ID
	if code, b := n.do("PUT", "/st", "application/json", `{"settings":{"number_of_shards":2,"number_of_replicas":1},"aliases":{"st-alias":{}}}`); code != 200 {
		t.Fatalf("create: %d %v", code, b)
	}
	_, body := n.do("GET", "/_cluster/state", "", "")
	checks := []struct{ path, want string }{
		{"cluster_name", `"test-cluster"`},
		{"master_node", `"` + id + `"`},
		{"nodes." + id + ".name", `"node-1"`},
		{"metadata.cluster_coordination.last_committed_config", `["` + id + `"]`},
		{"metadata.cluster_coordination.voting_config_exclusions", `[]`},
		{"metadata.indices.st.state", `"open"`},
		{"metadata.indices.st.aliases", `["st-alias"]`},
		{"metadata.indices.st.settings.index.number_of_shards", `"2"`},
		{"routing_table.indices.st.shards.1", `[{"index":"st","node":"` + id + `","primary":true,"relocating_node":null,"shard":1,"state":"STARTED"},{"index":"st","node":null,"primary":false,"relocating_node":null,"shard":1,"state":"UNASSIGNED"}]`},
	}
	for _, c := range checks {
		if got := str(jsonPath(body, c.path)); got != c.want {
			t.Errorf("state %s = %s, want %s", c.path, got, c.want)
		}
	}
	if got := keysOf(body); got != "blocks,cluster_name,cluster_uuid,master_node,metadata,nodes,routing_nodes,routing_table,version" {
		t.Errorf("state keys = %s", got)
	}
	_, body = n.do("GET", "/_cluster/state/metadata,master_node/nope*", "", "")
	if got := keysOf(body); got != "cluster_name,cluster_uuid,master_node,metadata" {
		t.Errorf("filtered keys = %s", got)
	}
	if got := str(jsonPath(body, "metadata.indices")); got != "{}" {
		t.Errorf("filtered indices = %s", got)
	}
	code, body := n.do("GET", "/_cluster/state/bogus", "", "")
	if code != 400 || str(jsonPath(body, "error.reason")) != `"request [/_cluster/state/bogus] contains unrecognized metric: [bogus]"` {
		t.Errorf("bad metric = %d %v", code, body)
	}

	steps := []struct {
		name, method, path string
		status             int
		warning            string
		exclusions         string
		reason             string
	}{
		{"neither", "POST", "/_cluster/voting_config_exclusions", 400, "", `[]`,
			"Please set node identifiers correctly. One and only one of [node_name], [node_names] and [node_ids] has to be set"},
		{"both", "POST", "/_cluster/voting_config_exclusions?node_names=a&node_ids=b", 400, "", `[]`,
			"Please set node identifiers correctly. One and only one of [node_name], [node_names] and [node_ids] has to be set"},
		{"by unknown name", "POST", "/_cluster/voting_config_exclusions?node_names=ghost", 200, "", `[{"node_id":"_absent_","node_name":"ghost"}]`, ""},
		{"by id", "POST", "/_cluster/voting_config_exclusions?node_ids=" + id + ",zz", 200, "",
			`[{"node_id":"_absent_","node_name":"ghost"},{"node_id":"` + id + `","node_name":"node-1"},{"node_id":"zz","node_name":"_absent_"}]`, ""},
		{"deprecated path", "POST", "/_cluster/voting_config_exclusions/node-1", 200,
			`299 Elasticsearch-7.17.0-quarry "POST /_cluster/voting_config_exclusions/{node_name} will be removed in a future version. Please use POST /_cluster/voting_config_exclusions?node_ids=... or POST /_cluster/voting_config_exclusions?node_names=... instead."`,
			`[{"node_id":"_absent_","node_name":"ghost"},{"node_id":"` + id + `","node_name":"node-1"},{"node_id":"zz","node_name":"_absent_"}]`, ""},
		{"clear waits for removal", "DELETE", "/_cluster/voting_config_exclusions", 408, "",
			`[{"node_id":"_absent_","node_name":"ghost"},{"node_id":"` + id + `","node_name":"node-1"},{"node_id":"zz","node_name":"_absent_"}]`,
			"timed out waiting for removal of nodes; if nodes should not be removed, set waitForRemoval to false. [{_absent_}{ghost}, {" + id + "}{node-1}, {zz}{_absent_}]"},
	}
	for _, st := range steps {
		req, _ := http.NewRequest(st.method, n.URL+st.path, nil)
		res, err := n.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != st.status {
			t.Errorf("%s: %s %s status = %d, want %d", st.name, st.method, st.path, res.StatusCode, st.status)
		}
		if got := res.Header.Get("Warning"); got != st.warning {
			t.Errorf("%s: Warning = %q, want %q", st.name, got, st.warning)
		}
		if st.reason != "" {
			_, b := n.do(st.method, st.path, "", "")
			if got := str(jsonPath(b, "error.reason")); got != `"`+st.reason+`"` {
				t.Errorf("%s: reason = %s, want %q", st.name, got, st.reason)
			}
		}
		_, state := n.do("GET", "/_cluster/state/metadata", "", "")
		if got := str(jsonPath(state, "metadata.cluster_coordination.voting_config_exclusions")); got != st.exclusions {
			t.Errorf("%s: exclusions = %s, want %s", st.name, got, st.exclusions)
		}
	}
	// Exclusions survive a restart; clearing without waiting works.
	n.Close()
	n = openTestNode(t, dir)
	_, state := n.do("GET", "/_cluster/state/metadata", "", "")
	if got := str(jsonPath(state, "metadata.cluster_coordination.voting_config_exclusions")); !strings.Contains(got, `"node_name":"ghost"`) {
		t.Errorf("after restart exclusions = %s", got)
	}
	if code, _ := n.do("DELETE", "/_cluster/voting_config_exclusions?wait_for_removal=false", "", ""); code != 200 {
		t.Errorf("clear status = %d", code)
	}
	_, state = n.do("GET", "/_cluster/state/metadata", "", "")
	if got := str(jsonPath(state, "metadata.cluster_coordination.voting_config_exclusions")); got != `[]` {
		t.Errorf("after clear exclusions = %s", got)
	}
}
