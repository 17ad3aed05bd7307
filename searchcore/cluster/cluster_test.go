package cluster

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

func enc(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// reason is the Elasticsearch reason of a domain error ("" for nil).
func reason(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := eserr.AsError(err); ok {
		return e.Reason
	}
	return err.Error()
}

func TestUpdate(t *testing.T) {
	cases := []struct {
		name                  string
		persistent, transient string
		wantApplied           string
		wantErr               string
		wantPersistent        string
	}{
		{"nested and flat mix", `{"cluster":{"routing.allocation":{"enable":"none"}},"search.max_buckets":10}`, ``,
			`{"persistent":{"cluster.routing.allocation.enable":"none","search.max_buckets":"10"},"transient":{}}`, ``,
			`{"cluster.routing.allocation.enable":"none","search.max_buckets":"10"}`},
		{"seeds as comma string", `{"cluster.remote.a.seeds":"h1:1, h2:2"}`, ``,
			`{"persistent":{"cluster.remote.a.seeds":["h1:1","h2:2"]},"transient":{}}`, ``, `{"cluster.remote.a.seeds":["h1:1","h2:2"]}`},
		{"proxy mode", `{"cluster.remote.p.mode":"proxy","cluster.remote.p.proxy_address":"h:9300"}`, ``,
			`{"persistent":{"cluster.remote.p.mode":"proxy","cluster.remote.p.proxy_address":"h:9300"},"transient":{}}`, ``, `{"cluster.remote.p.mode":"proxy","cluster.remote.p.proxy_address":"h:9300"}`},
		{"proxy with seeds", `{"cluster.remote.p.mode":"proxy","cluster.remote.p.proxy_address":"h:9300","cluster.remote.p.seeds":["h:1"]}`, ``, ``,
			`Setting "cluster.remote.p.seeds" cannot be used with the configured "cluster.remote.p.mode" [required=SNIFF, configured=PROXY]`, `{}`},
		{"bad port", `{"cluster.remote.a.seeds":["h:99999"]}`, ``, ``, `illegal value can't update [cluster.remote.a.seeds] from [] to [[h:99999]]`, `{}`},
		{"logger level", `{"logger.org.quarry":"DEBUG"}`, ``, `{"persistent":{"logger.org.quarry":"DEBUG"},"transient":{}}`, ``, `{"logger.org.quarry":"DEBUG"}`},
		{"bad logger level", `{"logger.x":"LOUD"}`, ``, ``, `illegal value can't update [logger.x] from [] to [LOUD]`, `{}`},
		{"time value", ``, `{"search.default_keep_alive":"10m"}`, `{"persistent":{},"transient":{"search.default_keep_alive":"10m"}}`, ``, `{}`},
		{"bad time value", ``, `{"search.default_keep_alive":"10"}`, ``, `illegal value can't update [search.default_keep_alive] from [5m] to [10]`, `{}`},
		{"int minimum", ``, `{"cluster.max_shards_per_node":0}`, ``, `illegal value can't update [cluster.max_shards_per_node] from [1000] to [0]`, `{}`},
		{"object in list", `{"cluster.remote.a.seeds":[{"h":1}]}`, ``, ``, `failed to parse setting [cluster.remote.a.seeds]: lists may hold only values`, `{}`},
		{"unknown", `{"no.such":1}`, ``, ``, `persistent setting [no.such], not recognized`, `{}`},
		{"node setting", `{"node.local_storage":false}`, ``, ``, `persistent setting [node.local_storage], not dynamically updateable`, `{}`},
		{"node setting, transient", ``, `{"ext":{"sql":{"enabled":false}}}`, ``, `transient setting [ext.sql.enabled], not dynamically updateable`, `{}`},
		{"not an object", `[1]`, ``, ``, `settings must be an object`, `{}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := NewState()
			static := func(k string) bool { return k == "node.local_storage" || k == "ext.sql.enabled" }
			applied, err := st.Update(json.RawMessage(tc.persistent), json.RawMessage(tc.transient), static)
			if tc.wantErr != "" {
				if got := reason(err); got != tc.wantErr {
					t.Fatalf("Update error = %v, want %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatalf("Update error = %v", err)
			} else if got := enc(map[string]any{"persistent": applied[Persistent], "transient": applied[Transient]}); got != tc.wantApplied {
				t.Errorf("applied = %s, want %s", got, tc.wantApplied)
			}
			if got := enc(st.Settings(Persistent)); got != tc.wantPersistent {
				t.Errorf("persistent = %s, want %s", got, tc.wantPersistent)
			}
		})
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	st := NewState()
	if _, err := st.Update(json.RawMessage(`{"cluster.remote.a.seeds":["h:1"],"cluster.remote.a.skip_unavailable":true}`), json.RawMessage(`{"search.max_buckets":5}`), nil); err != nil {
		t.Fatal(err)
	}
	if err := st.AddVotingExclusions([]VotingExclusion{{NodeID: "abc", NodeName: "n1"}}); err != nil {
		t.Fatal(err)
	}
	b, _ := st.Marshal()
	back, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := enc(back.Settings(Persistent)), `{"cluster.remote.a.seeds":["h:1"],"cluster.remote.a.skip_unavailable":"true"}`; got != want {
		t.Errorf("persistent = %s, want %s", got, want)
	}
	if got := enc(back.Settings(Transient)); got != `{}` {
		t.Errorf("transient = %s, want {} (not persisted)", got)
	}
	if got, want := enc(back.VotingExclusions()), `[{"node_id":"abc","node_name":"n1"}]`; got != want {
		t.Errorf("exclusions = %s, want %s", got, want)
	}
	if got, want := enc(back.Remotes()), `[{"Alias":"a","Mode":"sniff","Seeds":["h:1"],"ProxyAddress":"","SkipUnavailable":true,"NodeConnections":3,"ProxySockets":18}]`; got != want {
		t.Errorf("remotes = %s, want %s", got, want)
	}
}

func TestVotingExclusionsLimit(t *testing.T) {
	st := NewState()
	if _, err := st.Update(json.RawMessage(`{"cluster.max_voting_config_exclusions":1}`), nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.AddVotingExclusions([]VotingExclusion{{"a", "n1"}, {"a", "n1"}}); err != nil {
		t.Fatalf("duplicates count once: %v", err)
	}
	err := st.AddVotingExclusions([]VotingExclusion{{"b", "n2"}})
	if want := "add voting config exclusions request for [n2] would add [1] exclusions to the existing [1] which would exceed the maximum of [1] set by [cluster.max_voting_config_exclusions]"; reason(err) != want {
		t.Errorf("error = %v, want %s", err, want)
	}
	st.ClearVotingExclusions()
	if got := enc(st.VotingExclusions()); got != `[]` {
		t.Errorf("after clear = %s", got)
	}
}

func TestResolveNodes(t *testing.T) {
	nodes := []Node{
		NewNode("id1", "alpha", NodeConfig{Attributes: map[string]string{"rack": "r1"}}),
		NewNode("id2", "beta", NodeConfig{Roles: []string{"data"}, HTTPAddress: "10.0.0.2:9200"}),
	}
	cases := []struct {
		specs []string
		want  string
	}{
		{nil, "id1,id2"},
		{[]string{"_all"}, "id1,id2"},
		{[]string{"*"}, "id1,id2"},
		{[]string{"_local"}, "id1"},
		{[]string{"_master"}, "id1"},
		{[]string{"beta"}, "id2"},
		{[]string{"id2"}, "id2"},
		{[]string{"a*"}, "id1"},
		{[]string{"10.0.0.2"}, "id2"},
		{[]string{"master:true"}, "id1"},
		{[]string{"master:false"}, "id2"},
		{[]string{"data:true"}, "id1,id2"},
		{[]string{"rack:r*"}, "id1"},
		{[]string{"rack:r2"}, ""},
		{[]string{"nope", "beta"}, "id2"},
	}
	for _, tc := range cases {
		var ids []string
		for _, n := range ResolveNodes(nodes, "id1", tc.specs) {
			ids = append(ids, n.ID)
		}
		if got := strings.Join(ids, ","); got != tc.want {
			t.Errorf("ResolveNodes(%v) = %s, want %s", tc.specs, got, tc.want)
		}
	}
}

func TestAllocatedProcessors(t *testing.T) {
	n := runtime.NumCPU()
	cases := []struct{ setting, want int }{
		{0, min(n, 32)},
		{1, 1},
		{n + 5, min(n, 32)},
	}
	for _, tc := range cases {
		if got := AllocatedProcessors(tc.setting); got != tc.want {
			t.Errorf("AllocatedProcessors(%d) = %d, want %d", tc.setting, got, tc.want)
		}
	}
	if got := NewNode("x", "x", NodeConfig{}).Roles; enc(got) != `["data","ingest","master","remote_cluster_client"]` {
		t.Errorf("default roles = %v", got)
	}
}

func TestTemplatesFor(t *testing.T) {
	p := func(n int64) *int64 { return &n }
	st := NewState()
	for _, tpl := range []*Template{
		{Name: "all", IndexPatterns: []string{"*"}, Priority: p(0)},
		{Name: "logs", IndexPatterns: []string{"logs-*"}, Priority: p(10)},
		{Name: "logs-low", IndexPatterns: []string{"logs-a*"}, Priority: p(5)},
		{Name: "l2", Legacy: true, IndexPatterns: []string{"legacy-*"}, Order: 2},
		{Name: "l1", Legacy: true, IndexPatterns: []string{"legacy-*", "x"}, Order: 1},
		{Name: "l0", Legacy: true, IndexPatterns: []string{"legacy-*"}, Order: 1},
	} {
		if err := st.PutTemplate(tpl, false); err != nil {
			t.Fatalf("put %s: %v", tpl.Name, err)
		}
	}
	cases := []struct{ index, want string }{
		{"logs-a1", "logs"},
		{"logs-b", "logs"},
		{"other", "all"},
		{".hidden", ""},
		{"legacy-1", "all"},
	}
	for _, tc := range cases {
		var names []string
		for _, tpl := range st.TemplatesFor(tc.index) {
			names = append(names, tpl.Name)
		}
		if got := strings.Join(names, ","); got != tc.want {
			t.Errorf("TemplatesFor(%s) = %s, want %s", tc.index, got, tc.want)
		}
	}
	st.DeleteTemplates(false, "all")
	var names []string
	for _, tpl := range st.TemplatesFor("legacy-1") {
		names = append(names, tpl.Name)
	}
	if got := strings.Join(names, ","); got != "l0,l1,l2" {
		t.Errorf("legacy order = %s, want l0,l1,l2 (by order, then name)", got)
	}
	if err := st.PutTemplate(&Template{Name: "all2", IndexPatterns: []string{"logs-*"}, Priority: p(10)}, false); reason(err) == "" {
		t.Error("same priority, overlapping patterns: want an error")
	}
	if err := st.PutTemplate(&Template{Name: "none"}, false); reason(err) != "Validation Failed: 1: index patterns are missing;" {
		t.Errorf("missing patterns error = %q", reason(err))
	}
}

func TestMergeMappings(t *testing.T) {
	got, err := MergeMappings(
		json.RawMessage(`{"dynamic":"strict","properties":{"a":{"type":"keyword"},"o":{"properties":{"x":{"type":"long"}}}}}`),
		nil,
		json.RawMessage(`{"dynamic":"true","properties":{"b":{"type":"long"},"o":{"properties":{"y":{"type":"long"}}},"a":{"type":"text"}}}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"dynamic":"true","properties":{"a":{"type":"text"},"b":{"type":"long"},"o":{"properties":{"x":{"type":"long"},"y":{"type":"long"}}}}}`; string(got) != want {
		t.Errorf("MergeMappings = %s, want %s", got, want)
	}
	if got, _ := MergeMappings(nil, json.RawMessage(`null`)); got != nil {
		t.Errorf("MergeMappings(nothing) = %s, want nil", got)
	}
}
