package handlers_test

import (
	"net/http"
	"testing"
)

func TestClusterSettings(t *testing.T) {
	n := newTestNode(t)
	const js = "application/json"
	steps := []httpStep{
		{"empty", "GET", "/_cluster/settings", "", 200, `{"persistent":{},"transient":{}}`},
		{"put flat transient", "PUT", "/_cluster/settings?flat_settings=true", `{"transient":{"cluster.routing.allocation.enable":"none"}}`, 200,
			`{"acknowledged":true,"persistent":{},"transient":{"cluster.routing.allocation.enable":"none"}}`},
		{"get flat", "GET", "/_cluster/settings?flat_settings", "", 200, `{"persistent":{},"transient":{"cluster.routing.allocation.enable":"none"}}`},
		{"get nested", "GET", "/_cluster/settings", "", 200, `{"persistent":{},"transient":{"cluster":{"routing":{"allocation":{"enable":"none"}}}}}`},
		{"reset with null", "PUT", "/_cluster/settings", `{"transient":{"cluster.routing.allocation.enable":null}}`, 200, `{"acknowledged":true,"persistent":{},"transient":{}}`},
		{"after reset", "GET", "/_cluster/settings", "", 200, `{"persistent":{},"transient":{}}`},
		{"nested remote seeds", "PUT", "/_cluster/settings", `{"persistent":{"cluster":{"remote":{"leader":{"seeds":["10.0.0.1:9300","h2:9301"],"skip_unavailable":true}}}}}`, 200,
			`{"acknowledged":true,"persistent":{"cluster":{"remote":{"leader":{"seeds":["10.0.0.1:9300","h2:9301"],"skip_unavailable":"true"}}}},"transient":{}}`},
		{"flat remote seeds", "PUT", "/_cluster/settings?flat_settings=true", `{"persistent":{"cluster.remote.other.seeds":["127.0.0.1:9400"],"cluster.remote.other.mode":"sniff"}}`, 200,
			`{"acknowledged":true,"persistent":{"cluster.remote.other.mode":"sniff","cluster.remote.other.seeds":["127.0.0.1:9400"]},"transient":{}}`},
		{"numbers become strings", "PUT", "/_cluster/settings", `{"persistent":{"search.max_buckets":20000}}`, 200,
			`{"acknowledged":true,"persistent":{"search":{"max_buckets":"20000"}},"transient":{}}`},
		{"remote info", "GET", "/_remote/info", "", 200,
			`{"leader":{"connected":false,"initial_connect_timeout":"30s","max_connections_per_cluster":3,"mode":"sniff","num_nodes_connected":0,"seeds":["10.0.0.1:9300","h2:9301"],"skip_unavailable":true},` +
				`"other":{"connected":false,"initial_connect_timeout":"30s","max_connections_per_cluster":3,"mode":"sniff","num_nodes_connected":0,"seeds":["127.0.0.1:9400"],"skip_unavailable":false}}`},
		{"wildcard reset", "PUT", "/_cluster/settings", `{"persistent":{"cluster.remote.other.*":null}}`, 200, `{"acknowledged":true,"persistent":{},"transient":{}}`},
		{"remote info after reset", "GET", "/_remote/info", "", 200,
			`{"leader":{"connected":false,"initial_connect_timeout":"30s","max_connections_per_cluster":3,"mode":"sniff","num_nodes_connected":0,"seeds":["10.0.0.1:9300","h2:9301"],"skip_unavailable":true}}`},
		{"unknown setting", "PUT", "/_cluster/settings", `{"persistent":{"foo.bar":1}}`, 400,
			`{"error":{"reason":"persistent setting [foo.bar], not recognized","root_cause":[{"reason":"persistent setting [foo.bar], not recognized","type":"illegal_argument_exception"}],"type":"illegal_argument_exception"},"status":400}`},
		{"node attribute is not dynamic", "PUT", "/_cluster/settings", `{"persistent":{"node.attr.rack":"r1"}}`, 400,
			`{"error":{"reason":"persistent setting [node.attr.rack], not dynamically updateable","root_cause":[{"reason":"persistent setting [node.attr.rack], not dynamically updateable","type":"illegal_argument_exception"}],"type":"illegal_argument_exception"},"status":400}`},
		{"unknown transient reset", "PUT", "/_cluster/settings", `{"transient":{"foo.bar":null}}`, 400,
			`{"error":{"reason":"transient setting [foo.bar], not recognized","root_cause":[{"reason":"transient setting [foo.bar], not recognized","type":"illegal_argument_exception"}],"type":"illegal_argument_exception"},"status":400}`},
		{"bad enum value", "PUT", "/_cluster/settings", `{"transient":{"cluster.routing.allocation.enable":"bogus"}}`, 400,
			`{"error":{"caused_by":{"reason":"no enum constant for [bogus], expected one of [all, primaries, new_primaries, none]","type":"illegal_argument_exception"},"reason":"illegal value can't update [cluster.routing.allocation.enable] from [all] to [bogus]","root_cause":[{"reason":"illegal value can't update [cluster.routing.allocation.enable] from [all] to [bogus]","type":"illegal_argument_exception"}],"type":"illegal_argument_exception"},"status":400}`},
		{"bad seed", "PUT", "/_cluster/settings", `{"persistent":{"cluster.remote.x.seeds":["nohost"]}}`, 400,
			`{"error":{"caused_by":{"reason":"invalid seed address [nohost]: expected [host:port]","type":"illegal_argument_exception"},"reason":"illegal value can't update [cluster.remote.x.seeds] from [] to [[nohost]]","root_cause":[{"reason":"illegal value can't update [cluster.remote.x.seeds] from [] to [[nohost]]","type":"illegal_argument_exception"}],"type":"illegal_argument_exception"},"status":400}`},
		{"skip_unavailable without seeds", "PUT", "/_cluster/settings", `{"transient":{"cluster.remote.y.skip_unavailable":true}}`, 400,
			`{"error":{"reason":"missing required setting [cluster.remote.y.seeds] for setting [cluster.remote.y.skip_unavailable]","root_cause":[{"reason":"missing required setting [cluster.remote.y.seeds] for setting [cluster.remote.y.skip_unavailable]","type":"illegal_argument_exception"}],"type":"illegal_argument_exception"},"status":400}`},
		{"bad boolean", "PUT", "/_cluster/settings", `{"transient":{"cluster.blocks.read_only":"yes"}}`, 400,
			`{"error":{"caused_by":{"reason":"Failed to parse value [yes] as only [true] or [false] are allowed.","type":"illegal_argument_exception"},"reason":"illegal value can't update [cluster.blocks.read_only] from [false] to [yes]","root_cause":[{"reason":"illegal value can't update [cluster.blocks.read_only] from [false] to [yes]","type":"illegal_argument_exception"}],"type":"illegal_argument_exception"},"status":400}`},
		{"no settings", "PUT", "/_cluster/settings", `{}`, 400,
			`{"error":{"reason":"Validation Failed: 1: no settings to update;","root_cause":[{"reason":"Validation Failed: 1: no settings to update;","type":"action_request_validation_exception"}],"type":"action_request_validation_exception"},"status":400}`},
		{"unknown body key", "PUT", "/_cluster/settings", `{"persist":{"a":1}}`, 400,
			`{"error":{"reason":"request body contains unknown key [persist]; expected [persistent] or [transient]","root_cause":[{"reason":"request body contains unknown key [persist]; expected [persistent] or [transient]","type":"illegal_argument_exception"}],"type":"illegal_argument_exception"},"status":400}`},
		{"failed request changed nothing", "GET", "/_cluster/settings?flat_settings", "", 200,
			`{"persistent":{"cluster.remote.leader.seeds":["10.0.0.1:9300","h2:9301"],"cluster.remote.leader.skip_unavailable":"true","search.max_buckets":"20000"},"transient":{}}`},
	}
	n.runSteps(steps)
}

func TestClusterSettingsDefaults(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/_cluster/settings", "application/json", `{"persistent":{"cluster.routing.allocation.enable":"primaries"}}`)
	_, body := n.do("GET", "/_cluster/settings?include_defaults&flat_settings", "", "")
	if got, want := str(body["persistent"]), `{"cluster.routing.allocation.enable":"primaries"}`; got != want {
		t.Errorf("persistent = %s, want %s", got, want)
	}
	defaults, _ := body["defaults"].(map[string]any)
	checks := map[string]string{
		"cluster.routing.allocation.enable":               "<absent>",
		"cluster.routing.rebalance.enable":                `"all"`,
		"search.max_open_scroll_context":                  `"500"`,
		"cluster.routing.allocation.awareness.attributes": `[]`,
	}
	for k, want := range checks {
		v, ok := defaults[k]
		got := str(v)
		if !ok {
			got = "<absent>"
		}
		if got != want {
			t.Errorf("defaults[%s] = %s, want %s", k, got, want)
		}
	}
}

// TestClusterSettingsPersist checks that persistent settings survive a
// restart and transient ones do not.
func TestClusterSettingsPersist(t *testing.T) {
	dir := t.TempDir()
	n := openTestNode(t, dir)
	code, _ := n.do("PUT", "/_cluster/settings", "application/json",
		`{"persistent":{"cluster.remote.leader.seeds":["127.0.0.1:9300"]},"transient":{"cluster.routing.allocation.enable":"none"}}`)
	if code != http.StatusOK {
		t.Fatalf("PUT status = %d", code)
	}
	id := n.Engine.LocalNode().ID
	n.Close()
	n = openTestNode(t, dir)
	_, body := n.do("GET", "/_cluster/settings?flat_settings", "", "")
	if got, want := str(body), `{"persistent":{"cluster.remote.leader.seeds":["127.0.0.1:9300"]},"transient":{}}`; got != want {
		t.Errorf("after restart = %s, want %s", got, want)
	}
	if got := n.Engine.LocalNode().ID; got != id {
		t.Errorf("node id after restart = %s, want %s", got, id)
	}
}

// TestClusterSettingAutoCreateIndex checks that action.auto_create_index is
// a live cluster setting.
func TestClusterSettingAutoCreateIndex(t *testing.T) {
	n := newTestNode(t)
	steps := []struct {
		setting, index string
		status         int
	}{
		{`"false"`, "a1", 404},
		{`"+logs-*,-*"`, "logs-1", 201},
		{`"+logs-*,-*"`, "other", 404},
		{`"-secret*,+*"`, "secret-1", 404},
		{`"-secret*,+*"`, "public", 201},
		{`null`, "back-to-node-setting", 201},
	}
	for _, st := range steps {
		if code, b := n.do("PUT", "/_cluster/settings", "application/json", `{"transient":{"action.auto_create_index":`+st.setting+`}}`); code != 200 {
			t.Fatalf("put %s: %d %v", st.setting, code, b)
		}
		code, body := n.do("PUT", "/"+st.index+"/_doc/1", "application/json", `{"a":1}`)
		if code != st.status {
			t.Errorf("auto_create_index=%s: PUT /%s/_doc/1 = %d, want %d: %v", st.setting, st.index, code, st.status, body)
		}
	}
}
