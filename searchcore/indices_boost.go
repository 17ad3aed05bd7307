package searchcore

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// IndexBoost is one indices_boost entry: an index expression (name, alias
// or wildcard) and the factor applied to the scores of its hits.
type IndexBoost struct {
	Expr  string
	Boost float32
}

// parseIndicesBoost parses indices_boost in its array form
// ([{"idx": 2.0}, ...]) or its deprecated object form ({"idx": 2.0, ...}),
// keeping the order (the first entry naming an index wins).
func parseIndicesBoost(v json.RawMessage) ([]IndexBoost, error) {
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '[' {
		var elems []json.RawMessage
		if err := json.Unmarshal(v, &elems); err != nil {
			return nil, ParsingError("[indices_boost] failed to parse: %s", err.Error())
		}
		var out []IndexBoost
		for _, e := range elems {
			if tok := TokenName(e); tok != "START_OBJECT" {
				return nil, ParsingError("Expected [START_OBJECT] in [indices_boost] but found [%s]", tok)
			}
			members, err := decodeObject(e)
			if err != nil {
				return nil, err
			}
			if len(members) != 1 {
				return nil, ParsingError("Expected [FIELD_NAME] in [indices_boost] but found [END_OBJECT]")
			}
			b, err := boostValue(members[0])
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
		return out, nil
	}
	if tok := TokenName(v); tok != "START_OBJECT" {
		return nil, ParsingError("Unknown key for a %s in [indices_boost].", tok)
	}
	members, err := decodeObject(v)
	if err != nil {
		return nil, err
	}
	out := make([]IndexBoost, 0, len(members))
	for _, m := range members {
		b, err := boostValue(m)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func boostValue(m member) (IndexBoost, error) {
	var n json.Number
	if err := json.Unmarshal(m.value, &n); err != nil {
		return IndexBoost{}, ParsingError("Unexpected token %s in [indices_boost] for index [%s]", TokenName(m.value), m.key)
	}
	f, err := strconv.ParseFloat(n.String(), 32)
	if err != nil {
		return IndexBoost{}, ParsingError("[indices_boost] failed to parse boost [%s] of index [%s]", n.String(), m.key)
	}
	return IndexBoost{Expr: m.key, Boost: float32(f)}, nil
}

// ResolveIndicesBoost resolves req.IndicesBoost under the request's index
// options (ES concreteIndices per expression: an unknown concrete name is
// index_not_found_exception unless ignore_unavailable); the first entry
// naming an index sets its boost.
func (e *Engine) ResolveIndicesBoost(req *SearchRequest, o ResolveOptions) error {
	if len(req.IndicesBoost) == 0 {
		return nil
	}
	boosts := map[string]float32{}
	for _, b := range req.IndicesBoost {
		indices, err := e.Resolve(b.Expr, o)
		if err != nil {
			return err
		}
		for _, idx := range indices {
			if _, seen := boosts[idx.Name()]; !seen {
				boosts[idx.Name()] = b.Boost
			}
		}
	}
	req.indexBoost = boosts
	return nil
}
