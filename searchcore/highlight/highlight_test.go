package highlight

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
	"github.com/quarry-search/quarry/searchcore/query"
)

func TestParse(t *testing.T) {
	r, err := Parse(json.RawMessage(`{"tags_schema":"styled","encoder":"html","fragment_size":50,"order":"score",
		"fields":[{"title":{"number_of_fragments":0,"pre_tags":"<x>","post_tags":["</x>"],"type":"plain"}},{"b*":{}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.TagsSchema != "styled" || r.Encoder != "html" || *r.FragmentSize != 50 || r.Order != "score" || len(r.PreTags) != 10 || r.PreTags[9] != `<em class="hlt10">` {
		t.Errorf("global = %+v", r)
	}
	if len(r.Fields) != 2 || r.Fields[0].Name != "title" || *r.Fields[0].NumberOfFragments != 0 || r.Fields[0].PreTags[0] != "<x>" || r.Fields[1].Name != "b*" {
		t.Errorf("fields = %+v", r.Fields)
	}
	o := r.Fields[0].Options.inherit(r.Options)
	if *o.FragmentSize != 50 || *o.NumberOfFragments != 0 || o.PreTags[0] != "<x>" || o.Type != "plain" || o.Order != "score" {
		t.Errorf("inherited = %+v", o)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ body, typ, reason string }{
		{`[]`, "parsing_exception", "[highlight] expected an object but found [START_ARRAY]"},
		{`{"x":1}`, "parsing_exception", "[highlight] unknown field [x]"},
		{`{"fields":{"a":{"x":1}}}`, "parsing_exception", "[highlight_field] unknown field [x]"},
		{`{"fields":{"a":[]}}`, "parsing_exception", "[highlight_field] expected an object but found [START_ARRAY]"},
		{`{"order":"best"}`, "illegal_argument_exception", "No enum constant org.elasticsearch.search.fetch.subphase.highlight.HighlightBuilder.Order.BEST"},
		{`{"boundary_scanner":"line"}`, "illegal_argument_exception", "Invalid boundary_scanner type: [line]"},
		{`{"require_field_match":"yes"}`, "parsing_exception", "[highlight] require_field_match doesn't support values of type: VALUE_STRING"},
		{`{"post_tags":["</b>"],"pre_tags":["<b>"],"fields":{"a":{"number_of_fragments":-2}}}`, "illegal_argument_exception", "[number_of_fragments] must be greater than or equal to 0"},
		{`{"highlight_query":[]}`, "parsing_exception", "[highlight] expected an object but found [START_ARRAY]"},
	}
	for _, tt := range tests {
		_, err := Parse(json.RawMessage(tt.body))
		e, ok := eserr.AsError(err)
		if !ok || e.Type != tt.typ || e.Reason != tt.reason {
			t.Errorf("Parse(%s) = %v, want %s %q", tt.body, err, tt.typ, tt.reason)
		}
	}
}

// FuzzParse checks the option parser never panics and either fails with an
// Elasticsearch-style error or returns fields with names.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"fields":{"a":{}}}`, `{"fields":[{"a":{"type":"plain"}}]}`, `{"pre_tags":["<b>"],"post_tags":["</b>"],"fields":{"*":{"number_of_fragments":0}}}`,
		`{"tags_schema":"styled","encoder":"html","fields":{"x":{"highlight_query":{"match":{"x":"y"}}}}}`, `{"fragment_size":"12"}`, `[]`, `{`, `null`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(json.RawMessage(s))
		if err != nil {
			if _, ok := eserr.AsError(err); !ok {
				t.Fatalf("Parse(%q) error %v is not an eserr.Error", s, err)
			}
			return
		}
		if r.PreTags != nil && r.PostTags == nil {
			t.Fatalf("Parse(%q): pre_tags without post_tags accepted", s)
		}
		for _, fl := range r.Fields {
			if fl.NumberOfFragments != nil && *fl.NumberOfFragments < 0 {
				t.Fatalf("Parse(%q): negative number_of_fragments accepted", s)
			}
		}
	})
}

func TestBreaks(t *testing.T) {
	text := toU16("Hello there. how are you? Fine!\nNext line e.g. this one.  Done")
	if got, want := str(sentenceBreaks(text)), "[0 26 32 58 62]"; got != want {
		t.Errorf("sentences = %s, want %s", got, want)
	}
	if got, want := str(wordBreaks(toU16("it's a-b  c.d"))), "[0 4 5 6 7 8 10 13]"; got != want {
		t.Errorf("words = %s, want %s", got, want)
	}
}

func str(v any) string {
	b, _ := json.Marshal(v)
	return strings.ReplaceAll(string(b), ",", " ")
}

// plan builds a plan over a text field "body" for a query.
func plan(t testing.TB, q, hl string) *Plan {
	t.Helper()
	reg := analysis.Global()
	mp, err := mapping.Parse(json.RawMessage(`{"properties":{"body":{"type":"text"},"kw":{"type":"keyword"}}}`), reg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Parse(json.RawMessage(hl))
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Prepare(json.RawMessage(q), &query.Context{Mapping: mp, Analyzers: reg})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHighlightUnified(t *testing.T) {
	long := "Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega."
	tests := []struct {
		name, q, hl, src, want string
	}{
		{"sentence passages, document order", `{"match":{"body":"two four"}}`, `{"fields":{"body":{"fragment_size":20}}}`,
			`{"body":"One two. Three. Four five six."}`, `{"body":["One <em>two</em>. Three.","<em>Four</em> five six."]}`},
		{"long sentence cut on words", `{"match":{"body":"pi"}}`, `{"fields":{"body":{"fragment_size":30}}}`,
			`{"body":"` + long + `"}`, `{"body":["kappa lambda mu nu xi omicron <em>pi</em>"]}`},
		{"overlapping phrase and term", `{"bool":{"should":[{"match_phrase":{"body":"beta gamma"}},{"match":{"body":"gamma"}}]}}`, `{"fields":{"body":{}}}`,
			`{"body":"alpha beta gamma, gamma beta"}`, `{"body":["alpha <em>beta</em> <em>gamma</em>, <em>gamma</em> beta"]}`},
		{"phrase prefix", `{"match_phrase_prefix":{"body":"beta ga"}}`, `{"fields":{"body":{}}}`,
			`{"body":"beta gamma beta delta"}`, `{"body":["<em>beta</em> <em>gamma</em> beta delta"]}`},
		{"regexp", `{"regexp":{"body":"g.m+a"}}`, `{"fields":{"body":{}}}`, `{"body":"gamma gama"}`, `{"body":["<em>gamma</em> <em>gama</em>"]}`},
		{"keyword whole value", `{"term":{"kw":"A b"}}`, `{"fields":{"kw":{}}}`, `{"kw":["A b","c"]}`, `{"kw":["<em>A b</em>"]}`},
		{"boundary_scanner word", `{"match":{"body":"beta delta"}}`, `{"fields":{"body":{"boundary_scanner":"word"}}}`,
			`{"body":"alpha beta gamma. delta"}`, `{"body":["<em>beta</em>","<em>delta</em>"]}`},
		{"fragment_size 0 is one sentence per passage", `{"match":{"body":"one three"}}`, `{"fields":{"body":{"fragment_size":0}}}`,
			`{"body":"One two. Three four. Five"}`, `{"body":["<em>One</em> two.","<em>Three</em> four."]}`},
		{"no match, no fragment", `{"match":{"body":"zzz"}}`, `{"fields":{"body":{}}}`, `{"body":"abc"}`, `{}`},
		{"surrogate pairs keep offsets", `{"match":{"body":"b"}}`, `{"fields":{"body":{}}}`, `{"body":"😀 a b"}`, `{"body":["😀 a <em>b</em>"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := plan(t, tt.q, tt.hl).Highlight([]byte(tt.src), "1")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(got)
			if s := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(string(b)); s != tt.want {
				t.Errorf("got %s\nwant %s", s, tt.want)
			}
		})
	}
}

// FuzzHighlight runs the unified and plain highlighters over arbitrary
// text: they never panic and every fragment, tags removed, is a piece of
// one value.
func FuzzHighlight(f *testing.F) {
	f.Add("The quick brown fox. Jumps! over\nthe lazy dog", 10, 2)
	f.Add("a a a a a a a a a a a a a", 1, 0)
	f.Add("😀 a. b? c! a", 3, 1)
	f.Fuzz(func(t *testing.T, text string, size, frags int) {
		if size < 0 || size > 500 || frags < 0 || frags > 10 || !utf8.ValidString(text) {
			return
		}
		src, _ := json.Marshal(map[string]any{"body": []string{text, "a " + text}})
		for _, typ := range []string{"unified", "plain"} {
			hl := fmt.Sprintf(`{"type":%q,"fields":{"body":{"fragment_size":%d,"number_of_fragments":%d,"no_match_size":5}}}`, typ, size, frags)
			p := plan(t, `{"bool":{"should":[{"match":{"body":"a"}},{"match_phrase":{"body":"a b"}},{"prefix":{"body":"q"}}]}}`, hl)
			out, err := p.Highlight(src, "1")
			if err != nil {
				t.Fatal(err)
			}
			for _, fr := range out["body"] {
				plain := strings.NewReplacer("<em>", "", "</em>", "").Replace(fr)
				if !strings.Contains(text, plain) && !strings.Contains("a "+text, plain) {
					t.Fatalf("%s fragment %q is not in the values", typ, fr)
				}
			}
		}
	})
}
