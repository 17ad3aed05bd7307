package handlers_test

import (
	"strings"
	"testing"
)

func TestComponentTemplates(t *testing.T) {
	dir := t.TempDir()
	n := openTestNode(t, dir)
	const js = "application/json"
	notFound := func(reason string) string {
		return `{"error":{"reason":"` + reason + `","root_cause":[{"reason":"` + reason + `","type":"resource_not_found_exception"}],"type":"resource_not_found_exception"},"status":404}`
	}
	illegal := func(reason string) string {
		return `{"error":{"reason":"` + reason + `","root_cause":[{"reason":"` + reason + `","type":"illegal_argument_exception"}],"type":"illegal_argument_exception"},"status":400}`
	}
	parsing := func(reason string) string {
		return `{"error":{"reason":"` + reason + `","root_cause":[{"reason":"` + reason + `","type":"parsing_exception"}],"type":"parsing_exception"},"status":400}`
	}
	n.runSteps([]httpStep{
		{"put settings component", "PUT", "/_component_template/ct-settings", `{"template":{"settings":{"number_of_shards":2,"index.number_of_replicas":0}},"version":2,"_meta":{"team":"a"}}`, 200, `{"acknowledged":true}`},
		{"put mappings component", "POST", "/_component_template/ct-mappings", `{"template":{"mappings":{"properties":{"msg":{"type":"text"},"level":{"type":"keyword"}}},"aliases":{"from-component":{}}}}`, 200, `{"acknowledged":true}`},
		{"put overriding component", "PUT", "/_component_template/ct-override", `{"template":{"settings":{"number_of_shards":3},"mappings":{"properties":{"level":{"type":"integer"}}}}}`, 200, `{"acknowledged":true}`},
		{"create conflicts", "PUT", "/_component_template/ct-settings?create=true", `{"template":{}}`, 400, illegal("component template [ct-settings] already exists")},
		{"template required", "PUT", "/_component_template/bad", `{"version":1}`, 400, parsing("[component_template] Required [template]")},
		{"patterns refused", "PUT", "/_component_template/bad", `{"template":{},"index_patterns":["x"]}`, 400, parsing("[component_template] unknown field [index_patterns]")},
		{"unknown template member", "PUT", "/_component_template/bad", `{"template":{"foo":{}}}`, 400, parsing("[template] unknown field [foo]")},
		{"bad mapping", "PUT", "/_component_template/bad", `{"template":{"mappings":{"properties":{"x":{"type":"nope"}}}}}`, 400, ""},
		{"body required", "PUT", "/_component_template/bad", ``, 400, ""},
		{"get one", "GET", "/_component_template/ct-settings", "", 200,
			`{"component_templates":[{"component_template":{"_meta":{"team":"a"},"template":{"settings":{"index":{"number_of_replicas":"0","number_of_shards":"2"}}},"version":2},"name":"ct-settings"}]}`},
		{"get wildcard flat", "GET", "/_component_template/ct-s*?flat_settings=true", "", 200,
			`{"component_templates":[{"component_template":{"_meta":{"team":"a"},"template":{"settings":{"index.number_of_replicas":"0","index.number_of_shards":"2"}},"version":2},"name":"ct-settings"}]}`},
		{"get missing", "GET", "/_component_template/nope", "", 404, notFound("component template matching [nope] not found")},
		{"get wildcard none", "GET", "/_component_template/zz*", "", 200, `{"component_templates":[]}`},
		{"head present", "HEAD", "/_component_template/ct-mappings", "", 200, ""},
		{"head missing", "HEAD", "/_component_template/nope", "", 404, ""},
		{"index template with a missing component", "PUT", "/_index_template/logs", `{"index_patterns":["logs-*"],"composed_of":["ct-settings","nope","gone"]}`, 400,
			illegal("index template [logs] specifies component templates [nope, gone] that do not exist")},
		{"index template composed", "PUT", "/_index_template/logs", `{"index_patterns":["logs-*"],"priority":5,"composed_of":["ct-settings","ct-mappings"],"template":{"settings":{"number_of_replicas":1},"mappings":{"properties":{"extra":{"type":"long"}}}}}`, 200, `{"acknowledged":true}`},
		{"second composed", "PUT", "/_index_template/metrics", `{"index_patterns":["metrics-*"],"composed_of":["ct-mappings","ct-override"]}`, 200, `{"acknowledged":true}`},
		{"delete in use", "DELETE", "/_component_template/ct-m*", "", 400,
			illegal("component templates [ct-mappings] cannot be removed as they are still in use by index templates [logs, metrics]")},
		{"delete missing", "DELETE", "/_component_template/nope", "", 404, notFound("nope")},
	})

	// Index creation: components in composed_of order, then the index
	// template's own template, then the request.
	if code, b := n.do("PUT", "/logs-a", js, `{"mappings":{"properties":{"own":{"type":"keyword"}}}}`); code != 200 {
		t.Fatalf("create logs-a: %d %v", code, b)
	}
	if code, b := n.do("PUT", "/metrics-a", "", ""); code != 200 {
		t.Fatalf("create metrics-a: %d %v", code, b)
	}
	_, body := n.do("GET", "/logs-a,metrics-a?flat_settings=true", "", "")
	checks := []struct{ path, want string }{
		{"logs-a.mappings", `{"properties":{"extra":{"type":"long"},"level":{"type":"keyword"},"msg":{"type":"text"},"own":{"type":"keyword"}}}`},
		{"logs-a.aliases", `{"from-component":{}}`},
		{"logs-a.settings.index\\.number_of_shards", `"2"`},
		{"logs-a.settings.index\\.number_of_replicas", `"1"`},
		{"metrics-a.mappings", `{"properties":{"level":{"type":"integer"},"msg":{"type":"text"}}}`},
		{"metrics-a.settings.index\\.number_of_shards", `"3"`},
	}
	for _, c := range checks {
		var got any
		if i := strings.Index(c.path, "settings."); i >= 0 {
			settings, _ := jsonPath(body, c.path[:i+len("settings")]).(map[string]any)
			got = settings[strings.ReplaceAll(c.path[i+len("settings."):], "\\", "")]
		} else {
			got = jsonPath(body, c.path)
		}
		if str(got) != c.want {
			t.Errorf("%s = %s, want %s", c.path, str(got), c.want)
		}
	}

	// The cluster state lists both kinds of templates.
	_, state := n.do("GET", "/_cluster/state/metadata?filter_path=metadata.component_template,metadata.index_template.index_template.metrics", "", "")
	if got, want := str(state), `{"metadata":{"component_template":{"component_template":{"ct-mappings":{"template":{"aliases":{"from-component":{}},"mappings":{"properties":{"level":{"type":"keyword"},"msg":{"type":"text"}}}}},"ct-override":{"template":{"mappings":{"properties":{"level":{"type":"integer"}}},"settings":{"index":{"number_of_shards":"3"}}}},"ct-settings":{"_meta":{"team":"a"},"template":{"settings":{"index":{"number_of_replicas":"0","number_of_shards":"2"}}},"version":2}}},"index_template":{"index_template":{"metrics":{"composed_of":["ct-mappings","ct-override"],"index_patterns":["metrics-*"]}}}}}`; got != want {
		t.Errorf("cluster state templates\n got %s\nwant %s", got, want)
	}

	// Component templates survive a restart; once unused they can go.
	n.close()
	n = openTestNode(t, dir)
	n.runSteps([]httpStep{
		{"still there", "GET", "/_component_template", "", 200, ""},
		{"drop users", "DELETE", "/_index_template/logs,metrics", "", 200, `{"acknowledged":true}`},
		{"delete wildcard", "DELETE", "/_component_template/ct-*", "", 200, `{"acknowledged":true}`},
		{"all gone", "GET", "/_component_template", "", 200, `{"component_templates":[]}`},
		{"delete match-all on none", "DELETE", "/_component_template/*", "", 200, `{"acknowledged":true}`},
	})
}
