package handlers_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestResponseShaping(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/shape/_doc/1?refresh=true", "application/json", `{"a":1,"b":{"c":2,"d":3}}`)
	tests := []struct {
		name, path, want string
	}{
		{"filter_path hits ids", "/shape/_search?filter_path=hits.hits._id", `{"hits":{"hits":[{"_id":"1"}]}}`},
		{"filter_path wildcard", "/shape/_search?filter_path=hits.hits._source.b.*", `{"hits":{"hits":[{"_source":{"b":{"c":2,"d":3}}}]}}`},
		{"filter_path double wildcard", "/shape/_search?filter_path=**.c", `{"hits":{"hits":[{"_source":{"b":{"c":2}}}]}}`},
		{"filter_path exclusion", "/shape/_doc/1?filter_path=-_source,-_seq_no,-_primary_term,-_version,-_type", `{"_index":"shape","_id":"1","found":true}`},
		{"filter_path several", "/shape/_count?filter_path=count,_shards.total", `{"count":1,"_shards":{"total":1}}`},
		{"filter_path nothing matches", "/shape/_count?filter_path=nope", `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.raw("GET", tc.path, "", "")
			if code != 200 || string(body) != tc.want {
				t.Errorf("GET %s = %d %s, want %s", tc.path, code, body, tc.want)
			}
		})
	}
	code, body := n.raw("GET", "/shape/_count?pretty", "", "")
	want := "{\n  \"count\": 1,\n  \"_shards\": {\n    \"total\": 1,\n    \"successful\": 1,\n    \"skipped\": 0,\n    \"failed\": 0\n  }\n}\n"
	if code != 200 || string(body) != want {
		t.Errorf("?pretty = %d %q, want %q", code, body, want)
	}
	// Errors are shaped too.
	code, body = n.raw("GET", "/missing/_count?filter_path=error.type", "", "")
	if code != 404 || string(body) != `{"error":{"type":"index_not_found_exception"}}` {
		t.Errorf("error with filter_path = %d %s", code, body)
	}
}

func TestContentTypesAndPaths(t *testing.T) {
	n := newTestNode(t)
	tests := []struct {
		name, method, path, ctype, body string
		status                          int
	}{
		{"compatible-with json", "PUT", "/ct/_doc/1?refresh=true", "application/vnd.elasticsearch+json; compatible-with=7", `{"a":1}`, 201},
		{"json with charset", "PUT", "/ct/_doc/2?refresh=true", "application/json; charset=UTF-8", `{"a":2}`, 201},
		{"bulk as json", "POST", "/_bulk?refresh=true", "application/json", "{\"index\":{\"_index\":\"ct\",\"_id\":\"3\"}}\n{\"a\":3}\n", 200},
		{"bulk compatible ndjson", "POST", "/ct/_bulk?refresh=true", "application/vnd.elasticsearch+x-ndjson; compatible-with=7", "{\"index\":{\"_id\":\"4\"}}\n{\"a\":4}\n", 200},
		{"no content type", "PUT", "/ct/_doc/5?refresh=true", "", `{"a":5}`, 201},
		{"trailing slash", "GET", "/ct/_count/", "", "", 200},
		{"source param body", "GET", `/ct/_count?source={"query":{"term":{"a":1}}}&source_content_type=application/json`, "", "", 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, n.URL+tc.path, strings.NewReader(tc.body))
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			res, err := n.HTTP.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.status {
				t.Errorf("%s %s = %d, want %d", tc.method, tc.path, res.StatusCode, tc.status)
			}
		})
	}
	if _, body := n.do("GET", "/ct/_count", "", ""); str(body["count"]) != "5" {
		t.Errorf("count = %v, want 5", body["count"])
	}
	if _, body := n.do("GET", `/ct/_count?source={"query":{"term":{"a":1}}}`, "", ""); str(body["count"]) != "1" {
		t.Errorf("count with source param = %v, want 1", body["count"])
	}
	// HEAD on indices.
	if code, _ := n.do("HEAD", "/ct", "", ""); code != 200 {
		t.Errorf("HEAD /ct = %d", code)
	}
	if code, _ := n.do("HEAD", "/nope", "", ""); code != 404 {
		t.Errorf("HEAD /nope = %d", code)
	}
	// The node serves its own spec.
	code, raw := n.raw("GET", "/_quarry/openapi/cluster.json", "", "")
	var spec map[string]any
	if code != 200 || json.Unmarshal(raw, &spec) != nil || spec["openapi"] != "3.0.3" {
		t.Errorf("spec endpoint = %d, openapi %v", code, spec["openapi"])
	}
	// Method not allowed on a known path.
	code, body := n.do("PUT", "/_cluster/health", "application/json", `{}`)
	if code != 405 || body["error"] != "Incorrect HTTP method for uri [/_cluster/health] and method [PUT], allowed: [GET]" {
		t.Errorf("PUT /_cluster/health = %d %v", code, body)
	}
	// PUT on /_count is create-index in Elasticsearch too, hence its error.
	code, body = n.do("PUT", "/_count", "application/json", `{}`)
	if code != 400 || jsonPath(body, "error.type") != "invalid_index_name_exception" {
		t.Errorf("PUT /_count = %d %v", code, body)
	}
}

func TestDynamicMappingExact(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/dyn/_doc/1", "application/json", `{"foo":"bar","n":1,"f":1.5,"b":true,"d":"2020-01-01","o":{"x":"y"}}`)
	code, raw := n.raw("GET", "/dyn/_mapping", "", "")
	want := `{"dyn":{"mappings":{"properties":{"b":{"type":"boolean"},"d":{"type":"date"},"f":{"type":"float"},"foo":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}},"n":{"type":"long"},"o":{"properties":{"x":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}}}}}}}}`
	if code != 200 || string(raw) != want {
		t.Errorf("GET _mapping = %d\n%s\nwant\n%s", code, raw, want)
	}
	// The keyword sub-field is searchable with term, the text field with match.
	n.do("POST", "/dyn/_refresh", "", "")
	for q, want := range map[string]string{
		`{"query":{"term":{"foo.keyword":"bar"}}}`:       "1",
		`{"query":{"match":{"o.x":"Y"}}}`:                "1",
		`{"query":{"range":{"d":{"gte":"2019-12-31"}}}}`: "1",
		`{"query":{"term":{"b":true}}}`:                  "1",
		`{"query":{"term":{"foo":"BAR"}}}`:               "0",
	} {
		if _, body := n.do("POST", "/dyn/_count", "application/json", q); str(body["count"]) != want {
			t.Errorf("count %s = %v, want %s", q, body["count"], want)
		}
	}
	// dynamic: strict rejects new fields, nothing written.
	n.do("PUT", "/strict", "application/json", `{"mappings":{"dynamic":"strict","properties":{"a":{"type":"keyword"}}}}`)
	code, body := n.do("PUT", "/strict/_doc/1", "application/json", `{"a":"x","b":1}`)
	if code != 400 || jsonPath(body, "error.type") != "strict_dynamic_mapping_exception" {
		t.Errorf("strict = %d %v", code, body)
	}
	if code, _ := n.do("GET", "/strict/_doc/1", "", ""); code != 404 {
		t.Errorf("strict doc written (GET = %d)", code)
	}
}

func TestCustomAnalyzerAndSettings(t *testing.T) {
	n := newTestNode(t)
	code, body := n.do("PUT", "/an", "application/json", `{
	  "settings":{"number_of_replicas":0,"refresh_interval":"30s","analysis":{"analyzer":{"folded":{"type":"custom","tokenizer":"standard","filter":["lowercase","asciifolding"]}}}},
	  "mappings":{"properties":{"t":{"type":"text","analyzer":"folded"},"e":{"type":"text","analyzer":"english"}}}}`)
	if code != 200 {
		t.Fatalf("create = %d %v", code, body)
	}
	n.do("PUT", "/an/_doc/1?refresh=true", "application/json", `{"t":"Crème Brûlée","e":"running quickly"}`)
	for q, want := range map[string]string{
		`{"query":{"match":{"t":"creme brulee"}}}`: "1",
		`{"query":{"match":{"e":"runs"}}}`:         "1",
		`{"query":{"term":{"t":"crème"}}}`:         "0",
	} {
		if _, body := n.do("POST", "/an/_count", "application/json", q); str(body["count"]) != want {
			t.Errorf("count %s = %v, want %s", q, body["count"], want)
		}
	}
	_, body = n.do("GET", "/an/_settings", "", "")
	for path, want := range map[string]string{
		"an.settings.index.number_of_replicas":                 `"0"`,
		"an.settings.index.number_of_shards":                   `"1"`,
		"an.settings.index.refresh_interval":                   `"30s"`,
		"an.settings.index.analysis.analyzer.folded.tokenizer": `"standard"`,
		"an.settings.index.provided_name":                      `"an"`,
	} {
		if got := str(jsonPath(body, path)); got != want {
			t.Errorf("%s = %s, want %s", path, got, want)
		}
	}
	if code, body := n.do("PUT", "/an/_settings", "application/json", `{"index":{"refresh_interval":"1s"}}`); code != 200 {
		t.Errorf("put settings = %d %v", code, body)
	}
	if code, body := n.do("PUT", "/an/_settings", "application/json", `{"index":{"number_of_shards":3}}`); code != 400 || jsonPath(body, "error.type") != "illegal_argument_exception" {
		t.Errorf("static setting update = %d %v", code, body)
	}
	if code, body := n.do("PUT", "/bad", "application/json", `{"settings":{"index":{"bogus":1}}}`); code != 400 || jsonPath(body, "error.reason") != "unknown setting [index.bogus] please check that any required plugins are installed, or check the breaking changes documentation for removed settings" {
		t.Errorf("unknown setting = %d %v", code, body)
	}
	if code, body := n.do("PUT", "/bad2", "application/json", `{"mappings":{"properties":{"x":{"type":"text","analyzer":"nope"}}}}`); code != 400 {
		t.Errorf("unknown analyzer = %d %v", code, body)
	}
}

func TestAliases(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/logs-1", "application/json", `{"aliases":{"logs":{"is_write_index":true}}}`)
	n.do("PUT", "/logs-2", "application/json", `{"aliases":{"logs":{}}}`)
	// Writes through the alias go to the write index; reads fan out.
	n.do("PUT", "/logs/_doc/1?refresh=true", "application/json", `{"m":"a"}`)
	n.do("PUT", "/logs-2/_doc/2?refresh=true", "application/json", `{"m":"b"}`)
	if _, body := n.do("GET", "/logs/_count", "", ""); str(body["count"]) != "2" {
		t.Errorf("count via alias = %v, want 2", body["count"])
	}
	if code, body := n.do("GET", "/logs-1/_doc/1", "", ""); code != 200 || body["found"] != true {
		t.Errorf("doc not in write index: %d %v", code, body)
	}
	code, raw := n.raw("GET", "/_alias/logs", "", "")
	if code != 200 || string(raw) != `{"logs-1":{"aliases":{"logs":{"is_write_index":true}}},"logs-2":{"aliases":{"logs":{}}}}` {
		t.Errorf("GET _alias/logs = %d %s", code, raw)
	}
	if code, _ := n.do("POST", "/_aliases", "application/json", `{"actions":[{"remove":{"index":"logs-1","alias":"logs"}},{"add":{"index":"logs-2","alias":"logs","is_write_index":true}}]}`); code != 200 {
		t.Errorf("_aliases = %d", code)
	}
	n.do("PUT", "/logs/_doc/3?refresh=true", "application/json", `{"m":"c"}`)
	if code, _ := n.do("GET", "/logs-2/_doc/3", "", ""); code != 200 {
		t.Errorf("write after swap did not reach logs-2 (%d)", code)
	}
	code, body := n.do("GET", "/_alias/nope", "", "")
	if code != 404 || body["error"] != "alias [nope] missing" {
		t.Errorf("missing alias = %d %v", code, body)
	}
	if code, _ := n.do("DELETE", "/logs", "", ""); code != 400 {
		t.Errorf("DELETE of an alias = %d, want 400", code)
	}
}
