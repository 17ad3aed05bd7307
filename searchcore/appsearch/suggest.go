package appsearch

import (
	"context"
	"encoding/json"
	"strings"
	"unicode"
)

// Query suggestion limits.
const (
	MaxSuggestions     = 20
	DefaultSuggestions = 10
	// suggestionHits is how many matching documents suggestions are
	// drawn from.
	suggestionHits = 100
)

// suggestRequest is a parsed query_suggestion request.
type suggestRequest struct {
	query  string
	fields []string
	size   int
}

func parseSuggestRequest(body []byte, s Schema) (*suggestRequest, error) {
	v, err := decodeBody(body)
	if err != nil {
		return nil, err
	}
	if v.kind != jObject {
		return nil, RequestErrors("Query suggestion request must be a JSON object")
	}
	errs := onlyKeys(v, "query", "types", "size")
	if err := errs.err(); err != nil {
		return nil, err
	}
	q := v.get("query")
	if q == nil {
		return nil, MissingParameter("query")
	}
	r := &suggestRequest{size: DefaultSuggestions}
	var ok bool
	if r.query, ok = q.scalarString(); !ok || q.kind == jBool {
		errs.add("Query must be a string")
	}
	if n := v.get("size"); n != nil {
		size, ok := n.asInt()
		if !ok || size < 1 || size > MaxSuggestions {
			errs.add("Size must be an integer between 1 and %d", MaxSuggestions)
		}
		r.size = size
	}
	if t := v.get("types"); t != nil {
		if t.kind != jObject {
			errs.add("Types must be an object")
		}
		for _, m := range t.obj {
			if m.key != "documents" || m.val.kind != jObject {
				errs.add("Types contains invalid key: %s", m.key)
				continue
			}
			for _, dm := range m.val.obj {
				if dm.key != "fields" {
					errs.add("Types documents contains invalid key: %s", dm.key)
				}
			}
			r.fields = stringList(m.val, "fields", "Types documents fields", &errs)
			for _, f := range r.fields {
				t, ok := fieldType(s, f)
				if !ok {
					errs.add("Types documents fields contains invalid field: %s", f)
				} else if !supports(t, capSuggestion, "") {
					errs.add("%s", unsupported(capSuggestion, t, f))
				}
			}
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	if r.fields == nil {
		for _, f := range s.Fields() {
			if s[f] == Text {
				r.fields = append(r.fields, f)
			}
		}
	}
	return r, nil
}

// QuerySuggestion completes a partial query from the indexed text of the
// engine's documents: {results: {documents: [{suggestion}]}, meta:
// {request_id}}. Each suggestion is the query's complete words followed
// by a word of a matching document that starts with the last, partial one.
func (ss *Searches) QuerySuggestion(ctx context.Context, engine string, body []byte, requestID string) (json.Marshaler, error) {
	e, err := ss.svc.Engine(engine)
	if err != nil {
		return nil, err
	}
	c, _, indices, _, err := ss.context(ctx, e)
	if err != nil {
		return nil, err
	}
	r, err := parseSuggestRequest(body, c.Schema)
	if err != nil {
		return nil, err
	}
	words := strings.Fields(strings.ToLower(r.query))
	suggestions := []any{}
	if len(words) > 0 && len(r.fields) > 0 {
		q := obj{{"multi_match", obj{{"query", r.query}, {"fields", r.fields}, {"type", "bool_prefix"}, {"operator", "and"}}}}
		body, _ := json.Marshal(obj{{"query", q}, {"size", suggestionHits}})
		res, err := NewCoreSearch(ss.svc.Core(), indices)(ctx, body)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		last := words[len(words)-1]
		prefix := strings.Join(words[:len(words)-1], " ")
		for _, h := range res.Hits {
			src := decodeSource(h.Source)
			for _, f := range r.fields {
				for _, text := range textsOf(src[f]) {
					for _, w := range splitWords(text) {
						if !strings.HasPrefix(w, last) {
							continue
						}
						s := w
						if prefix != "" {
							s = prefix + " " + w
						}
						if !seen[s] && len(suggestions) < r.size {
							seen[s] = true
							suggestions = append(suggestions, obj{{"suggestion", s}})
						}
					}
				}
			}
			if len(suggestions) >= r.size {
				break
			}
		}
	}
	meta := obj{}
	if requestID != "" {
		meta = append(meta, kv{"request_id", requestID})
	}
	return obj{{"results", obj{{"documents", suggestions}}}, {"meta", meta}}, nil
}

// textsOf returns the strings of a stored text value.
func textsOf(v any) []string {
	if l, ok := v.([]any); ok {
		var out []string
		for _, e := range l {
			if e != nil {
				out = append(out, scalarText(e))
			}
		}
		return out
	}
	if v == nil {
		return nil
	}
	return []string{scalarText(v)}
}

// splitWords lower-cases text and splits it into words (letters and
// digits, with inner apostrophes and hyphens kept).
func splitWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '-'
	})
}
