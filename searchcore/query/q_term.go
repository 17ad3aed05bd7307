package query

import (
	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/numeric"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// TermQuery is {"term": {"<field>": {"value": v, "boost", "case_insensitive"}}}.
// The value is not analyzed; keyword normalizers apply; numbers, dates and
// booleans match exactly.
type TermQuery struct {
	base
	field           string
	value           scalar
	caseInsensitive bool
}

// TermsQuery is {"terms": {"<field>": [values]}} or a terms lookup
// {"terms": {"<field>": {"index", "id", "path"}}}.
type TermsQuery struct {
	base
	field  string
	values []scalar
	lookup *termsLookup
}

// termsLookup names the document a terms lookup reads values from.
type termsLookup struct {
	index, id, path, routing string
}

func registerTerm(p *Parser) {
	p.register("term", parseTerm)
	p.register("terms", parseTerms)
}

// throwOnMultipleFields is AbstractQueryBuilder.throwParsingExceptionOnMultipleFields.
func throwOnMultipleFields(name string, at *jval, processed, current string, have bool) error {
	if have {
		return at.parsingErr("[%s] query doesn't support multiple fields, found [%s] and [%s]", name, processed, current)
	}
	return nil
}

// parseTerm follows TermQueryBuilder.fromXContent.
func parseTerm(_ *Parser, body *jval) (Node, error) {
	q := &TermQuery{base: newBase()}
	var (
		field    string
		hasField bool
		value    *scalar
		boost    float32 = 1
	)
	for _, m := range body.members {
		v := m.val
		switch {
		case v.kind == kObject:
			if err := throwOnMultipleFields("term", v, field, m.key, hasField); err != nil {
				return nil, err
			}
			field, hasField = m.key, true
			for _, im := range v.members {
				iv := im.val
				switch im.key {
				case "term", "value":
					s, err := termValue(iv, "term")
					if err != nil {
						return nil, err
					}
					value = s
				case "_name":
					s, err := iv.text()
					if err != nil {
						return nil, err
					}
					q.name = s
				case "boost":
					f, err := iv.floatValue()
					if err != nil {
						return nil, err
					}
					boost = f
				case "case_insensitive":
					b, err := iv.booleanValue()
					if err != nil {
						return nil, err
					}
					q.caseInsensitive = b
				default:
					return nil, iv.parsingErr("[term] query does not support [%s]", im.key)
				}
			}
		case v.kind.isValue():
			if err := throwOnMultipleFields("term", v, field, m.key, hasField); err != nil {
				return nil, err
			}
			field, hasField = m.key, true
			s, _ := scalarOf(v)
			value = &s
		case v.kind == kArray:
			return nil, v.parsingErr("[term] query does not support array of values")
		}
	}
	if field == "" {
		return nil, searchcore.IllegalArgument("field name is null or empty")
	}
	if value == nil {
		return nil, searchcore.IllegalArgument("value cannot be null")
	}
	q.field, q.value = field, *value
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// termValue reads objectBytes() for a term value: nil for null.
func termValue(v *jval, query string) (*scalar, error) {
	switch {
	case v.kind == kNull:
		return nil, nil
	case v.kind.isValue():
		s, _ := scalarOf(v)
		return &s, nil
	}
	return nil, v.parsingErr("[%s] query does not support array of values", query)
}

// Compile implements Node.
func (q *TermQuery) Compile(ctx *Context) (bluge.Query, error) {
	if q.field == "_index" {
		return indexNameQuery(ctx, []scalar{q.value}, q.boost), nil
	}
	ft, _ := ctx.lookupField(q.field)
	if ft == nil {
		return matchNone(), nil
	}
	if q.caseInsensitive {
		return ctx.termQueryCaseInsensitive(ft, q.value, q.boost)
	}
	return ctx.termQuery(ft, q.value, q.boost)
}

// indexNameQuery is a term(s) query on _index: all documents when one of
// the values names this index.
func indexNameQuery(ctx *Context, values []scalar, boost float32) bluge.Query {
	for _, v := range values {
		if v.String() == ctx.Index {
			return &matchAllQuery{score: float64(boost)}
		}
	}
	return matchNone()
}

// parseTerms follows TermsQueryBuilder.fromXContent.
func parseTerms(_ *Parser, body *jval) (Node, error) {
	q := &TermsQuery{base: newBase()}
	var (
		field    string
		hasField bool
		boost    float32 = 1
	)
	for _, m := range body.members {
		v := m.val
		switch {
		case v.kind == kArray:
			if hasField {
				return nil, v.parsingErr("[terms] query does not support multiple fields")
			}
			field, hasField = m.key, true
			q.values = make([]scalar, 0, len(v.elems))
			for _, e := range v.elems {
				if e.kind == kNull {
					return nil, e.parsingErr("No value specified for terms query")
				}
				s, ok := scalarOf(e)
				if !ok {
					return nil, e.parsingErr("[terms] unknown token [%s] after [%s]", e.kind.token(), m.key)
				}
				q.values = append(q.values, s)
			}
		case v.kind == kObject:
			if hasField {
				return nil, v.parsingErr("[terms] query does not support more than one field. Already got: [%s] but also found [%s]", field, m.key)
			}
			field, hasField = m.key, true
			l, err := parseTermsLookup(v)
			if err != nil {
				return nil, err
			}
			q.lookup = l
		case v.kind.isValue():
			switch m.key {
			case "boost":
				f, err := v.floatValue()
				if err != nil {
					return nil, err
				}
				boost = f
			case "_name":
				q.name = v.s
			default:
				return nil, v.parsingErr("[terms] query does not support [%s]", m.key)
			}
		default:
			return nil, v.parsingErr("[terms] unknown token [%s] after [%s]", v.kind.token(), m.key)
		}
	}
	if !hasField {
		return nil, body.parsingErr("[terms] query requires a field name, followed by array of terms or a document lookup specification")
	}
	if field == "" {
		return nil, searchcore.IllegalArgument("field name cannot be null.")
	}
	q.field = field
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// parseTermsLookup follows TermsLookup.parseTermsLookup.
func parseTermsLookup(v *jval) (*termsLookup, error) {
	l := &termsLookup{}
	var hasIndex, hasID, hasPath bool
	for _, m := range v.members {
		iv := m.val
		if !iv.kind.isValue() && iv.kind != kNull {
			return nil, iv.parsingErr("[terms] unknown token [%s] after [%s]", iv.kind.token(), m.key)
		}
		if iv.kind == kNull && m.key != "routing" {
			return nil, iv.parsingErr("[terms] unknown token [%s] after [%s]", iv.kind.token(), m.key)
		}
		switch m.key {
		case "index":
			l.index, hasIndex = iv.s, true
		case "id":
			l.id, hasID = iv.s, true
		case "path":
			l.path, hasPath = iv.s, true
		case "routing":
			l.routing = iv.s
		case "type":
			// deprecated in 7.x and ignored
		default:
			return nil, iv.parsingErr("[terms] query does not support [%s] within lookup element", m.key)
		}
	}
	switch {
	case !hasID:
		return nil, searchcore.IllegalArgument("[terms] query lookup element requires specifying the id.")
	case !hasPath:
		return nil, searchcore.IllegalArgument("[terms] query lookup element requires specifying the path.")
	case !hasIndex:
		return nil, searchcore.IllegalArgument("[terms] query lookup element requires specifying the index.")
	}
	return l, nil
}

// Compile implements Node.
func (q *TermsQuery) Compile(ctx *Context) (bluge.Query, error) {
	values := q.values
	if q.lookup != nil {
		if ctx.TermsLookup == nil {
			return nil, searchcore.IllegalArgument("[terms] lookup is not available for [%s]", q.field)
		}
		raw, err := ctx.TermsLookup(q.lookup.index, q.lookup.id, q.lookup.path, q.lookup.routing)
		if err != nil {
			return nil, err
		}
		values = make([]scalar, 0, len(raw))
		for _, x := range raw {
			if s, ok := scalarFromAny(x); ok {
				values = append(values, s)
			}
		}
	}
	if len(values) == 0 {
		return matchNone(), nil
	}
	maxTerms := ctx.MaxTermsCount
	if maxTerms <= 0 {
		maxTerms = 65536
	}
	if len(values) > maxTerms {
		return nil, ctx.failedToCreate(searchcore.IllegalArgument(
			"The number of terms [%d] used in the Terms Query request has exceeded the allowed maximum of [%d]. "+
				"This maximum can be set by changing the [index.max_terms_count] index level setting.", len(values), maxTerms))
	}
	if q.field == "_index" {
		return indexNameQuery(ctx, values, q.boost), nil
	}
	ft, _ := ctx.lookupField(q.field)
	if ft == nil {
		return matchNone(), nil
	}
	if err := ctx.failIfNotIndexed(ft); err != nil {
		return nil, err
	}
	score := float64(q.boost)
	switch {
	case ft.isString():
		terms := make([][]byte, 0, len(values))
		for _, v := range values {
			t, err := ctx.normalize(ft, v.String())
			if err != nil {
				return nil, err
			}
			terms = append(terms, []byte(t))
		}
		return &termsQuery{field: ft.path, terms: terms, score: score}, nil
	case ft.isNumber() || ft.typ == mapping.TypeBoolean:
		terms := make([][]byte, 0, len(values))
		for _, v := range values {
			var x float64
			var err error
			if ft.typ == mapping.TypeBoolean {
				x, err = boolValue(v)
			} else {
				var none bool
				x, _, none, err = numberExact(ft, v)
				if none {
					continue
				}
			}
			if err != nil {
				return nil, ctx.failedToCreate(err)
			}
			terms = append(terms, numericTerm(x))
		}
		return &termsQuery{field: ft.path, terms: terms, score: score}, nil
	case ft.isDate():
		b := &boolQuery{minShould: 1, boost: 1}
		for _, v := range values {
			tq, err := ctx.termQuery(ft, v, 1)
			if err != nil {
				return nil, err
			}
			b.should = append(b.should, tq)
		}
		return constScore(b, score), nil
	}
	// other types: one term query per value, as MappedFieldType.termsQuery
	b := &boolQuery{minShould: 1, boost: 1}
	for _, v := range values {
		tq, err := ctx.termQuery(ft, v, 1)
		if err != nil {
			return nil, err
		}
		b.should = append(b.should, tq)
	}
	return constScore(b, score), nil
}

// numericTerm is the indexed term of a float64 in a bluge numeric field.
func numericTerm(x float64) []byte {
	return numeric.MustNewPrefixCodedInt64(numeric.Float64ToInt64(x), 0)
}
