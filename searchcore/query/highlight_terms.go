package query

import (
	"strings"
	"unicode/utf8"

	"github.com/blugelabs/bluge"
)

// HighlightTerm is one thing a compiled query looks for in a field, as the
// highlighter needs it: an exact term, a multi-term matcher (prefix,
// wildcard, regexp, fuzzy expansions), or a phrase.
type HighlightTerm struct {
	Field string
	// Term is an exact term (when Match and Phrase are nil).
	Term string
	// Match accepts the terms a multi-term query expands to.
	Match func(term string) bool
	// Phrase holds, per position, the terms accepted there; LastPrefix
	// (match_phrase_prefix) accepts any term with that prefix after them.
	Phrase     [][]string
	LastPrefix string
	HasPrefix  bool
	Slop       int
}

// Matches reports whether a single (non-phrase) highlight term accepts term.
func (t *HighlightTerm) Matches(term string) bool {
	if t.Match != nil {
		return t.Match(term)
	}
	return t.Term == term
}

// ExtractHighlightTerms walks a compiled query (Node.Compile) and returns
// the terms a highlighter marks: those of scoring and filter clauses,
// never of must_not clauses or a boosting query's negative part, as
// Lucene's query visitors report them.
func ExtractHighlightTerms(q bluge.Query) []HighlightTerm {
	var out []HighlightTerm
	var walk func(q bluge.Query)
	walk = func(q bluge.Query) {
		switch t := q.(type) {
		case *bluge.TermQuery:
			out = append(out, HighlightTerm{Field: t.Field(), Term: t.Term()})
		case *bluge.MultiPhraseQuery:
			out = append(out, HighlightTerm{Field: t.Field(), Phrase: t.Terms(), Slop: t.Slop()})
		case *phraseQuery:
			out = append(out, HighlightTerm{Field: t.Field(), Phrase: t.Terms(), Slop: t.Slop()})
		case *termsQuery:
			for _, term := range t.terms {
				out = append(out, HighlightTerm{Field: t.field, Term: string(term)})
			}
		case *prefixQuery:
			prefix := t.prefix
			out = append(out, HighlightTerm{Field: t.field, Match: func(s string) bool { return strings.HasPrefix(s, prefix) }})
		case *regexpQuery:
			re := t.aut
			out = append(out, HighlightTerm{Field: t.field, Match: func(s string) bool {
				st := re.Start()
				for i := 0; i < len(s) && re.CanMatch(st); i++ {
					st = re.Accept(st, s[i])
				}
				return re.IsMatch(st)
			}})
		case *fuzzyQuery:
			f := *t
			q := []rune(f.term)
			prefix := runePrefix(f.term, f.prefixLength)
			out = append(out, HighlightTerm{Field: f.field, Match: func(s string) bool {
				if !strings.HasPrefix(s, prefix) {
					return false
				}
				if f.maxEdits <= 0 {
					return s == f.term
				}
				return editDistance(q, []rune(s), f.transpositions) <= f.maxEdits && utf8.ValidString(s)
			}})
		case *phrasePrefixQuery:
			if len(t.terms) == 0 {
				prefix := t.prefix
				out = append(out, HighlightTerm{Field: t.field, Match: func(s string) bool { return strings.HasPrefix(s, prefix) }})
			} else {
				out = append(out, HighlightTerm{Field: t.field, Phrase: t.terms, LastPrefix: t.prefix, HasPrefix: true, Slop: t.slop})
			}
		case *boolQuery:
			for _, c := range t.must {
				walk(c)
			}
			for _, c := range t.filter {
				walk(c)
			}
			for _, c := range t.should {
				walk(c)
			}
		case *constScoreQuery:
			walk(t.q)
		case *scaleQuery:
			walk(t.q)
		case *disMaxQuery:
			for _, c := range t.clauses {
				walk(c)
			}
		case *boostingQuery:
			walk(t.positive)
		case *functionScoreQuery:
			walk(t.inner)
		case *termsSetQuery:
			for _, c := range t.terms {
				walk(c)
			}
		}
	}
	walk(q)
	return out
}
