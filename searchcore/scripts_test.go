package searchcore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/store"
)

// execBulk runs the NDJSON _bulk body on e with refresh and reports each
// failed item through t.Errorf (a delete of a missing document, 404, is
// no failure); it tells whether every item succeeded. It may run on any
// goroutine.
func execBulk(t testing.TB, e *searchcore.Engine, body string, refresh searchcore.Refresh) bool {
	t.Helper()
	items, err := searchcore.ParseBulk([]byte(body), searchcore.BulkDefaults{})
	if err != nil {
		t.Errorf("bulk: %v", err)
		return false
	}
	ok := true
	for _, r := range e.ExecBulk(context.Background(), items, refresh) {
		if r.Status >= 300 && r.Status != 404 {
			t.Errorf("bulk item %s/%s: %+v", r.Index, r.ID, r)
			ok = false
		}
	}
	return ok
}

// openEngine opens an engine on dir with the given settings; the returned
// function closes it (cleanup does too, once).
func openEngine(t *testing.T, dir string, cfg searchcore.Config) (*searchcore.Engine, func()) {
	t.Helper()
	db, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	cfg.DataPath, cfg.Storage = dir, db
	e, err := searchcore.Open(context.Background(), cfg)
	if err != nil {
		db.Close()
		t.Fatalf("open engine: %v", err)
	}
	var once sync.Once
	closeAll := func() {
		once.Do(func() {
			e.Close()
			db.Close()
		})
	}
	t.Cleanup(closeAll)
	return e, closeAll
}

func inline(s string) *string { return &s }

// wantError checks err's Elasticsearch type and reason.
func wantError(t *testing.T, err error, typ, reason string) {
	t.Helper()
	e, ok := searchcore.AsError(err)
	if !ok {
		t.Fatalf("err = %v, want %s", err, typ)
	}
	if e.Type != typ || !strings.Contains(e.Reason, reason) {
		t.Errorf("err = %s: %q, want %s containing %q", e.Type, e.Reason, typ, reason)
	}
}

func TestStoredScriptsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	e, closeFirst := openEngine(t, dir, searchcore.Config{})
	if err := e.PutScript(ctx, "tpl", "", []byte(`{"script":{"lang":"mustache","source":{"query":{"match":{"f":"{{v}}"}}}}}`)); err != nil {
		t.Fatal(err)
	}
	if err := e.PutScript(ctx, "p", "", []byte(`{"script":{"lang":"painless","source":"doc['x'].value * 2"}}`)); err != nil {
		t.Fatal(err)
	}
	closeFirst()

	e, _ = openEngine(t, dir, searchcore.Config{})
	sc, found, err := e.Script(ctx, "tpl")
	if err != nil || !found {
		t.Fatalf("Script(tpl) = %v, %v, %v", sc, found, err)
	}
	if sc.Lang != "mustache" || sc.Source != `{"query":{"match":{"f":"{{v}}"}}}` || sc.Options["content_type"] != "application/json; charset=UTF-8" {
		t.Errorf("stored = %+v", sc)
	}
	out, err := e.RenderTemplate(ctx, &searchcore.TemplateRequest{ID: "tpl", Params: []byte(`{"v":"x\"y"}`)})
	if err != nil || out != `{"query":{"match":{"f":"x\"y"}}}` {
		t.Errorf("RenderTemplate = %q, %v", out, err)
	}
	if sc, found, _ := e.Script(ctx, "p"); !found || sc.Source != "doc['x'].value * 2" {
		t.Errorf("painless script after restart = %+v %v", sc, found)
	}
	if err := e.DeleteScript(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	wantError(t, e.DeleteScript(ctx, "p"), "resource_not_found_exception", "stored script [p] does not exist")
}

func TestPutScriptErrors(t *testing.T) {
	e, _ := openEngine(t, t.TempDir(), searchcore.Config{})
	ctx := context.Background()
	tests := []struct {
		name, id, context, body, typ, reason string
	}{
		{"no lang", "a", "", `{"script":{"source":"x"}}`, "illegal_argument_exception", "must specify lang for stored script"},
		{"no source", "a", "", `{"script":{"lang":"painless"}}`, "illegal_argument_exception", "must specify source for stored script"},
		{"unknown lang", "a", "", `{"script":{"lang":"python","source":"x"}}`, "illegal_argument_exception", "unable to put stored script with unsupported lang [python]"},
		{"not under script", "a", "", `{"template":{"lang":"mustache","source":"x"}}`, "parsing_exception", "unexpected field [template], expected [script]"},
		{"unknown field", "a", "", `{"script":{"lang":"mustache","source":"x","x":1}}`, "x_content_parse_exception", "[script] unknown field [x]"},
		{"bad options", "a", "", `{"script":{"lang":"painless","source":"x","options":{"a":"b"}}}`, "illegal_argument_exception", "illegal compiler options [{a=b}] specified"},
		{"hash in id", "a#b", "", `{"script":{"lang":"painless","source":"x"}}`, "action_request_validation_exception", "id cannot contain '#'"},
		{"unknown context", "a", "nope", `{"script":{"lang":"painless","source":"x"}}`, "illegal_argument_exception", "Unknown context [nope]"},
		{"mustache in score context", "a", "score", `{"script":{"lang":"mustache","source":"x"}}`, "illegal_argument_exception", "failed to parse/compile stored script [a]"},
		{"mustache that does not compile", "a", "template", `{"script":{"lang":"mustache","source":"{{#a}}"}}`, "script_exception", "Failed to close 'a' tag"},
		{"painless syntax error", "a", "score", `{"script":{"lang":"painless","source":"_score * foo bar + doc['w'].value"}}`, "script_exception", "compile error"},
		{"painless unbalanced", "a", "score", `{"script":{"lang":"painless","source":"Math.max(1, 2"}}`, "script_exception", "compile error"},
		{"too large", "a", "", `{"script":{"lang":"painless","source":"` + strings.Repeat("x", 65536) + `"}}`, "illegal_argument_exception", "exceeded max allowed stored script size in bytes [65535]"},
		{"not JSON", "a", "", `{"script":`, "parsing_exception", "Failed to parse request body"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, e.PutScript(ctx, tc.id, tc.context, []byte(tc.body)), tc.typ, tc.reason)
		})
	}
	// Valid Painless in a context passes the syntax check.
	for _, src := range []string{
		"_score * doc['my.weight'].value",
		"int total = 0; for (def v : doc['x']) { total += v } return total;",
		"if (params.a != null) { return params.a } else { return -1.5e3 }",
		"String s = 'a' + \"b\"; return s instanceof String ? s.length() : 0",
		"(int) doc['x'].value // trailing comment",
	} {
		if err := e.PutScript(ctx, "ok", "score", []byte(`{"script":{"lang":"painless","source":`+quote(src)+`}}`)); err != nil {
			t.Errorf("PutScript(%q) = %v", src, err)
		}
	}
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

func TestRenderTemplate(t *testing.T) {
	dir := t.TempDir()
	scripts := filepath.Join(dir, "scripts")
	if err := os.MkdirAll(scripts, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(scripts, "by_tag.mustache"), []byte(`{"query":{"terms":{"tag":{{#toJson}}tags{{/toJson}}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	e, _ := openEngine(t, dir, searchcore.Config{ScriptsPath: scripts})
	ctx := context.Background()
	if err := e.PutSearchTemplate(ctx, "old", []byte(`{"template":{"size":"{{n}}"}}`)); err != nil {
		t.Fatal(err)
	}
	if err := e.PutScript(ctx, "pl", "", []byte(`{"script":{"lang":"painless","source":"1"}}`)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  searchcore.TemplateRequest
		want string
		typ  string
	}{
		{"inline", searchcore.TemplateRequest{Source: inline(`{"size":{{n}}}`), Params: []byte(`{"n":1000000}`)}, `{"size":1000000}`, ""},
		{"file", searchcore.TemplateRequest{File: "by_tag", Params: []byte(`{"tags":["a"]}`)}, `{"query":{"terms":{"tag":["a"]}}}`, ""},
		{"earlier revision", searchcore.TemplateRequest{ID: "old", Params: []byte(`{"n":3}`)}, `{"size":"3"}`, ""},
		{"missing file", searchcore.TemplateRequest{File: "nope"}, "", "illegal_argument_exception"},
		{"file outside the folder", searchcore.TemplateRequest{File: "../etc/passwd"}, "", "illegal_argument_exception"},
		{"missing id", searchcore.TemplateRequest{ID: "nope"}, "", "resource_not_found_exception"},
		{"painless id", searchcore.TemplateRequest{ID: "pl"}, "", "illegal_argument_exception"},
		{"no template", searchcore.TemplateRequest{Source: inline("")}, "", "action_request_validation_exception"},
		{"invalid output", searchcore.TemplateRequest{Source: inline(`{"a":{{x}}}`)}, "", "json_parse_exception"},
		{"cut output", searchcore.TemplateRequest{Source: inline(`{"a":[`)}, "", "json_e_o_f_exception"},
		{"empty output", searchcore.TemplateRequest{Source: inline(`{{x}}`)}, "", "parsing_exception"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := e.RenderTemplate(ctx, &tc.req)
			if tc.typ != "" {
				e, ok := searchcore.AsError(err)
				if !ok || e.Type != tc.typ {
					t.Fatalf("err = %v, want %s", err, tc.typ)
				}
				return
			}
			if err != nil || out != tc.want {
				t.Errorf("RenderTemplate = %q, %v; want %q", out, err, tc.want)
			}
		})
	}
}

func TestScriptSandbox(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, types, contexts string
		req                   searchcore.TemplateRequest
		reason                string
	}{
		{"inline disallowed", "stored", "", searchcore.TemplateRequest{Source: inline(`{}`)}, "cannot execute [inline] scripts"},
		{"stored disallowed", "inline", "", searchcore.TemplateRequest{ID: "t"}, "cannot execute [stored] scripts"},
		{"none", "none", "", searchcore.TemplateRequest{Source: inline(`{}`)}, "cannot execute [inline] scripts"},
		{"template context disallowed", "", "score", searchcore.TemplateRequest{Source: inline(`{}`)}, "cannot execute scripts using [template] context"},
		{"allowed", "inline,stored", "template,score", searchcore.TemplateRequest{ID: "t"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			// Store the template with an unrestricted node, then reopen restricted.
			open, closeOpen := openEngine(t, dir, searchcore.Config{})
			if err := open.PutScript(ctx, "t", "", []byte(`{"script":{"lang":"mustache","source":"{}"}}`)); err != nil {
				t.Fatal(err)
			}
			closeOpen()
			e, _ := openEngine(t, dir, searchcore.Config{ScriptAllowedTypes: tc.types, ScriptAllowedContexts: tc.contexts})
			_, err := e.RenderTemplate(ctx, &tc.req)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			wantError(t, err, "illegal_argument_exception", tc.reason)
		})
	}
	// No context at all: stored scripts cannot even be put.
	e, _ := openEngine(t, t.TempDir(), searchcore.Config{ScriptAllowedContexts: "none"})
	wantError(t, e.PutScript(ctx, "x", "", []byte(`{"script":{"lang":"mustache","source":"{}"}}`)),
		"illegal_argument_exception", "cannot put [stored] script, no script contexts are enabled")
	e, _ = openEngine(t, t.TempDir(), searchcore.Config{ScriptAllowedContexts: "template"})
	wantError(t, e.PutScript(ctx, "x", "score", []byte(`{"script":{"lang":"painless","source":"1"}}`)),
		"illegal_argument_exception", "cannot put [stored] script, context [score] is not enabled")
}

func TestScriptSettings(t *testing.T) {
	for _, v := range []string{"", "inline", "inline, stored", "[stored]", "none"} {
		if err := searchcore.CheckScriptAllowedTypes(v); err != nil {
			t.Errorf("CheckScriptAllowedTypes(%q) = %v", v, err)
		}
	}
	for v, want := range map[string]string{
		"file":        "unknown script type [file] found in setting [script.allowed_types].",
		"none,inline": "cannot specify both [none] and other script types",
	} {
		if err := searchcore.CheckScriptAllowedTypes(v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckScriptAllowedTypes(%q) = %v, want %q", v, err, want)
		}
	}
	if err := searchcore.CheckScriptAllowedContexts("template,score,update"); err != nil {
		t.Errorf("CheckScriptAllowedContexts = %v", err)
	}
	if err := searchcore.CheckScriptAllowedContexts("search"); err == nil || !strings.Contains(err.Error(), "unknown script context [search]") {
		t.Errorf("CheckScriptAllowedContexts(search) = %v", err)
	}
}

func TestParseTemplateRequest(t *testing.T) {
	r, err := searchcore.ParseTemplateRequest([]byte(`{"source":{"query":{"match":{"a":"{{x}}"}}},"params":{"x":1},"explain":true,"profile":"true"}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Source == nil || *r.Source != `{"query":{"match":{"a":"{{x}}"}}}` || !r.Explain || !r.Profile || string(r.Params) != `{"x":1}` {
		t.Errorf("parsed = %+v", r)
	}
	r, err = searchcore.ParseTemplateRequest([]byte(`{"inline":"{{#a}}x{{/a}}","id":"z"}`))
	if err != nil || *r.Source != "{{#a}}x{{/a}}" || r.ID != "z" {
		t.Errorf("parsed = %+v, %v", r, err)
	}
	_, err = searchcore.ParseTemplateRequest([]byte(`{"source":"x","size":1}`))
	wantError(t, err, "x_content_parse_exception", "[search_template] unknown field [size]")
	_, err = searchcore.ParseTemplateRequest([]byte(`{"params":[1]}`))
	wantError(t, err, "x_content_parse_exception", "params doesn't support values of type: START_ARRAY")
	_, err = searchcore.ParseTemplateRequest([]byte(`{"explain":"maybe"}`))
	wantError(t, err, "parsing_exception", "[explain] failed to parse field [explain]")
	r, _ = searchcore.ParseTemplateRequest(nil)
	wantError(t, r.Validate(), "action_request_validation_exception", "Validation Failed: 1: template is missing;")
}
