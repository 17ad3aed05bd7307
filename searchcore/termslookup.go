package searchcore

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
)

// termsLookup is the query.Context hook of terms lookups
// ({"terms":{"f":{"index","id","path"}}}): the values at path in the
// current (realtime) source of document id in index, arrays flattened, as
// TermsLookupQueryBuilder reads them. A missing document yields no values
// (the query matches nothing); a missing index fails like a get.
func (e *Engine) termsLookup(ctx context.Context) func(index, id, path string) ([]any, error) {
	return func(index, id, path string) ([]any, error) {
		_, rec, err := e.Get(ctx, index, id, GetOptions{Realtime: true})
		if err != nil || rec == nil || len(rec.Source) == 0 {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(rec.Source))
		dec.UseNumber()
		var src any
		if err := dec.Decode(&src); err != nil {
			return nil, Internalf(err, "terms lookup: invalid source of [%s]", id)
		}
		return valuesAtPath(src, strings.Split(path, ".")), nil
	}
}

// valuesAtPath collects the scalar values under a dotted path, descending
// through arrays of objects and flattening arrays of values.
func valuesAtPath(v any, path []string) []any {
	switch x := v.(type) {
	case []any:
		var out []any
		for _, e := range x {
			out = append(out, valuesAtPath(e, path)...)
		}
		return out
	case map[string]any:
		if len(path) == 0 {
			return nil
		}
		// a dotted member name ("a.b") matches like nested objects
		for i := len(path); i >= 1; i-- {
			if c, ok := x[strings.Join(path[:i], ".")]; ok {
				return valuesAtPath(c, path[i:])
			}
		}
		return nil
	case nil:
		return nil
	default:
		if len(path) != 0 {
			return nil
		}
		return []any{x}
	}
}
