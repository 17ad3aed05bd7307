package query

import (
	"sort"
	"strings"

	"github.com/blugelabs/bluge"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// MultiMatchQuery is {"multi_match": {"query": q, "fields": [...], "type": t}}:
// a full-text query over several fields ("title^3" boosts, "tit*" patterns;
// no fields means all string fields).
type MultiMatchQuery struct {
	base
	value         scalar
	fields        []fieldBoost
	typ           string
	tieBreaker    *float32
	slop          *int
	operatorAnd   bool
	analyzer      string
	msm           string
	hasMSM        bool
	fuzzy         *fuzziness
	prefixLength  int
	maxExpansions int
	transpose     bool
	lenient       bool
	zeroTermsAll  bool
}

// fieldBoost is a field name or pattern with its boost.
type fieldBoost struct {
	field string
	boost float32
}

func registerMultiMatch(p *Parser) {
	p.register("multi_match", parseMultiMatch)
}

// multiMatchTypes maps the accepted type names (with the deprecated
// "boolean") to the canonical ones.
var multiMatchTypes = map[string]string{
	"best_fields": "best_fields", "boolean": "best_fields", "most_fields": "most_fields",
	"cross_fields": "cross_fields", "phrase": "phrase", "phrase_prefix": "phrase_prefix",
	"bool_prefix": "bool_prefix",
}

// appendFieldBoost parses one "field^boost" string value onto list.
func appendFieldBoost(list []fieldBoost, v *jval) ([]fieldBoost, error) {
	s, err := v.text()
	if err != nil {
		return list, err
	}
	fb, err := parseFieldBoost(s)
	if err != nil {
		return list, err
	}
	return append(list, fb), nil
}

// parseFieldBoost splits "field^boost" as QueryParserHelper does.
func parseFieldBoost(s string) (fieldBoost, error) {
	i := strings.LastIndexByte(s, '^')
	if i < 0 {
		return fieldBoost{field: s, boost: 1}, nil
	}
	b, err := javaParseFloat(s[i+1:])
	if err != nil {
		return fieldBoost{}, err
	}
	return fieldBoost{field: s[:i], boost: b}, nil
}

// parseMultiMatch follows MultiMatchQueryBuilder.fromXContent.
func parseMultiMatch(_ *Parser, body *jval) (Node, error) {
	q := &MultiMatchQuery{base: newBase(), typ: "best_fields", maxExpansions: 50, transpose: true}
	var (
		hasCutoff bool
		value     *scalar
		boost     float32 = 1
	)
	addField := func(v *jval) error {
		var err error
		q.fields, err = appendFieldBoost(q.fields, v)
		return err
	}
	for _, m := range body.members {
		v := m.val
		if m.key == "fields" && v.kind == kArray {
			for _, e := range v.elems {
				if !e.kind.isValue() {
					return nil, e.parsingErr("[multi_match] query does not support [%s]", m.key)
				}
				if err := addField(e); err != nil {
					return nil, err
				}
			}
			continue
		}
		if !v.kind.isValue() {
			if v.kind == kNull {
				continue
			}
			return nil, v.parsingErr("[multi_match] unknown token [%s] after [%s]", v.kind.token(), m.key)
		}
		var err error
		switch m.key {
		case "fields":
			err = addField(v)
		case "query":
			s, _ := scalarOf(v)
			value = &s
		case "type":
			t, ok := multiMatchTypes[strings.ToLower(v.s)]
			if !ok {
				return nil, searchcore.Errorf(searchcore.Invalid, "parse_exception",
					"failed to parse [multi_match] query type [%s]. unknown type.", v.s)
			}
			q.typ = t
		case "analyzer":
			q.analyzer = v.s
		case "boost":
			boost, err = v.floatValue()
		case "slop", "phrase_slop":
			var n int
			n, err = v.intValue()
			if err == nil && n < 0 {
				err = searchcore.IllegalArgument("No negative slop allowed.")
			}
			q.slop = &n
		case "fuzziness":
			var f fuzziness
			f, err = parseFuzziness(v)
			q.fuzzy = &f
		case "prefix_length":
			q.prefixLength, err = v.intValue()
		case "max_expansions":
			q.maxExpansions, err = v.intValue()
		case "operator":
			q.operatorAnd, err = parseOperator(v.s)
		case "minimum_should_match":
			q.msm, q.hasMSM = v.s, true
		case "fuzzy_rewrite", "use_dis_max", "auto_generate_synonyms_phrase_query":
		case "tie_breaker":
			var f float32
			f, err = v.floatValue()
			q.tieBreaker = &f
		case "cutoff_frequency":
			_, err = v.floatValue()
			hasCutoff = true
		case "lenient":
			q.lenient, err = v.booleanValue()
		case "zero_terms_query":
			q.zeroTermsAll, err = parseZeroTerms(v)
		case "fuzzy_transpositions":
			q.transpose, err = v.booleanValue()
		case "_name":
			q.name = v.s
		default:
			err = v.parsingErr("[multi_match] query does not support [%s]", m.key)
		}
		if err != nil {
			return nil, err
		}
	}
	if value == nil {
		return nil, body.parsingErr("No text specified for multi_match query")
	}
	q.value = *value
	if q.fuzzy != nil && (q.typ == "cross_fields" || q.typ == "phrase" || q.typ == "phrase_prefix") {
		return nil, body.parsingErr("Fuzziness not allowed for type [%s]", q.typ)
	}
	if q.slop != nil && *q.slop != 0 && q.typ == "bool_prefix" {
		return nil, body.parsingErr("[slop] not allowed for type [%s]", q.typ)
	}
	if hasCutoff && q.typ == "bool_prefix" {
		return nil, body.parsingErr("[cutoff_frequency] not allowed for type [%s]", q.typ)
	}
	if q.prefixLength < 0 {
		return nil, searchcore.IllegalArgument("[multi_match] requires prefix length to be non-negative.")
	}
	if q.maxExpansions <= 0 {
		return nil, searchcore.IllegalArgument("[multi_match] requires maxExpansions to be positive.")
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// resolveFields expands field names and patterns to mapped fields with
// their boosts (boosts multiply when a field is listed twice).
// Patterns pick the fields full-text queries can search (not geo points),
// as QueryParserHelper.resolveMappingFields does.
func (c *Context) resolveFields(list []fieldBoost) []resolvedField {
	if len(list) == 0 {
		list = []fieldBoost{{field: "*", boost: 1}}
	}
	seen := map[string]int{}
	var out []resolvedField
	add := func(ft *fieldType, boost float32) {
		if i, ok := seen[ft.path]; ok {
			out[i].boost *= boost
			return
		}
		seen[ft.path] = len(out)
		out = append(out, resolvedField{ft: ft, boost: boost})
	}
	for _, fb := range list {
		if !strings.Contains(fb.field, "*") {
			if ft, _ := c.lookupField(fb.field); ft != nil {
				add(ft, fb.boost)
			}
			continue
		}
		if c.Mapping == nil {
			continue
		}
		paths := c.Mapping.MatchFields(fb.field)
		sort.Strings(paths)
		for _, p := range paths {
			ft, _ := c.lookupField(p)
			if ft == nil || !ft.indexed() || !(ft.isString() || ft.isNumber() || ft.isDate() || ft.typ == mapping.TypeBoolean) {
				continue
			}
			add(ft, fb.boost)
		}
	}
	return out
}

// resolvedField is a mapped field a multi-field query searches.
type resolvedField struct {
	ft    *fieldType
	boost float32
}

// Compile implements Node (MultiMatchQuery.parse per type).
func (q *MultiMatchQuery) Compile(ctx *Context) (bluge.Query, error) {
	fields := ctx.resolveFields(q.fields)
	if len(fields) > ctx.maxClauseCount() {
		return nil, ctx.tooManyClauses()
	}
	if len(fields) == 0 {
		return matchNone(), nil
	}
	lenient := q.lenient
	for _, f := range q.fields {
		if f.field == "*" {
			lenient = true
		}
	}
	if len(q.fields) == 0 {
		lenient = true
	}
	tie := float64(0)
	if q.typ == "most_fields" {
		tie = 1
	}
	if q.tieBreaker != nil {
		tie = float64(*q.tieBreaker)
	}
	if q.typ == "cross_fields" {
		return q.crossFields(ctx, fields, tie, lenient)
	}
	var clauses []bluge.Query
	for _, f := range fields {
		var c bluge.Query
		var err error
		switch q.typ {
		case "best_fields", "most_fields":
			mq := &MatchQuery{base: base{boost: f.boost}, field: f.ft.path, value: q.value,
				operator: "OR", analyzer: q.analyzer, msm: q.msm, hasMSM: q.hasMSM, fuzzy: q.fuzzy,
				prefixLength: q.prefixLength, maxExpansions: q.maxExpansions, transpositions: q.transpose,
				lenient: lenient, zeroTermsAll: q.zeroTermsAll}
			if q.operatorAnd {
				mq.operator = "AND"
			}
			c, err = ctx.CompileNode(mq)
		default:
			o := &textOpts{analyzer: q.analyzer, zeroTermsAll: q.zeroTermsAll, maxExpansions: q.maxExpansions,
				operatorAnd: q.operatorAnd, msm: q.msm, hasMSM: q.hasMSM, fuzzy: q.fuzzy,
				prefixLength: q.prefixLength, transpositions: q.transpose, lenient: lenient}
			if q.slop != nil {
				o.slop = *q.slop
			}
			switch q.typ {
			case "phrase":
				o.kind = textPhrase
			case "phrase_prefix":
				o.kind = textPhrasePrefix
			default:
				o.kind = textBoolPrefix
			}
			c, err = ctx.textQuery("multi_match", f.ft, q.value.String(), o, f.boost)
		}
		if err != nil {
			return nil, err
		}
		if _, none := c.(*bluge.MatchNoneQuery); none {
			continue
		}
		clauses = append(clauses, c)
	}
	switch len(clauses) {
	case 0:
		return matchNone(), nil
	case 1:
		return Boosted(clauses[0], q.boost), nil
	}
	return Boosted(&disMaxQuery{clauses: clauses, tieBreaker: tie}, q.boost), nil
}

// crossFields analyzes the text once per analyzer and searches each term
// in all fields at once (the best field's score plus tie_breaker times the
// others), combining the terms with the operator.
func (q *MultiMatchQuery) crossFields(ctx *Context, fields []resolvedField, tie float64, lenient bool) (bluge.Query, error) {
	var text []resolvedField
	var others []bluge.Query
	for _, f := range fields {
		if f.ft.isText() && q.analyzer == "" {
			text = append(text, f)
			continue
		}
		mq := &MatchQuery{base: base{boost: f.boost}, field: f.ft.path, value: q.value, operator: "OR",
			analyzer: q.analyzer, msm: q.msm, hasMSM: q.hasMSM, maxExpansions: 50, transpositions: true,
			lenient: lenient, zeroTermsAll: q.zeroTermsAll}
		if q.operatorAnd {
			mq.operator = "AND"
		}
		c, err := ctx.CompileNode(mq)
		if err != nil {
			return nil, err
		}
		if _, none := c.(*bluge.MatchNoneQuery); !none {
			others = append(others, c)
		}
	}
	// one blended query per group of fields sharing a search analyzer
	var groups [][]resolvedField
	keys := map[string]int{}
	for _, f := range text {
		key := ""
		if f.ft.f != nil {
			key = f.ft.f.SearchAnalyzer + "\x00" + f.ft.f.Analyzer
		}
		i, ok := keys[key]
		if !ok {
			i = len(groups)
			keys[key] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], f)
	}
	for _, group := range groups {
		q, err := q.crossFieldsGroup(ctx, group, tie)
		if err != nil {
			return nil, err
		}
		if q != nil {
			others = append(others, q)
		}
	}
	switch len(others) {
	case 0:
		return matchNone(), nil
	case 1:
		return Boosted(others[0], q.boost), nil
	}
	return Boosted(&disMaxQuery{clauses: others, tieBreaker: tie}, q.boost), nil
}

// crossFieldsGroup is the blended query of fields sharing an analyzer: each
// term searched in all of them (best field plus tie_breaker times the
// others), the terms combined with the operator. nil means no match.
func (q *MultiMatchQuery) crossFieldsGroup(ctx *Context, group []resolvedField, tie float64) (bluge.Query, error) {
	an, err := ctx.searchAnalyzer(group[0].ft)
	if err != nil {
		return nil, err
	}
	positions := analyzePositions(an, q.value.String())
	if len(positions) > ctx.maxClauseCount() {
		return nil, ctx.tooManyClauses()
	}
	var clauses []bluge.Query
	for _, p := range positions {
		var alts []bluge.Query
		for _, f := range group {
			if err := ctx.failIfNotIndexed(f.ft); err != nil {
				return nil, err
			}
			alts = append(alts, Boosted(termsAtPosition(f.ft.path, p.terms), f.boost))
		}
		if len(alts) == 1 {
			clauses = append(clauses, alts[0])
		} else {
			clauses = append(clauses, &disMaxQuery{clauses: alts, tieBreaker: tie})
		}
	}
	switch {
	case len(clauses) == 0:
		if q.zeroTermsAll {
			return &matchAllQuery{score: 1}, nil
		}
	case len(clauses) == 1:
		return clauses[0], nil
	default:
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
		return b, nil
	}
	return nil, nil
}
