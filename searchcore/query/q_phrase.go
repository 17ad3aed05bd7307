package query

import (
	"strings"

	"github.com/blugelabs/bluge"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// The phrase family of full-text queries: match_phrase, match_phrase_prefix
// and match_bool_prefix. They share the analysis of match and are compiled
// per field by textQuery, which multi_match reuses.

// textKind selects how analyzed text becomes a query.
type textKind int

const (
	textPhrase       textKind = iota // match_phrase
	textPhrasePrefix                 // match_phrase_prefix
	textBoolPrefix                   // match_bool_prefix
)

// textOpts are the parameters of a phrase-family query on one field.
type textOpts struct {
	kind           textKind
	analyzer       string
	slop           int
	zeroTermsAll   bool
	maxExpansions  int
	operatorAnd    bool
	msm            string
	hasMSM         bool
	fuzzy          *fuzziness
	prefixLength   int
	transpositions bool
	lenient        bool
}

// PhraseQuery is match_phrase, match_phrase_prefix or match_bool_prefix
// on one field.
type PhraseQuery struct {
	base
	queryName string
	field     string
	value     scalar
	opts      textOpts
}

func registerPhrase(p *Parser) {
	p.register("match_phrase", func(_ *Parser, body *jval) (Node, error) {
		return parsePhraseFamily("match_phrase", textPhrase, body)
	})
	p.register("match_phrase_prefix", func(_ *Parser, body *jval) (Node, error) {
		return parsePhraseFamily("match_phrase_prefix", textPhrasePrefix, body)
	})
	p.register("match_bool_prefix", func(_ *Parser, body *jval) (Node, error) {
		return parsePhraseFamily("match_bool_prefix", textBoolPrefix, body)
	})
}

// parsePhraseFamily follows MatchPhraseQueryBuilder,
// MatchPhrasePrefixQueryBuilder and MatchBoolPrefixQueryBuilder.fromXContent.
func parsePhraseFamily(name string, kind textKind, body *jval) (Node, error) {
	q := &PhraseQuery{base: newBase(), queryName: name,
		opts: textOpts{kind: kind, maxExpansions: 50, transpositions: true}}
	var (
		field    string
		hasField bool
		value    *scalar
		boost    float32 = 1
	)
	for _, m := range body.members {
		v := m.val
		if err := throwOnMultipleFields(name, v, field, m.key, hasField); err != nil {
			return nil, err
		}
		field, hasField = m.key, true
		if v.kind != kObject {
			switch {
			case v.kind.isValue():
				s, _ := scalarOf(v)
				value = &s
			case v.kind == kNull:
				value = nil
			default:
				return nil, v.parsingErr("[%s] unknown token [%s] after [%s]", name, v.kind.token(), m.key)
			}
			continue
		}
		for _, im := range v.members {
			iv := im.val
			if !iv.kind.isValue() {
				if iv.kind == kNull && im.key == "query" {
					value = nil
					continue
				}
				return nil, iv.parsingErr("[%s] unknown token [%s] after [%s]", name, iv.kind.token(), im.key)
			}
			var err error
			handled := true
			switch im.key {
			case "query":
				s, _ := scalarOf(iv)
				value = &s
			case "analyzer":
				q.opts.analyzer = iv.s
			case "boost":
				boost, err = iv.floatValue()
			case "_name":
				q.name = iv.s
			default:
				handled = false
			}
			if !handled {
				switch {
				case im.key == "slop" && kind != textBoolPrefix:
					q.opts.slop, err = iv.intValue()
					if err == nil && q.opts.slop < 0 {
						err = searchcore.IllegalArgument("No negative slop allowed.")
					}
				case im.key == "zero_terms_query" && kind != textBoolPrefix:
					q.opts.zeroTermsAll, err = parseZeroTerms(iv)
				case im.key == "max_expansions" && kind != textPhrase:
					q.opts.maxExpansions, err = iv.intValue()
				case kind == textBoolPrefix:
					err = parseBoolPrefixParam(name, &q.opts, im.key, iv)
				default:
					err = iv.parsingErr("[%s] query does not support [%s]", name, im.key)
				}
			}
			if err != nil {
				return nil, err
			}
		}
	}
	if !hasField || field == "" {
		return nil, searchcore.IllegalArgument("[%s] requires fieldName", name)
	}
	if value == nil {
		return nil, searchcore.IllegalArgument("[%s] requires query value", name)
	}
	q.field, q.value = field, *value
	switch kind {
	case textPhrasePrefix:
		if q.opts.maxExpansions < 0 {
			return nil, searchcore.IllegalArgument("No negative maxExpansions allowed.")
		}
	case textBoolPrefix:
		if q.opts.prefixLength < 0 {
			return nil, searchcore.IllegalArgument("[%s] requires prefix length to be non-negative.", name)
		}
		if q.opts.maxExpansions <= 0 {
			return nil, searchcore.IllegalArgument("[%s] requires maxExpansions to be positive.", name)
		}
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// parseBoolPrefixParam handles the match_bool_prefix-only parameters.
func parseBoolPrefixParam(name string, o *textOpts, key string, iv *jval) error {
	var err error
	switch key {
	case "operator":
		o.operatorAnd, err = parseOperator(iv.s)
	case "minimum_should_match":
		o.msm, o.hasMSM = iv.s, true
	case "fuzziness":
		var f fuzziness
		f, err = parseFuzziness(iv)
		o.fuzzy = &f
	case "prefix_length":
		o.prefixLength, err = iv.intValue()
	case "max_expansions":
		o.maxExpansions, err = iv.intValue()
	case "fuzzy_transpositions":
		o.transpositions, err = iv.booleanValue()
	case "fuzzy_rewrite":
	default:
		err = iv.parsingErr("[%s] query does not support [%s]", name, key)
	}
	return err
}

// parseOperator is Operator.fromString; it reports whether it is AND.
func parseOperator(s string) (bool, error) {
	switch up := strings.ToUpper(s); up {
	case "AND":
		return true, nil
	case "OR":
		return false, nil
	default:
		return false, searchcore.IllegalArgument("No enum constant org.elasticsearch.index.query.Operator.%s", up)
	}
}

// parseZeroTerms parses zero_terms_query; it reports whether it is "all".
func parseZeroTerms(iv *jval) (bool, error) {
	switch {
	case strings.EqualFold(iv.s, "none"):
		return false, nil
	case strings.EqualFold(iv.s, "all"):
		return true, nil
	}
	return false, iv.parsingErr("Unsupported zero_terms_query value [%s]", iv.s)
}

// Compile implements Node.
func (q *PhraseQuery) Compile(ctx *Context) (bluge.Query, error) {
	ft, _ := ctx.lookupField(q.field)
	return ctx.textQuery(q.queryName, ft, q.value.String(), &q.opts, q.boost)
}

// textQuery compiles text for field ft as a phrase-family query. ft may be
// nil (unmapped: no match).
func (c *Context) textQuery(name string, ft *fieldType, text string, o *textOpts, boost float32) (bluge.Query, error) {
	an, unsupported, err := c.matchAnalysis(name, ft, o.analyzer)
	if err != nil {
		return nil, err
	}
	if ft == nil {
		return matchNone(), nil
	}
	lenient := func(err error) (bluge.Query, error) {
		if o.lenient {
			return matchNone(), nil
		}
		return nil, err
	}
	if unsupported != nil {
		return lenient(unsupported)
	}
	if an == nil {
		// keyword analyzer, normalizer or non-text field: one term
		if o.kind != textPhrase && ft.isString() {
			if err := c.failIfNotIndexed(ft); err != nil {
				return nil, err
			}
			v, err := c.normalize(ft, text)
			if err != nil {
				return nil, err
			}
			if o.kind == textBoolPrefix {
				return &prefixQuery{field: ft.path, prefix: v, score: float64(boost)}, nil
			}
			return Boosted(&phrasePrefixQuery{field: ft.path, prefix: v, maxExpansions: o.maxExpansions}, boost), nil
		}
		tq, err := c.termQuery(ft, scalar{kind: kString, s: text}, 1)
		if err != nil {
			return lenient(err)
		}
		return Boosted(tq, boost), nil
	}
	if !ft.isText() {
		// an explicit analyzer on a keyword or numeric field: analyzed
		// terms are still matched as exact values
		groups := groupByPosition(an.Analyze([]byte(text)))
		if len(groups) == 0 {
			return c.zeroTerms(o.zeroTermsAll, boost), nil
		}
		b := &boolQuery{boost: 1}
		for _, g := range groups {
			for _, t := range g {
				tq, err := c.termQuery(ft, scalar{kind: kString, s: t}, 1)
				if err != nil {
					return lenient(err)
				}
				b.should = append(b.should, tq)
			}
		}
		return Boosted(b, boost), nil
	}
	if err := c.failIfNotIndexed(ft); err != nil {
		return nil, err
	}
	positions := analyzePositions(an, text)
	if len(positions) == 0 {
		if o.kind == textBoolPrefix {
			return matchNone(), nil
		}
		return c.zeroTerms(o.zeroTermsAll, boost), nil
	}
	if len(positions) > c.maxClauseCount() {
		return nil, c.tooManyClauses()
	}
	switch o.kind {
	case textBoolPrefix:
		return c.boolPrefix(ft, positions, o, boost)
	case textPhrasePrefix:
		last := positions[len(positions)-1]
		return Boosted(&phrasePrefixQuery{
			field:         ft.path,
			terms:         phraseSlots(positions[:len(positions)-1], last.pos),
			prefix:        last.terms[0],
			slop:          o.slop,
			maxExpansions: o.maxExpansions,
		}, boost), nil
	}
	if len(positions) == 1 {
		return Boosted(termsAtPosition(ft.path, positions[0].terms), boost), nil
	}
	slots := phraseSlots(positions, positions[len(positions)-1].pos+1)
	return Boosted(newPhraseQuery(slots, ft.path, o.slop), boost), nil
}

// zeroTerms is the query for text analyzed to no terms.
func (c *Context) zeroTerms(all bool, boost float32) bluge.Query {
	if all {
		return &matchAllQuery{score: float64(boost)}
	}
	return matchNone()
}

// boolPrefix is match_bool_prefix: a term (or fuzzy) clause per position
// and a prefix clause for the last one, combined with the operator.
func (c *Context) boolPrefix(ft *fieldType, positions []posTerms, o *textOpts, boost float32) (bluge.Query, error) {
	clauses := make([]bluge.Query, 0, len(positions))
	for i, p := range positions {
		var alts []bluge.Query
		for _, t := range p.terms {
			var q bluge.Query
			var err error
			switch {
			case i == len(positions)-1:
				q = &prefixQuery{field: ft.path, prefix: t, score: 1}
			case o.fuzzy != nil:
				q, err = c.fuzzyQuery(ft, t, *o.fuzzy, o.prefixLength, o.maxExpansions, o.transpositions, 1)
			default:
				q = bluge.NewTermQuery(t).SetField(ft.path)
			}
			if err != nil {
				return nil, err
			}
			alts = append(alts, q)
		}
		if len(alts) == 1 {
			clauses = append(clauses, alts[0])
		} else {
			clauses = append(clauses, &boolQuery{should: alts, minShould: 1, boost: 1})
		}
	}
	if len(clauses) == 1 {
		return Boosted(clauses[0], boost), nil
	}
	b := &boolQuery{boost: 1}
	if o.operatorAnd {
		b.must = clauses
	} else {
		b.should = clauses
	}
	if o.hasMSM {
		n, err := minShouldMatch(len(b.should), o.msm)
		if err != nil {
			return nil, c.failedToCreate(err)
		}
		if n > 0 {
			b.minShould = n
		}
	}
	return Boosted(b, boost), nil
}

// posTerms are the terms analyzed at one position (several for synonyms).
type posTerms struct {
	pos   int
	terms []string
}

// analyzePositions analyzes text and groups the terms by position,
// positions counted from 0 at the first token (gaps left by removed stop
// words are kept).
func analyzePositions(an textAnalyzer, text string) []posTerms {
	var out []posTerms
	pos := -1
	for i, t := range an.Analyze([]byte(text)) {
		incr := t.PositionIncr
		if i == 0 {
			incr = 1
		}
		if incr == 0 && len(out) > 0 {
			out[len(out)-1].terms = append(out[len(out)-1].terms, string(t.Term))
			continue
		}
		pos += max(incr, 1)
		out = append(out, posTerms{pos: pos, terms: []string{string(t.Term)}})
	}
	return out
}

// phraseSlots lays the positions out as bluge phrase slots of length n;
// an empty slot ("") matches any term (a removed stop word).
func phraseSlots(positions []posTerms, n int) [][]string {
	slots := make([][]string, n)
	for i := range slots {
		slots[i] = []string{""}
	}
	for _, p := range positions {
		slots[p.pos] = p.terms
	}
	return slots
}

// termsAtPosition is a scoring term query, or a disjunction of synonyms.
func termsAtPosition(field string, terms []string) bluge.Query {
	if len(terms) == 1 {
		return bluge.NewTermQuery(terms[0]).SetField(field)
	}
	b := &boolQuery{minShould: 1, boost: 1}
	for _, t := range terms {
		b.should = append(b.should, bluge.NewTermQuery(t).SetField(field))
	}
	return b
}
