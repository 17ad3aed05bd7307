package handlers_test

import (
	"sort"
	"strings"
	"testing"
)

// TestSearchWithoutIndexNarrowsToAuthorized: /_search, /_count and
// /_search/template name no index, so they run over the indices the user
// may read (like _all), with document-level security still applied; a
// user who may read nothing gets the unauthorized error.
func TestSearchWithoutIndexNarrowsToAuthorized(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	for _, d := range []struct{ path, body string }{
		{"/logs-a/_doc/1?refresh=true", `{"msg":"one","level":"info"}`},
		{"/logs-a/_doc/2?refresh=true", `{"msg":"two","level":"debug"}`},
		{"/logs-b/_doc/1?refresh=true", `{"msg":"three","level":"info"}`},
		{"/secret/_doc/1?refresh=true", `{"msg":"hidden","level":"info"}`},
	} {
		n.mustDo("PUT", d.path, elasticAuth, d.body, 201)
	}
	n.mustDo("PUT", "/_security/role/logs_info", elasticAuth, `{"indices":[{"names":["logs-*"],"privileges":["read"],"query":{"term":{"level.keyword":"info"}}}]}`, 200)
	n.mustDo("PUT", "/_security/user/reader", elasticAuth, `{"password":"reader-pass","roles":["logs_info"]}`, 200)
	n.mustDo("PUT", "/_security/role/nothing", elasticAuth, `{"cluster":["monitor"]}`, 200)
	n.mustDo("PUT", "/_security/user/nobody", elasticAuth, `{"password":"nobody-pass","roles":["nothing"]}`, 200)
	n.mustDo("PUT", "/_security/role/logs_read", elasticAuth, `{"indices":[{"names":["logs-*"],"privileges":["read"]}]}`, 200)
	n.mustDo("PUT", "/_security/user/plain", elasticAuth, `{"password":"plain-pass","roles":["logs_read"]}`, 200)
	reader := basic("reader", "reader-pass")

	out := n.mustDo("POST", "/_search", reader, `{"sort":[{"msg.keyword":"asc"}]}`, 200)
	if got := str([]any{jsonPath(out, "hits.total.value"), jsonPath(out, "hits.hits.0._index"), jsonPath(out, "hits.hits.1._index")}); got != `[2,"logs-a","logs-b"]` {
		t.Errorf("/_search as reader = %s, want the two info logs", got)
	}
	out = n.mustDo("GET", "/_count", reader, "", 200)
	if got := str(out["count"]); got != "2" {
		t.Errorf("/_count as reader = %s, want 2", got)
	}
	// Search templates: rendered, then restricted like _search (the
	// reader's role only shows info logs; the plain reader sees all logs).
	tmpl := `{"source":{"query":{"match":{"msg":"{{w}}"}}},"params":{"w":"hidden two three"}}`
	for _, c := range []struct{ user, want string }{
		{reader, `[1,["logs-b"]]`},
		{basic("plain", "plain-pass"), `[2,["logs-a","logs-b"]]`},
	} {
		out = n.mustDo("POST", "/_search/template", c.user, tmpl, 200)
		var idx []string
		for _, h := range jsonPath(out, "hits.hits").([]any) {
			idx = append(idx, h.(map[string]any)["_index"].(string))
		}
		sort.Strings(idx)
		if got := str([]any{jsonPath(out, "hits.total.value"), idx}); got != c.want {
			t.Errorf("/_search/template = %s, want %s", got, c.want)
		}
	}
	// The same per search in _msearch/template.
	code, raw, _ := n.rawAuth("POST", "/_msearch/template", reader, "application/x-ndjson",
		"{\"index\":\"logs-*\"}\n"+tmpl+"\n{\"index\":\"logs-a\"}\n{\"source\":{\"query\":{\"match_all\":{}}}}\n")
	if got := rawMember(raw, "responses"); code != 200 || !strings.Contains(got, `"total":{"value":1,"relation":"eq"}`) || strings.Count(got, `"_index":"logs-a"`) != 1 || strings.Contains(got, `"debug"`) {
		t.Errorf("_msearch/template as reader = %d %s", code, got)
	}
	// A rendered search holding mustache delimiters is refused, not changed.
	out = n.mustDo("POST", "/_search/template", reader, `{"source":"{\"query\":{\"match\":{\"msg\":\"{{{w}}}\"}}}","params":{"w":"{{x}}"}}`, 400)
	if got := str(jsonPath(out, "error.type")); got != `"illegal_argument_exception"` {
		t.Errorf("template rendering mustache = %s", str(out))
	}
	// The superuser still searches everything.
	out = n.mustDo("GET", "/_count", elasticAuth, "", 200)
	if got := str(out["count"]); got != "4" {
		t.Errorf("/_count as elastic = %s, want 4", got)
	}
	out = n.mustDo("POST", "/_search", basic("nobody", "nobody-pass"), `{}`, 403)
	if got := str(jsonPath(out, "error.type")); got != `"security_exception"` {
		t.Errorf("/_search with no read privilege = %s", str(out))
	}
}
