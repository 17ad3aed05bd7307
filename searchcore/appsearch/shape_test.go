package appsearch

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quarry-search/quarry/searchcore/analysis"
)

func TestSnippets(t *testing.T) {
	a, err := analysis.Global().Analyzer("standard")
	if err != nil {
		t.Fatal(err)
	}
	sh := &shaper{c: &Context{}, terms: []string{"Fox", "\"quick brown\""}}
	cases := []struct {
		name string
		v    any
		opts SnippetOptions
		want any
	}{
		{"match", "The quick brown fox", SnippetOptions{Size: 100}, "The <em>quick</em> <em>brown</em> <em>fox</em>"},
		{"escaped", `<b>Fox</b> & "friends"`, SnippetOptions{Size: 100}, "&lt;b&gt;<em>Fox</em>&lt;/b&gt; &amp; &#34;friends&#34;"},
		{"window", "Lorem ipsum dolor sit amet, consectetur adipiscing elit, the fox jumps over everything else here", SnippetOptions{Size: 20},
			"the <em>fox</em> jumps over"},
		{"multibyte", "Ça va, le fox? très bien", SnippetOptions{Size: 12}, "<em>fox</em>? très"},
		{"multibyte start", "très fox", SnippetOptions{Size: 100}, "très <em>fox</em>"},
		{"no match", "nothing here", SnippetOptions{Size: 100}, nil},
		{"fallback", "nothing <here>", SnippetOptions{Size: 10, Fallback: true}, "nothing &lt;h"},
		{"array: first matching element", []any{"no", "a fox", "fox again"}, SnippetOptions{Size: 100}, "a <em>fox</em>"},
		{"array fallback", []any{"one", "two"}, SnippetOptions{Size: 100, Fallback: true}, "one"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := sh.snippet(tc.v, &tc.opts); got != tc.want {
				t.Errorf("snippet = %#v, want %#v", got, tc.want)
			}
		})
	}
	if _, ok := highlight("fox", a, map[string]bool{}, 10); ok {
		t.Error("highlight without terms matched")
	}
}

func TestRawValues(t *testing.T) {
	cases := []struct {
		v    any
		t    FieldType
		rev  Revision
		size int
		want string
	}{
		{json.Number("1985"), Number, RevisionLater, 0, `1985.0`},
		{json.Number("0.30000000000000004"), Number, RevisionEarlier, 0, `0.30000000000000004`},
		{json.Number("0.30000000000000004"), Number, RevisionLater, 0, `0.3`},
		{"12", Number, RevisionLater, 0, `12.0`},
		{"abc", Number, RevisionLater, 0, `"abc"`},
		{"1995-12-15T10:00:00Z", Date, RevisionLater, 0, `"1995-12-15T10:00:00+00:00"`},
		{[]any{json.Number("1"), "two", nil}, Text, RevisionLater, 0, `["1","two",null]`},
		{"abcdefghijklmnopqrstuvwxyz", Text, RevisionLater, 20, `"abcdefghijklmnopqrst"`},
		{"40.1,-70.2", Geolocation, RevisionLater, 0, `"40.1,-70.2"`},
		{nil, Text, RevisionLater, 0, `null`},
	}
	for _, tc := range cases {
		b, err := json.Marshal(rawValue(tc.v, tc.t, tc.rev, tc.size))
		if err != nil || string(b) != tc.want {
			t.Errorf("rawValue(%#v, %s, %s) = %s (%v), want %s", tc.v, tc.t, tc.rev, b, err, tc.want)
		}
	}
}

func FuzzSnippet(f *testing.F) {
	f.Add("The quick brown fox", "fox", 20)
	f.Add("Ça va, le fox? très bien <b>", "très", 5)
	f.Fuzz(func(t *testing.T, text, term string, size int) {
		if size < 1 || size > 2000 {
			return
		}
		sh := &shaper{c: &Context{}, terms: []string{term}}
		got := sh.snippet(text, &SnippetOptions{Size: size, Fallback: true})
		s, ok := got.(string)
		if !ok {
			if text != "" || got != nil {
				t.Fatalf("snippet(%q, %q) = %#v", text, term, got)
			}
			return
		}
		if strings.ContainsAny(strings.NewReplacer("<em>", "", "</em>", "").Replace(s), "<>") {
			t.Fatalf("snippet(%q, %q) = %q is not escaped", text, term, s)
		}
	})
}
