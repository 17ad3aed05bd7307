package template

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cbroglie/mustache"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// fileName is the template name Elasticsearch's mustache errors carry.
const fileName = "query-template"

// Template is a compiled search template. It is immutable and safe for
// concurrent use: every Render gets its own parameters.
type Template struct {
	source  string
	tmpl    *mustache.Template
	helpers map[string]any
}

// Source returns the template text as given to Compile.
func (t *Template) Source() string { return t.source }

var (
	// joinTag matches {{#join delimiter='x'}} and its closing tag. The
	// delimiter may contain dots, which the library would read as a dotted
	// name, so these sections are renamed to __join_N before parsing.
	joinTag = regexp.MustCompile(`\{\{(\s*)([#^/])\s*(join delimiter='(.*?)')\s*\}\}`)
	// indexedTag matches variables whose path uses array indices or size
	// ({{list.0.name}}, {{{list.size}}}), which the library cannot resolve.
	indexedTag = regexp.MustCompile(`\{\{(\{?)\s*(&?)\s*([^\s{}#^/!>=&][^\s{}]*)\s*(\}?)\}\}`)
	// escapedVar matches {{name}} (JSON-escaped variables) inside {{#url}}.
	escapedVar = regexp.MustCompile(`\{\{\s*([^\s{}#^/!>=&][^{}]*?)\s*\}\}`)
	// partialTag matches partial tags, refused everywhere (they read files).
	partialTag = regexp.MustCompile(`\{\{\s*>`)
	// validKey is what a function's argument may look like: a dotted name.
	validKey = regexp.MustCompile(`^(\.|[^\s{}<>=!#^/&]+)$`)
)

// Compile parses a mustache template. Errors are script_exception (400)
// with the mustache message, like Elasticsearch's.
func Compile(source string) (*Template, error) {
	if err := checkTriples(source); err != nil {
		return nil, err
	}
	if partialTag.MatchString(source) {
		return nil, scriptError(source, "partials are not supported in search templates")
	}
	src := source
	helpers := map[string]any{}

	// {{#join delimiter='x'}} → {{#__join_N}} (same N for the closing tag).
	delims := map[string]string{}
	src = joinTag.ReplaceAllStringFunc(src, func(m string) string {
		sub := joinTag.FindStringSubmatch(m)
		name, ok := delims[sub[4]]
		if !ok {
			name = "__join_" + strconv.Itoa(len(delims))
			delims[sub[4]] = name
			helpers[name] = joinFunc(sub[4])
		}
		return "{{" + sub[1] + sub[2] + name + "}}"
	})

	// {{list.0.name}} → {{#__path_N}}{{/__path_N}}.
	paths := 0
	src = indexedTag.ReplaceAllStringFunc(src, func(m string) string {
		sub := indexedTag.FindStringSubmatch(m)
		triple := sub[1] == "{" && sub[4] == "}"
		if (sub[1] == "{") != (sub[4] == "}") || !indexedPath(sub[3]) {
			return m
		}
		name := "__path_" + strconv.Itoa(paths)
		paths++
		helpers[name] = pathFunc(sub[3], triple || sub[2] == "&")
		return "{{#" + name + "}}{{/" + name + "}}"
	})

	tmpl, err := mustache.ParseStringPartials(src, noPartials{})
	if err != nil {
		return nil, parseError(source, err)
	}
	tmpl.Escape(JSONEscape)
	var walk func(tags []mustache.Tag) error
	walk = func(tags []mustache.Tag) error {
		for _, tag := range tags {
			switch tag.Type() {
			case mustache.Partial:
				return scriptError(source, "partials are not supported in search templates")
			case mustache.Section, mustache.InvertedSection:
				switch strings.ToLower(tag.Name()) {
				case "tojson":
					helpers[tag.Name()] = mustache.LambdaFunc(toJSONFunc)
				case "join":
					helpers[tag.Name()] = joinFunc(",")
				case "url":
					helpers[tag.Name()] = mustache.LambdaFunc(urlFunc)
					helpers["__esc"] = mustache.LambdaFunc(escFunc)
				}
				if err := walk(tag.Tags()); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(tmpl.Tags()); err != nil {
		return nil, err
	}
	return &Template{source: source, tmpl: tmpl, helpers: helpers}, nil
}

// Render renders the template with params (from DecodeParams).
func (t *Template) Render(params map[string]any) (string, error) {
	ctx := wrap(params)
	if ctx == nil {
		ctx = jsonObject{}
	}
	out, err := t.tmpl.Render(t.helpers, ctx)
	if err != nil {
		var e *eserr.Error
		if errors.As(err, &e) {
			return "", e
		}
		return "", eserr.Errorf(eserr.Invalid, "general_script_exception", "Error running %s: %s", fileName, err.Error())
	}
	return out, nil
}

// noPartials refuses every partial: templates must not read files.
type noPartials struct{}

func (noPartials) Get(name string) (string, error) {
	return "", fmt.Errorf("partial [%s] is not allowed in search templates", name)
}

// indexedPath reports whether a dotted variable path needs Go-side
// resolution: a later segment that is an array index or "size".
func indexedPath(p string) bool {
	if p == "." || !strings.Contains(p, ".") || p == valueMethod {
		return false
	}
	segs := strings.Split(p, ".")
	for _, s := range segs[1:] {
		if s == "size" || isIndex(s) {
			return true
		}
	}
	return false
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// resolve looks a dotted name up in the context the function runs in: the
// first segment through the library (so sections' contexts are searched
// first, like {{name}}), the rest in Go (objects by key, arrays by index or
// "size").
func resolve(render mustache.RenderFunc, path string) (any, bool, error) {
	path = strings.TrimSpace(path)
	if !validKey.MatchString(path) {
		return nil, false, nil
	}
	var first string
	var rest []string
	if path == "." {
		first = valueMethod
	} else {
		segs := strings.Split(path, ".")
		first, rest = segs[0]+"."+valueMethod, segs[1:]
		if segs[0] == "" {
			return nil, false, nil
		}
	}
	js, err := render("{{{" + first + "}}}")
	if err != nil {
		return nil, false, err
	}
	if js == "" {
		return nil, false, nil
	}
	v, ok := decodeJSON(js)
	if !ok {
		return nil, false, nil
	}
	for _, s := range rest {
		switch t := v.(type) {
		case map[string]any:
			x, found := t[s]
			if !found {
				return nil, false, nil
			}
			v = x
		case []any:
			if s == "size" {
				v = json.Number(strconv.Itoa(len(t)))
				continue
			}
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false, nil
			}
			v = t[i]
		default:
			return nil, false, nil
		}
	}
	return v, true, nil
}

// toJSONFunc is {{#toJson}}name{{/toJson}}: objects and arrays as JSON,
// other values as their text (Elasticsearch's ToJsonCode).
func toJSONFunc(text string, render mustache.RenderFunc) (string, error) {
	v, ok, err := resolve(render, text)
	if err != nil || !ok || v == nil {
		return "", err
	}
	switch v.(type) {
	case map[string]any, []any:
		return encodeJSON(v), nil
	}
	return stringify(v), nil
}

// joinFunc is {{#join}}name{{/join}}: an array's values joined with delim;
// for anything else the section's text (Elasticsearch's JoinerCode).
func joinFunc(delim string) mustache.LambdaFunc {
	return func(text string, render mustache.RenderFunc) (string, error) {
		v, ok, err := resolve(render, text)
		if err != nil {
			return "", err
		}
		list, isList := v.([]any)
		if !ok || !isList {
			return text, nil
		}
		parts := make([]string, len(list))
		for i, x := range list {
			parts[i] = stringify(x)
		}
		return strings.Join(parts, delim), nil
	}
}

// pathFunc writes a variable whose path has array indices.
func pathFunc(path string, raw bool) mustache.LambdaFunc {
	return func(_ string, render mustache.RenderFunc) (string, error) {
		v, ok, err := resolve(render, path)
		if err != nil || !ok || v == nil {
			return "", err
		}
		if raw {
			return stringify(v), nil
		}
		return JSONEscape(stringify(v)), nil
	}
}

// urlFunc is {{#url}}...{{/url}}: the section rendered (variables
// JSON-escaped, as everywhere) and then form-encoded.
func urlFunc(text string, render mustache.RenderFunc) (string, error) {
	if partialTag.MatchString(text) {
		return "", scriptError(text, "partials are not supported in search templates")
	}
	// The library re-renders a function's text with HTML escaping: route
	// escaped variables through __esc, which applies the JSON escaping.
	text = escapeVars(text)
	out, err := render(text)
	if err != nil {
		return "", err
	}
	return URLEncode(out), nil
}

// escapeVars rewrites the {{name}} tags of text (not {{{name}}}) into
// {{#__esc}}{{{name}}}{{/__esc}}.
func escapeVars(text string) string {
	var b strings.Builder
	last := 0
	for _, m := range escapedVar.FindAllStringSubmatchIndex(text, -1) {
		start, end := m[0], m[1]
		if (start > 0 && text[start-1] == '{') || (end < len(text) && text[end] == '}') {
			continue // part of a triple mustache
		}
		b.WriteString(text[last:start])
		b.WriteString("{{#__esc}}{{{")
		b.WriteString(text[m[2]:m[3]])
		b.WriteString("}}}{{/__esc}}")
		last = end
	}
	b.WriteString(text[last:])
	return b.String()
}

// escFunc renders its (raw) text and JSON-escapes the result.
func escFunc(text string, render mustache.RenderFunc) (string, error) {
	out, err := render(text)
	if err != nil {
		return "", err
	}
	return JSONEscape(out), nil
}

// checkTriples finds {{{name}} not closed by }}}, which the library would
// otherwise read up to the next "}}}" of the JSON text.
func checkTriples(src string) error {
	if strings.Contains(src, "{{=") {
		return nil // custom delimiters: leave it to the parser
	}
	for i := 0; ; {
		j := strings.Index(src[i:], "{{{")
		if j < 0 {
			return nil
		}
		start := i + j + 3
		k := strings.Index(src[start:], "}}")
		line := strings.Count(src[:start], "\n") + 1
		if k < 0 {
			return scriptError(src, fmt.Sprintf("Improperly closed variable in %s:%d @[%s:%d]", fileName, line, fileName, line))
		}
		end := start + k + 2
		if end >= len(src) || src[end] != '}' {
			name := strings.TrimSpace(src[start : start+k])
			return scriptError(src, fmt.Sprintf("Improperly closed variable: %s in %s:%d @[%s:%d]", name, fileName, line, fileName, line))
		}
		i = end + 1
	}
}

// parseError turns a mustache parse error into Elasticsearch's.
func parseError(source string, err error) error {
	var pe mustache.ParseError
	if !errors.As(err, &pe) {
		return scriptError(source, err.Error())
	}
	var msg string
	switch pe.Code {
	case mustache.ErrSectionNoClosingTag:
		msg = fmt.Sprintf("Failed to close '%s' tag", pe.Reason)
	case mustache.ErrInterleavedClosingTag:
		msg = fmt.Sprintf("Mismatched start/end tags: %s in %s:%d", pe.Reason, fileName, pe.Line)
	case mustache.ErrUnmatchedOpenTag:
		msg = fmt.Sprintf("Improperly closed variable in %s:%d", fileName, pe.Line)
	case mustache.ErrUnmatchedCloseTag:
		msg = fmt.Sprintf("Unexpected close tag in %s:%d", fileName, pe.Line)
	case mustache.ErrEmptyTag:
		msg = fmt.Sprintf("Empty mustache tag in %s:%d", fileName, pe.Line)
	default:
		msg = pe.Error()
	}
	return scriptError(source, fmt.Sprintf("%s @[%s:%d]", msg, fileName, pe.Line))
}

// scriptError is the script_exception of a template that does not compile.
func scriptError(source, reason string) *eserr.Error {
	return eserr.Errorf(eserr.Invalid, "script_exception", "%s", reason).
		With("script_stack", []string{}).With("script", source).With("lang", "mustache")
}
