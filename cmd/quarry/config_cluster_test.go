package main

import (
	"reflect"
	"testing"
)

// TestNodeSettings78 covers the 7.8 node settings: node.local_storage and
// the ext.*.enabled settings are accepted with a deprecation warning and no
// effect; ext.watcher.use_ilm_index_management is accepted; node.attr.* and
// node.roles describe the node.
func TestNodeSettings78(t *testing.T) {
	const suffix = "] setting was deprecated in Elasticsearch and will be removed in a future release! See the breaking changes documentation for the next major version."
	cases := []struct {
		name      string
		overrides []string
		wantErr   string
		warnings  []string
	}{
		{"none", nil, "", nil},
		{"local storage", []string{"node.local_storage=false"}, "", []string{"[node.local_storage" + suffix}},
		{"ext settings", []string{"ext.enrich.enabled=false", "ext.flattened.enabled=true", "ext.ilm.enabled=false", "ext.monitoring.enabled=false",
			"ext.rollup.enabled=false", "ext.slm.enabled=false", "ext.sql.enabled=false", "ext.transform.enabled=false", "ext.vectors.enabled=false"}, "", []string{
			"[ext.enrich.enabled" + suffix, "[ext.flattened.enabled" + suffix, "[ext.ilm.enabled" + suffix, "[ext.monitoring.enabled" + suffix,
			"[ext.rollup.enabled" + suffix, "[ext.slm.enabled" + suffix, "[ext.sql.enabled" + suffix, "[ext.transform.enabled" + suffix, "[ext.vectors.enabled" + suffix}},
		{"watcher ilm", []string{"ext.watcher.use_ilm_index_management=false"}, "", nil},
		{"bad boolean", []string{"node.local_storage=maybe"}, "invalid value [maybe] for setting [node.local_storage] (from -E): must be true or false", nil},
		{"bad role", []string{"node.roles=data,chef"}, "invalid value [data,chef] for setting [node.roles] (from -E): unknown role [chef]", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := loadSettings("", tc.overrides, nil)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("loadSettings error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Deprecations(); !reflect.DeepEqual(got, tc.warnings) {
				t.Errorf("Deprecations() = %q, want %q", got, tc.warnings)
			}
		})
	}

	s, err := loadSettings("", []string{"node.attr.rack=r1", "node.attr.zone=z", "node.roles=master, data", "node.processors=1", "http.port=9201"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	nc := nodeConfig(s)
	if got, want := nc.Attributes, map[string]string{"rack": "r1", "zone": "z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("attributes = %v, want %v", got, want)
	}
	if got, want := nc.Roles, []string{"master", "data"}; !reflect.DeepEqual(got, want) {
		t.Errorf("roles = %v, want %v", got, want)
	}
	static := map[string]bool{}
	for _, k := range nc.StaticSettings {
		static[k] = true
	}
	for _, k := range []string{"node.local_storage", "ext.sql.enabled", "ext.watcher.use_ilm_index_management", "path.data", "cluster.name"} {
		if !static[k] {
			t.Errorf("StaticSettings lacks %s (set or not, it is a known node setting)", k)
		}
	}
	if nc.Processors != 1 || nc.HTTPAddress != "127.0.0.1:9201" || nc.Settings["node.attr.rack"] != "r1" {
		t.Errorf("node config = %+v", nc)
	}
}
