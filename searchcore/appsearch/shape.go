package appsearch

import (
	"bytes"
	"encoding/json"
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	blugeanalysis "github.com/blugelabs/bluge/analysis"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/analysis"
)

// shaper renders core hits as App Search results.
type shaper struct {
	c            *Context
	eff          effective
	terms        []string
	scored       bool
	indexEngines map[string]string
	// termSet is the analyzed query terms (snippets), built on first use.
	termSet map[string]bool
}

// decodeSource decodes a hit's _source (numbers as json.Number).
func decodeSource(src []byte) map[string]any {
	out := map[string]any{}
	if len(src) == 0 {
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	_ = dec.Decode(&out)
	return out
}

// result renders one hit: {field: {raw, snippet}, ..., _meta}.
func (sh *shaper) result(h searchcore.Hit) obj {
	src := decodeSource(h.Source)
	engine := sh.c.Engine
	if n, ok := sh.indexEngines[h.Index]; ok {
		engine = n
	}
	out := obj{}
	for _, rf := range sh.eff.resultFields {
		t, _ := fieldType(sh.c.Schema, rf.Field)
		if rf.Field == "id" {
			id := h.ID
			if engine != sh.c.Engine {
				id = engine + "|" + h.ID
			}
			out = append(out, kv{"id", obj{{"raw", id}}})
			continue
		}
		v, present := src[rf.Field]
		if !present {
			continue
		}
		f := obj{}
		if rf.Raw != nil {
			f = append(f, kv{"raw", rawValue(v, t, sh.c.Revision, rf.Raw.Size)})
		}
		if rf.Snippet != nil {
			f = append(f, kv{"snippet", sh.snippet(v, rf.Snippet)})
		}
		out = append(out, kv{rf.Field, f})
	}
	var score any
	if sh.scored && !math.IsNaN(h.Score) {
		score = h.Score
	}
	return append(out, kv{"_meta", obj{{"id", h.ID}, {"engine", engine}, {"score", score}}})
}

// rawValue renders a stored value of a field of type t: text as strings
// (truncated to size characters when size > 0), numbers as floats in the
// revision's precision, dates with a +00:00 offset; arrays stay arrays.
func rawValue(v any, t FieldType, rev Revision, size int) any {
	if l, ok := v.([]any); ok {
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = rawValue(e, t, rev, size)
		}
		return out
	}
	if v == nil {
		return nil
	}
	switch t {
	case Number:
		if f, ok := numberOf(v); ok {
			return floatJSON(f, rev)
		}
	case Date:
		if s, ok := v.(string); ok {
			if tm, ok := ParseDate(s); ok {
				return tm.Format(DateLayout)
			}
		}
	case Text:
		s := scalarText(v)
		if size > 0 && utf8.RuneCountInString(s) > size {
			s = string([]rune(s)[:size])
		}
		return s
	}
	if n, ok := v.(json.Number); ok {
		return n
	}
	return v
}

// numberOf reads a number stored as a JSON number or a numeric string.
func numberOf(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case float64:
		return x, true
	}
	return 0, false
}

// floatJSON renders a number the way App Search does ("1985.0"): the
// shortest decimal of a double (earlier revision) or of a 32-bit float
// (later revision), always with a fraction.
func floatJSON(f float64, rev Revision) json.Number {
	bits := 64
	if rev != RevisionEarlier {
		bits = 32
	}
	s := strconv.FormatFloat(f, 'f', -1, bits)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return json.Number(s)
}

// scalarText renders a stored scalar as text.
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// analyzer is the engine's text analyzer (the one its text fields use).
func (sh *shaper) analyzer() *blugeanalysis.Analyzer {
	name := sh.c.Analyzer
	if name == "" {
		name = "standard"
	}
	a, err := analysis.Global().Analyzer(name)
	if err != nil {
		a, _ = analysis.Global().Analyzer("standard")
	}
	return a
}

// snippet highlights the query terms in a text value: HTML-escaped text of
// at most opts.Size characters around the first match, matches wrapped in
// <em>. Without a match it is the escaped start of the text when
// opts.Fallback is set, else null. Of an array, the first element with a
// match is used.
func (sh *shaper) snippet(v any, opts *SnippetOptions) any {
	var texts []string
	if l, ok := v.([]any); ok {
		for _, e := range l {
			if e != nil {
				texts = append(texts, scalarText(e))
			}
		}
	} else if v != nil {
		texts = []string{scalarText(v)}
	}
	if sh.termSet == nil {
		sh.termSet = map[string]bool{}
		a := sh.analyzer()
		for _, t := range sh.terms {
			for _, tok := range a.Analyze([]byte(t)) {
				sh.termSet[string(tok.Term)] = true
			}
		}
	}
	a := sh.analyzer()
	for _, text := range texts {
		if s, ok := highlight(text, a, sh.termSet, opts.Size); ok {
			return s
		}
	}
	if opts.Fallback && len(texts) > 0 {
		s := texts[0]
		if utf8.RuneCountInString(s) > opts.Size {
			s = string([]rune(s)[:opts.Size])
		}
		return html.EscapeString(s)
	}
	return nil
}

// highlight returns the snippet of text around its first matching token.
func highlight(text string, a *blugeanalysis.Analyzer, terms map[string]bool, size int) (string, bool) {
	if len(terms) == 0 {
		return "", false
	}
	type span struct{ start, end int }
	var spans []span
	for _, tok := range a.Analyze([]byte(text)) {
		if terms[string(tok.Term)] && tok.Start >= 0 && tok.End <= len(text) && tok.Start < tok.End {
			spans = append(spans, span{tok.Start, tok.End})
		}
	}
	if len(spans) == 0 {
		return "", false
	}
	// The window: size characters, starting a little before the first
	// match (on a word boundary) so that the match has some context.
	start := spans[0].start
	lead := size / 4
	for lead > 0 && start > 0 {
		_, w := utf8.DecodeLastRuneInString(text[:start])
		start -= w
		lead--
	}
	if start > 0 {
		if i := strings.IndexAny(text[start:spans[0].start], " \t\n"); i >= 0 {
			start += i + 1
		}
	}
	end := start
	for n := 0; n < size && end < len(text); n++ {
		_, w := utf8.DecodeRuneInString(text[end:])
		end += w
	}
	// Do not end inside a word that goes on, unless the first match
	// would be cut.
	if end < len(text) && text[end] != ' ' && spans[0].end <= end {
		if i := strings.LastIndexByte(text[spans[0].end:end], ' '); i >= 0 {
			end = spans[0].end + i
		}
	}
	var b strings.Builder
	pos := start
	for _, s := range spans {
		if s.start < pos || s.end > end {
			continue
		}
		b.WriteString(html.EscapeString(text[pos:s.start]))
		b.WriteString("<em>")
		b.WriteString(html.EscapeString(text[s.start:s.end]))
		b.WriteString("</em>")
		pos = s.end
	}
	b.WriteString(html.EscapeString(text[pos:end]))
	return b.String(), true
}

// shapeFacets renders the facet aggregations: {field: [{type, name?, data}]}.
func shapeFacets(list []Facet, aggs json.RawMessage, c *Context) (obj, error) {
	var parsed map[string]struct {
		Buckets json.RawMessage `json:"buckets"`
	}
	if len(aggs) > 0 {
		dec := json.NewDecoder(bytes.NewReader(aggs))
		dec.UseNumber()
		if err := dec.Decode(&parsed); err != nil {
			return nil, err
		}
	}
	out := obj{}
	for i, f := range list {
		t, _ := fieldType(c.Schema, f.Field)
		specs := []any{}
		for j, spec := range f.Specs {
			name := "f" + strconv.Itoa(i) + "_" + strconv.Itoa(j)
			raw := parsed[name].Buckets
			entry := obj{{"type", spec.Type}}
			if spec.Name != "" {
				entry = append(entry, kv{"name", spec.Name})
			}
			data := []any{}
			if spec.Type == "value" {
				var buckets []struct {
					Key         any    `json:"key"`
					KeyAsString string `json:"key_as_string"`
					DocCount    int64  `json:"doc_count"`
				}
				if len(raw) > 0 {
					dec := json.NewDecoder(bytes.NewReader(raw))
					dec.UseNumber()
					if err := dec.Decode(&buckets); err != nil {
						return nil, err
					}
				}
				for _, b := range buckets {
					var v any = b.Key
					switch t {
					case Number:
						if fl, ok := numberOf(b.Key); ok {
							v = floatJSON(fl, c.Revision)
						}
					case Date:
						if ms, ok := numberOf(b.Key); ok {
							v = millisToDate(int64(ms))
						}
					}
					data = append(data, obj{{"value", v}, {"count", b.DocCount}})
				}
			} else {
				var buckets map[string]struct {
					DocCount int64 `json:"doc_count"`
				}
				if len(raw) > 0 {
					if err := json.Unmarshal(raw, &buckets); err != nil {
						return nil, err
					}
				}
				for k, r := range spec.Ranges {
					d := obj{}
					if r.From != nil {
						d = append(d, kv{"from", r.From.toAny()})
					}
					if r.To != nil {
						d = append(d, kv{"to", r.To.toAny()})
					}
					if r.Name != "" {
						d = append(d, kv{"name", r.Name})
					}
					d = append(d, kv{"count", buckets["r"+strconv.Itoa(k)].DocCount})
					data = append(data, d)
				}
			}
			specs = append(specs, append(entry, kv{"data", data}))
		}
		out = append(out, kv{f.Field, specs})
	}
	return out, nil
}
