package analysis

import (
	"bytes"
	"html"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	blugeanalysis "github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/analysis/char"
)

// This file holds the tokenizers, token filters and char filters that bluge
// lacks or implements differently from Elasticsearch. All of them are
// stateless and safe for concurrent use.

// upperCaseFilter upper-cases every token (ES "uppercase").
type upperCaseFilter struct{}

func (upperCaseFilter) Filter(in blugeanalysis.TokenStream) blugeanalysis.TokenStream {
	for _, t := range in {
		t.Term = bytes.ToUpper(t.Term)
	}
	return in
}

// trimFilter removes leading and trailing whitespace of tokens (ES "trim").
type trimFilter struct{}

func (trimFilter) Filter(in blugeanalysis.TokenStream) blugeanalysis.TokenStream {
	for _, t := range in {
		t.Term = bytes.TrimSpace(t.Term)
	}
	return in
}

// asciiFoldingFilter folds tokens to ASCII (ES "asciifolding"), optionally
// keeping the original token at the same position.
type asciiFoldingFilter struct {
	preserveOriginal bool
}

var asciiFolder = char.NewASCIIFoldingFilter()

func (f asciiFoldingFilter) Filter(in blugeanalysis.TokenStream) blugeanalysis.TokenStream {
	if !f.preserveOriginal {
		for _, t := range in {
			if needsFolding(t.Term) {
				t.Term = asciiFolder.Filter(t.Term)
			}
		}
		return in
	}
	out := make(blugeanalysis.TokenStream, 0, len(in))
	for _, t := range in {
		out = append(out, t)
		if needsFolding(t.Term) {
			folded := asciiFolder.Filter(append([]byte(nil), t.Term...))
			if !bytes.Equal(folded, t.Term) {
				c := *t
				c.Term = folded
				c.PositionIncr = 0
				out = append(out, &c)
			}
		}
	}
	return out
}

func needsFolding(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// stopFilter removes stop words, optionally ignoring case (ES "stop").
type stopFilter struct {
	words      map[string]struct{}
	ignoreCase bool
}

func newStopFilter(words []string, ignoreCase bool) *stopFilter {
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		if ignoreCase {
			w = strings.ToLower(w)
		}
		m[w] = struct{}{}
	}
	return &stopFilter{words: m, ignoreCase: ignoreCase}
}

func (f *stopFilter) Filter(in blugeanalysis.TokenStream) blugeanalysis.TokenStream {
	j, skipped := 0, 0
	for _, t := range in {
		term := t.Term
		if f.ignoreCase {
			term = bytes.ToLower(term)
		}
		if _, stop := f.words[string(term)]; stop {
			skipped += t.PositionIncr
			continue
		}
		t.PositionIncr += skipped
		skipped = 0
		in[j] = t
		j++
	}
	return in[:j]
}

// maxLengthFilter splits tokens longer than max runes into max-rune chunks,
// as the standard and whitespace tokenizers do with max_token_length.
type maxLengthFilter struct {
	max int
}

func (f maxLengthFilter) Filter(in blugeanalysis.TokenStream) blugeanalysis.TokenStream {
	var out blugeanalysis.TokenStream
	for i, t := range in {
		if utf8.RuneCount(t.Term) <= f.max {
			if out != nil {
				out = append(out, t)
			}
			continue
		}
		if out == nil {
			out = append(make(blugeanalysis.TokenStream, 0, len(in)+4), in[:i]...)
		}
		term, start, first := t.Term, t.Start, true
		for len(term) > 0 {
			n, cut := 0, 0
			for cut < len(term) && n < f.max {
				_, w := utf8.DecodeRune(term[cut:])
				cut += w
				n++
			}
			c := *t
			c.Term, c.Start, c.End = term[:cut], start, start+cut
			if !first {
				c.PositionIncr = 1
			}
			first = false
			out = append(out, &c)
			term, start = term[cut:], start+cut
		}
	}
	if out == nil {
		return in
	}
	return out
}

// synonymFilter implements single-token synonyms in Solr format (ES
// "synonym" and "synonym_graph" with inline "synonyms").
type synonymFilter struct {
	rules      map[string][]string
	ignoreCase bool
}

func newSynonymFilter(lines []string, expand, ignoreCase bool) *synonymFilter {
	f := &synonymFilter{rules: map[string][]string{}, ignoreCase: ignoreCase}
	norm := func(s string) string {
		s = strings.TrimSpace(s)
		if ignoreCase {
			s = strings.ToLower(s)
		}
		return s
	}
	split := func(s string) []string {
		var out []string
		for _, p := range strings.Split(s, ",") {
			if p = norm(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	for _, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if lhs, rhs, ok := strings.Cut(line, "=>"); ok {
			to := split(rhs)
			for _, from := range split(lhs) {
				f.rules[from] = appendUnique(f.rules[from], to...)
			}
			continue
		}
		words := split(line)
		for _, w := range words {
			if expand {
				f.rules[w] = appendUnique(f.rules[w], words...)
			} else if len(words) > 0 {
				f.rules[w] = appendUnique(f.rules[w], words[0])
			}
		}
	}
	return f
}

func appendUnique(dst []string, vals ...string) []string {
	for _, v := range vals {
		found := false
		for _, d := range dst {
			if d == v {
				found = true
				break
			}
		}
		if !found {
			dst = append(dst, v)
		}
	}
	return dst
}

func (f *synonymFilter) Filter(in blugeanalysis.TokenStream) blugeanalysis.TokenStream {
	var out blugeanalysis.TokenStream
	for i, t := range in {
		key := string(t.Term)
		if f.ignoreCase {
			key = strings.ToLower(key)
		}
		syns, ok := f.rules[key]
		if !ok {
			if out != nil {
				out = append(out, t)
			}
			continue
		}
		if out == nil {
			out = append(make(blugeanalysis.TokenStream, 0, len(in)+len(syns)), in[:i]...)
		}
		for k, s := range syns {
			c := *t
			c.Term = []byte(s)
			c.Type = blugeanalysis.Single
			if k > 0 {
				c.PositionIncr = 0
			}
			out = append(out, &c)
		}
	}
	if out == nil {
		return in
	}
	return out
}

// patternTokenizer splits on a regular expression (group < 0) or emits the
// given capture group of every match (ES "pattern", "simple_pattern",
// "simple_pattern_split").
type patternTokenizer struct {
	re    *regexp.Regexp
	group int
}

func (p *patternTokenizer) Tokenize(input []byte) blugeanalysis.TokenStream {
	var out blugeanalysis.TokenStream
	add := func(s, e int) {
		if e > s {
			out = append(out, &blugeanalysis.Token{Term: input[s:e], Start: s, End: e, PositionIncr: 1, Type: blugeanalysis.AlphaNumeric})
		}
	}
	if p.group < 0 {
		last := 0
		for _, m := range p.re.FindAllIndex(input, -1) {
			add(last, m[0])
			last = m[1]
		}
		add(last, len(input))
		return out
	}
	for _, m := range p.re.FindAllSubmatchIndex(input, -1) {
		if 2*p.group+1 < len(m) && m[2*p.group] >= 0 {
			add(m[2*p.group], m[2*p.group+1])
		}
	}
	return out
}

// runeClassTokenizer keeps runs of runes for which keep is true.
type runeClassTokenizer struct {
	keep func(rune) bool
	// lower lower-cases the tokens (ES "lowercase" tokenizer).
	lower bool
}

func (c *runeClassTokenizer) Tokenize(input []byte) blugeanalysis.TokenStream {
	var out blugeanalysis.TokenStream
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			term := input[start:end]
			if c.lower {
				term = bytes.ToLower(term)
			}
			out = append(out, &blugeanalysis.Token{Term: term, Start: start, End: end, PositionIncr: 1, Type: blugeanalysis.AlphaNumeric})
		}
		start = -1
	}
	for i := 0; i < len(input); {
		r, w := utf8.DecodeRune(input[i:])
		if c.keep(r) {
			if start < 0 {
				start = i
			}
		} else {
			flush(i)
		}
		i += w
	}
	flush(len(input))
	return out
}

// ngramTokenizer emits the n-grams (or edge n-grams) of every run of token
// characters (ES "ngram" and "edge_ngram" tokenizers).
type ngramTokenizer struct {
	min, max int
	edge     bool
	keep     func(rune) bool // nil keeps every rune
}

func (n *ngramTokenizer) Tokenize(input []byte) blugeanalysis.TokenStream {
	var out blugeanalysis.TokenStream
	emitWord := func(start, end int) {
		// byte offsets of each rune boundary within the word
		offs := []int{}
		for i := start; i < end; {
			offs = append(offs, i)
			_, w := utf8.DecodeRune(input[i:])
			i += w
		}
		offs = append(offs, end)
		runes := len(offs) - 1
		for s := 0; s < runes; s++ {
			if n.edge && s > 0 {
				break
			}
			for l := n.min; l <= n.max && s+l <= runes; l++ {
				out = append(out, &blugeanalysis.Token{
					Term: input[offs[s]:offs[s+l]], Start: offs[s], End: offs[s+l],
					PositionIncr: 1, Type: blugeanalysis.AlphaNumeric,
				})
			}
		}
	}
	if n.keep == nil {
		if len(input) > 0 {
			emitWord(0, len(input))
		}
		return out
	}
	start := -1
	for i := 0; i < len(input); {
		r, w := utf8.DecodeRune(input[i:])
		if n.keep(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			emitWord(start, i)
			start = -1
		}
		i += w
	}
	if start >= 0 {
		emitWord(start, len(input))
	}
	return out
}

// tokenChars builds the rune predicate of ngram token_chars classes.
func tokenChars(classes []string, custom string) (func(rune) bool, string) {
	if len(classes) == 0 {
		return nil, ""
	}
	var preds []func(rune) bool
	for _, c := range classes {
		switch c {
		case "letter":
			preds = append(preds, unicode.IsLetter)
		case "digit":
			preds = append(preds, unicode.IsDigit)
		case "whitespace":
			preds = append(preds, unicode.IsSpace)
		case "punctuation":
			preds = append(preds, unicode.IsPunct)
		case "symbol":
			preds = append(preds, unicode.IsSymbol)
		case "custom":
			cs := custom
			preds = append(preds, func(r rune) bool { return strings.ContainsRune(cs, r) })
		default:
			return nil, c
		}
	}
	return func(r rune) bool {
		for _, p := range preds {
			if p(r) {
				return true
			}
		}
		return false
	}, ""
}

// pathHierarchyTokenizer emits every prefix path ("/a", "/a/b", ...).
type pathHierarchyTokenizer struct {
	delim, replace byte
}

func (p *pathHierarchyTokenizer) Tokenize(input []byte) blugeanalysis.TokenStream {
	var out blugeanalysis.TokenStream
	if len(input) == 0 {
		return out
	}
	emit := func(end int) {
		term := append([]byte(nil), input[:end]...)
		if p.replace != p.delim {
			for i := range term {
				if term[i] == p.delim {
					term[i] = p.replace
				}
			}
		}
		pos := 0
		if len(out) == 0 {
			pos = 1
		}
		out = append(out, &blugeanalysis.Token{Term: term, Start: 0, End: end, PositionIncr: pos, Type: blugeanalysis.AlphaNumeric})
	}
	for i := 1; i < len(input); i++ {
		if input[i] == p.delim {
			emit(i)
		}
	}
	emit(len(input))
	return out
}

// mappingCharFilter replaces every occurrence of the keys with their values,
// longest key first (ES "mapping" char filter).
type mappingCharFilter struct {
	keys []string
	vals map[string]string
}

func newMappingCharFilter(rules map[string]string) *mappingCharFilter {
	f := &mappingCharFilter{vals: rules}
	for k := range rules {
		f.keys = append(f.keys, k)
	}
	sort.Slice(f.keys, func(i, j int) bool {
		if len(f.keys[i]) != len(f.keys[j]) {
			return len(f.keys[i]) > len(f.keys[j])
		}
		return f.keys[i] < f.keys[j]
	})
	return f
}

func (f *mappingCharFilter) Filter(input []byte) []byte {
	var out []byte
	for i := 0; i < len(input); {
		matched := false
		for _, k := range f.keys {
			if bytes.HasPrefix(input[i:], []byte(k)) {
				out = append(out, f.vals[k]...)
				i += len(k)
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, input[i])
			i++
		}
	}
	return out
}

// htmlStripCharFilter removes HTML tags, comments and scripts and decodes
// entities; block-level tags become a newline (ES "html_strip").
type htmlStripCharFilter struct {
	escaped map[string]bool
}

var (
	htmlCommentRe = regexp.MustCompile(`(?s)<!--.*?-->`)
	htmlScriptRe  = regexp.MustCompile(`(?is)<(script|style)\b[^>]*>.*?</(script|style)\s*>`)
	htmlTagRe     = regexp.MustCompile(`</?([A-Za-z][A-Za-z0-9]*)\b[^>]*>`)
	htmlBlockTags = map[string]bool{
		"p": true, "div": true, "br": true, "li": true, "ul": true, "ol": true, "tr": true, "td": true, "th": true,
		"table": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "blockquote": true,
		"pre": true, "section": true, "article": true, "header": true, "footer": true, "hr": true, "dd": true, "dt": true,
	}
)

func (f *htmlStripCharFilter) Filter(input []byte) []byte {
	s := htmlCommentRe.ReplaceAll(input, nil)
	s = htmlScriptRe.ReplaceAll(s, []byte("\n"))
	s = htmlTagRe.ReplaceAllFunc(s, func(tag []byte) []byte {
		m := htmlTagRe.FindSubmatch(tag)
		name := strings.ToLower(string(m[1]))
		if f.escaped[name] {
			return tag
		}
		if htmlBlockTags[name] {
			return []byte("\n")
		}
		return nil
	})
	if bytes.IndexByte(s, '&') >= 0 {
		s = []byte(html.UnescapeString(string(s)))
	}
	return s
}

// javaReplacement turns a java.util.regex replacement ("$1", "\$") into a Go
// regexp template ("${1}", "$$").
func javaReplacement(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '\\' && i+1 < len(r):
			i++
			if r[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(r[i])
			}
		case c == '$' && i+1 < len(r) && r[i+1] >= '0' && r[i+1] <= '9':
			j := i + 1
			for j < len(r) && r[j] >= '0' && r[j] <= '9' {
				j++
			}
			b.WriteString("${" + r[i+1:j] + "}")
			i = j - 1
		case c == '$' && i+1 < len(r) && r[i+1] == '{':
			b.WriteByte('$')
		case c == '$':
			b.WriteString("$$")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// patternReplaceCharFilter applies a regexp replacement to the whole input.
type patternReplaceCharFilter struct {
	re   *regexp.Regexp
	repl []byte
}

func (f *patternReplaceCharFilter) Filter(input []byte) []byte {
	return f.re.ReplaceAll(input, f.repl)
}

// patternReplaceFilter applies a regexp replacement to every token.
type patternReplaceFilter struct {
	re   *regexp.Regexp
	repl []byte
	all  bool
}

func (f *patternReplaceFilter) Filter(in blugeanalysis.TokenStream) blugeanalysis.TokenStream {
	for _, t := range in {
		if f.all {
			t.Term = f.re.ReplaceAll(t.Term, f.repl)
		} else if loc := f.re.FindSubmatchIndex(t.Term); loc != nil {
			var dst []byte
			dst = append(dst, t.Term[:loc[0]]...)
			dst = f.re.Expand(dst, f.repl, t.Term, loc)
			dst = append(dst, t.Term[loc[1]:]...)
			t.Term = dst
		}
	}
	return in
}

// fingerprintFilter sorts, de-duplicates and concatenates all tokens into a
// single token (ES "fingerprint").
type fingerprintFilter struct {
	sep       string
	maxOutput int
}

func (f fingerprintFilter) Filter(in blugeanalysis.TokenStream) blugeanalysis.TokenStream {
	if len(in) == 0 {
		return in
	}
	terms := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, t := range in {
		if s := string(t.Term); !seen[s] {
			seen[s] = true
			terms = append(terms, s)
		}
	}
	sort.Strings(terms)
	joined := strings.Join(terms, f.sep)
	if len(joined) > f.maxOutput {
		return in[:0]
	}
	return blugeanalysis.TokenStream{{Term: []byte(joined), Start: in[0].Start, End: in[len(in)-1].End, PositionIncr: 1, Type: blugeanalysis.Shingle}}
}

// keywordTokenizer emits the whole input as one token (ES "keyword").
type keywordTokenizer struct{}

func (keywordTokenizer) Tokenize(input []byte) blugeanalysis.TokenStream {
	if len(input) == 0 {
		return nil
	}
	return blugeanalysis.TokenStream{{Term: input, Start: 0, End: len(input), PositionIncr: 1, Type: blugeanalysis.AlphaNumeric}}
}

// chainTokenizer runs filters right after a tokenizer; used to give a
// configured tokenizer (max_token_length) a post-processing step.
type chainTokenizer struct {
	tok     blugeanalysis.Tokenizer
	filters []blugeanalysis.TokenFilter
}

func (c *chainTokenizer) Tokenize(input []byte) blugeanalysis.TokenStream {
	ts := c.tok.Tokenize(input)
	for _, f := range c.filters {
		ts = f.Filter(ts)
	}
	return ts
}

// shingleFilter emits word n-grams at the position of their first token,
// after that token (ES "shingle" order).
type shingleFilter struct {
	min, max int
	unigrams bool
	sep      string
}

func (s *shingleFilter) Filter(in blugeanalysis.TokenStream) blugeanalysis.TokenStream {
	out := make(blugeanalysis.TokenStream, 0, len(in)*(s.max-s.min+2))
	for i, t := range in {
		emittedAt := false
		if s.unigrams {
			out = append(out, t)
			emittedAt = true
		}
		for n := s.min; n <= s.max && i+n <= len(in); n++ {
			var b bytes.Buffer
			for k := i; k < i+n; k++ {
				if k > i {
					b.WriteString(s.sep)
				}
				b.Write(in[k].Term)
			}
			incr := 0
			if !emittedAt {
				incr = t.PositionIncr
				emittedAt = true
			}
			out = append(out, &blugeanalysis.Token{Term: b.Bytes(), Start: t.Start, End: in[i+n-1].End, PositionIncr: incr, Type: blugeanalysis.Shingle})
		}
		if !emittedAt && !s.unigrams {
			// no shingle starts here: carry the position increment forward
			if i+1 < len(in) {
				in[i+1].PositionIncr += t.PositionIncr
			}
		}
	}
	return out
}
