package template

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// render compiles src, renders it with the JSON params and fails the test
// on any error.
func render(t *testing.T, src, params string) string {
	t.Helper()
	tm, err := Compile(src)
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	p, err := DecodeParams([]byte(params))
	if err != nil {
		t.Fatalf("DecodeParams(%q): %v", params, err)
	}
	out, err := tm.Render(p)
	if err != nil {
		t.Fatalf("Render(%q, %s): %v", src, params, err)
	}
	return out
}

func TestRenderVariables(t *testing.T) {
	tests := []struct {
		name, src, params, want string
	}{
		{"plain", `{{a}}`, `{"a":"x"}`, `x`},
		{"missing is empty", `[{{a}}]`, `{}`, `[]`},
		{"null is empty", `[{{a}}]`, `{"a":null}`, `[]`},
		{"quotes", `"{{a}}"`, `{"a":"he said \"hi\""}`, `"he said \"hi\""`},
		{"backslash", `"{{a}}"`, `{"a":"C:\\dir\\file"}`, `"C:\\dir\\file"`},
		{"newline tab cr", `"{{a}}"`, `{"a":"l1\nl2\tt\rr"}`, `"l1\nl2\tt\rr"`},
		{"backspace formfeed", `"{{a}}"`, `{"a":"\b\f"}`, `"\b\f"`},
		{"other control chars", `"{{a}}"`, `{"a":"\u0001\u001f"}`, `"\u0001\u001F"`},
		{"unicode kept", `"{{a}}"`, `{"a":"héllo wörld 日本 🎉"}`, `"héllo wörld 日本 🎉"`},
		{"escaped unicode input", `"{{a}}"`, `{"a":"\u00e9\u2028"}`, "\"é\u2028\""},
		{"html not escaped", `"{{a}}"`, `{"a":"<b>&'"}`, `"<b>&'"`},
		{"slash kept", `"{{a}}"`, `{"a":"a/b"}`, `"a/b"`},
		{"triple is raw", `{{{a}}}`, `{"a":"say \"x\"\n"}`, "say \"x\"\n"},
		{"ampersand is raw", `{{&a}}`, `{"a":"\"q\""}`, `"q"`},
		{"big integer", `{{n}}`, `{"n":1000000}`, `1000000`},
		{"huge integer", `{{n}}`, `{"n":123456789012345678901234567890}`, `123456789012345678901234567890`},
		{"float literal", `{{n}}`, `{"n":1.50}`, `1.50`},
		{"exponent literal", `{{n}}`, `{"n":1e6}`, `1e6`},
		{"negative", `{{n}}`, `{"n":-0.001}`, `-0.001`},
		{"bool", `{{b}}/{{c}}`, `{"b":true,"c":false}`, `true/false`},
		{"dotted names", `{{a.b.c}}`, `{"a":{"b":{"c":"deep"}}}`, `deep`},
		{"dotted missing", `[{{a.x.c}}]`, `{"a":{"b":1}}`, `[]`},
		{"array index", `{{list.0}}-{{list.2}}`, `{"list":["a","b","c"]}`, `a-c`},
		{"array index of objects", `{{list.1.name}}`, `{"list":[{"name":"x"},{"name":"y"}]}`, `y`},
		{"array index escaped", `"{{list.0}}"`, `{"list":["a\"b"]}`, `"a\"b"`},
		{"array index raw", `{{{list.0}}}`, `{"list":["a\"b"]}`, `a"b`},
		{"array index out of range", `[{{list.5}}]`, `{"list":["a"]}`, `[]`},
		{"array size", `{{list.size}}`, `{"list":[1,2,3]}`, `3`},
		{"object key named size", `{{o.size}}`, `{"o":{"size":7}}`, `7`},
		{"object as Java map", `{{o}}`, `{"o":{"b":2,"a":"x"}}`, `{a=x, b=2}`},
		{"array as Elasticsearch index map", `{{l}}`, `{"l":["x","y"]}`, `{0=x, 1=y}`},
		{"number in string", `{"size":"{{n}}"}`, `{"n":20}`, `{"size":"20"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(t, tc.src, tc.params); got != tc.want {
				t.Errorf("render = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRenderSections(t *testing.T) {
	tests := []struct {
		name, src, params, want string
	}{
		{"default when missing", `{{size}}{{^size}}10{{/size}}`, `{}`, `10`},
		{"default not used", `{{size}}{{^size}}10{{/size}}`, `{"size":25}`, `25`},
		{"default for empty string", `{{s}}{{^s}}none{{/s}}`, `{"s":""}`, `none`},
		{"default for false", `{{^b}}off{{/b}}`, `{"b":false}`, `off`},
		{"conditional true", `{{#b}}on{{/b}}`, `{"b":true}`, `on`},
		{"conditional false", `[{{#b}}on{{/b}}]`, `{"b":false}`, `[]`},
		{"conditional missing", `[{{#b}}on{{/b}}]`, `{}`, `[]`},
		{"object section", `{{#o}}{{x}}/{{y}}{{/o}}`, `{"o":{"x":1,"y":"z"}}`, `1/z`},
		{"array section", `{{#l}}<{{n}}>{{/l}}`, `{"l":[{"n":1},{"n":2}]}`, `<1><2>`},
		{"dot in array section", `{{#l}}{{.}},{{/l}}`, `{"l":["a","b"]}`, `a,b,`},
		{"dot escaped", `{{#l}}"{{.}}"{{/l}}`, `{"l":["q\"x"]}`, `"q\"x"`},
		{"outer variable in section", `{{#l}}{{sep}}{{.}}{{/l}}`, `{"l":[1,2],"sep":"-"}`, `-1-2`},
		{"empty array is false", `[{{#l}}x{{/l}}]{{^l}}empty{{/l}}`, `{"l":[]}`, `[]empty`},
		{"nested sections", `{{#a}}{{#b}}{{c}}{{/b}}{{/a}}`, `{"a":{"b":{"c":"in"}}}`, `in`},
		{"comment", `a{{! note }}b`, `{}`, `ab`},
		{"clauses with last", `[{{#terms}}{"term":{"t":"{{.}}"}}{{/terms}}]`, `{"terms":["x"]}`, `[{"term":{"t":"x"}}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(t, tc.src, tc.params); got != tc.want {
				t.Errorf("render = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRenderFunctions(t *testing.T) {
	tests := []struct {
		name, src, params, want string
	}{
		{"toJson array", `{{#toJson}}tags{{/toJson}}`, `{"tags":["a","b","c"]}`, `["a","b","c"]`},
		{"toJson object", `{{#toJson}}q{{/toJson}}`, `{"q":{"match":{"f":"v \"q\""}}}`, `{"match":{"f":"v \"q\""}}`},
		{"toJson keeps numbers", `{{#toJson}}n{{/toJson}}`, `{"n":[1000000,1.50,1e6]}`, `[1000000,1.50,1e6]`},
		{"toJson no html escaping", `{{#toJson}}l{{/toJson}}`, `{"l":["<&>"]}`, `["<&>"]`},
		{"toJson scalar is text", `{{#toJson}}s{{/toJson}}`, `{"s":"plain"}`, `plain`},
		{"toJson missing is empty", `[{{#toJson}}nope{{/toJson}}]`, `{}`, `[]`},
		{"toJson dotted", `{{#toJson}}a.b{{/toJson}}`, `{"a":{"b":[1,2]}}`, `[1,2]`},
		{"toJson array index", `{{#toJson}}a.1{{/toJson}}`, `{"a":[{"x":1},{"y":2}]}`, `{"y":2}`},
		{"toJson in section context", `[{{#l}}{{#toJson}}.{{/toJson}},{{/l}}0]`, `{"l":[{"a":1},[2]]}`, `[{"a":1},[2],0]`},
		{"toJson relative name", `{{#outer}}{{#toJson}}inner{{/toJson}}{{/outer}}`, `{"outer":{"inner":["x"]}}`, `["x"]`},
		{"toJson case-insensitive", `{{#tojson}}l{{/tojson}}`, `{"l":[1]}`, `[1]`},
		{"toJson whitespace around name", `{{#toJson}} l {{/toJson}}`, `{"l":[1]}`, `[1]`},
		{"join default", `{{#join}}tags{{/join}}`, `{"tags":["a","b","c"]}`, `a,b,c`},
		{"join numbers", `{{#join}}n{{/join}}`, `{"n":[1,2000000,3.5]}`, `1,2000000,3.5`},
		{"join delimiter", `{{#join delimiter='||'}}tags{{/join delimiter='||'}}`, `{"tags":["a","b"]}`, `a||b`},
		{"join delimiter with dots", `{{#join delimiter='. '}}tags{{/join delimiter='. '}}`, `{"tags":["a","b"]}`, `a. b`},
		{"join two delimiters", `{{#join delimiter=' '}}a{{/join delimiter=' '}}|{{#join delimiter='-'}}a{{/join delimiter='-'}}`, `{"a":["x","y"]}`, `x y|x-y`},
		{"join is not escaped", `{{#join}}l{{/join}}`, `{"l":["a\"b"]}`, `a"b`},
		{"join of non-array is the text", `{{#join}}s{{/join}}`, `{"s":"x"}`, `s`},
		{"join in section", `{{#o}}{{#join}}l{{/join}}{{/o}}`, `{"o":{"l":[1,2]}}`, `1,2`},
		{"url", `{{#url}}{{q}}{{/url}}`, `{"q":"a b&c=d/é"}`, `a+b%26c%3Dd%2F%C3%A9`},
		{"url java safe chars", `{{#url}}{{q}}{{/url}}`, `{"q":".-*_~"}`, `.-*_%7E`},
		{"url json-escapes first", `{{#url}}{{q}}{{/url}}`, `{"q":"\"x\""}`, `%5C%22x%5C%22`},
		{"url raw variable", `{{#url}}{{{q}}}{{/url}}`, `{"q":"\"x\""}`, `%22x%22`},
		{"url literal text", `{{#url}}a b {{q}}{{/url}}`, `{"q":"c"}`, `a+b+c`},
		{"url index path", `{{#url}}{{l.0}}{{/url}}`, `{"l":["a b"]}`, `a+b`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(t, tc.src, tc.params); got != tc.want {
				t.Errorf("render = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRenderSearchTemplates(t *testing.T) {
	// Whole templates as users write them; the output must be JSON.
	tests := []struct {
		name, src, params, want string
	}{
		{"size default",
			`{"query":{"match":{"{{field}}":"{{value}}"}},"size":{{size}}{{^size}}10{{/size}}}`,
			`{"field":"title","value":"a \"b\""}`,
			`{"query":{"match":{"title":"a \"b\""}},"size":10}`},
		{"terms with toJson",
			`{"query":{"terms":{"tag":{{#toJson}}tags{{/toJson}}}}}`,
			`{"tags":["x","y"]}`,
			`{"query":{"terms":{"tag":["x","y"]}}}`},
		{"optional range",
			`{"query":{"bool":{"filter":[{"match_all":{}}{{#from}},{"range":{"d":{"gte":"{{from}}"}}}{{/from}}]}}}`,
			`{"from":"2020-01-01"}`,
			`{"query":{"bool":{"filter":[{"match_all":{}},{"range":{"d":{"gte":"2020-01-01"}}}]}}}`},
		{"optional range absent",
			`{"query":{"bool":{"filter":[{"match_all":{}}{{#from}},{"range":{"d":{"gte":"{{from}}"}}}{{/from}}]}}}`,
			`{}`,
			`{"query":{"bool":{"filter":[{"match_all":{}}]}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, tc.src, tc.params)
			if got != tc.want {
				t.Errorf("render = %s, want %s", got, tc.want)
			}
			if err := CheckJSON(got); err != nil {
				t.Errorf("CheckJSON: %v", err)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("output is not valid JSON: %s", got)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, src, reason string
	}{
		{"unclosed triple", `{"a":"{{{x}}"}`, "Improperly closed variable: x in query-template:1"},
		{"unclosed triple at end", `{{{x}}`, "Improperly closed variable: x in query-template:1"},
		{"unclosed section", "{\n{{#a}}x", "Failed to close 'a' tag"},
		{"mismatched close", `{{#a}}x{{/b}}`, "Mismatched start/end tags"},
		{"stray close", `x{{/b}}`, "Unexpected close tag"},
		{"unterminated tag", `x {{a`, "Improperly closed variable in query-template:1"},
		{"partial", `{{> /etc/passwd}}`, "partials are not supported"},
		{"partial in section", `{{#a}}{{>x}}{{/a}}`, "partials are not supported"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.src)
			e, ok := err.(*eserr.Error)
			if !ok {
				t.Fatalf("Compile(%q) error = %v, want *eserr.Error", tc.src, err)
			}
			if e.Type != "script_exception" || e.Code != eserr.Invalid {
				t.Errorf("type = %s (code %d), want script_exception (400)", e.Type, e.Code)
			}
			if !strings.Contains(e.Reason, tc.reason) {
				t.Errorf("reason = %q, want it to contain %q", e.Reason, tc.reason)
			}
		})
	}
}

func TestSandboxNoFileAccess(t *testing.T) {
	// A partial hidden from the compiler by custom delimiters, re-parsed by
	// a function, must not be read either.
	tm, err := Compile("{{=<% %>=}}<%#url%>{{>/etc/passwd}}<%/url%>")
	if err != nil {
		return // refused at compile time: fine
	}
	out, err := tm.Render(map[string]any{})
	if err == nil && strings.Contains(out, "root") {
		t.Fatalf("template read a file: %q", out)
	}
}

func TestCheckJSON(t *testing.T) {
	tests := []struct {
		name, doc, typ, reason string
	}{
		{"valid", `{"a":[1,-2.5e3,"x",true,false,null,{}]}`, "", ""},
		{"valid with trailing text", `{"a":1} trailing`, "", ""},
		{"empty", ``, "", ""},
		{"cut in object", `{"query": {"match": {`, "json_e_o_f_exception", "Unexpected end-of-input: expected close marker for Object"},
		{"cut in array", `{"a":[1,2`, "json_e_o_f_exception", "expected close marker for Array"},
		{"cut in string", `{"a":"x`, "json_e_o_f_exception", "was expecting closing quote"},
		{"missing colon", `{"a" 1}`, "json_parse_exception", "was expecting a colon to separate field name and value"},
		{"missing comma", `{"a":1 "b":2}`, "json_parse_exception", "was expecting comma to separate Object entries"},
		{"array missing comma", `[1 2]`, "json_parse_exception", "was expecting comma to separate Array entries"},
		{"trailing comma in object", `{"a":1,}`, "json_parse_exception", "was expecting double-quote to start field name"},
		{"trailing comma in array", `[1,]`, "json_parse_exception", "expected a value"},
		{"bad token", `{"a":tru}`, "json_parse_exception", "Unrecognized token 'tru'"},
		{"unquoted value", `{"a":abc}`, "json_parse_exception", "Unrecognized token 'abc'"},
		{"raw newline in string", "{\"a\":\"x\ny\"}", "json_parse_exception", "Illegal unquoted character ((CTRL-CHAR, code 10))"},
		{"bad escape", `{"a":"\x"}`, "json_parse_exception", "Unrecognized character escape 'x' (code 120)"},
		{"leading zero", `{"a":01}`, "json_parse_exception", "Leading zeroes not allowed"},
		{"unexpected char", `{"a":@}`, "json_parse_exception", "Unexpected character ('@' (code 64))"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckJSON(tc.doc)
			if tc.typ == "" {
				if err != nil {
					t.Fatalf("CheckJSON(%q) = %v, want nil", tc.doc, err)
				}
				return
			}
			e, ok := err.(*eserr.Error)
			if !ok {
				t.Fatalf("CheckJSON(%q) = %v, want %s", tc.doc, err, tc.typ)
			}
			if e.Type != tc.typ || e.Code != eserr.Invalid {
				t.Errorf("type = %s, want %s", e.Type, tc.typ)
			}
			if !strings.Contains(e.Reason, tc.reason) {
				t.Errorf("reason = %q, want it to contain %q", e.Reason, tc.reason)
			}
			if !strings.Contains(e.Reason, "line: 1, column:") {
				t.Errorf("reason = %q lacks the location", e.Reason)
			}
		})
	}
}

func TestCompleteMembers(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`{"query": {"unknown": {} }`, `{"query": {"unknown": {} }}`},
		{`{"a":1,"b":{`, `{"a":1}`},
		{`{"a":`, `{}`},
		{`{`, `{}`},
	}
	for _, tc := range tests {
		got, ok := CompleteMembers(tc.doc)
		if !ok || got != tc.want {
			t.Errorf("CompleteMembers(%q) = %q, %v; want %q", tc.doc, got, ok, tc.want)
		}
	}
	if _, ok := CompleteMembers(`[1,`); ok {
		t.Errorf("CompleteMembers of an array: ok, want not ok")
	}
}

func TestEscapers(t *testing.T) {
	if got, want := JSONEscape("a\"b\\c\n\u0000é"), `a\"b\\c\n\u0000é`; got != want {
		t.Errorf("JSONEscape = %q, want %q", got, want)
	}
	if got, want := URLEncode("a b+c/d?e=f&g~h*i"), "a+b%2Bc%2Fd%3Fe%3Df%26g%7Eh*i"; got != want {
		t.Errorf("URLEncode = %q, want %q", got, want)
	}
}

func TestDecodeParams(t *testing.T) {
	p, err := DecodeParams([]byte(`{"n":1000000,"f":0.1}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p["n"].(json.Number); !ok {
		t.Errorf("n decoded as %T, want json.Number", p["n"])
	}
	if p, err := DecodeParams(nil); err != nil || len(p) != 0 {
		t.Errorf("DecodeParams(nil) = %v, %v", p, err)
	}
	if _, err := DecodeParams([]byte(`[1]`)); err == nil {
		t.Errorf("DecodeParams([1]) succeeded, want an error")
	}
}

func TestConcurrentRender(t *testing.T) {
	tm, err := Compile(`{"q":"{{q}}","t":{{#toJson}}t{{/toJson}},"j":"{{#join delimiter='.'}}t{{/join delimiter='.'}}"}`)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			q := strings.Repeat("x", i)
			out, err := tm.Render(map[string]any{"q": q, "t": []any{q, "z"}})
			want := `{"q":"` + q + `","t":["` + q + `","z"],"j":"` + q + `.z"}`
			if err != nil || out != want {
				t.Errorf("goroutine %d: %q, %v; want %q", i, out, err, want)
			}
		}(i)
	}
	wg.Wait()
}

func FuzzRender(f *testing.F) {
	f.Add(`{"a":"{{a}}","b":{{#toJson}}b{{/toJson}}}`, `{"a":"x","b":[1]}`)
	f.Add(`{{#join delimiter='.'}}l{{/join delimiter='.'}}{{l.0}}`, `{"l":["x"]}`)
	f.Add(`{{#url}}{{q}}{{/url}}{{{r}}}`, `{"q":"a b","r":"\""}`)
	f.Fuzz(func(t *testing.T, src, params string) {
		tm, err := Compile(src)
		if err != nil {
			return
		}
		p, err := DecodeParams([]byte(params))
		if err != nil {
			return
		}
		out, err := tm.Render(p)
		if err == nil {
			_ = CheckJSON(out)
		}
	})
}
