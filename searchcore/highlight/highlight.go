package highlight

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
	"github.com/quarry-search/quarry/searchcore/query"
)

// Defaults of the highlight options (HighlightBuilder).
const (
	DefaultFragmentSize      = 100
	DefaultNumberOfFragments = 5
	// DefaultMaxAnalyzedOffset is index.highlight.max_analyzed_offset's
	// default.
	DefaultMaxAnalyzedOffset = 1000000
)

// Plan is a highlight request resolved against one index: the fields to
// highlight with their effective options and the query terms they mark.
type Plan struct {
	// MaxAnalyzedOffset is the longest text re-analysed for highlighting
	// (index.highlight.max_analyzed_offset).
	MaxAnalyzedOffset int
	mapping           *mapping.Mapping
	reg               *analysis.Registry
	index             string
	html              bool
	fields            []planField
}

// planField is one concrete field to highlight.
type planField struct {
	path              string
	field             *mapping.Field
	preTag, postTag   string
	fragmentSize      int
	numberOfFragments int
	noMatchSize       int
	scoreOrder        bool
	plain             bool
	// words makes each unified passage the matched word (boundary_scanner
	// "word").
	words bool
	// simpleFragmenter cuts plain fragments at fixed sizes only (fragmenter
	// "simple"); the default "span" fragmenter keeps phrases whole and
	// leaves no fragment shorter than half the size at the end.
	simpleFragmenter bool
	terms            []query.HighlightTerm
	// err fails the highlighting of every hit (the fvh highlighter named
	// on a field without offsets in its term vectors).
	err error
}

// Prepare resolves the request against the index of qctx. rawQuery is the
// search's query (match_all when empty); a highlight_query replaces it.
func (r *Request) Prepare(rawQuery json.RawMessage, qctx *query.Context) (*Plan, error) {
	p := &Plan{MaxAnalyzedOffset: DefaultMaxAnalyzedOffset, mapping: qctx.Mapping, reg: qctx.Analyzers, index: qctx.Index, html: r.Encoder == "html"}
	if p.reg == nil {
		p.reg = analysis.Global()
	}
	cache := map[string][]query.HighlightTerm{}
	termsOf := func(raw json.RawMessage) ([]query.HighlightTerm, error) {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || string(raw) == "null" {
			raw = json.RawMessage(`{"match_all":{}}`)
		}
		if t, ok := cache[string(raw)]; ok {
			return t, nil
		}
		node, err := query.Parse(raw)
		if err != nil {
			return nil, err
		}
		q, err := node.Compile(qctx)
		if err != nil {
			return nil, err
		}
		t := query.ExtractHighlightTerms(q)
		cache[string(raw)] = t
		return t, nil
	}
	seen := map[string]bool{}
	for _, f := range r.Fields {
		o := f.Options.inherit(r.Options)
		typ := o.Type
		switch typ {
		case "", "unified", "fvh", "plain":
		default:
			return nil, eserr.IllegalArgument("unknown highlighter type [%s] for the field [%s]", typ, f.Name)
		}
		if typ != "plain" && o.BoundaryScanner == "chars" {
			return nil, eserr.IllegalArgument("Invalid boundary scanner type: CHARS")
		}
		if typ == "plain" && o.Fragmenter != "" && o.Fragmenter != "span" && o.Fragmenter != "simple" {
			return nil, eserr.IllegalArgument("unknown fragmenter option [%s] for the field [%s]", o.Fragmenter, f.Name)
		}
		q := rawQuery
		if o.HighlightQuery != nil {
			q = o.HighlightQuery
		}
		terms, err := termsOf(q)
		if err != nil {
			return nil, err
		}
		pattern := strings.Contains(f.Name, "*")
		for _, path := range p.matchFields(f.Name) {
			if seen[path] {
				continue
			}
			fvhErr := fvhCheck(typ, path, qctx.Mapping.Lookup(path))
			if fvhErr != nil && pattern {
				continue // a pattern skips what fvh cannot highlight
			}
			seen[path] = true
			pf := planField{
				path: path, field: qctx.Mapping.Lookup(path),
				preTag: "<em>", postTag: "</em>",
				fragmentSize: intOr(o.FragmentSize, DefaultFragmentSize), numberOfFragments: intOr(o.NumberOfFragments, DefaultNumberOfFragments),
				noMatchSize: intOr(o.NoMatchSize, 0), scoreOrder: o.Order == "score", plain: typ == "plain",
				words: o.BoundaryScanner == "word", simpleFragmenter: o.Fragmenter == "simple",
				err: fvhErr,
			}
			if len(o.PreTags) > 0 {
				pf.preTag = o.PreTags[0]
			}
			if len(o.PostTags) > 0 {
				pf.postTag = o.PostTags[0]
			}
			requireMatch := o.RequireFieldMatch == nil || *o.RequireFieldMatch
			for _, t := range terms {
				if !requireMatch || t.Field == path {
					pf.terms = append(pf.terms, t)
				}
			}
			p.fields = append(p.fields, pf)
		}
	}
	return p, nil
}

// fvhCheck is the fast vector highlighter's requirement: the field's term
// vectors keep offsets (the unified highlighter then serves it).
func fvhCheck(typ, path string, f *mapping.Field) error {
	if typ != "fvh" {
		return nil
	}
	if f != nil {
		var tv string
		if json.Unmarshal(f.Extra["term_vector"], &tv) == nil && strings.Contains(tv, "offsets") {
			return nil
		}
	}
	return eserr.IllegalArgument("the field [%s] should be indexed with term vector with position offsets to be used with fast vector highlighter", path)
}

// matchFields expands a highlight field name: a pattern selects the
// mapped text and keyword fields it matches, a plain name the field if it
// holds text.
func (p *Plan) matchFields(name string) []string {
	var out []string
	for _, path := range p.mapping.MatchFields(name) {
		f := p.mapping.Lookup(path)
		if f != nil && (f.Type == mapping.TypeText || f.Type == mapping.TypeKeyword) {
			out = append(out, path)
		}
	}
	return out
}

// inherit fills the unset options of o from the global options g.
func (o Options) inherit(g Options) Options {
	if o.PreTags == nil {
		o.PreTags = g.PreTags
	}
	if o.PostTags == nil {
		o.PostTags = g.PostTags
	}
	if o.FragmentSize == nil {
		o.FragmentSize = g.FragmentSize
	}
	if o.NumberOfFragments == nil {
		o.NumberOfFragments = g.NumberOfFragments
	}
	if o.NoMatchSize == nil {
		o.NoMatchSize = g.NoMatchSize
	}
	if o.RequireFieldMatch == nil {
		o.RequireFieldMatch = g.RequireFieldMatch
	}
	if o.HighlightQuery == nil {
		o.HighlightQuery = g.HighlightQuery
	}
	if o.Order == "" {
		o.Order = g.Order
	}
	if o.Type == "" {
		o.Type = g.Type
	}
	if o.BoundaryScanner == "" {
		o.BoundaryScanner = g.BoundaryScanner
	}
	if o.Fragmenter == "" {
		o.Fragmenter = g.Fragmenter
	}
	return o
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// Highlight returns the fragments of each highlighted field for the hit id
// with this _source, keyed by field path; fields without fragments are
// absent. Text longer than MaxAnalyzedOffset is an illegal_argument_exception
// unless the unified highlighter can use indexed offsets.
func (p *Plan) Highlight(source []byte, id string) (map[string][]string, error) {
	out := map[string][]string{}
	for i := range p.fields {
		pf := &p.fields[i]
		if pf.err != nil {
			return nil, pf.err
		}
		values, err := p.mapping.SourceStrings(source, pf.path)
		if err != nil {
			return nil, err
		}
		if len(values) == 0 {
			continue
		}
		if err := p.checkLength(pf, values, id); err != nil {
			return nil, err
		}
		var frags []string
		if pf.plain {
			frags = p.plainField(pf, values)
		} else {
			frags = p.unifiedField(pf, values)
		}
		if len(frags) > 0 {
			out[pf.path] = frags
		}
	}
	return out, nil
}

// token is an analysed token with UTF-16 offsets into its value.
type token struct {
	term       string
	start, end int
	pos        int
}

// analyze tokenizes one value with the field's index-time analysis (a
// keyword is one token, normalised).
func (p *Plan) analyze(f *mapping.Field, value string, units int) []token {
	if f.Type == mapping.TypeKeyword {
		if f.IgnoreAbove != nil && units > *f.IgnoreAbove {
			return nil // ignored values are not indexed, so never highlighted
		}
		term := value
		if f.Normalizer != "" {
			if n, err := p.reg.Normalizer(f.Normalizer); err == nil {
				term = n.Normalize(value)
			}
		}
		return []token{{term: term, start: 0, end: units}}
	}
	a, err := p.reg.Analyzer(f.Analyzer)
	if err != nil {
		return nil
	}
	toks := analysis.AnalyzeWith(a, value)
	if len(a.CharFilters) > 0 {
		// Offsets then refer to the filtered text: find each token in the
		// original instead (tokens no longer spelled there are skipped).
		return realign(toks, toU16(strings.ToLower(value)), units)
	}
	out := make([]token, 0, len(toks))
	for _, t := range toks {
		// char filters can move offsets past the text: keep them inside
		start, end := min(max(t.StartOffset, 0), units), min(max(t.EndOffset, 0), units)
		if start < end {
			out = append(out, token{term: t.Token, start: start, end: end, pos: t.Position})
		}
	}
	return out
}

// match is one highlighted span of the content (UTF-16 offsets).
type match struct {
	start, end int
	term       string
	// inPhrase is set on the tokens of a phrase occurrence after its first.
	inPhrase bool
}

// markTokens returns the spans of toks the terms mark, in token order.
func markTokens(toks []token, terms []query.HighlightTerm) []match {
	marked := make([]bool, len(toks))
	inPhrase := make([]bool, len(toks))
	for _, t := range terms {
		if t.Phrase != nil {
			markPhrase(toks, &t, marked, inPhrase)
			continue
		}
		for i, tok := range toks {
			if !marked[i] && t.Matches(tok.term) {
				marked[i] = true
			}
		}
	}
	var out []match
	for i, tok := range toks {
		if marked[i] {
			out = append(out, match{start: tok.start, end: tok.end, term: tok.term, inPhrase: inPhrase[i]})
		}
	}
	return out
}

// markPhrase marks the tokens of every occurrence of a phrase (its slots at
// consecutive positions, or within slop moves of them).
func markPhrase(toks []token, t *query.HighlightTerm, marked, inPhrase []bool) {
	slots := len(t.Phrase)
	if t.HasPrefix {
		slots++
	}
	if slots == 0 {
		return
	}
	byPos := map[int][]int{}
	for i, tok := range toks {
		byPos[tok.pos] = append(byPos[tok.pos], i)
	}
	accepts := func(slot int, term string) bool {
		if slot < len(t.Phrase) {
			for _, alt := range t.Phrase[slot] {
				if alt == term {
					return true
				}
			}
			return false
		}
		return strings.HasPrefix(term, t.LastPrefix)
	}
	for i, first := range toks {
		if !accepts(0, first.term) {
			continue
		}
		chosen := []int{i}
		var try func(slot, budget int) bool
		try = func(slot, budget int) bool {
			if slot == slots {
				return true
			}
			want := first.pos + slot
			for d := 0; d <= budget; d++ {
				for _, p := range []int{want + d, want - d} {
					for _, j := range byPos[p] {
						if j == chosen[len(chosen)-1] || !accepts(slot, toks[j].term) {
							continue
						}
						chosen = append(chosen, j)
						if try(slot+1, budget-d) {
							return true
						}
						chosen = chosen[:len(chosen)-1]
					}
					if d == 0 {
						break
					}
				}
			}
			return false
		}
		if try(1, t.Slop) {
			first := chosen[0]
			for _, j := range chosen {
				marked[j] = true
				first = min(first, j)
			}
			for _, j := range chosen {
				if j != first {
					inPhrase[j] = true
				}
			}
		}
	}
}

// u16 is a text as UTF-16 code units (Elasticsearch's offsets and
// fragment sizes count them).
type u16 []uint16

func toU16(s string) u16          { return utf16.Encode([]rune(s)) }
func (t u16) str(a, b int) string { return string(utf16.Decode(t[a:b])) }

// encode escapes text for the html encoder (Lucene's SimpleHTMLEncoder).
func (p *Plan) encode(s string) string {
	if !p.html {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString("&quot;")
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\'':
			b.WriteString("&#x27;")
		case '/':
			b.WriteString("&#x2F;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// format renders content[start:end) with the matches inside it wrapped in
// the tags (overlapping matches are merged like CustomPassageFormatter).
func (p *Plan) format(pf *planField, content u16, start, end int, matches []match) string {
	var b strings.Builder
	pos := start
	for _, m := range matches {
		if m.end <= start || m.start >= end {
			continue
		}
		if m.start > pos {
			b.WriteString(p.encode(content.str(pos, m.start)))
		}
		if m.end > pos {
			b.WriteString(pf.preTag)
			b.WriteString(p.encode(content.str(max(pos, m.start), m.end)))
			b.WriteString(pf.postTag)
			pos = m.end
		}
	}
	if end > pos {
		b.WriteString(p.encode(content.str(pos, end)))
	}
	return b.String()
}

// checkLength enforces index.highlight.max_analyzed_offset: the plain
// highlighter re-analyses each value, the unified one the joined values,
// except where the mapping indexes offsets (index_options or term_vector).
func (p *Plan) checkLength(pf *planField, values []string, id string) error {
	if p.MaxAnalyzedOffset <= 0 {
		return nil
	}
	over := false
	total := -1
	for _, v := range values {
		n := len(toU16(v))
		total += n + 1
		over = over || n > p.MaxAnalyzedOffset
	}
	if !pf.plain {
		if hasOffsets(pf.field) {
			return nil
		}
		over = total > p.MaxAnalyzedOffset
	}
	if !over {
		return nil
	}
	return eserr.IllegalArgument("The length of [%s] field of [%s] doc of [%s] index has exceeded [%d] - maximum allowed to be analyzed for highlighting. "+
		"This maximum can be set by changing the [index.highlight.max_analyzed_offset] index level setting. "+
		"For large texts, indexing with offsets or term vectors is recommended!", pf.path, id, p.index, p.MaxAnalyzedOffset)
}

// hasOffsets reports whether the field indexes offsets (index_options:
// offsets or a term_vector with offsets).
func hasOffsets(f *mapping.Field) bool {
	var s string
	if json.Unmarshal(f.Extra["index_options"], &s) == nil && s == "offsets" {
		return true
	}
	return json.Unmarshal(f.Extra["term_vector"], &s) == nil && strings.Contains(s, "offsets")
}

// realign places tokens at their first occurrence (case-insensitive) in the
// original text after the previous token, extended to the end of the word.
func realign(toks []analysis.Token, lower u16, units int) []token {
	var out []token
	cursor := 0
	for _, t := range toks {
		term := toU16(strings.ToLower(t.Token))
		at := indexU16(lower[min(cursor, len(lower)):], term)
		if at < 0 || len(lower) != units {
			continue
		}
		start := cursor + at
		end := start + len(term)
		for end < len(lower) && isWordUnit(lower[end]) {
			end++
		}
		out = append(out, token{term: t.Token, start: start, end: end, pos: t.Position})
		cursor = end
	}
	return out
}

func indexU16(s, sub u16) int {
	if len(sub) == 0 {
		return -1
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		match := true
		for j := range sub {
			if s[i+j] != sub[j] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

func isWordUnit(c uint16) bool {
	return unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) || (c >= 0xD800 && c <= 0xDFFF)
}
