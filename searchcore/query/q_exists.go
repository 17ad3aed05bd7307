package query

import (
	"strings"

	"github.com/blugelabs/bluge"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// ExistsQuery is {"exists": {"field": "f"}}: documents with a value for the
// field (a leaf, an object path or a wildcard pattern), found through the
// _field_names meta field.
type ExistsQuery struct {
	base
	field string
}

// IdsQuery is {"ids": {"values": [...]}}: documents by _id.
type IdsQuery struct {
	base
	ids []string
}

func registerExists(p *Parser) {
	p.register("exists", parseExists)
	p.register("ids", parseIds)
}

// parseExists follows ExistsQueryBuilder.fromXContent.
func parseExists(_ *Parser, body *jval) (Node, error) {
	q := &ExistsQuery{base: newBase()}
	var (
		field    string
		hasField bool
		boost    float32 = 1
	)
	for _, m := range body.members {
		v := m.val
		if !v.kind.isValue() {
			return nil, v.parsingErr("[exists] unknown token [%s] after [%s]", v.kind.token(), m.key)
		}
		switch m.key {
		case "field":
			field, hasField = v.s, true
		case "_name":
			q.name = v.s
		case "boost":
			f, err := v.floatValue()
			if err != nil {
				return nil, err
			}
			boost = f
		default:
			return nil, v.parsingErr("[exists] query does not support [%s]", m.key)
		}
	}
	if !hasField {
		return nil, body.parsingErr("[exists] must be provided with a [field]")
	}
	if field == "" {
		return nil, searchcore.IllegalArgument("field name is null or empty")
	}
	q.field = field
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node.
func (q *ExistsQuery) Compile(ctx *Context) (bluge.Query, error) {
	if q.field == indexField {
		return indexNameMatches(ctx, true, q.boost), nil
	}
	return existsQuery(ctx, q.field, q.boost), nil
}

// existsQuery is ExistsQueryBuilder.newFilter: a constant-score query on
// the _field_names terms of every field the pattern names.
func existsQuery(ctx *Context, pattern string, boost float32) bluge.Query {
	if pattern == idField {
		return &matchAllQuery{score: float64(boost)}
	}
	var fields []string
	if _, object := ctx.lookupField(pattern); object {
		fields = []string{pattern}
	} else if strings.Contains(pattern, "*") {
		if ctx.Mapping != nil {
			fields = ctx.Mapping.MatchFields(pattern)
		}
	} else if ft, _ := ctx.lookupField(pattern); ft != nil {
		fields = []string{pattern}
	}
	if len(fields) == 0 {
		return matchNone()
	}
	terms := make([][]byte, len(fields))
	for i, f := range fields {
		terms[i] = []byte(f)
	}
	return &termsQuery{field: fieldNamesField, terms: terms, score: float64(boost)}
}

// parseIds follows IdsQueryBuilder's ObjectParser.
func parseIds(_ *Parser, body *jval) (Node, error) {
	q := &IdsQuery{base: newBase()}
	op := objectParser{name: "ids", body: body}
	op.stringArray("values", func(ids []string) error { q.ids = append(q.ids, ids...); return nil })
	op.stringArray("types", func([]string) error { return nil })
	op.float("boost", func(f float32) error { return q.setBoost(f, body) })
	op.str("_name", func(s string) error { q.name = s; return nil })
	if err := op.parse(); err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node.
func (q *IdsQuery) Compile(*Context) (bluge.Query, error) {
	if len(q.ids) == 0 {
		return matchNone(), nil
	}
	terms := make([][]byte, len(q.ids))
	for i, id := range q.ids {
		terms[i] = []byte(id)
	}
	return &termsQuery{field: idField, terms: terms, score: float64(q.boost)}, nil
}
