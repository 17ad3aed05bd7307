package query

import (
	"strings"

	"github.com/blugelabs/bluge"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// MatchQuery is the full-text {"match": {"<field>": {"query": ...}}}. The
// text is analyzed with the field's search analyzer and each position
// becomes a term (or fuzzy) clause combined with the operator.
type MatchQuery struct {
	base
	field          string
	value          scalar
	operator       string // "OR" or "AND"
	analyzer       string
	msm            string
	hasMSM         bool
	fuzzy          *fuzziness
	prefixLength   int
	maxExpansions  int
	transpositions bool
	lenient        bool
	zeroTermsAll   bool
}

func registerMatch(p *Parser) {
	p.register("match", parseMatch)
}

// parseMatch follows MatchQueryBuilder.fromXContent.
func parseMatch(_ *Parser, body *jval) (Node, error) {
	q := &MatchQuery{base: newBase(), operator: "OR", maxExpansions: 50, transpositions: true}
	var (
		field    string
		hasField bool
		value    *scalar
		boost    float32 = 1
	)
	for _, m := range body.members {
		v := m.val
		if v.kind == kObject {
			if err := throwOnMultipleFields("match", v, field, m.key, hasField); err != nil {
				return nil, err
			}
			field, hasField = m.key, true
			for _, im := range v.members {
				iv := im.val
				if !iv.kind.isValue() {
					return nil, iv.parsingErr("[match] unknown token [%s] after [%s]", iv.kind.token(), im.key)
				}
				var err error
				switch im.key {
				case "query":
					s, _ := scalarOf(iv)
					value = &s
				case "analyzer":
					q.analyzer = iv.s
				case "boost":
					boost, err = iv.floatValue()
				case "fuzziness":
					var f fuzziness
					f, err = parseFuzziness(iv)
					q.fuzzy = &f
				case "prefix_length":
					q.prefixLength, err = iv.intValue()
				case "max_expansions":
					q.maxExpansions, err = iv.intValue()
				case "operator":
					q.operator = strings.ToUpper(iv.s)
					if q.operator != "OR" && q.operator != "AND" {
						err = searchcore.IllegalArgument("No enum constant org.elasticsearch.index.query.Operator.%s", q.operator)
					}
				case "minimum_should_match":
					q.msm, q.hasMSM = iv.s, true
				case "fuzzy_rewrite":
				case "fuzzy_transpositions":
					q.transpositions, err = iv.booleanValue()
				case "lenient":
					q.lenient, err = iv.booleanValue()
				case "cutoff_frequency":
					_, err = iv.floatValue()
				case "zero_terms_query":
					switch {
					case strings.EqualFold(iv.s, "none"):
						q.zeroTermsAll = false
					case strings.EqualFold(iv.s, "all"):
						q.zeroTermsAll = true
					default:
						err = iv.parsingErr("Unsupported zero_terms_query value [%s]", iv.s)
					}
				case "_name":
					q.name = iv.s
				case "auto_generate_synonyms_phrase_query":
					_, err = iv.booleanValue()
				default:
					err = iv.parsingErr("[match] query does not support [%s]", im.key)
				}
				if err != nil {
					return nil, err
				}
			}
			continue
		}
		if err := throwOnMultipleFields("match", v, field, m.key, hasField); err != nil {
			return nil, err
		}
		field, hasField = m.key, true
		switch {
		case v.kind.isValue():
			s, _ := scalarOf(v)
			value = &s
		case v.kind == kNull:
			value = nil
		default:
			return nil, v.parsingErr("[match] unknown token [%s] after [%s]", v.kind.token(), m.key)
		}
	}
	if value == nil {
		return nil, body.parsingErr("No text specified for text query")
	}
	q.field, q.value = field, *value
	if q.prefixLength < 0 {
		return nil, searchcore.IllegalArgument("[match] requires prefix length to be non-negative.")
	}
	if q.maxExpansions <= 0 {
		return nil, searchcore.IllegalArgument("[match] requires maxExpansions to be positive.")
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node; it is MatchQuery.parse(Type.BOOLEAN, ...).
func (q *MatchQuery) Compile(ctx *Context) (bluge.Query, error) {
	if q.field == indexField {
		// _index is not analysed: match is a term query
		return indexNameQuery(ctx, []scalar{q.value}, q.boost), nil
	}
	ft, _ := ctx.lookupField(q.field)
	an, unsupported, err := ctx.matchAnalysis("match", ft, q.analyzer)
	if err != nil {
		return nil, err
	}
	if ft == nil {
		return matchNone(), nil
	}
	lenient := func(err error) (bluge.Query, error) {
		if q.lenient {
			return matchNone(), nil
		}
		return nil, err
	}
	if unsupported != nil {
		return lenient(unsupported)
	}
	if an == nil {
		// keyword analyzer or normalizer: the whole value is one term
		tq, err := q.termClause(ctx, ft, q.value.String())
		if err != nil {
			return lenient(err)
		}
		return Boosted(tq, q.boost), nil
	}
	groups := groupByPosition(an.Analyze([]byte(q.value.String())))
	if len(groups) == 0 {
		if q.zeroTermsAll {
			return &matchAllQuery{score: float64(q.boost)}, nil
		}
		return matchNone(), nil
	}
	if len(groups) > ctx.maxClauseCount() {
		return nil, ctx.tooManyClauses()
	}
	clauses := make([]bluge.Query, 0, len(groups))
	for _, g := range groups {
		var c bluge.Query
		if len(g) == 1 {
			c, err = q.termClause(ctx, ft, g[0])
		} else {
			// synonyms at one position: any of them
			syn := &boolQuery{minShould: 1, boost: 1}
			for _, t := range g {
				tq, terr := q.termClause(ctx, ft, t)
				if terr != nil {
					err = terr
					break
				}
				syn.should = append(syn.should, tq)
			}
			c = syn
		}
		if err != nil {
			return lenient(err)
		}
		clauses = append(clauses, c)
	}
	if len(clauses) == 1 {
		return Boosted(clauses[0], q.boost), nil
	}
	b := &boolQuery{boost: 1}
	if q.operator == "AND" {
		b.must = clauses
	} else {
		b.should = clauses
	}
	if q.hasMSM {
		optional := len(b.should)
		n, err := minShouldMatch(optional, q.msm)
		if err != nil {
			return nil, ctx.failedToCreate(err)
		}
		if n > 0 {
			b.minShould = n
		}
	}
	return Boosted(b, q.boost), nil
}

// termClause is the query for one analyzed term: a term query, or a fuzzy
// query when fuzziness is set.
func (q *MatchQuery) termClause(ctx *Context, ft *fieldType, text string) (bluge.Query, error) {
	if q.fuzzy == nil {
		return ctx.termQuery(ft, scalar{kind: kString, s: text}, 1)
	}
	return ctx.fuzzyQuery(ft, text, *q.fuzzy, q.prefixLength, q.maxExpansions, q.transpositions, 1)
}

// fuzzyQuery is MappedFieldType.fuzzyQuery.
func (c *Context) fuzzyQuery(ft *fieldType, text string, f fuzziness, prefixLength, maxExpansions int,
	transpositions bool, boost float32) (bluge.Query, error) {
	if !ft.isString() {
		return nil, c.shardErr("Can only use fuzzy queries on keyword and text fields - not on [%s] which is of type [%s]", ft.path, ft.typ)
	}
	if err := c.failIfNotIndexed(ft); err != nil {
		return nil, err
	}
	switch {
	case prefixLength < 0:
		return nil, c.failedToCreate(searchcore.IllegalArgument("prefixLength cannot be negative."))
	case maxExpansions <= 0:
		return nil, c.failedToCreate(searchcore.IllegalArgument("maxExpansions must be positive."))
	}
	term, err := c.normalize(ft, text)
	if err != nil {
		return nil, err
	}
	return &fuzzyQuery{
		field:          ft.path,
		term:           term,
		maxEdits:       f.distance(text),
		prefixLength:   prefixLength,
		maxExpansions:  maxExpansions,
		transpositions: transpositions,
		boost:          float64(boost),
	}, nil
}

// groupByPosition groups analyzed terms by position (tokens with a zero
// position increment are synonyms of the previous one).
func groupByPosition(tokens []*token) [][]string {
	var groups [][]string
	for i, t := range tokens {
		if i > 0 && t.PositionIncr == 0 && len(groups) > 0 {
			groups[len(groups)-1] = append(groups[len(groups)-1], string(t.Term))
			continue
		}
		groups = append(groups, []string{string(t.Term)})
	}
	return groups
}

// matchAnalysis resolves what a match-family query on ft needs: the named
// analyzer (an error when it does not exist, mapped field or not), else the
// search analyzer of a text field, else nil (the value is one term).
// unsupported is the error for a field type match queries cannot search,
// which lenient turns into no match; ft may be nil (unmapped).
func (c *Context) matchAnalysis(name string, ft *fieldType, analyzer string) (an textAnalyzer, unsupported, err error) {
	if analyzer != "" {
		a, ok := c.namedAnalyzer(analyzer)
		if !ok {
			return nil, nil, c.shardErr("[%s] analyzer [%s] not found", name, analyzer)
		}
		an = a
	}
	if ft == nil {
		return an, nil, nil
	}
	if !ft.isString() && !ft.isNumber() && !ft.isDate() && ft.typ != mapping.TypeBoolean {
		return nil, c.failedToCreate(searchcore.IllegalArgument(
			"Field [%s] of type [%s] does not support match queries", ft.path, ft.typ)), nil
	}
	if an == nil && ft.isText() {
		if an, err = c.searchAnalyzer(ft); err != nil {
			return nil, nil, err
		}
	}
	return an, nil, nil
}
