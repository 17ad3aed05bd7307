package searchcore

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
)

// lookupKey names one terms-lookup fetch.
type lookupKey struct{ index, id, routing string }

// lookupResult is a fetched source (nil when the document is missing) or
// the error fetching it.
type lookupResult struct {
	source any
	err    error
}

// termsLookup returns the query.Context.TermsLookup of one request: like
// Elasticsearch's coordinator rewrite it fetches each (index, id, routing)
// document once (a realtime GET), however many indices or clauses use it.
func (e *Engine) termsLookup(ctx context.Context) func(index, id, path, routing string) ([]any, error) {
	cache := map[lookupKey]lookupResult{}
	return func(index, id, path, routing string) ([]any, error) {
		k := lookupKey{index, id, routing}
		r, ok := cache[k]
		if !ok {
			r = e.fetchLookupSource(ctx, k)
			cache[k] = r
		}
		if r.err != nil || r.source == nil {
			return nil, r.err
		}
		return extractRawValues(r.source, path), nil
	}
}

func (e *Engine) fetchLookupSource(ctx context.Context, k lookupKey) lookupResult {
	_, rec, err := e.Get(ctx, k.index, k.id, GetOptions{Routing: k.routing, Realtime: true})
	if err != nil {
		return lookupResult{err: err}
	}
	if rec == nil || len(rec.Source) == 0 {
		return lookupResult{}
	}
	dec := json.NewDecoder(bytes.NewReader(rec.Source))
	dec.UseNumber()
	var src any
	if err := dec.Decode(&src); err != nil {
		return lookupResult{err: Internalf(err, "terms lookup: stored source of [%s][%s] is not JSON", k.index, k.id)}
	}
	return lookupResult{source: src}
}

// extractRawValues is XContentMapValues.extractRawValues: the leaf values
// at a dotted path, arrays flattened, dotted keys in the source honoured.
func extractRawValues(v any, path string) []any {
	var out []any
	var walk func(v any, rest string)
	walk = func(v any, rest string) {
		switch t := v.(type) {
		case []any:
			for _, e := range t {
				walk(e, rest)
			}
		case map[string]any:
			if rest == "" {
				return
			}
			for k, sub := range t {
				if k == rest {
					walk(sub, "")
				} else if strings.HasPrefix(rest, k+".") {
					walk(sub, rest[len(k)+1:])
				}
			}
		case nil:
		default:
			if rest == "" {
				out = append(out, t)
			}
		}
	}
	if path != "" {
		walk(v, path)
	}
	return out
}
