package handlers

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	asgen "github.com/quarry-search/quarry/gen/appsearch"
	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore/appsearch"
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

// TestLoadAppSearchPrivileges: every App Search operation resolves to its
// key access and rate-limit class; a gap or an unknown access stops the
// server from starting.
func TestLoadAppSearchPrivileges(t *testing.T) {
	doc, err := asgen.GetSwagger()
	if err != nil {
		t.Fatal(err)
	}
	ops, err := loadAppSearchPrivileges(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 46 {
		t.Errorf("%d operations, want 46", len(ops))
	}
	cases := []struct {
		key    string
		public bool
		level  appsearch.Access
		class  string
	}{
		{"GET /api/as/v1/engines", false, appsearch.AccessRead, "engines"},
		{"POST /api/as/v1/engines", false, appsearch.AccessWrite, "engines"},
		{"POST /api/as/v1/engines/:engine_name/search", false, appsearch.AccessSearch, "search"},
		{"GET /api/as/v1/engines/:engine_name/multi_search", false, appsearch.AccessSearch, "multi_search"},
		{"POST /api/as/v1/engines/:engine_name/click", false, appsearch.AccessSearch, "click"},
		{"POST /api/as/v1/engines/:engine_name/documents/list", false, appsearch.AccessRead, "documents"},
		{"PATCH /api/as/v1/engines/:engine_name/documents", false, appsearch.AccessWrite, "documents"},
		{"POST /api/as/v1/engines/:engine_name/analytics/counts", false, appsearch.AccessRead, "analytics"},
		{"DELETE /api/as/v1/credentials/:key_name", false, appsearch.AccessAdmin, "credentials"},
		{"GET /api/as/v1/openapi.json", true, 0, "openapi"},
	}
	for _, tc := range cases {
		p := ops[tc.key]
		if p == nil || p.public != tc.public || (!tc.public && p.level != tc.level) || p.Class != tc.class {
			t.Errorf("%s = %+v, want public=%v level=%v class=%s", tc.key, p, tc.public, tc.level, tc.class)
		}
	}
	gaps := []struct {
		name string
		set  func(op *openapi3.Operation)
		want string
	}{
		{"missing", func(op *openapi3.Operation) { delete(op.Extensions, "x-quarry-privileges") }, "no x-quarry-privileges"},
		{"unknown access", func(op *openapi3.Operation) {
			op.Extensions["x-quarry-privileges"] = map[string]any{"access": "everyone", "class": "search"}
		}, "unknown access [everyone]: one of none, search, read, write, admin"},
		{"no class", func(op *openapi3.Operation) {
			op.Extensions["x-quarry-privileges"] = map[string]any{"access": "search"}
		}, "no rate-limit class"},
		{"unknown member", func(op *openapi3.Operation) {
			op.Extensions["x-quarry-privileges"] = map[string]any{"access": "search", "class": "search", "public": true}
		}, `json: unknown field "public"`},
	}
	for _, tc := range gaps {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := asgen.GetSwagger()
			if err != nil {
				t.Fatal(err)
			}
			tc.set(doc.Paths.Find("/engines/{engine_name}/search").Post)
			_, err = loadAppSearchPrivileges(doc)
			want := "app search spec privileges: POST /engines/{engine_name}/search (Search): " + tc.want
			if err == nil || err.Error() != want {
				t.Errorf("loadAppSearchPrivileges = %v\nwant %s", err, want)
			}
		})
	}
}
