package handlers_test

import (
	"testing"
)

func TestIndexTemplates(t *testing.T) {
	dir := t.TempDir()
	n := openTestNode(t, dir)
	const js = "application/json"
	steps := []httpStep{
		{"put composable", "PUT", "/_index_template/logs", `{"index_patterns":["logs-*"],"priority":10,"version":3,"template":{"settings":{"number_of_shards":2,"index.number_of_replicas":0},"mappings":{"properties":{"msg":{"type":"text"},"level":{"type":"keyword"}}},"aliases":{"all-logs":{},"{index}-alias":{}}},"_meta":{"owner":"ops"}}`, 200, `{"acknowledged":true}`},
		{"create conflicts", "PUT", "/_index_template/logs?create=true", `{"index_patterns":["x"]}`, 400,
			`{"error":{"reason":"index template [logs] already exists","root_cause":[{"reason":"index template [logs] already exists","type":"illegal_argument_exception"}],"type":"illegal_argument_exception"},"status":400}`},
		{"same priority overlap", "PUT", "/_index_template/other", `{"index_patterns":["logs-a*"],"priority":10}`, 400,
			`{"error":{"reason":"index template [other] has index patterns [logs-a*] matching patterns from existing templates [logs] with patterns (logs =\u003e [logs-*]) that have the same priority [10], multiple index templates may not match during index creation, please use a different priority","root_cause":[{"reason":"index template [other] has index patterns [logs-a*] matching patterns from existing templates [logs] with patterns (logs =\u003e [logs-*]) that have the same priority [10], multiple index templates may not match during index creation, please use a different priority","type":"illegal_argument_exception"}],"type":"illegal_argument_exception"},"status":400}`},
		{"lower priority", "POST", "/_index_template/low", `{"index_patterns":["logs-*","other-*"],"priority":1,"template":{"settings":{"number_of_shards":3}}}`, 200, `{"acknowledged":true}`},
		{"missing patterns", "PUT", "/_index_template/bad", `{"template":{}}`, 400, ""},
		{"unknown field", "PUT", "/_index_template/bad", `{"index_patterns":["a"],"order":1}`, 400,
			`{"error":{"reason":"[index_template] unknown field [order]","root_cause":[{"reason":"[index_template] unknown field [order]","type":"parsing_exception"}],"type":"parsing_exception"},"status":400}`},
		{"component templates do not exist", "PUT", "/_index_template/bad", `{"index_patterns":["a"],"composed_of":["ct1"]}`, 400,
			`{"error":{"reason":"index template [bad] specifies component templates [ct1] that do not exist","root_cause":[{"reason":"index template [bad] specifies component templates [ct1] that do not exist","type":"illegal_argument_exception"}],"type":"illegal_argument_exception"},"status":400}`},
		{"bad mapping", "PUT", "/_index_template/bad", `{"index_patterns":["a"],"template":{"mappings":{"properties":{"x":{"type":"nope"}}}}}`, 400, ""},
		{"get one", "GET", "/_index_template/logs", "", 200,
			`{"index_templates":[{"index_template":{"_meta":{"owner":"ops"},"composed_of":[],"index_patterns":["logs-*"],"priority":10,"template":{"aliases":{"all-logs":{},"{index}-alias":{}},"mappings":{"properties":{"level":{"type":"keyword"},"msg":{"type":"text"}}},"settings":{"index":{"number_of_replicas":"0","number_of_shards":"2"}}},"version":3},"name":"logs"}]}`},
		{"get wildcard", "GET", "/_index_template/l*?flat_settings=true", "", 200, ""},
		{"get missing", "GET", "/_index_template/nope", "", 404,
			`{"error":{"reason":"index template matching [nope] not found","root_cause":[{"reason":"index template matching [nope] not found","type":"resource_not_found_exception"}],"type":"resource_not_found_exception"},"status":404}`},
		{"head present", "HEAD", "/_index_template/logs", "", 200, ""},
		{"head missing", "HEAD", "/_index_template/nope", "", 404, ""},
		{"legacy low order", "PUT", "/_template/t1?order=0", `{"index_patterns":"other-*","settings":{"number_of_replicas":0},"mappings":{"_doc":{"properties":{"a":{"type":"keyword"}}}},"aliases":{"legacy-alias":{}}}`, 200, `{"acknowledged":true}`},
		{"legacy high order", "PUT", "/_template/t2", `{"index_patterns":["other-*"],"order":5,"version":7,"settings":{"index":{"number_of_replicas":2}},"mappings":{"properties":{"b":{"type":"long"}}}}`, 200, `{"acknowledged":true}`},
		{"legacy get", "GET", "/_template/t*", "", 200,
			`{"t1":{"aliases":{"legacy-alias":{}},"index_patterns":["other-*"],"mappings":{"properties":{"a":{"type":"keyword"}}},"order":0,"settings":{"index":{"number_of_replicas":"0"}}},"t2":{"aliases":{},"index_patterns":["other-*"],"mappings":{"properties":{"b":{"type":"long"}}},"order":5,"settings":{"index":{"number_of_replicas":"2"}},"version":7}}`},
		{"legacy get missing", "GET", "/_template/nope", "", 404, `{}`},
		{"legacy unknown key", "PUT", "/_template/bad", `{"index_patterns":["a"],"priority":1}`, 400, ""},
	}
	n.runSteps(steps)

	// Index creation applies the best composable template, request wins.
	if code, b := n.do("PUT", "/logs-app", js, `{"settings":{"number_of_replicas":1},"mappings":{"properties":{"extra":{"type":"integer"}}},"aliases":{"own":{}}}`); code != 200 {
		t.Fatalf("create logs-app: %d %v", code, b)
	}
	_, body := n.do("GET", "/logs-app?flat_settings=true", "", "")
	checks := []struct{ path, want string }{
		{"logs-app.mappings", `{"properties":{"extra":{"type":"integer"},"level":{"type":"keyword"},"msg":{"type":"text"}}}`},
		{"logs-app.aliases", `{"all-logs":{},"logs-app-alias":{},"own":{}}`},
	}
	for _, c := range checks {
		if got := str(jsonPath(body, c.path)); got != c.want {
			t.Errorf("logs-app %s = %s, want %s", c.path, got, c.want)
		}
	}
	settings, _ := jsonPath(body, "logs-app.settings").(map[string]any)
	if got := str(settings["index.number_of_shards"]) + str(settings["index.number_of_replicas"]); got != `"2""1"` {
		t.Errorf("logs-app shards+replicas = %s, want \"2\"\"1\" (template shards, request replicas)", got)
	}
	// Legacy templates merge by order when no composable template matches:
	// other-* is matched by the composable "low" (priority 1), which wins.
	n.do("DELETE", "/_index_template/low", "", "")
	// Auto-created index through a write.
	if code, b := n.do("PUT", "/other-1/_doc/1?refresh=true", js, `{"a":"x","b":1}`); code != 201 {
		t.Fatalf("auto-create: %d %v", code, b)
	}
	_, body = n.do("GET", "/other-1?flat_settings=true", "", "")
	settings, _ = jsonPath(body, "other-1.settings").(map[string]any)
	if got := str(settings["index.number_of_replicas"]); got != `"2"` {
		t.Errorf("other-1 replicas = %s, want \"2\" (order 5 overrides order 0)", got)
	}
	if got := str(jsonPath(body, "other-1.mappings.properties")); got != `{"a":{"type":"keyword"},"b":{"type":"long"}}` {
		t.Errorf("other-1 properties = %s", got)
	}
	if got := str(jsonPath(body, "other-1.aliases")); got != `{"legacy-alias":{}}` {
		t.Errorf("other-1 aliases = %s", got)
	}

	// _cat/templates lists both kinds.
	code, raw := n.raw("GET", "/_cat/templates?v&s=name", "", "")
	if want := "name index_patterns order version composed_of\n" +
		"logs [logs-*]          10 3       []         \n" +
		"t1   [other-*]          0                    \n" +
		"t2   [other-*]          5 7                  \n"; code != 200 || string(raw) != want {
		t.Errorf("_cat/templates = %d\n%q\nwant\n%q", code, raw, want)
	}

	// Templates survive a restart; deletion.
	n.Close()
	n = openTestNode(t, dir)
	n.runSteps([]httpStep{
		{"after restart", "GET", "/_template/t2", "", 200, `{"t2":{"aliases":{},"index_patterns":["other-*"],"mappings":{"properties":{"b":{"type":"long"}}},"order":5,"settings":{"index":{"number_of_replicas":"2"}},"version":7}}`},
		{"delete legacy", "DELETE", "/_template/t*", "", 200, `{"acknowledged":true}`},
		{"delete legacy again", "DELETE", "/_template/t1", "", 404,
			`{"error":{"reason":"index_template [t1] missing","root_cause":[{"reason":"index_template [t1] missing","type":"index_template_missing_exception"}],"type":"index_template_missing_exception"},"status":404}`},
		{"delete composable", "DELETE", "/_index_template/logs", "", 200, `{"acknowledged":true}`},
		{"list empty", "GET", "/_index_template", "", 200, `{"index_templates":[]}`},
	})
}
