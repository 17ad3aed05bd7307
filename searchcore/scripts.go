package searchcore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/quarry-search/quarry/searchcore/template"
)

// metaScriptPrefix prefixes the MetaStore keys of stored scripts.
const metaScriptPrefix = "script/"

// Script limits and names (Elasticsearch's defaults).
const (
	// maxScriptSize is script.max_size_in_bytes.
	maxScriptSize = 65535
	// templateContext is the context search templates run in.
	templateContext = "template"
	// langMustache is the language of search templates.
	langMustache = "mustache"
	// jsonContentType is the content_type option of a template stored as an object.
	jsonContentType = "application/json; charset=UTF-8"
)

// scriptContexts are the script contexts an Elasticsearch 7.17 node knows
// (script.allowed_contexts and put-script names are checked against them).
var scriptContexts = map[string]bool{
	"aggregation_selector": true, "aggs": true, "aggs_combine": true, "aggs_init": true, "aggs_map": true,
	"aggs_reduce": true, "analysis": true, "boolean_field": true, "bucket_aggregation": true, "composite_field": true,
	"date_field": true, "double_field": true, "field": true, "filter": true, "geo_point_field": true, "ingest": true,
	"ingest_template": true, "interval": true, "ip_field": true, "keyword_field": true, "long_field": true,
	"moving-function": true, "number_sort": true, "painless_test": true, "processor_conditional": true, "score": true,
	"script_heuristic": true, "similarity": true, "similarity_weight": true, "string_sort": true, "template": true,
	"terms_set": true, "update": true, "watcher_condition": true, "watcher_transform": true, "xpack_template": true,
}

// scriptLangs are the languages a script may be stored in.
var scriptLangs = map[string]bool{langMustache: true, "painless": true, "expression": true}

// CheckScriptAllowedTypes validates the script.allowed_types setting: a
// comma-separated list of inline and stored, "none", or empty (all).
func CheckScriptAllowedTypes(v string) error {
	_, err := parseAllowed(v, "script.allowed_types", "type", map[string]bool{"inline": true, "stored": true})
	return err
}

// CheckScriptAllowedContexts validates the script.allowed_contexts setting:
// a comma-separated list of context names, "none", or empty (all).
func CheckScriptAllowedContexts(v string) error {
	_, err := parseAllowed(v, "script.allowed_contexts", "context", scriptContexts)
	return err
}

// parseAllowed parses an allowed-list setting; nil means everything.
func parseAllowed(v, setting, what string, known map[string]bool) (map[string]bool, error) {
	v = strings.TrimSpace(strings.Trim(strings.TrimSpace(v), "[]"))
	if v == "" {
		return nil, nil
	}
	out := map[string]bool{}
	for _, p := range strings.Split(v, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if p == "none" {
			out["none"] = true
			continue
		}
		if !known[p] {
			return nil, fmt.Errorf("unknown script %s [%s] found in setting [%s].", what, p, setting)
		}
		out[p] = true
	}
	if out["none"] {
		if len(out) > 1 {
			return nil, fmt.Errorf("cannot specify both [none] and other script %ss in setting [%s].", what, setting)
		}
		return map[string]bool{}, nil
	}
	return out, nil
}

// scriptSandbox is the parsed script.allowed_types/contexts settings.
type scriptSandbox struct {
	types, contexts map[string]bool // nil: all allowed
}

func (e *Engine) sandbox() scriptSandbox {
	// Start-up validated the settings (cmd/quarry); a bad value here allows nothing.
	types, err := parseAllowed(e.cfg.ScriptAllowedTypes, "script.allowed_types", "type", map[string]bool{"inline": true, "stored": true})
	if err != nil {
		types = map[string]bool{}
	}
	contexts, err := parseAllowed(e.cfg.ScriptAllowedContexts, "script.allowed_contexts", "context", scriptContexts)
	if err != nil {
		contexts = map[string]bool{}
	}
	return scriptSandbox{types: types, contexts: contexts}
}

func (s scriptSandbox) typeAllowed(t string) bool    { return s.types == nil || s.types[t] }
func (s scriptSandbox) contextAllowed(c string) bool { return s.contexts == nil || s.contexts[c] }
func (s scriptSandbox) anyContext() bool             { return s.contexts == nil || len(s.contexts) > 0 }

// StoredScript is a script or search template stored with PUT _scripts/{id}
// (or the earlier POST _search/template/{id}).
type StoredScript struct {
	Lang    string            `json:"lang"`
	Source  string            `json:"source"`
	Options map[string]string `json:"options,omitempty"`
}

// ParseStoredScript parses a put-script body, {"script":{"lang","source","options"}}:
// a source given as an object is stored as its JSON text.
func ParseStoredScript(body []byte) (*StoredScript, error) {
	members, err := decodeObject(bytes.TrimSpace(body))
	if err != nil {
		return nil, err
	}
	if len(members) == 0 {
		// Elasticsearch accepts {} as an empty template (deprecated).
		return &StoredScript{Lang: langMustache}, nil
	}
	if members[0].key != "script" {
		return nil, ParsingError("unexpected field [%s], expected [script]", members[0].key)
	}
	v := bytes.TrimSpace(members[0].value)
	if len(v) == 0 || v[0] != '{' {
		return nil, ParsingError("unexpected token [%s], expected [{, <source>]", TokenName(v))
	}
	return parseScriptObject(v, "")
}

// parseScriptObject parses {"lang","source"|"code","options"}; defLang
// applies when lang is absent (the template endpoints' mustache).
func parseScriptObject(raw []byte, defLang string) (*StoredScript, error) {
	members, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	sc := &StoredScript{Lang: defLang}
	hasSource := false
	for _, m := range members {
		switch m.key {
		case "lang":
			if err := json.Unmarshal(m.value, &sc.Lang); err != nil {
				return nil, Errorf(Invalid, "x_content_parse_exception", "[script] lang doesn't support values of type: %s", TokenName(m.value))
			}
		case "source", "code":
			s, opts, err := templateText(m.value, "script")
			if err != nil {
				return nil, err
			}
			sc.Source, hasSource = s, true
			if opts {
				sc.setOption("content_type", jsonContentType)
			}
		case "options":
			var o map[string]string
			if err := json.Unmarshal(m.value, &o); err != nil {
				return nil, Errorf(Invalid, "x_content_parse_exception", "[script] failed to parse field [options]")
			}
			for k, v := range o {
				sc.setOption(k, v)
			}
		default:
			return nil, Errorf(Invalid, "x_content_parse_exception", "[script] unknown field [%s]", m.key)
		}
	}
	switch {
	case sc.Lang == "" && defLang == "":
		return nil, IllegalArgument("must specify lang for stored script")
	case sc.Lang == "":
		return nil, IllegalArgument("lang cannot be empty")
	case !hasSource && sc.Lang != langMustache:
		return nil, IllegalArgument("must specify source for stored script")
	case hasSource && sc.Source == "" && sc.Lang != langMustache:
		return nil, IllegalArgument("source cannot be empty")
	}
	if len(sc.Options) > 1 || (len(sc.Options) == 1 && sc.Options["content_type"] == "") {
		return nil, IllegalArgument("illegal compiler options [%s] specified", javaMap(sc.Options))
	}
	return sc, nil
}

func (sc *StoredScript) setOption(k, v string) {
	if sc.Options == nil {
		sc.Options = map[string]string{}
	}
	sc.Options[k] = v
}

// javaMap renders a string map like Java's Map.toString.
func javaMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// templateText reads a template given as a string, or as an object (stored
// as its compact JSON text; isObject reports it).
func templateText(v json.RawMessage, field string) (text string, isObject bool, err error) {
	v = bytes.TrimSpace(v)
	if len(v) > 0 && (v[0] == '{' || v[0] == '[') {
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			return "", false, jsonParseError(err)
		}
		return b.String(), true, nil
	}
	if err := json.Unmarshal(v, &text); err != nil {
		return "", false, Errorf(Invalid, "x_content_parse_exception", "[%s] %s doesn't support values of type: %s", field, "source", TokenName(v))
	}
	return text, false, nil
}

// checkScriptID applies Elasticsearch's rules for stored script ids.
func checkScriptID(id string) error {
	if id == "" {
		return ValidationError("must specify id for stored script")
	}
	if strings.Contains(id, "#") {
		return ValidationError("id cannot contain '#' for stored script")
	}
	return nil
}

// PutScript stores a script under id (PUT _scripts/{id}[/{context}]).
// With a context the script is compiled in it first: a mustache template
// must be valid, a painless script must pass a syntax check. The script
// survives restarts (it is kept in the MetaStore).
func (e *Engine) PutScript(ctx context.Context, id, scriptContext string, body []byte) error {
	if err := checkScriptID(id); err != nil {
		return err
	}
	sc, err := ParseStoredScript(body)
	if err != nil {
		return err
	}
	return e.putScript(ctx, id, scriptContext, sc)
}

func (e *Engine) putScript(ctx context.Context, id, scriptContext string, sc *StoredScript) error {
	if n := len(sc.Source); n > maxScriptSize {
		return IllegalArgument("exceeded max allowed stored script size in bytes [%d] with size [%d] for script [%s]", maxScriptSize, n, id)
	}
	if !scriptLangs[sc.Lang] {
		return IllegalArgument("unable to put stored script with unsupported lang [%s]", sc.Lang)
	}
	sb := e.sandbox()
	if !sb.anyContext() {
		return IllegalArgument("cannot put [stored] script, no script contexts are enabled")
	}
	if scriptContext != "" {
		if !scriptContexts[scriptContext] {
			return IllegalArgument("Unknown context [%s]", scriptContext)
		}
		if !sb.contextAllowed(scriptContext) {
			return IllegalArgument("cannot put [stored] script, context [%s] is not enabled", scriptContext)
		}
		if err := compileInContext(id, sc, scriptContext); err != nil {
			return err
		}
	}
	raw, err := json.Marshal(sc)
	if err != nil {
		return err
	}
	if err := e.store.PutMeta(ctx, metaScriptPrefix+id, raw); err != nil {
		return err
	}
	e.log.Info("stored script", "id", id, "lang", sc.Lang)
	return nil
}

// compileInContext checks that sc compiles in the named context.
func compileInContext(id string, sc *StoredScript, scriptContext string) error {
	switch sc.Lang {
	case langMustache:
		if scriptContext != templateContext && scriptContext != "ingest_template" && scriptContext != "xpack_template" {
			return IllegalArgument("failed to parse/compile stored script [%s]", id).
				Caused(IllegalArgument("mustache engine does not know how to handle context [%s]", scriptContext))
		}
		_, err := compileTemplate(sc.Source)
		return err
	case "painless":
		return checkPainless(sc.Source)
	}
	return nil
}

// PutSearchTemplate stores a search template with the earlier revision's
// endpoint, POST _search/template/{id}: {"template": <object or string>},
// {"script": {...}}, or (deprecated there) the template itself.
func (e *Engine) PutSearchTemplate(ctx context.Context, id string, body []byte) error {
	if err := checkScriptID(id); err != nil {
		return err
	}
	members, err := decodeObject(bytes.TrimSpace(body))
	if err != nil {
		return err
	}
	var sc *StoredScript
	switch {
	case len(members) == 1 && members[0].key == "template":
		text, obj, err := templateText(members[0].value, "template")
		if err != nil {
			return err
		}
		sc = &StoredScript{Lang: langMustache, Source: text}
		if obj {
			sc.setOption("content_type", jsonContentType)
		}
	case len(members) == 1 && members[0].key == "script":
		if sc, err = parseScriptObject(members[0].value, langMustache); err != nil {
			return err
		}
	default:
		text, _, err := templateText(body, "template")
		if err != nil {
			return err
		}
		sc = &StoredScript{Lang: langMustache, Source: text, Options: map[string]string{"content_type": jsonContentType}}
	}
	if sc.Lang != langMustache {
		return IllegalArgument("search templates must use lang [mustache], got [%s]", sc.Lang)
	}
	// The earlier revision compiled templates when storing them.
	if _, err := compileTemplate(sc.Source); err != nil {
		return err
	}
	return e.putScript(ctx, id, "", sc)
}

// Script returns the stored script id; found is false when there is none.
func (e *Engine) Script(ctx context.Context, id string) (sc *StoredScript, found bool, err error) {
	raw, err := e.store.GetMeta(ctx, metaScriptPrefix+id)
	if errors.Is(err, ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	sc = &StoredScript{}
	if err := json.Unmarshal(raw, sc); err != nil {
		return nil, false, fmt.Errorf("decode stored script %q: %w", id, err)
	}
	return sc, true, nil
}

// DeleteScript removes the stored script id. Returns
// resource_not_found_exception (404) when there is none.
func (e *Engine) DeleteScript(ctx context.Context, id string) error {
	_, found, err := e.Script(ctx, id)
	if err != nil {
		return err
	}
	if !found {
		return Errorf(NotFound, "resource_not_found_exception", "stored script [%s] does not exist", id)
	}
	return e.store.DeleteMeta(ctx, metaScriptPrefix+id)
}

// TemplateRequest is a search template request: one of an inline Source, a
// stored script ID or a File in the scripts folder, and its parameters.
type TemplateRequest struct {
	// Source is the inline template (an object is given as its JSON text).
	Source *string
	ID     string
	File   string
	Params json.RawMessage
	// Explain and Profile apply to the rendered search (they override the
	// template's own explain/profile, like Elasticsearch).
	Explain bool
	Profile bool
}

// ParseTemplateRequest parses a search template body: source/inline
// (object or string), id, file, params, explain, profile.
func ParseTemplateRequest(body []byte) (*TemplateRequest, error) {
	r := &TemplateRequest{}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return r, nil
	}
	members, err := decodeObject(body)
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		switch m.key {
		case "source", "inline", "template":
			text, _, err := templateText(m.value, "search_template")
			if err != nil {
				return nil, err
			}
			r.Source = &text
		case "id":
			if err := json.Unmarshal(m.value, &r.ID); err != nil {
				return nil, Errorf(Invalid, "x_content_parse_exception", "[search_template] id doesn't support values of type: %s", TokenName(m.value))
			}
		case "file":
			if err := json.Unmarshal(m.value, &r.File); err != nil {
				return nil, Errorf(Invalid, "x_content_parse_exception", "[search_template] file doesn't support values of type: %s", TokenName(m.value))
			}
		case "params":
			if v := bytes.TrimSpace(m.value); len(v) > 0 && v[0] != '{' && string(v) != "null" {
				return nil, Errorf(Invalid, "x_content_parse_exception", "[search_template] params doesn't support values of type: %s", TokenName(v))
			}
			r.Params = m.value
		case "explain":
			if r.Explain, err = boolMember("explain", m.value); err != nil {
				return nil, err
			}
		case "profile":
			if r.Profile, err = boolMember("profile", m.value); err != nil {
				return nil, err
			}
		default:
			return nil, Errorf(Invalid, "x_content_parse_exception", "[search_template] unknown field [%s]", m.key)
		}
	}
	return r, nil
}

// Validate is Elasticsearch's request validation: a template is required.
func (r *TemplateRequest) Validate() error {
	if (r.Source == nil || *r.Source == "") && r.ID == "" && r.File == "" {
		return ValidationError("template is missing")
	}
	return nil
}

// RenderTemplate renders a search template and checks that the output is
// JSON. Errors: action_request_validation_exception without a template,
// resource_not_found_exception (404) for an unknown stored id,
// illegal_argument_exception when script.allowed_types/allowed_contexts
// forbid it, script_exception for a template that does not compile,
// json_parse_exception/json_e_o_f_exception for output that is not JSON
// (returned with the rendered text, for callers that parse what they can).
func (e *Engine) RenderTemplate(ctx context.Context, r *TemplateRequest) (string, error) {
	if err := r.Validate(); err != nil {
		return "", err
	}
	sb := e.sandbox()
	var source string
	switch {
	case r.ID != "":
		sc, found, err := e.Script(ctx, r.ID)
		if err != nil {
			return "", err
		}
		if !found {
			return "", Errorf(NotFound, "resource_not_found_exception", "unable to find script [%s] in cluster state", r.ID)
		}
		if sc.Lang != langMustache {
			if !scriptLangs[sc.Lang] {
				return "", IllegalArgument("script_lang not supported [%s]", sc.Lang)
			}
			if !sb.typeAllowed("stored") {
				return "", IllegalArgument("cannot execute [stored] scripts")
			}
			return "", IllegalArgument("%s does not know how to handle context [%s]", sc.Lang, templateContext)
		}
		if !sb.typeAllowed("stored") {
			return "", IllegalArgument("cannot execute [stored] scripts")
		}
		source = sc.Source
	case r.Source != nil && *r.Source != "":
		if !sb.typeAllowed("inline") {
			return "", IllegalArgument("cannot execute [inline] scripts")
		}
		source = *r.Source
		if len(source) > maxScriptSize {
			return "", IllegalArgument("exceeded max allowed inline script size in bytes [%d] with size [%d] for script [%s]", maxScriptSize, len(source), source)
		}
	default:
		text, err := e.readTemplateFile(r.File)
		if err != nil {
			return "", err
		}
		source = text
	}
	if !sb.contextAllowed(templateContext) {
		return "", IllegalArgument("cannot execute scripts using [%s] context", templateContext)
	}
	t, err := compileTemplate(source)
	if err != nil {
		return "", err
	}
	params, err := template.DecodeParams(r.Params)
	if err != nil {
		return "", err
	}
	out, err := t.Render(params)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(out) == "" {
		return "", ParsingError("Expected [START_OBJECT] but found [null]")
	}
	if err := template.CheckJSON(out); err != nil {
		return out, err
	}
	return out, nil
}

// readTemplateFile reads <path.scripts>/<name>.mustache.
func (e *Engine) readTemplateFile(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") {
		return "", IllegalArgument("Unable to find on disk file script [%s] using lang [%s]", name, langMustache)
	}
	dir := e.cfg.ScriptsPath
	if dir == "" {
		dir = filepath.Join("config", "scripts")
	}
	b, err := os.ReadFile(filepath.Join(dir, name+".mustache"))
	if err != nil {
		return "", IllegalArgument("Unable to find on disk file script [%s] using lang [%s]", name, langMustache)
	}
	return string(b), nil
}

// templateCache holds compiled templates by source (script.cache.max_size
// in spirit: it is emptied when full).
var templateCache = struct {
	sync.RWMutex
	m map[string]*template.Template
}{m: map[string]*template.Template{}}

const templateCacheSize = 500

func compileTemplate(source string) (*template.Template, error) {
	templateCache.RLock()
	t, ok := templateCache.m[source]
	templateCache.RUnlock()
	if ok {
		return t, nil
	}
	t, err := template.Compile(source)
	if err != nil {
		return nil, err
	}
	templateCache.Lock()
	if len(templateCache.m) >= templateCacheSize {
		templateCache.m = map[string]*template.Template{}
	}
	templateCache.m[source] = t
	templateCache.Unlock()
	return t, nil
}

// painlessKeywords may be followed by a value (return x, new Foo, ...).
var painlessKeywords = map[string]bool{
	"if": true, "else": true, "while": true, "do": true, "for": true, "in": true, "continue": true, "break": true,
	"return": true, "new": true, "try": true, "catch": true, "throw": true, "this": false, "instanceof": true,
	"def": true, "var": true, "final": true, "static": true,
}

// painlessPrimitives are the lower-case type names of Painless.
var painlessPrimitives = map[string]bool{
	"boolean": true, "byte": true, "short": true, "char": true, "int": true, "long": true, "float": true,
	"double": true, "void": true,
}

type painlessToken struct {
	kind byte // 'i' identifier, 'n' number, 's' string, 'p' punctuation
	text string
	off  int
}

// checkPainless is a syntax check of Painless source (this node does not
// run Painless; the check catches what a compiler rejects first: two
// operands with no operator between them, and unbalanced brackets). The
// error is Elasticsearch's script_exception "compile error" (400).
func checkPainless(src string) error {
	toks, bad := painlessTokens(src)
	if bad >= 0 {
		return painlessError(src, bad, fmt.Sprintf("unexpected character [%c].", src[bad]))
	}
	var stack []painlessToken
	pairs := map[string]string{")": "(", "]": "[", "}": "{"}
	for i, t := range toks {
		if t.kind == 'p' {
			switch t.text {
			case "(", "[", "{":
				stack = append(stack, t)
			case ")", "]", "}":
				if len(stack) == 0 || stack[len(stack)-1].text != pairs[t.text] {
					return painlessError(src, t.off, fmt.Sprintf("invalid sequence of tokens near ['%s'].", t.text))
				}
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if i == 0 {
			continue
		}
		p := toks[i-1]
		operand := p.kind == 'n' || p.kind == 's' ||
			(p.kind == 'i' && !painlessKeywords[p.text] && !painlessPrimitives[p.text] && !isTypeName(p.text))
		if operand && !(t.kind == 'i' && painlessKeywords[t.text]) {
			return painlessError(src, t.off, fmt.Sprintf("invalid sequence of tokens near ['%s'].", t.text))
		}
	}
	if len(stack) > 0 {
		t := stack[len(stack)-1]
		return painlessError(src, t.off, fmt.Sprintf("invalid sequence of tokens near ['%s'].", t.text))
	}
	return nil
}

// isTypeName reports a capitalised identifier (a Painless class name).
func isTypeName(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }

// painlessTokens splits src into tokens; bad is the offset of a character
// no token can start with (-1 when none).
func painlessTokens(src string) (toks []painlessToken, bad int) {
	isIdent := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return toks, i
			}
			i += end + 4
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) {
				return toks, i
			}
			toks = append(toks, painlessToken{'s', src[i : j+1], i})
			i = j + 1
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9'):
			j := i
			for j < len(src) && (isIdent(src[j]) || src[j] == '.') {
				j++
			}
			toks = append(toks, painlessToken{'n', src[i:j], i})
			i = j
		case isIdent(c):
			j := i
			for j < len(src) && isIdent(src[j]) {
				j++
			}
			toks = append(toks, painlessToken{'i', src[i:j], i})
			i = j
		case strings.IndexByte("+-*/%=<>!&|^~?:;,.()[]{}", c) >= 0:
			toks = append(toks, painlessToken{'p', string(c), i})
			i++
		default:
			return toks, i
		}
	}
	return toks, -1
}

// painlessError is the compile error Elasticsearch reports for Painless.
func painlessError(src string, off int, reason string) error {
	start := off - 25
	if start < 0 {
		start = 0
	}
	end := off + 25
	if end > len(src) {
		end = len(src)
	}
	snippet := src[start:end]
	if start > 0 {
		snippet = "... " + snippet
	}
	if end < len(src) {
		snippet += " ..."
	}
	caret := strings.Repeat(" ", off-start+map[bool]int{true: 4, false: 0}[start > 0]) + "^---- HERE"
	return Errorf(Invalid, "script_exception", "compile error").
		With("script_stack", []string{snippet, caret}).
		With("script", src).
		With("lang", "painless").
		With("position", map[string]int{"offset": off, "start": start, "end": end}).
		Caused(IllegalArgument("%s", reason))
}
