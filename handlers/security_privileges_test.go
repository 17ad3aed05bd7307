package handlers_test

import (
	"context"
	"strings"
	"testing"
)

// TestPrivilegeTable runs operations as principals with different roles:
// each is either allowed (2xx) or refused with 403 security_exception.
func TestPrivilegeTable(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	n.mustDo("PUT", "/logs/_doc/1?refresh=true", elasticAuth, `{"m":"log"}`, 201)
	n.mustDo("PUT", "/other/_doc/1?refresh=true", elasticAuth, `{"m":"other"}`, 201)
	roles := map[string]string{
		"reader":   `{"indices":[{"names":["logs*"],"privileges":["read"]}]}`,
		"writer":   `{"indices":[{"names":["logs*"],"privileges":["write"]}]}`,
		"creator":  `{"indices":[{"names":["logs*"],"privileges":["create_index","create_doc"]}]}`,
		"monitor":  `{"cluster":["monitor"]}`,
		"secadmin": `{"cluster":["manage_security"]}`,
	}
	users := map[string]string{"superuser": elasticAuth}
	for name, body := range roles {
		n.mustDo("PUT", "/_security/role/"+name, elasticAuth, body, 200)
		n.mustDo("PUT", "/_security/user/u-"+name, elasticAuth, `{"password":"password-`+name+`","roles":["`+name+`"]}`, 200)
		users[name] = basic("u-"+name, "password-"+name)
	}
	n.mustDo("PUT", "/_security/user/u-viewer", elasticAuth, `{"password":"password-viewer","roles":["viewer"]}`, 200)
	users["viewer"] = basic("u-viewer", "password-viewer")

	ops := []struct {
		method, path, body string
		allowed            []string
	}{
		{"GET", "/_cluster/health", "", []string{"monitor", "superuser"}},
		{"GET", "/logs/_search", "", []string{"reader", "viewer", "superuser"}},
		{"PUT", "/logs/_doc/1", `{"m":1}`, []string{"writer", "superuser"}},
		{"PUT", "/logs/_create/c-{role}", `{"m":1}`, []string{"writer", "creator", "superuser"}},
		{"PUT", "/logs-new-{role}/_doc/1", `{"m":1}`, []string{"superuser"}},
		{"PUT", "/logs-auto-{role}/_create/1", `{"m":1}`, []string{"creator", "superuser"}},
		{"PUT", "/logs-idx-{role}", "", []string{"creator", "superuser"}},
		{"GET", "/_security/user", "", []string{"secadmin", "superuser"}},
		{"PUT", "/_cluster/settings", `{"persistent":{"search.max_open_scroll_context":500}}`, []string{"superuser"}},
		{"GET", "/_license", "", []string{"monitor", "superuser"}},
		{"GET", "/logs/_mapping", "", []string{"viewer", "superuser"}},
		{"POST", "/_msearch", "{\"index\":\"logs\"}\n{}\n", []string{"reader", "viewer", "superuser"}},
		{"POST", "/_msearch", "{\"index\":\"logs\"}\n{}\n{\"index\":\"other\"}\n{}\n", []string{"viewer", "superuser"}},
		{"GET", "/_search", "", []string{"reader", "viewer", "superuser"}},
		{"GET", "/_security/_authenticate", "", []string{"reader", "writer", "creator", "monitor", "secadmin", "viewer", "superuser"}},
		{"DELETE", "/other", "", []string{"superuser"}},
	}
	order := []string{"reader", "writer", "creator", "monitor", "secadmin", "viewer", "superuser"}
	for _, op := range ops {
		allowed := map[string]bool{}
		for _, r := range op.allowed {
			allowed[r] = true
		}
		for _, role := range order {
			path := strings.ReplaceAll(op.path, "{role}", role)
			ct := ""
			if op.body != "" {
				ct = "application/json"
				if strings.Contains(path, "_bulk") || strings.Contains(path, "_msearch") {
					ct = "application/x-ndjson"
				}
			}
			code, body, _ := n.rawAuth(op.method, path, users[role], ct, op.body)
			switch {
			case allowed[role] && (code < 200 || code > 299):
				t.Errorf("%s %s as %s = %d, want 2xx: %s", op.method, path, role, code, body)
			case !allowed[role] && code != 403:
				t.Errorf("%s %s as %s = %d, want 403: %s", op.method, path, role, code, body)
			case !allowed[role] && !strings.Contains(string(body), `"type":"security_exception"`):
				t.Errorf("%s %s as %s: 403 body %s", op.method, path, role, body)
			}
		}
	}
}

// TestBulkItemAuthorization: only the bulk items the principal may not
// run fail (403 in the item); the others run.
func TestBulkItemAuthorization(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	n.mustDo("PUT", "/logs/_doc/0?refresh=true", elasticAuth, `{"m":0}`, 201)
	n.mustDo("PUT", "/other/_doc/9?refresh=true", elasticAuth, `{"m":9}`, 201)
	n.mustDo("PUT", "/_security/role/w", elasticAuth, `{"indices":[{"names":["logs*"],"privileges":["write"]}]}`, 200)
	n.mustDo("PUT", "/_security/user/w", elasticAuth, `{"password":"writer-pw","roles":["w"]}`, 200)
	body := "{\"index\":{\"_index\":\"logs\",\"_id\":\"1\"}}\n{\"m\":1}\n" +
		"{\"delete\":{\"_index\":\"other\",\"_id\":\"9\"}}\n" +
		"{\"create\":{\"_index\":\"logs-new\",\"_id\":\"2\"}}\n{\"m\":2}\n"
	code, b, _ := n.rawAuth("POST", "/_bulk", basic("w", "writer-pw"), "application/x-ndjson", body)
	if code != 200 {
		t.Fatalf("bulk = %d %s", code, b)
	}
	var out map[string]any
	if err := jsonUnmarshalNumber(b, &out); err != nil {
		t.Fatal(err)
	}
	if out["errors"] != true || str(jsonPath(out, "items.0.index.status")) != "201" {
		t.Errorf("bulk = %s", b)
	}
	if got := jsonPath(out, "items.1.delete.error.reason"); got != "action [indices:data/write/delete] is unauthorized for user [w] with roles [w] on indices [other], this action is granted by the index privileges [delete,write,all]" || str(jsonPath(out, "items.1.delete.status")) != "403" {
		t.Errorf("delete item = %v", jsonPath(out, "items.1"))
	}
	if got := jsonPath(out, "items.2.create.error.reason"); got != "action [indices:admin/auto_create] is unauthorized for user [w] with roles [w] on indices [logs-new], this action is granted by the index privileges [create_index,auto_configure,manage,all]" {
		t.Errorf("auto-create item = %v", jsonPath(out, "items.2"))
	}
	n.mustDo("GET", "/other/_doc/9", elasticAuth, "", 200)
}

func TestAutoCreateNeedsCreateIndex(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	n.mustDo("PUT", "/_security/role/w", elasticAuth, `{"indices":[{"names":["logs*"],"privileges":["write"]}]}`, 200)
	n.mustDo("PUT", "/_security/user/w", elasticAuth, `{"password":"writer-pw","roles":["w"]}`, 200)
	out := n.mustDo("PUT", "/logs-x/_doc/1", basic("w", "writer-pw"), `{"a":1}`, 403)
	want := "action [indices:admin/auto_create] is unauthorized for user [w] with roles [w] on indices [logs-x], this action is granted by the index privileges [create_index,auto_configure,manage,all]"
	if got := jsonPath(out, "error.reason"); got != want {
		t.Errorf("reason = %q\nwant %q", got, want)
	}
}

func TestHasPrivileges(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	n.mustDo("PUT", "/_security/role/r", elasticAuth, `{"cluster":["monitor"],"indices":[{"names":["logs-*"],"privileges":["read","view_index_metadata"]}],"applications":[{"application":"app","privileges":["read"],"resources":["*"]}]}`, 200)
	n.mustDo("PUT", "/_security/user/hp", elasticAuth, `{"password":"hp-pass","roles":["r"]}`, 200)
	out := n.mustDo("POST", "/_security/user/_has_privileges", basic("hp", "hp-pass"),
		`{"cluster":["monitor","manage","cluster:monitor/health"],"index":[{"names":["logs-1","other"],"privileges":["read","write"]}],"application":[{"application":"app","privileges":["read","write"],"resources":["r1"]}]}`, 200)
	want := `{"application":{"app":{"r1":{"read":true,"write":false}}},"cluster":{"cluster:monitor/health":true,"manage":false,"monitor":true},"has_all_requested":false,"index":{"logs-1":{"read":true,"write":false},"other":{"read":false,"write":false}},"username":"hp"}`
	if got := str(out); got != want {
		t.Errorf("has_privileges = %s\nwant %s", got, want)
	}
	out = n.mustDo("POST", "/_security/user/_has_privileges", elasticAuth, `{"cluster":["all"],"index":[{"names":["x"],"privileges":["all"]}]}`, 200)
	if out["has_all_requested"] != true {
		t.Errorf("superuser has_privileges = %v", out)
	}
}

func TestUsersAPI(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	cases := []struct {
		method, path, body string
		status             int
		typ, reason        string
	}{
		{"PUT", "/_security/user/elastic", `{"password":"whatever","roles":[]}`, 400, "action_request_validation_exception", "Validation Failed: 1: Username [elastic] is reserved and may not be used.;"},
		{"PUT", "/_security/user/dan", `{"roles":[]}`, 400, "action_request_validation_exception", "Validation Failed: 1: password must be specified unless you are updating an existing user;"},
		{"PUT", "/_security/user/dan", `{"password":"abc","roles":[]}`, 400, "action_request_validation_exception", "Validation Failed: 1: passwords must be at least [6] characters long;"},
		{"PUT", "/_security/user/dan", `{"password":"abcdef","nick":"d"}`, 400, "parse_exception", "failed to parse add user request. unexpected field [nick]"},
		{"DELETE", "/_security/user/elastic", "", 400, "illegal_argument_exception", "user [elastic] is reserved and cannot be deleted"},
		{"PUT", "/_security/role/superuser", `{}`, 400, "illegal_argument_exception", "role [superuser] is reserved and cannot be modified."},
		{"PUT", "/_security/role/%20lead", `{}`, 400, "action_request_validation_exception", "Validation Failed: 1: Role names must be at least 1 and no more than 507 characters. They can contain alphanumeric characters (a-z, A-Z, 0-9), spaces, punctuation, and printable symbols in the Basic Latin (ASCII) block. Leading or trailing whitespace is not allowed.;"},
		{"PUT", "/_security/user/elastic/_disable", "", 400, "illegal_argument_exception", "users may not update the enabled status of their own account"},
		{"PUT", "/_security/user/ghost/_password", `{"password":"abcdefg"}`, 404, "resource_not_found_exception", "user [ghost] does not exist"},
	}
	for _, tc := range cases {
		code, out, _ := n.doAuth(tc.method, tc.path, elasticAuth, tc.body)
		if code != tc.status || jsonPath(out, "error.type") != tc.typ || jsonPath(out, "error.reason") != tc.reason {
			t.Errorf("%s %s = %d %v\nwant %d %s %s", tc.method, tc.path, code, out, tc.status, tc.typ, tc.reason)
		}
	}
	// Empty role body, _ext paths, get, delete.
	n.mustDo("PUT", "/_security/role/empty", elasticAuth, "", 200)
	out := n.mustDo("POST", "/_ext/security/role/ext_role", elasticAuth, `{"cluster":["monitor"],"indices":[{"names":"logs","privileges":["read","read_cross_cluster"]}]}`, 200)
	if str(out) != `{"role":{"created":true}}` {
		t.Errorf("ext role = %s", str(out))
	}
	out = n.mustDo("GET", "/_security/role/ext_role,empty", elasticAuth, "", 200)
	want := `{"empty":{"applications":[],"cluster":[],"indices":[],"metadata":{},"run_as":[],"transient_metadata":{"enabled":true}},"ext_role":{"applications":[],"cluster":["monitor"],"indices":[{"allow_restricted_indices":false,"names":["logs"],"privileges":["read","read_cross_cluster"]}],"metadata":{},"run_as":[],"transient_metadata":{"enabled":true}}}`
	if str(out) != want {
		t.Errorf("get roles = %s", str(out))
	}
	out = n.mustDo("POST", "/_ext/security/user/erin", elasticAuth, `{"password":"erin-pw","roles":["ext_role"],"email":"erin@example.org","enabled":true}`, 200)
	if str(out) != `{"created":true}` {
		t.Errorf("ext user = %s", str(out))
	}
	out = n.mustDo("GET", "/_security/user/erin", elasticAuth, "", 200)
	if str(out) != `{"erin":{"email":"erin@example.org","enabled":true,"full_name":null,"metadata":{},"roles":["ext_role"],"username":"erin"}}` {
		t.Errorf("get user = %s", str(out))
	}
	n.mustDo("GET", "/_security/user/nobody", elasticAuth, "", 404)
	n.mustDo("GET", "/_security/role/nobody", elasticAuth, "", 404)
	// Password change (own), disable, enable.
	n.mustDo("PUT", "/_security/user/erin/_password", basic("erin", "erin-pw"), `{"password":"erin-pw2"}`, 200)
	n.mustDo("GET", "/_security/_authenticate", basic("erin", "erin-pw"), "", 401)
	n.mustDo("GET", "/_security/_authenticate", basic("erin", "erin-pw2"), "", 200)
	n.mustDo("PUT", "/_security/user/elastic/_password", basic("erin", "erin-pw2"), `{"password":"hijack-pw"}`, 403)
	n.mustDo("PUT", "/_security/user/erin/_disable", elasticAuth, "", 200)
	n.mustDo("GET", "/_security/_authenticate", basic("erin", "erin-pw2"), "", 401)
	n.mustDo("POST", "/_security/user/erin/_enable", elasticAuth, "", 200)
	n.mustDo("GET", "/_security/_authenticate", basic("erin", "erin-pw2"), "", 200)
	out = n.mustDo("DELETE", "/_security/user/erin", elasticAuth, "", 200)
	if str(out) != `{"found":true}` {
		t.Errorf("delete = %s", str(out))
	}
	n.mustDo("DELETE", "/_security/user/erin", elasticAuth, "", 404)
	n.mustDo("DELETE", "/_security/role/empty", elasticAuth, "", 200)
	n.mustDo("DELETE", "/_security/role/empty", elasticAuth, "", 404)
	// Reserved users are listed.
	out = n.mustDo("GET", "/_security/user", elasticAuth, "", 200)
	for _, u := range []string{"elastic", "dashboard", "dashboard_system", "logstash_system", "beats_system", "remote_monitoring_user"} {
		if out[u] == nil {
			t.Errorf("reserved user %s missing from %v", u, out)
		}
	}
}

func TestDeprecatedDashboardUserAndRole(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	n.mustDo("PUT", "/_security/user/dashboard/_password", elasticAuth, `{"password":"dash-old"}`, 200)
	code, _, h := n.doAuth("GET", "/_security/_authenticate", basic("dashboard", "dash-old"), "")
	if code != 200 || !strings.Contains(h.Get("Warning"), "The user [dashboard] is deprecated and will be removed in a future version of Elasticsearch. Please use the [dashboard_system] user instead.") {
		t.Errorf("dashboard = %d, Warning %q", code, h.Get("Warning"))
	}
	// dashboard_system does not keep the old user's password.
	n.mustDo("GET", "/_security/_authenticate", basic("dashboard_system", "dash-old"), "", 401)
	n.mustDo("PUT", "/_security/user/dashboard_system/_password", elasticAuth, `{"password":"dash-new"}`, 200)
	n.mustDo("GET", "/_security/_authenticate", basic("dashboard_system", "dash-new"), "", 200)
	_, _, h = n.doAuth("PUT", "/_security/user/old", elasticAuth, `{"password":"old-ui","roles":["dashboard_user"]}`)
	if !strings.Contains(h.Get("Warning"), "The role [dashboard_user] is deprecated and will be removed in a future version of Elasticsearch. Please use the [dashboard_admin] role instead.") {
		t.Errorf("dashboard_user Warning = %q", h.Get("Warning"))
	}
	out := n.mustDo("GET", "/_security/role/dashboard_user,dashboard_admin", elasticAuth, "", 200)
	if str(jsonPath(out, "dashboard_user.applications")) != str(jsonPath(out, "dashboard_admin.applications")) || jsonPath(out, "dashboard_user.metadata._deprecated") != true {
		t.Errorf("dashboard roles = %s", str(out))
	}
}

func TestLicenseAndExt(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	out := n.mustDo("GET", "/_license", elasticAuth, "", 200)
	if jsonPath(out, "license.type") != "platinum" || str(jsonPath(out, "license.max_nodes")) != "1000" || jsonPath(out, "license.status") != "active" {
		t.Errorf("license = %s", str(out))
	}
	out = n.mustDo("GET", "/_license?accept_enterprise=true", elasticAuth, "", 200)
	if jsonPath(out, "license.type") != "enterprise" || jsonPath(out, "license.max_nodes") != nil || str(jsonPath(out, "license.max_resource_units")) != "1000" {
		t.Errorf("license accept_enterprise = %s", str(out))
	}
	out = n.mustDo("GET", "/_ext/", elasticAuth, "", 200)
	if jsonPath(out, "license.type") != "enterprise" || jsonPath(out, "license.mode") != "enterprise" || jsonPath(out, "features.security.enabled") != true || jsonPath(out, "build.hash") == nil {
		t.Errorf("_ext = %s", str(out))
	}
	out = n.mustDo("GET", "/_ext?categories=license", elasticAuth, "", 200)
	if out["build"] != nil || out["features"] != nil || out["license"] == nil {
		t.Errorf("_ext categories=license = %s", str(out))
	}
	out = n.mustDo("GET", "/_ext?categories=bogus", elasticAuth, "", 400)
	if jsonPath(out, "error.reason") != "unknown category [bogus]. valid categories are [build, license, features]" {
		t.Errorf("bad category = %v", out)
	}
}

// TestScrollsBelongToTheirOwner: another principal's scroll id reads as
// missing; clearing every scroll needs a cluster privilege.
func TestScrollsBelongToTheirOwner(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	for _, id := range []string{"1", "2", "3"} {
		n.mustDo("PUT", "/logs/_doc/"+id+"?refresh=true", elasticAuth, `{"m":1}`, 201)
	}
	n.mustDo("PUT", "/_security/role/r", elasticAuth, `{"indices":[{"names":["logs"],"privileges":["read"]}]}`, 200)
	for _, u := range []string{"amy", "ben"} {
		n.mustDo("PUT", "/_security/user/"+u, elasticAuth, `{"password":"`+u+`-pass","roles":["r"]}`, 200)
	}
	amy, ben := basic("amy", "amy-pass"), basic("ben", "ben-pass")
	out := n.mustDo("POST", "/logs/_search?scroll=1m&size=1", amy, "", 200)
	id := out["_scroll_id"].(string)
	out = n.mustDo("POST", "/_search/scroll", ben, `{"scroll":"1m","scroll_id":"`+id+`"}`, 404)
	if jsonPath(out, "error.type") != "search_context_missing_exception" || jsonPath(out, "error.reason") != "No search context found for id ["+id+"]" {
		t.Errorf("foreign scroll = %v", out)
	}
	n.mustDo("DELETE", "/_search/scroll/"+id, ben, "", 404)
	out = n.mustDo("POST", "/_search/scroll", amy, `{"scroll":"1m","scroll_id":"`+id+`"}`, 200)
	if len(jsonPath(out, "hits.hits").([]any)) != 1 {
		t.Errorf("own scroll page = %v", out)
	}
	out = n.mustDo("DELETE", "/_search/scroll/_all", ben, "", 403)
	if jsonPath(out, "error.reason") != "action [cluster:admin/indices/scroll/clear_all] is unauthorized for user [ben] with roles [r], this action is granted by the cluster privileges [manage,all]" {
		t.Errorf("clear all = %v", out)
	}
	n.mustDo("DELETE", "/_search/scroll", amy, `{"scroll_id":"`+id+`"}`, 200)
}

// TestClusterAllIsNotIndexAll: cluster privilege all without index
// privileges reads nothing (wildcards expand to no index).
func TestClusterAllIsNotIndexAll(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	n.mustDo("PUT", "/secret/_doc/1?refresh=true", elasticAuth, `{"m":1}`, 201)
	n.mustDo("PUT", "/_security/role/ops", elasticAuth, `{"cluster":["all"]}`, 200)
	n.mustDo("PUT", "/_security/user/ops", elasticAuth, `{"password":"ops-pass","roles":["ops"]}`, 200)
	ops := basic("ops", "ops-pass")
	out := n.mustDo("GET", "/*/_search", ops, "", 200)
	if got := str(jsonPath(out, "hits.total.value")); got != "0" {
		t.Errorf("wildcard search total = %s, want 0", got)
	}
	n.mustDo("GET", "/_search", ops, "", 403)
	n.mustDo("GET", "/secret/_doc/1", ops, "", 403)
	n.mustDo("GET", "/_cluster/health", ops, "", 200)
	if ok, err := n.Security.AuthenticateSuperuser(context.Background(), ops, ""); !ok || err != nil {
		t.Errorf("cluster all is a superuser for App Search: %v %v", ok, err)
	}
}
