package analysis_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

func terms(t *testing.T, reg *analysis.Registry, name, text string) []string {
	t.Helper()
	toks, err := reg.Analyze(name, text)
	if err != nil {
		t.Fatalf("Analyze(%q): %v", name, err)
	}
	out := []string{}
	for _, tk := range toks {
		out = append(out, tk.Token)
	}
	return out
}

const settings = `{
  "char_filter": {
    "amp": {"type": "mapping", "mappings": ["& => and", ":) => happy"]},
    "digits": {"type": "pattern_replace", "pattern": "(\\d+)-(\\d+)", "replacement": "$1$2"}
  },
  "tokenizer": {
    "grams": {"type": "ngram", "min_gram": 2, "max_gram": 3, "token_chars": ["letter"]},
    "edge": {"type": "edge_ngram", "min_gram": 1, "max_gram": 4, "token_chars": ["letter", "digit"]},
    "comma": {"type": "pattern", "pattern": ","},
    "short": {"type": "standard", "max_token_length": 3}
  },
  "filter": {
    "my_stop": {"type": "stop", "stopwords": ["foo", "bar"]},
    "en_stop": {"type": "stop", "stopwords": "_english_"},
    "len": {"type": "length", "min": 2, "max": 4},
    "stem": {"type": "stemmer", "language": "english"},
    "snow": {"type": "snowball", "language": "French"},
    "sh": {"type": "shingle", "min_shingle_size": 2, "max_shingle_size": 2},
    "syn": {"type": "synonym", "synonyms": ["quick, fast", "tv => television"]},
    "fold": {"type": "asciifolding", "preserve_original": true},
    "trunc": {"type": "truncate", "length": 3}
  },
  "analyzer": {
    "folded": {"type": "custom", "tokenizer": "standard", "filter": ["lowercase", "asciifolding"]},
    "chars": {"tokenizer": "whitespace", "char_filter": ["amp", "digits", "html_strip"], "filter": ["lowercase"]},
    "grams": {"tokenizer": "grams"},
    "edge": {"tokenizer": "edge", "filter": ["lowercase"]},
    "comma": {"tokenizer": "comma", "filter": ["trim"]},
    "short": {"tokenizer": "short"},
    "stops": {"tokenizer": "standard", "filter": ["lowercase", "my_stop", "en_stop"]},
    "len": {"tokenizer": "whitespace", "filter": ["len"]},
    "stem": {"tokenizer": "standard", "filter": ["lowercase", "stem"]},
    "sh": {"tokenizer": "whitespace", "filter": ["sh"]},
    "syn": {"tokenizer": "whitespace", "filter": ["lowercase", "syn"]},
    "fold": {"tokenizer": "whitespace", "filter": ["fold"]},
    "trunc": {"tokenizer": "whitespace", "filter": ["trunc", "unique", "reverse"]},
    "std_stop": {"type": "standard", "stopwords": "_english_"},
    "pat": {"type": "pattern", "pattern": "\\s+", "lowercase": false},
    "my_stop_an": {"type": "stop", "stopwords": ["x"]},
    "upper": {"tokenizer": "keyword", "filter": ["uppercase"]},
    "french_snow": {"tokenizer": "standard", "filter": ["lowercase", "snow"]}
  },
  "normalizer": {
    "lower_fold": {"type": "custom", "filter": ["lowercase", "asciifolding"]}
  }
}`

func TestAnalyzers(t *testing.T) {
	reg, err := analysis.NewRegistry(json.RawMessage(settings))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		analyzer, text string
		want           []string
	}{
		{"", "The Quick BROWN fox's", []string{"the", "quick", "brown", "fox's"}},
		{"standard", "The 2 QUICK brown-foxes jumped over the lazy dog's bone.", []string{"the", "2", "quick", "brown", "foxes", "jumped", "over", "the", "lazy", "dog's", "bone"}},
		{"english", "The quick foxes are jumping over Steve's lazy dogs", []string{"quick", "fox", "jump", "over", "steve", "lazi", "dog"}},
		{"simple", "Hello World-2x", []string{"hello", "world", "x"}},
		{"whitespace", "Hello World-2x", []string{"Hello", "World-2x"}},
		{"keyword", "Hello World", []string{"Hello World"}},
		{"stop", "The Quick and the dead", []string{"quick", "dead"}},
		{"french", "les chevaux", []string{"cheval"}},
		{"folded", "Déjà Vu Ærø", []string{"deja", "vu", "aero"}},
		{"chars", "Tom & <b>Jerry</b> 12-34 :)", []string{"tom", "and", "jerry", "1234", "happy"}},
		{"grams", "abcd ef", []string{"ab", "abc", "bc", "bcd", "cd", "ef"}},
		{"edge", "Quick 42", []string{"q", "qu", "qui", "quic", "4", "42"}},
		{"comma", "a b, c ,d", []string{"a b", "c", "d"}},
		{"short", "abcdefg hi", []string{"abc", "def", "g", "hi"}},
		{"stops", "foo the bar baz", []string{"baz"}},
		{"len", "a ab abcde abcd", []string{"ab", "abcd"}},
		{"stem", "running jumps", []string{"run", "jump"}},
		{"sh", "a b c", []string{"a", "a b", "b", "b c", "c"}},
		{"syn", "quick tv", []string{"quick", "fast", "television"}},
		{"fold", "café", []string{"café", "cafe"}},
		{"trunc", "abcdef abcxyz hello", []string{"cba", "leh"}},
		{"std_stop", "The best of the rest", []string{"best", "rest"}},
		{"pat", "Foo  Bar", []string{"Foo", "Bar"}},
		{"my_stop_an", "x Y z", []string{"y", "z"}},
		{"upper", "mixed Case", []string{"MIXED CASE"}},
		{"cjk", "日本語", []string{"日本", "本語"}},
		{"german", "Häuser", []string{"haus"}},
	}
	for _, tc := range tests {
		t.Run(tc.analyzer+"/"+tc.text, func(t *testing.T) {
			if got := terms(t, reg, tc.analyzer, tc.text); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("tokens = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAnalyzeOffsetsAndPositions(t *testing.T) {
	toks, err := analysis.Global().Analyze("english", "the héros jumped")
	if err != nil {
		t.Fatal(err)
	}
	want := []analysis.Token{
		{Token: "héro", StartOffset: 4, EndOffset: 9, Type: "<ALPHANUM>", Position: 1},
		{Token: "jump", StartOffset: 10, EndOffset: 16, Type: "<ALPHANUM>", Position: 2},
	}
	if !reflect.DeepEqual(toks, want) {
		t.Errorf("got %+v, want %+v", toks, want)
	}
}

func TestBuiltinLanguages(t *testing.T) {
	for _, name := range []string{"arabic", "cjk", "danish", "dutch", "english", "finnish", "french", "german",
		"hungarian", "italian", "norwegian", "portuguese", "romanian", "russian", "spanish", "swedish", "turkish",
		"persian", "hindi", "sorani", "catalan", "czech", "greek", "irish", "basque", "bulgarian", "galician",
		"armenian", "indonesian", "fingerprint", "pattern"} {
		if _, err := analysis.Global().Analyzer(name); err != nil {
			t.Errorf("Analyzer(%q): %v", name, err)
		}
	}
}

func TestAnalyzerInstancesShared(t *testing.T) {
	reg, err := analysis.NewRegistry(json.RawMessage(settings))
	if err != nil {
		t.Fatal(err)
	}
	a1, _ := reg.Analyzer("folded")
	a2, _ := reg.Analyzer("folded")
	s1, _ := reg.Analyzer("standard")
	s2, _ := analysis.Global().Analyzer("standard")
	if a1 != a2 || s1 != s2 {
		t.Error("analyzers are rebuilt per lookup")
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				toks, _ := reg.Analyze("stops", "foo The Quick bar brown")
				if len(toks) != 2 {
					t.Errorf("concurrent analyze gave %d tokens", len(toks))
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestNormalizer(t *testing.T) {
	reg, err := analysis.NewRegistry(json.RawMessage(settings))
	if err != nil {
		t.Fatal(err)
	}
	n, err := reg.Normalizer("lower_fold")
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Normalize("Crème BRÛLÉE"); got != "creme brulee" {
		t.Errorf("Normalize = %q", got)
	}
	l, err := reg.Normalizer("lowercase")
	if err != nil || l.Normalize("ABC Def") != "abc def" {
		t.Errorf("lowercase normalizer: %v", err)
	}
	if _, err := reg.Normalizer("nope"); err == nil {
		t.Error("unknown normalizer accepted")
	}
}

func TestSearchAnalyzer(t *testing.T) {
	reg, err := analysis.NewRegistry(json.RawMessage(`{"analyzer":{"default_search":{"type":"keyword"},"default":{"type":"simple"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	def, _ := reg.Analyzer("")
	simple, _ := reg.Analyzer("default")
	if def != simple {
		t.Error(`"" should resolve to the configured default analyzer`)
	}
	sa, _ := reg.SearchAnalyzer("", "")
	kw, _ := reg.Analyzer("default_search")
	if sa != kw {
		t.Error("default_search not used")
	}
	eng, _ := reg.SearchAnalyzer("english", "")
	want, _ := reg.Analyzer("english")
	if eng != want {
		t.Error("field analyzer not used at search time")
	}
}

func TestRegistryErrors(t *testing.T) {
	tests := []struct {
		settings, typ, reason string
	}{
		{`{"analyzer":{"a":{"type":"foo"}}}`, "illegal_argument_exception", "Unknown analyzer type [foo] for [a]"},
		{`{"analyzer":{"a":{"filter":["lowercase"]}}}`, "illegal_argument_exception", "analyzer [a] must specify either an analyzer type, or a tokenizer"},
		{`{"analyzer":{"x":{"type":"custom","tokenizer":"y"}}}`, "illegal_argument_exception", "Custom Analyzer [x] failed to find tokenizer under name [y]"},
		{`{"analyzer":{"x":{"tokenizer":"standard","filter":["nope"]}}}`, "illegal_argument_exception", "Custom Analyzer [x] failed to find filter under name [nope]"},
		{`{"analyzer":{"x":{"tokenizer":"standard","char_filter":["nope"]}}}`, "illegal_argument_exception", "Custom Analyzer [x] failed to find char_filter under name [nope]"},
		{`{"tokenizer":{"t":{"type":"bogus"}}}`, "illegal_argument_exception", "Unknown tokenizer type [bogus] for [t]"},
		{`{"filter":{"f":{"type":"bogus"}}}`, "illegal_argument_exception", "Unknown filter type [bogus] for [f]"},
		{`{"char_filter":{"c":{"type":"bogus"}}}`, "illegal_argument_exception", "Unknown char_filter type [bogus] for [c]"},
		{`{"normalizer":{"n":{"type":"custom","filter":["stop"]}}}`, "illegal_argument_exception", "Custom normalizer [n] may not use filter [stop]"},
		{`{"filter":{"f":{"type":"stemmer","language":"klingon"}}}`, "illegal_argument_exception", "Unknown stemmer language [klingon] for filter [f]"},
	}
	for _, tc := range tests {
		_, err := analysis.NewRegistry(json.RawMessage(tc.settings))
		var e *eserr.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: err = %v, want %s", tc.settings, err, tc.reason)
			continue
		}
		if e.Type != tc.typ || e.Reason != tc.reason {
			t.Errorf("%s: got %s %q, want %s %q", tc.settings, e.Type, e.Reason, tc.typ, tc.reason)
		}
	}
	reg, _ := analysis.NewRegistry(nil)
	if _, err := reg.Analyzer("foo"); err == nil || !strings.Contains(err.Error(), "failed to find analyzer [foo]") {
		t.Errorf("unknown analyzer: %v", err)
	}
	if _, err := analysis.Global().Analyzer("foo"); err == nil || !strings.Contains(err.Error(), "failed to find global analyzer [foo]") {
		t.Errorf("unknown global analyzer: %v", err)
	}
}
