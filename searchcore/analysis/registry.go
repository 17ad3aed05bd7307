package analysis

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	blugeanalysis "github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/analysis/token"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Registry resolves analyzer and normalizer names of one index. It is
// immutable after NewRegistry and safe for concurrent use; every analyzer is
// built exactly once.
type Registry struct {
	analyzers   map[string]*blugeanalysis.Analyzer
	normalizers map[string]*Normalizer
	global      bool
}

// Normalizer is a keyword normalizer: char filters and per-character token
// filters applied to a whole keyword value (ES "normalizer").
type Normalizer struct {
	name        string
	charFilters []blugeanalysis.CharFilter
	filters     []blugeanalysis.TokenFilter
}

// Name returns the normalizer's name.
func (n *Normalizer) Name() string { return n.name }

// Normalize returns the normalized form of a keyword value. Indexing and
// term-level queries on a keyword field with a normalizer both use it.
func (n *Normalizer) Normalize(s string) string {
	if n == nil || (len(n.charFilters) == 0 && len(n.filters) == 0) {
		return s
	}
	in := []byte(s)
	for _, cf := range n.charFilters {
		in = cf.Filter(in)
	}
	ts := blugeanalysis.TokenStream{{Term: in, Start: 0, End: len(in), PositionIncr: 1, Type: blugeanalysis.AlphaNumeric}}
	for _, f := range n.filters {
		ts = f.Filter(ts)
	}
	switch len(ts) {
	case 0:
		return ""
	case 1:
		return string(ts[0].Term)
	}
	var b strings.Builder
	for _, t := range ts {
		b.Write(t.Term)
	}
	return b.String()
}

var lowercaseNormalizer = &Normalizer{name: "lowercase", filters: []blugeanalysis.TokenFilter{token.NewLowerCaseFilter()}}

var globalRegistry = &Registry{global: true}

// Global returns the registry of built-in analyzers only, as the index-less
// _analyze API sees them (its errors name "global" analyzers).
func Global() *Registry { return globalRegistry }

// NewRegistry builds the registry from an index's settings.index.analysis
// object (nil or empty gives the built-ins only). Definitions follow
// Elasticsearch: "analyzer", "tokenizer", "filter", "char_filter" and
// "normalizer" sections keyed by name. A bad definition is an
// illegal_argument_exception with the Elasticsearch reason.
func NewRegistry(settings json.RawMessage) (*Registry, error) {
	root, err := decodeObject(settings, "analysis")
	if err != nil {
		return nil, err
	}
	b := &builder{
		tokenizers:  map[string]blugeanalysis.Tokenizer{},
		filters:     map[string]blugeanalysis.TokenFilter{},
		filterTypes: map[string]string{},
		charFilters: map[string]blugeanalysis.CharFilter{},
	}
	sections := map[string]map[string]params{}
	for _, sec := range sortedKeys(root) {
		switch sec {
		case "analyzer", "tokenizer", "filter", "char_filter", "normalizer":
		default:
			return nil, eserr.IllegalArgument("unknown setting [index.analysis.%s] please check that any required plugins are installed, or check the breaking changes documentation for removed settings", sec)
		}
		defs, err := decodeObject(root[sec], sec)
		if err != nil {
			return nil, err
		}
		m := map[string]params{}
		for name, raw := range defs {
			p, err := decodeObject(raw, sec+"."+name)
			if err != nil {
				return nil, err
			}
			if p == nil {
				p = map[string]json.RawMessage{}
			}
			m[name] = p
		}
		sections[sec] = m
	}
	// Components first: analyzers and normalizers refer to them by name.
	for _, name := range sortedKeys(sections["char_filter"]) {
		cf, err := b.charFilter(name, sections["char_filter"][name])
		if err != nil {
			return nil, err
		}
		b.charFilters[name] = cf
	}
	for _, name := range sortedKeys(sections["tokenizer"]) {
		t, err := b.tokenizer(name, sections["tokenizer"][name])
		if err != nil {
			return nil, err
		}
		b.tokenizers[name] = t
	}
	for _, name := range sortedKeys(sections["filter"]) {
		p := sections["filter"][name]
		f, err := b.filter(name, p)
		if err != nil {
			return nil, err
		}
		b.filters[name] = f
		b.filterTypes[name], _ = p.str("type")
	}
	r := &Registry{analyzers: map[string]*blugeanalysis.Analyzer{}, normalizers: map[string]*Normalizer{}}
	for _, name := range sortedKeys(sections["analyzer"]) {
		a, err := b.analyzer(name, sections["analyzer"][name])
		if err != nil {
			return nil, err
		}
		r.analyzers[name] = a
	}
	for _, name := range sortedKeys(sections["normalizer"]) {
		n, err := b.normalizer(name, sections["normalizer"][name])
		if err != nil {
			return nil, err
		}
		r.normalizers[name] = n
	}
	return r, nil
}

// Analyzer returns the named analyzer: a custom one from the settings or a
// built-in. "" is the index default ("default" if configured, else
// standard). An unknown name is an illegal_argument_exception
// "failed to find analyzer [x]" ("failed to find global analyzer [x]" on the
// Global registry).
func (r *Registry) Analyzer(name string) (*blugeanalysis.Analyzer, error) {
	if name == "" || name == "default" {
		if a, ok := r.analyzers["default"]; ok {
			return a, nil
		}
		return builtins()["standard"], nil
	}
	if a, ok := r.analyzers[name]; ok {
		return a, nil
	}
	if a, ok := builtins()[name]; ok {
		return a, nil
	}
	if r.global {
		return nil, eserr.IllegalArgument("failed to find global analyzer [%s]", name)
	}
	return nil, eserr.IllegalArgument("failed to find analyzer [%s]", name)
}

// SearchAnalyzer returns the analyzer used at search time for a field with
// the given analyzer and search_analyzer settings: search_analyzer if set,
// else the field's analyzer, else "default_search" if configured, else the
// index default.
func (r *Registry) SearchAnalyzer(analyzer, searchAnalyzer string) (*blugeanalysis.Analyzer, error) {
	if searchAnalyzer != "" {
		return r.Analyzer(searchAnalyzer)
	}
	if analyzer != "" {
		return r.Analyzer(analyzer)
	}
	if a, ok := r.analyzers["default_search"]; ok {
		return a, nil
	}
	return r.Analyzer("")
}

// HasAnalyzer reports whether name resolves to an analyzer.
func (r *Registry) HasAnalyzer(name string) bool {
	_, err := r.Analyzer(name)
	return err == nil
}

// Normalizer returns the named keyword normalizer (custom, or the built-in
// "lowercase"). An unknown name is an illegal_argument_exception.
func (r *Registry) Normalizer(name string) (*Normalizer, error) {
	if n, ok := r.normalizers[name]; ok {
		return n, nil
	}
	if name == "lowercase" {
		return lowercaseNormalizer, nil
	}
	return nil, eserr.IllegalArgument("failed to find normalizer under name [%s]", name)
}

// Token is one token of an _analyze response.
type Token struct {
	Token       string `json:"token"`
	StartOffset int    `json:"start_offset"`
	EndOffset   int    `json:"end_offset"`
	Type        string `json:"type"`
	Position    int    `json:"position"`
}

// Analyze runs the named analyzer over text and returns its tokens with
// UTF-16 offsets and positions as Elasticsearch's _analyze API reports them.
func (r *Registry) Analyze(name, text string) ([]Token, error) {
	a, err := r.Analyzer(name)
	if err != nil {
		return nil, err
	}
	return AnalyzeWith(a, text), nil
}

// AnalyzeWith runs analyzer a over text (see Registry.Analyze).
func AnalyzeWith(a *blugeanalysis.Analyzer, text string) []Token {
	in := []byte(text)
	ts := a.Analyze(in)
	out := make([]Token, 0, len(ts))
	// Offsets refer to the input after char filters; when the length changed
	// they can only be approximated, as ES's offset correction is not kept.
	u16 := utf16Offsets(text)
	pos := -1
	for _, t := range ts {
		pos += t.PositionIncr
		if pos < 0 {
			pos = 0
		}
		out = append(out, Token{
			Token: string(t.Term), StartOffset: u16(t.Start), EndOffset: u16(t.End),
			Type: tokenType(t.Type), Position: pos,
		})
	}
	return out
}

// utf16Offsets maps byte offsets of s to UTF-16 code unit offsets.
func utf16Offsets(s string) func(int) int {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return func(i int) int { return i }
	}
	idx := make([]int, len(s)+1)
	n := 0
	for i, r := range s {
		for j := i; j < i+utf8.RuneLen(r) && j <= len(s); j++ {
			idx[j] = n
		}
		if utf16.IsSurrogate(r) || r > 0xFFFF {
			n += 2
		} else {
			n++
		}
	}
	idx[len(s)] = n
	return func(i int) int {
		if i < 0 {
			return 0
		}
		if i > len(s) {
			return n
		}
		return idx[i]
	}
}

func tokenType(t blugeanalysis.TokenType) string {
	switch t {
	case blugeanalysis.AlphaNumeric:
		return "<ALPHANUM>"
	case blugeanalysis.Numeric:
		return "<NUM>"
	case blugeanalysis.Ideographic:
		return "<IDEOGRAPHIC>"
	case blugeanalysis.Shingle:
		return "shingle"
	case blugeanalysis.Double:
		return "<DOUBLE>"
	case blugeanalysis.Single:
		return "SYNONYM"
	}
	return "word"
}

func mustCompile(s string) *regexp.Regexp { return regexp.MustCompile(s) }
