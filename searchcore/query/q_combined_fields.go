package query

import (
	"github.com/blugelabs/bluge"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// CombinedFieldsQuery is {"combined_fields": {"query": q, "fields": [...]}}:
// text fields sharing one search analyzer searched as if they were one
// field. Each term's score is the sum of its per-field scores times the
// field boosts (an approximation of Lucene's BM25F).
type CombinedFieldsQuery struct {
	base
	value        scalar
	fields       []fieldBoost
	operatorAnd  bool
	msm          string
	hasMSM       bool
	zeroTermsAll bool
}

func registerCombinedFields(p *Parser) {
	p.register("combined_fields", parseCombinedFields)
}

// parseCombinedFields follows CombinedFieldsQueryBuilder's parser.
func parseCombinedFields(_ *Parser, body *jval) (Node, error) {
	q := &CombinedFieldsQuery{base: newBase()}
	var value *scalar
	op := objectParser{name: "combined_fields", body: body}
	op.value("query", func(v *jval) error {
		if s, ok := scalarOf(v); ok {
			value = &s
		}
		return nil
	})
	op.stringArray("fields", func(list []string) error {
		for _, s := range list {
			fb, err := parseFieldBoost(s)
			if err != nil {
				return err
			}
			q.fields = append(q.fields, fb)
		}
		return nil
	})
	op.str("operator", func(s string) error {
		var err error
		q.operatorAnd, err = parseOperator(s)
		return err
	})
	op.value("minimum_should_match", func(v *jval) error {
		s, ok, err := v.textOrNull()
		q.msm, q.hasMSM = s, ok
		return err
	})
	op.str("zero_terms_query", func(s string) error {
		switch s {
		case "none", "NONE":
			q.zeroTermsAll = false
		case "all", "ALL":
			q.zeroTermsAll = true
		default:
			return searchcore.IllegalArgument("No enum constant org.elasticsearch.index.search.MatchQuery.ZeroTermsQuery.%s", s)
		}
		return nil
	})
	op.boolean("auto_generate_synonyms_phrase_query", func(bool) error { return nil })
	op.str("_name", func(s string) error { q.name = s; return nil })
	op.float("boost", func(f float32) error { return q.setBoost(f, body) })
	if err := op.parse(); err != nil {
		return nil, err
	}
	if value == nil {
		return nil, searchcore.IllegalArgument("Required [query]")
	}
	q.value = *value
	return q, nil
}

// Compile implements Node.
func (q *CombinedFieldsQuery) Compile(ctx *Context) (bluge.Query, error) {
	for _, f := range q.fields {
		if f.boost < 1 {
			return nil, ctx.failedToCreate(searchcore.IllegalArgument("[combined_fields] requires field boosts to be >= 1.0"))
		}
	}
	fields := ctx.resolveFields(q.fields)
	if len(fields) == 0 {
		return matchNone(), nil
	}
	if len(fields) > ctx.maxClauseCount() {
		return nil, ctx.tooManyClauses()
	}
	var analyzerKey string
	for i, f := range fields {
		if !f.ft.isText() {
			return nil, ctx.failedToCreate(searchcore.IllegalArgument(
				"Field [%s] of type [%s] does not support [combined_fields] queries", f.ft.path, f.ft.typ))
		}
		if err := ctx.failIfNotIndexed(f.ft); err != nil {
			return nil, err
		}
		key := ""
		if f.ft.f != nil {
			key = f.ft.f.SearchAnalyzer
			if key == "" {
				key = f.ft.f.Analyzer
			}
		}
		if i == 0 {
			analyzerKey = key
		} else if key != analyzerKey {
			return nil, ctx.failedToCreate(searchcore.IllegalArgument(
				"All fields in [combined_fields] query must have the same search analyzer"))
		}
	}
	an, err := ctx.searchAnalyzer(fields[0].ft)
	if err != nil {
		return nil, err
	}
	positions := analyzePositions(an, q.value.String())
	if len(positions) == 0 {
		return ctx.zeroTerms(q.zeroTermsAll, q.boost), nil
	}
	if len(positions)*len(fields) > ctx.maxClauseCount() {
		return nil, ctx.tooManyClauses()
	}
	clauses := make([]bluge.Query, 0, len(positions))
	for _, p := range positions {
		per := &boolQuery{minShould: 1, boost: 1}
		for _, f := range fields {
			per.should = append(per.should, Boosted(termsAtPosition(f.ft.path, p.terms), f.boost))
		}
		if len(per.should) == 1 {
			clauses = append(clauses, per.should[0])
		} else {
			clauses = append(clauses, per)
		}
	}
	if len(clauses) == 1 {
		return Boosted(clauses[0], q.boost), nil
	}
	b := &boolQuery{boost: 1}
	if q.operatorAnd {
		b.must = clauses
	} else {
		b.should = clauses
	}
	if q.hasMSM {
		n, err := minShouldMatch(len(b.should), q.msm)
		if err != nil {
			return nil, ctx.failedToCreate(err)
		}
		if n > 0 {
			b.minShould = n
		}
	}
	return Boosted(b, q.boost), nil
}
