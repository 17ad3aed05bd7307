package query

import (
	"github.com/blugelabs/bluge"
)

// MatchAllQuery is {"match_all": {"boost": b}}: every document, score boost.
type MatchAllQuery struct{ base }

// MatchNoneQuery is {"match_none": {}}: no document.
type MatchNoneQuery struct{ base }

func registerMatchAll(p *Parser) {
	p.register("match_all", parseMatchAll)
	p.register("match_none", parseMatchNone)
}

// parseMatchAll follows MatchAllQueryBuilder's ObjectParser (boost, _name).
func parseMatchAll(_ *Parser, body *jval) (Node, error) {
	q := &MatchAllQuery{newBase()}
	op := objectParser{name: "match_all", body: body}
	op.float("boost", func(f float32) error { return q.setBoost(f, body) })
	op.str("_name", func(s string) error { q.name = s; return nil })
	if err := op.parse(); err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node.
func (q *MatchAllQuery) Compile(*Context) (bluge.Query, error) {
	return &matchAllQuery{score: float64(q.boost)}, nil
}

// parseMatchNone follows MatchNoneQueryBuilder.fromXContent.
func parseMatchNone(_ *Parser, body *jval) (Node, error) {
	q := &MatchNoneQuery{newBase()}
	var boost float32 = 1
	for _, m := range body.members {
		v := m.val
		if !v.kind.isValue() {
			return nil, v.parsingErr("[match_none] unknown token [%s] after [%s]", v.kind.token(), m.key)
		}
		switch m.key {
		case "_name":
			q.name = v.s
		case "boost":
			f, err := v.floatValue()
			if err != nil {
				return nil, err
			}
			boost = f
		default:
			return nil, v.parsingErr("[match_none] query does not support [%s]", m.key)
		}
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node.
func (q *MatchNoneQuery) Compile(*Context) (bluge.Query, error) { return matchNone(), nil }
