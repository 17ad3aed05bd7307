package query

import (
	"github.com/blugelabs/bluge"
)

// BoolQuery is {"bool": {"must", "should", "must_not", "filter", ...}}.
// Filter clauses restrict without scoring; minimum_should_match defaults to
// 1 when there is no must or filter clause and 0 otherwise.
type BoolQuery struct {
	base
	must, should, mustNot, filter []Node
	msm                           string
	hasMSM                        bool
	adjustPureNegative            bool
}

// ConstantScoreQuery is {"constant_score": {"filter": q, "boost": b}}: the
// matches of q, each scoring b.
type ConstantScoreQuery struct {
	base
	filter Node
}

func registerCompound(p *Parser) {
	p.register("bool", parseBool)
	p.register("constant_score", parseConstantScore)
}

// parseBool follows BoolQueryBuilder's ObjectParser.
func parseBool(p *Parser, body *jval) (Node, error) {
	q := &BoolQuery{base: newBase(), adjustPureNegative: true}
	clauses := func(dst *[]Node) func(v *jval) error {
		return func(v *jval) error {
			switch v.kind {
			case kObject:
				n, err := p.parseInner(v)
				if err != nil {
					return err
				}
				*dst = append(*dst, n)
			case kArray:
				for _, e := range v.elems {
					n, err := p.parseInner(e)
					if err != nil {
						return err
					}
					*dst = append(*dst, n)
				}
			}
			return nil
		}
	}
	op := objectParser{name: "bool", body: body}
	op.declare("must", clauses(&q.must), kObject, kArray, kNull)
	op.declare("should", clauses(&q.should), kObject, kArray, kNull)
	op.declare("must_not", clauses(&q.mustNot), kObject, kArray, kNull)
	op.declare("mustNot", clauses(&q.mustNot), kObject, kArray, kNull)
	op.declare("filter", clauses(&q.filter), kObject, kArray, kNull)
	op.boolean("adjust_pure_negative", func(b bool) error { q.adjustPureNegative = b; return nil })
	op.value("minimum_should_match", func(v *jval) error {
		s, ok, err := v.textOrNull()
		q.msm, q.hasMSM = s, ok
		return err
	})
	op.str("_name", func(s string) error { q.name = s; return nil })
	op.float("boost", func(f float32) error { return q.setBoost(f, body) })
	if err := op.parse(); err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node.
func (q *BoolQuery) Compile(ctx *Context) (bluge.Query, error) {
	n := len(q.must) + len(q.should) + len(q.mustNot) + len(q.filter)
	if n == 0 {
		return &matchAllQuery{score: float64(q.boost)}, nil
	}
	if n > ctx.maxClauseCount() {
		return nil, ctx.tooManyClauses()
	}
	b := &boolQuery{boost: float64(q.boost)}
	compile := func(nodes []Node) ([]bluge.Query, error) {
		out := make([]bluge.Query, 0, len(nodes))
		for _, nd := range nodes {
			c, err := ctx.CompileNode(nd)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
		return out, nil
	}
	var err error
	if b.must, err = compile(q.must); err != nil {
		return nil, err
	}
	if b.mustNot, err = compile(q.mustNot); err != nil {
		return nil, err
	}
	if b.should, err = compile(q.should); err != nil {
		return nil, err
	}
	if b.filter, err = compile(q.filter); err != nil {
		return nil, err
	}
	if q.hasMSM {
		m, err := minShouldMatch(len(b.should), q.msm)
		if err != nil {
			return nil, ctx.failedToCreate(err)
		}
		if m > 0 {
			b.minShould = m
		}
	}
	if !q.adjustPureNegative && len(b.must)+len(b.should)+len(b.filter) == 0 {
		// a purely negative Lucene boolean query matches nothing
		return matchNone(), nil
	}
	return b, nil
}

// parseConstantScore follows ConstantScoreQueryBuilder.fromXContent.
func parseConstantScore(p *Parser, body *jval) (Node, error) {
	q := &ConstantScoreQuery{base: newBase()}
	var boost float32 = 1
	found := false
	for _, m := range body.members {
		v := m.val
		switch {
		case v.kind == kObject:
			if m.key != "filter" {
				return nil, v.parsingErr("[constant_score] query does not support [%s]", m.key)
			}
			n, err := p.parseInner(v)
			if err != nil {
				return nil, err
			}
			q.filter, found = n, true
		case v.kind.isValue():
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
				return nil, v.parsingErr("[constant_score] query does not support [%s]", m.key)
			}
		default:
			return nil, v.parsingErr("unexpected token [%s]", v.kind.token())
		}
	}
	if !found {
		return nil, body.parsingErr("[constant_score] requires a 'filter' element")
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node.
func (q *ConstantScoreQuery) Compile(ctx *Context) (bluge.Query, error) {
	inner, err := ctx.CompileNode(q.filter)
	if err != nil {
		return nil, err
	}
	return constScore(inner, float64(q.boost)), nil
}
