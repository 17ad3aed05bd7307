package handlers_test

import (
	"testing"
)

// TestDocumentAndFieldLevelSecurity: a role's query hides documents and
// its field_security hides fields, in search, count, msearch and get.
func TestDocumentAndFieldLevelSecurity(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	docs := []struct{ id, body string }{
		{"1", `{"team":"red","title":"alpha","salary":100,"owner":{"name":"ann","ssn":"1"}}`},
		{"2", `{"team":"blue","title":"beta","salary":200,"owner":{"name":"bob","ssn":"2"}}`},
		{"3", `{"team":"red","title":"gamma","salary":300,"owner":{"name":"cid","ssn":"3"}}`},
	}
	for _, d := range docs {
		n.mustDo("PUT", "/staff/_doc/"+d.id+"?refresh=true", elasticAuth, d.body, 201)
	}
	n.mustDo("PUT", "/open/_doc/1?refresh=true", elasticAuth, `{"team":"blue","salary":5}`, 201)
	n.mustDo("PUT", "/_security/role/red_team", elasticAuth, `{"indices":[
		{"names":["staff"],"privileges":["read"],"query":{"term":{"team":"red"}},"field_security":{"grant":["team","title","owner.*"],"except":["owner.ssn"]}},
		{"names":["open"],"privileges":["read"]}]}`, 200)
	n.mustDo("PUT", "/_security/user/red", elasticAuth, `{"password":"red-pass","roles":["red_team"]}`, 200)
	red := basic("red", "red-pass")

	out := n.mustDo("POST", "/staff/_search", red, `{"query":{"match_all":{}},"sort":[{"title.keyword":"asc"}]}`, 200)
	if got := str(jsonPath(out, "hits.total.value")); got != "2" {
		t.Errorf("search total = %s", got)
	}
	want := `[{"owner":{"name":"ann"},"team":"red","title":"alpha"},{"owner":{"name":"cid"},"team":"red","title":"gamma"}]`
	srcs := []any{jsonPath(out, "hits.hits.0._source"), jsonPath(out, "hits.hits.1._source")}
	if got := str(srcs); got != want {
		t.Errorf("sources = %s\nwant %s", got, want)
	}
	out = n.mustDo("GET", "/staff,open/_count", red, "", 200)
	if got := str(out["count"]); got != "3" {
		t.Errorf("count over staff,open = %s (2 visible staff + 1 open)", got)
	}
	out = n.mustDo("GET", "/staff/_doc/3", red, "", 200)
	if got := str(out["_source"]); got != `{"owner":{"name":"cid"},"team":"red","title":"gamma"}` {
		t.Errorf("get source = %s", got)
	}
	out = n.mustDo("GET", "/staff/_doc/2", red, "", 404)
	if str(out) != `{"_id":"2","_index":"staff","_type":"_doc","found":false}` {
		t.Errorf("hidden doc = %s", str(out))
	}
	out = n.mustDo("GET", "/staff/_source/1", red, "", 200)
	if str(out) != `{"owner":{"name":"ann"},"team":"red","title":"alpha"}` {
		t.Errorf("_source = %s", str(out))
	}
	n.mustDo("GET", "/staff/_source/2", red, "", 404)
	code, _, _ := n.rawAuth("POST", "/_msearch", red, "application/x-ndjson", "{\"index\":\"staff\"}\n{\"query\":{\"match\":{\"title\":\"beta\"}}}\n{\"index\":\"open\"}\n{}\n")
	if code != 200 {
		t.Fatalf("msearch = %d", code)
	}
	_, b, _ := n.rawAuth("POST", "/_msearch", red, "application/x-ndjson", "{\"index\":\"staff\"}\n{\"query\":{\"match\":{\"title\":\"beta\"}}}\n{\"index\":\"open\"}\n{}\n")
	if got := rawMember(b, "responses"); got == "" {
		t.Fatalf("msearch body %s", b)
	}
	var ms map[string]any
	if err := jsonUnmarshalNumber(b, &ms); err != nil {
		t.Fatal(err)
	}
	if a, b := str(jsonPath(ms, "responses.0.hits.total.value")), str(jsonPath(ms, "responses.1.hits.total.value")); a != "0" || b != "1" {
		t.Errorf("msearch totals = %s, %s (beta is hidden; open is unrestricted)", a, b)
	}
	// The superuser sees everything.
	out = n.mustDo("GET", "/staff/_doc/2", elasticAuth, "", 200)
	if jsonPath(out, "_source.owner.ssn") != "2" {
		t.Errorf("superuser source = %v", out["_source"])
	}
	// Hidden fields are unmapped for queries, sorts and aggregations:
	// salary and owner.ssn cannot be probed.
	for _, q := range []struct{ body, want string }{
		{`{"query":{"range":{"salary":{"gte":0}}}}`, `0`},
		{`{"query":{"term":{"owner.ssn":"1"}}}`, `0`},
		{`{"query":{"exists":{"field":"salary"}}}`, `0`},
		{`{"query":{"query_string":{"query":"salary:100"}}}`, `0`},
		{`{"query":{"term":{"owner.name":"ann"}}}`, `1`},
	} {
		out = n.mustDo("POST", "/staff/_search", red, q.body, 200)
		if got := str(jsonPath(out, "hits.total.value")); got != q.want {
			t.Errorf("%s as red: total %s, want %s", q.body, got, q.want)
		}
	}
	out = n.mustDo("POST", "/staff/_search", red, `{"size":0,"aggs":{"s":{"sum":{"field":"salary"}},"t":{"terms":{"field":"team.keyword"}}}}`, 200)
	if got := str(jsonPath(out, "aggregations")); got != `{"s":{"value":0.0},"t":{"buckets":[{"doc_count":2,"key":"red"}],"doc_count_error_upper_bound":0,"sum_other_doc_count":0}}` {
		t.Errorf("aggregations as red = %s", got)
	}
	out = n.mustDo("POST", "/staff/_search", elasticAuth, `{"query":{"range":{"salary":{"gte":0}}}}`, 200)
	if got := str(jsonPath(out, "hits.total.value")); got != "3" {
		t.Errorf("superuser range on salary = %s, want 3", got)
	}
	// Search templates are restricted like _search once rendered.
	out = n.mustDo("POST", "/staff/_search/template", red, `{"source":{"query":{"match_all":{}},"sort":[{"title.keyword":"{{order}}"}]},"params":{"order":"asc"}}`, 200)
	srcs = []any{jsonPath(out, "hits.total.value"), jsonPath(out, "hits.hits.0._source"), jsonPath(out, "hits.hits.1._source")}
	if got := str(srcs); got != `[2,{"owner":{"name":"ann"},"team":"red","title":"alpha"},{"owner":{"name":"cid"},"team":"red","title":"gamma"}]` {
		t.Errorf("template = %s", got)
	}
}
