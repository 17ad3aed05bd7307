package query

import (
	"github.com/blugelabs/bluge"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// DisMaxQuery is {"dis_max": {"queries": [...], "tie_breaker": t}}: the
// union of the clauses, scored by the best clause plus t times the others.
type DisMaxQuery struct {
	base
	queries    []Node
	tieBreaker float32
}

// BoostingQuery is {"boosting": {"positive", "negative", "negative_boost"}}:
// the matches of positive, demoted by negative_boost when negative matches.
type BoostingQuery struct {
	base
	positive, negative Node
	negativeBoost      float32
}

func registerDisMax(p *Parser) {
	p.register("dis_max", parseDisMax)
	p.register("boosting", parseBoosting)
}

// parseDisMax follows DisMaxQueryBuilder.fromXContent.
func parseDisMax(p *Parser, body *jval) (Node, error) {
	q := &DisMaxQuery{base: newBase()}
	var boost float32 = 1
	found := false
	for _, m := range body.members {
		v := m.val
		switch {
		case v.kind == kObject || v.kind == kArray:
			if m.key != "queries" {
				return nil, v.parsingErr("[dis_max] query does not support [%s]", m.key)
			}
			found = true
			elems := []*jval{v}
			if v.kind == kArray {
				elems = v.elems
			}
			for _, e := range elems {
				n, err := p.parseInner(e)
				if err != nil {
					return nil, err
				}
				q.queries = append(q.queries, n)
			}
		case v.kind.isValue():
			var err error
			switch m.key {
			case "boost":
				boost, err = v.floatValue()
			case "tie_breaker":
				q.tieBreaker, err = v.floatValue()
			case "_name":
				q.name = v.s
			default:
				err = v.parsingErr("[dis_max] query does not support [%s]", m.key)
			}
			if err != nil {
				return nil, err
			}
		default:
			return nil, v.parsingErr("[dis_max] query does not support [%s]", m.key)
		}
	}
	if !found {
		return nil, body.parsingErr("[dis_max] requires 'queries' field with at least one clause")
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node.
func (q *DisMaxQuery) Compile(ctx *Context) (bluge.Query, error) {
	if len(q.queries) == 0 {
		return matchNone(), nil
	}
	if len(q.queries) > ctx.maxClauseCount() {
		return nil, ctx.tooManyClauses()
	}
	d := &disMaxQuery{tieBreaker: float64(q.tieBreaker)}
	for _, n := range q.queries {
		c, err := ctx.CompileNode(n)
		if err != nil {
			return nil, err
		}
		d.clauses = append(d.clauses, c)
	}
	if len(d.clauses) == 1 {
		return Boosted(d.clauses[0], q.boost), nil
	}
	return Boosted(d, q.boost), nil
}

// parseBoosting follows BoostingQueryBuilder.fromXContent.
func parseBoosting(p *Parser, body *jval) (Node, error) {
	q := &BoostingQuery{base: newBase()}
	var boost float32 = 1
	negBoostFound := false
	for _, m := range body.members {
		v := m.val
		switch {
		case v.kind == kObject:
			n, err := func() (Node, error) {
				if m.key != "positive" && m.key != "negative" {
					return nil, v.parsingErr("[boosting] query does not support [%s]", m.key)
				}
				return p.parseInner(v)
			}()
			if err != nil {
				return nil, err
			}
			if m.key == "positive" {
				q.positive = n
			} else {
				q.negative = n
			}
		case v.kind.isValue():
			var err error
			switch m.key {
			case "negative_boost":
				q.negativeBoost, err = v.floatValue()
				negBoostFound = true
			case "boost":
				boost, err = v.floatValue()
			case "_name":
				q.name = v.s
			default:
				err = v.parsingErr("[boosting] query does not support [%s]", m.key)
			}
			if err != nil {
				return nil, err
			}
		default:
			return nil, v.parsingErr("[boosting] query does not support [%s]", m.key)
		}
	}
	switch {
	case q.positive == nil:
		return nil, body.parsingErr("[boosting] query requires 'positive' query to be set'")
	case q.negative == nil:
		return nil, body.parsingErr("[boosting] query requires 'negative' query to be set'")
	case !negBoostFound:
		return nil, body.parsingErr("[boosting] query requires 'negative_boost' to be set to be a positive value'")
	case q.negativeBoost < 0:
		return nil, searchcore.IllegalArgument("[boosting] negativeBoost must be a non-negative float")
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node.
func (q *BoostingQuery) Compile(ctx *Context) (bluge.Query, error) {
	pos, err := ctx.CompileNode(q.positive)
	if err != nil {
		return nil, err
	}
	neg, err := ctx.CompileNode(q.negative)
	if err != nil {
		return nil, err
	}
	if _, none := pos.(*bluge.MatchNoneQuery); none {
		return pos, nil
	}
	return &boostingQuery{positive: pos, negative: neg, negBoost: float64(q.negativeBoost), boost: float64(q.boost)}, nil
}
