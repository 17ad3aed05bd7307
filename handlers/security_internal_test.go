package handlers

import (
	"strings"
	"testing"

	"github.com/quarry-search/quarry/gen/cluster"
)

// TestLoadPrivilegesRejectsGaps: a missing or inconsistent declaration
// stops the server from starting.
func TestLoadPrivilegesRejectsGaps(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(ext map[string]any) bool
		want   string
	}{
		{"missing", func(map[string]any) bool { return false }, "no x-quarry-privileges"},
		{"wrong privilege", func(ext map[string]any) bool {
			ext["cluster"] = []any{"monitor"}
			return true
		}, "cluster privilege [monitor] does not grant [cluster:admin/settings/update]"},
		{"unknown member", func(ext map[string]any) bool {
			ext["bogus"] = true
			return true
		}, `json: unknown field "bogus"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := cluster.GetSwagger()
			if err != nil {
				t.Fatal(err)
			}
			op := doc.Paths.Find("/_cluster/settings").Put
			ext := map[string]any{}
			for k, v := range op.Extensions["x-quarry-privileges"].(map[string]any) {
				ext[k] = v
			}
			if tc.mutate(ext) {
				op.Extensions["x-quarry-privileges"] = ext
			} else {
				delete(op.Extensions, "x-quarry-privileges")
			}
			_, err = loadPrivileges(doc)
			if err == nil || !strings.Contains(err.Error(), "PUT /_cluster/settings (ClusterPutSettings): "+tc.want) {
				t.Errorf("loadPrivileges = %v, want %q", err, tc.want)
			}
		})
	}
	doc, _ := cluster.GetSwagger()
	ops, err := loadPrivileges(doc)
	if err != nil {
		t.Fatal(err)
	}
	if p := ops["GET /:index/_search"]; p == nil || p.Action != "indices:data/read/search" || p.Indices != "search" {
		t.Errorf("search privileges = %+v", p)
	}
}
