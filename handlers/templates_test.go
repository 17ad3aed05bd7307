package handlers_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/quarry-search/quarry/clients/clusterclient"
)

// seedTemplates indexes documents for the template tests.
func seedTemplates(t *testing.T, n *testNode) {
	t.Helper()
	code, body := n.do("POST", "/_bulk?refresh=true", "application/x-ndjson", ndjson(
		`{"index":{"_index":"test","_id":"1"}}`, `{"text":"value1","tag":["a","b"],"n":1}`,
		`{"index":{"_index":"test","_id":"2"}}`, `{"text":"value2","tag":["b"],"n":2}`,
		`{"index":{"_index":"test","_id":"3"}}`, `{"text":"value3 with \"quotes\"","tag":["c"],"n":3}`,
	))
	if code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("seed bulk = %d %v", code, body)
	}
}

// wantStatus fails the test when a call did not answer with status.
func wantStatus(t *testing.T, what string, code, want int, body map[string]any) {
	t.Helper()
	if code != want {
		t.Fatalf("%s: status = %d, want %d: %v", what, code, want, body)
	}
}

func TestStoredScripts(t *testing.T) {
	dir := t.TempDir()
	n := openTestNode(t, dir)

	code, body := n.do("PUT", "/_scripts/tpl", "application/json", `{"script":{"lang":"mustache","source":{"query":{"match":{"text":"{{q}}"}}}}}`)
	wantStatus(t, "put object source", code, 200, body)
	if str(body) != `{"acknowledged":true}` {
		t.Errorf("put = %s", str(body))
	}
	code, body = n.do("POST", "/_scripts/str", "application/json", `{"script":{"lang":"mustache","source":"{\"size\":{{n}}}"}}`)
	wantStatus(t, "post string source", code, 200, body)
	code, body = n.do("PUT", "/_scripts/p/score", "application/json", `{"script":{"lang":"painless","source":"_score * 2"}}`)
	wantStatus(t, "put with context", code, 200, body)
	code, body = n.do("PUT", "/_scripts/p2?context=score", "application/json", `{"script":{"lang":"painless","source":"_score * 3"}}`)
	wantStatus(t, "put with context parameter", code, 200, body)

	code, body = n.do("GET", "/_scripts/tpl", "", "")
	wantStatus(t, "get", code, 200, body)
	want := `{"_id":"tpl","found":true,"script":{"lang":"mustache","options":{"content_type":"application/json; charset=UTF-8"},"source":"{\"query\":{\"match\":{\"text\":\"{{q}}\"}}}"}}`
	if got := str(body); got != want {
		t.Errorf("get = %s\nwant  %s", got, want)
	}
	code, body = n.do("GET", "/_scripts/p", "", "")
	if code != 200 || str(body["script"]) != `{"lang":"painless","source":"_score * 2"}` {
		t.Errorf("get painless = %d %s", code, str(body))
	}

	// The generated client reads the same document.
	res, err := n.Client.GetScriptWithResponse(context.Background(), "str", &clusterclient.GetScriptParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.JSON200 == nil || !res.JSON200.Found || res.JSON200.Script.Source != `{"size":{{n}}}` {
		t.Errorf("client get = %d %s", res.StatusCode(), res.Body)
	}

	// Scripts survive a restart.
	n.Close()
	n = openTestNode(t, dir)
	code, body = n.do("GET", "/_scripts/tpl", "", "")
	if code != 200 || str(body["found"]) != "true" {
		t.Fatalf("after restart = %d %v", code, body)
	}

	code, body = n.do("DELETE", "/_scripts/tpl", "", "")
	wantStatus(t, "delete", code, 200, body)
	code, body = n.do("GET", "/_scripts/tpl", "", "")
	if code != 404 || str(body) != `{"_id":"tpl","found":false}` {
		t.Errorf("get deleted = %d %s", code, str(body))
	}
	code, body = n.do("DELETE", "/_scripts/tpl", "", "")
	if code != 404 || jsonPath(body, "error.type") != "resource_not_found_exception" {
		t.Errorf("delete missing = %d %v", code, body)
	}
}

func TestStoredScriptErrors(t *testing.T) {
	n := newTestNode(t)
	tests := []struct {
		name, method, path, body string
		status                   int
		typ, reason              string
	}{
		{"painless compile error", "PUT", "/_scripts/1/score", `{"script":{"lang":"painless","source":"_score * foo bar + doc['w'].value"}}`, 400, "script_exception", "compile error"},
		{"no lang", "PUT", "/_scripts/1", `{"script":{"source":"x"}}`, 400, "illegal_argument_exception", "must specify lang for stored script"},
		{"no body", "PUT", "/_scripts/1", ``, 400, "parsing_exception", "request body is required"},
		{"body not JSON", "PUT", "/_scripts/1", `{"script":`, 400, "parsing_exception", "Failed to parse request body"},
		{"unknown context", "PUT", "/_scripts/1/nope", `{"script":{"lang":"painless","source":"1"}}`, 400, "illegal_argument_exception", "Unknown context [nope]"},
		{"bad mustache in template context", "PUT", "/_scripts/1/template", `{"script":{"lang":"mustache","source":"{{#a}}"}}`, 400, "script_exception", "Failed to close 'a' tag"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do(tc.method, tc.path, "application/json", tc.body)
			wantStatus(t, tc.name, code, tc.status, body)
			if got := jsonPath(body, "error.type"); got != tc.typ {
				t.Errorf("error.type = %v, want %s", got, tc.typ)
			}
			if reason, _ := jsonPath(body, "error.reason").(string); !strings.Contains(reason, tc.reason) {
				t.Errorf("error.reason = %q, want it to contain %q", reason, tc.reason)
			}
		})
	}
}

func TestEarlierRevisionTemplates(t *testing.T) {
	n := newTestNode(t)
	seedTemplates(t, n)
	code, body := n.do("POST", "/_search/template/by_text", "application/json", `{"template":{"query":{"match":{"text":"{{q}}"}}}}`)
	wantStatus(t, "store", code, 200, body)
	code, body = n.do("PUT", "/_search/template/sized", "application/json", `{"template":"{\"size\":{{n}}{{^n}}1{{/n}}}"}`)
	wantStatus(t, "store string", code, 200, body)

	code, body = n.do("GET", "/_search/template/by_text", "", "")
	wantStatus(t, "get", code, 200, body)
	if got, want := str(body), `{"_id":"by_text","found":true,"lang":"mustache","template":{"query":{"match":{"text":"{{q}}"}}}}`; got != want {
		t.Errorf("get = %s, want %s", got, want)
	}
	code, body = n.do("GET", "/_search/template/sized", "", "")
	if code != 200 || str(body["template"]) != `"{\"size\":{{n}}{{^n}}1{{/n}}}"` {
		t.Errorf("get string template = %d %s", code, str(body))
	}
	// The stored templates run with the current API and are visible there.
	code, body = n.do("POST", "/test/_search/template", "application/json", `{"id":"by_text","params":{"q":"value2"}}`)
	if code != 200 || str(jsonPath(body, "hits.total.value")) != "1" {
		t.Errorf("search with stored template = %d %v", code, body)
	}
	code, body = n.do("GET", "/_scripts/by_text", "", "")
	if code != 200 || str(jsonPath(body, "script.lang")) != `"mustache"` {
		t.Errorf("_scripts view = %d %v", code, body)
	}
	code, body = n.do("DELETE", "/_search/template/by_text", "", "")
	wantStatus(t, "delete", code, 200, body)
	code, body = n.do("GET", "/_search/template/by_text", "", "")
	if code != 404 || str(body["found"]) != "false" {
		t.Errorf("get deleted = %d %v", code, body)
	}
	code, body = n.do("DELETE", "/_search/template/by_text", "", "")
	if code != 404 {
		t.Errorf("delete missing = %d %v", code, body)
	}
	code, body = n.do("POST", "/_search/template/bad", "application/json", `{"template":"{{#a}}"}`)
	if code != 400 || jsonPath(body, "error.type") != "script_exception" {
		t.Errorf("store bad template = %d %v", code, body)
	}
}

func TestSearchTemplate(t *testing.T) {
	n := newTestNode(t)
	seedTemplates(t, n)
	n.do("PUT", "/_scripts/by_text", "application/json", `{"script":{"lang":"mustache","source":{"query":{"match":{"{{field}}":"{{value}}"}},"size":"{{size}}{{^size}}10{{/size}}"}}}`)
	n.do("PUT", "/_scripts/by_tags", "application/json", `{"script":{"lang":"mustache","source":"{\"query\":{\"terms\":{\"tag\":{{#toJson}}tags{{/toJson}}}},\"sort\":[\"n\"]}"}}`)

	tests := []struct {
		name, method, path, body string
		ids                      string
		total                    string
	}{
		{"inline object", "POST", "/test/_search/template", `{"source":{"query":{"term":{"text":{"value":"{{t}}"}}}},"params":{"t":"value1"}}`, "1", "1"},
		{"inline string with section", "POST", "/_search/template", `{"source":"{\"query\":{\"match_all\":{}}{{#sorted}},\"sort\":[{\"n\":\"desc\"}]{{/sorted}}}","params":{"sorted":true}}`, "3,2,1", "3"},
		{"inline alias", "GET", "/test/_search/template", `{"inline":{"query":{"match":{"text":"{{q}}"}}},"params":{"q":"value3"}}`, "3", "1"},
		{"escaping", "POST", "/test/_search/template", `{"source":{"query":{"match":{"text":{"query":"{{q}}","operator":"and"}}}},"params":{"q":"with \"quotes\""}}`, "3", "1"},
		{"stored with default size", "POST", "/test/_search/template", `{"id":"by_text","params":{"field":"text","value":"value2"}}`, "2", "1"},
		{"stored with size", "POST", "/test/_search/template?rest_total_hits_as_int=true", `{"id":"by_text","params":{"field":"tag","value":"b","size":1}}`, "", "2"},
		{"stored toJson", "POST", "/test/_search/template", `{"id":"by_tags","params":{"tags":["a","c"]}}`, "1,3", "2"},
		{"number param", "POST", "/test/_search/template", `{"source":"{\"query\":{\"range\":{\"n\":{\"gte\":{{min}}}}},\"sort\":[\"n\"]}","params":{"min":2}}`, "2,3", "2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do(tc.method, tc.path, "application/json", tc.body)
			wantStatus(t, tc.name, code, 200, body)
			if tc.ids != "" {
				ids := hitIDsOf(body)
				got := strings.Join(ids, ",")
				if !strings.Contains(tc.body, "sort") && !strings.Contains(tc.name, "stored toJson") {
					got = strings.Join(sortedCopy(ids), ",")
				}
				if got != tc.ids {
					t.Errorf("ids = %s, want %s", got, tc.ids)
				}
			}
			total := jsonPath(body, "hits.total.value")
			if strings.Contains(tc.path, "rest_total_hits_as_int") {
				total = jsonPath(body, "hits.total")
				if got := len(jsonPath(body, "hits.hits").([]any)); got != 1 {
					t.Errorf("size 1 returned %d hits", got)
				}
			}
			if str(total) != tc.total {
				t.Errorf("total = %s, want %s", str(total), tc.total)
			}
		})
	}

	t.Run("generated client", func(t *testing.T) {
		byText := "by_text"
		params := json.RawMessage(`{"field":"text","value":"value1"}`)
		res, err := n.Client.SearchTemplateIndexWithResponse(context.Background(), "test", &clusterclient.SearchTemplateIndexParams{},
			clusterclient.SearchTemplateRequest{Id: &byText, Params: &params})
		if err != nil {
			t.Fatal(err)
		}
		if res.JSON200 == nil || len(res.JSON200.Hits.Hits) != 1 || res.JSON200.Hits.Hits[0].ID != "1" {
			t.Errorf("client search template = %d %s", res.StatusCode(), res.Body)
		}
	})
}

func sortedCopy(in []string) []string {
	out := append([]string(nil), in...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestSearchTemplateErrors(t *testing.T) {
	n := newTestNode(t)
	seedTemplates(t, n)
	tests := []struct {
		name, path, body string
		status           int
		typ, reason      string
	}{
		{"missing template id", "/test/_search/template", `{"id":"nope","params":{}}`, 404, "resource_not_found_exception", "unable to find script [nope] in cluster state"},
		{"no template", "/test/_search/template", `{"params":{"a":1}}`, 400, "action_request_validation_exception", "template is missing"},
		{"empty source", "/test/_search/template", `{"source":""}`, 400, "action_request_validation_exception", "template is missing"},
		{"renders invalid JSON", "/test/_search/template", `{"source":"{\"query\":{\"match\":{\"text\":{{q}}}}}","params":{"q":"two words"}}`, 400, "json_parse_exception", "Unrecognized token 'two'"},
		{"renders cut JSON", "/test/_search/template", `{"source":"{\"query\":{\"match_all\":{"}`, 400, "json_e_o_f_exception", "Unexpected end-of-input"},
		{"unknown query before the cut", "/test/_search/template", `{"source":"{\"query\":{\"nope\":{}}"}`, 400, "parsing_exception", "unknown query [nope]"},
		{"improperly closed variable", "/test/_search/template", `{"source":{"query":{"match":{"text":"{{{q}}"}}}}`, 400, "script_exception", "Improperly closed variable: q in query-template"},
		{"unknown field", "/test/_search/template", `{"source":{},"from":1}`, 400, "x_content_parse_exception", "[search_template] unknown field [from]"},
		{"body not JSON", "/test/_search/template", `{"source":`, 400, "parsing_exception", "Failed to parse request body"},
		{"missing index", "/nope/_search/template", `{"source":{}}`, 404, "index_not_found_exception", "no such index [nope]"},
		{"inaccurate total", "/test/_search/template?rest_total_hits_as_int=true", `{"source":{"track_total_hits":"{{n}}"},"params":{"n":5}}`, 400, "illegal_argument_exception", "got 5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", tc.path, "application/json", tc.body)
			wantStatus(t, tc.name, code, tc.status, body)
			if got := jsonPath(body, "error.type"); got != tc.typ {
				t.Errorf("error.type = %v, want %s (%v)", got, tc.typ, body)
			}
			if reason, _ := jsonPath(body, "error.reason").(string); !strings.Contains(reason, tc.reason) {
				t.Errorf("error.reason = %q, want it to contain %q", reason, tc.reason)
			}
		})
	}
}

func TestRenderSearchTemplate(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/_scripts/1", "application/json", `{"script":{"lang":"mustache","source":"{\"query\":{\"match\":{\"text\":\"{{v}}\"}},\"size\":{{s}}}"}}`)
	tests := []struct {
		name, method, path, body, want string
	}{
		{"stored by body id", "POST", "/_render/template", `{"id":"1","params":{"v":"a\"b","s":20}}`, `{"template_output":{"query":{"match":{"text":"a\"b"}},"size":20}}`},
		{"stored by path id", "GET", "/_render/template/1", `{"params":{"v":"x","s":1000000}}`, `{"template_output":{"query":{"match":{"text":"x"}},"size":1000000}}`},
		{"inline object", "POST", "/_render/template", `{"source":{"aggs":{"t":{"terms":{"field":"{{f}}"}}}},"params":{"f":"tag"}}`, `{"template_output":{"aggs":{"t":{"terms":{"field":"tag"}}}}}`},
		{"inline with functions", "POST", "/_render/template", `{"source":"{\"terms\":{{#toJson}}l{{/toJson}},\"j\":\"{{#join delimiter=' | '}}l{{/join delimiter=' | '}}\",\"u\":\"{{#url}}{{q}}{{/url}}\"}","params":{"l":["a","b"],"q":"a b&c"}}`,
			`{"template_output":{"terms":["a","b"],"j":"a | b","u":"a+b%26c"}}`},
		{"unicode and big numbers", "POST", "/_render/template", `{"source":"{\"t\":\"{{t}}\",\"n\":{{n}}}","params":{"t":"日本\n","n":12345678901234567890}}`,
			`{"template_output":{"t":"日本\n","n":12345678901234567890}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, raw := n.raw(tc.method, tc.path, "application/json", tc.body)
			if code != 200 || string(raw) != tc.want {
				t.Errorf("render = %d %s\nwant %s", code, raw, tc.want)
			}
		})
	}
	errs := []struct {
		name, path, body string
		status           int
		typ              string
	}{
		{"missing id", "/_render/template/nope", `{}`, 404, "resource_not_found_exception"},
		{"improperly closed", "/_render/template", `{"source":"{\"a\":\"{{{v}}\"}"}`, 400, "script_exception"},
		{"invalid output", "/_render/template", `{"source":"{\"a\":{{v}}}","params":{"v":"x y"}}`, 400, "json_parse_exception"},
		{"no template", "/_render/template", `{}`, 400, "action_request_validation_exception"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", tc.path, "application/json", tc.body)
			if code != tc.status || jsonPath(body, "error.type") != tc.typ {
				t.Errorf("= %d %v, want %d %s", code, body, tc.status, tc.typ)
			}
		})
	}
}

func TestMsearchTemplate(t *testing.T) {
	n := newTestNode(t)
	seedMsearch(t, n)
	n.do("PUT", "/_scripts/st", "application/json", `{"script":{"lang":"mustache","source":{"query":{"match":{"{{field}}":"{{value}}"}}}}}`)

	code, body := n.do("POST", "/_msearch/template?rest_total_hits_as_int=true", "application/x-ndjson", ndjson(
		`{"index":"index_*"}`, `{"source":"{\"query\":{\"match\":{\"foo\":\"{{value}}\"}}}","params":{"value":"foo"}}`,
		`{"index":"index_*"}`, `{"source":"{\"query\":{\"match\":{","params":{}}`,
		`{"index":"_all"}`, `{"id":"st","params":{"field":"foo","value":"bar"}}`,
		`{"index":"_all"}`, `{"id":"missing"}`,
		`{"index":"index_*"}`, `{"source":"{\"query\":{\"{{t}}\":{}}}","params":{"t":"unknown"}}`,
		`{"index":"index_*"}`, `{"source":{"track_total_hits":"{{n}}"},"params":{"n":1}}`,
		`{"index":"nope"}`, `{"source":{"query":{"match_all":{}}}}`,
		`{}`, `{"source":{"size":0}}`,
	))
	wantStatus(t, "msearch template", code, 200, body)
	want := []struct{ status, total, typ string }{
		{"200", "2", ""},
		{"400", "", "json_e_o_f_exception"},
		{"200", "1", ""},
		{"404", "", "resource_not_found_exception"},
		{"400", "", "parsing_exception"},
		{"400", "", "illegal_argument_exception"},
		{"404", "", "index_not_found_exception"},
		{"200", "4", ""},
	}
	for i, w := range want {
		p := "responses." + strconv.Itoa(i)
		if got := str(jsonPath(body, p+".status")); got != w.status {
			t.Errorf("%s.status = %s, want %s (%v)", p, got, w.status, jsonPath(body, p))
		}
		if w.total != "" {
			if got := str(jsonPath(body, p+".hits.total")); got != w.total {
				t.Errorf("%s.hits.total = %s, want %s", p, got, w.total)
			}
		}
		if w.typ != "" {
			if got := jsonPath(body, p+".error.root_cause.0.type"); got != w.typ {
				t.Errorf("%s root cause = %v, want %s", p, got, w.typ)
			}
		}
	}

	t.Run("path index and generated client", func(t *testing.T) {
		res, err := n.Client.MsearchTemplateIndexWithBodyWithResponse(context.Background(), "index_2", &clusterclient.MsearchTemplateIndexParams{},
			"application/x-ndjson", strings.NewReader(ndjson(`{}`, `{"id":"st","params":{"field":"foo","value":"foo"}}`)))
		if err != nil {
			t.Fatal(err)
		}
		if res.JSON200 == nil || len(res.JSON200.Responses) != 1 || res.JSON200.Responses[0].Hits == nil || len(res.JSON200.Responses[0].Hits.Hits) != 1 {
			t.Fatalf("= %d %s", res.StatusCode(), res.Body)
		}
	})

	errs := []struct {
		name, query, body string
		typ, reason       string
	}{
		{"template missing", "", ndjson(`{}`, `{"source":"{}"}`, `{}`, `{"source":""}`), "action_request_validation_exception", "template is missing"},
		{"malformed", "", ndjson(`{}`, `{"params":{}}`), "illegal_argument_exception", "Malformed search template"},
		{"body not JSON", "", ndjson(`{}`, `{"source":`), "parsing_exception", "Failed to parse request body"},
		{"unknown header key", "", ndjson(`{"index":"a","size":1}`, `{"source":"{}"}`), "illegal_argument_exception", "key [size] is not supported in the metadata section"},
		{"missing final newline", "", "{}\n{\"source\":\"{}\"}", "illegal_argument_exception", "must be terminated by a newline"},
		{"max_concurrent_searches", "?max_concurrent_searches=0", ndjson(`{}`, `{"source":"{}"}`), "illegal_argument_exception", "maxConcurrentSearchRequests must be positive"},
		{"no searches", "", "\n", "action_request_validation_exception", "no requests added"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", "/_msearch/template"+tc.query, "application/x-ndjson", tc.body)
			wantStatus(t, tc.name, code, 400, body)
			if got := jsonPath(body, "error.type"); got != tc.typ {
				t.Errorf("error.type = %v, want %s", got, tc.typ)
			}
			if reason, _ := jsonPath(body, "error.reason").(string); !strings.Contains(reason, tc.reason) {
				t.Errorf("error.reason = %q, want it to contain %q", reason, tc.reason)
			}
		})
	}
}

// hitIDsOf lists the _id of each hit.
func hitIDsOf(body map[string]any) []string {
	var ids []string
	hits, _ := jsonPath(body, "hits.hits").([]any)
	for _, h := range hits {
		id, _ := jsonPath(h, "_id").(string)
		ids = append(ids, id)
	}
	return ids
}
