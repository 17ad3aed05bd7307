package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/searchcore/appsearch"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// decodingError is App Search's malformed-request error (SPEC.md: 400
// {"errors":["decoding error, ensure request is valid"]}).
func decodingError() error { return appsearch.DecodingError() }

// parseBracketQuery parses Rails-style bracketed parameters into nested
// values: a=1 → {"a":"1"}, page[size]=10 → {"page":{"size":"10"}}, ids[]=a&ids[]=b
// → {"ids":["a","b"]}, q[][f]=1&q[][f]=2 → {"q":[{"f":"1"},{"f":"2"}]}.
// Keys are applied in the order they appear in the raw query.
func parseBracketQuery(raw string) (map[string]any, error) {
	out := map[string]any{}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return nil, err
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return nil, err
		}
		path, err := splitBracketKey(key)
		if err != nil {
			return nil, err
		}
		if err := assignPath(out, path, val); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// splitBracketKey splits a[b][][c] into ["a","b","","c"].
func splitBracketKey(key string) ([]string, error) {
	i := strings.IndexByte(key, '[')
	if i < 0 {
		return []string{key}, nil
	}
	if i == 0 {
		return nil, fmt.Errorf("parameter name %q starts with a bracket", key)
	}
	parts := []string{key[:i]}
	rest := key[i:]
	for rest != "" {
		if rest[0] != '[' {
			return nil, fmt.Errorf("malformed parameter name %q", key)
		}
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			return nil, fmt.Errorf("malformed parameter name %q", key)
		}
		parts = append(parts, rest[1:j])
		rest = rest[j+1:]
	}
	if len(parts) > 8 {
		return nil, fmt.Errorf("parameter name %q is nested too deeply", key)
	}
	return parts, nil
}

// assignPath stores val at path inside m.
func assignPath(m map[string]any, path []string, val string) error {
	head, rest := path[0], path[1:]
	if len(rest) == 0 {
		// A repeated plain key (ids=a&ids=b) becomes an array.
		switch cur := m[head].(type) {
		case string:
			m[head] = []any{cur, val}
		case []any:
			m[head] = append(cur, val)
		case nil:
			m[head] = val
		default:
			return fmt.Errorf("parameter %q mixes an object and a value", head)
		}
		return nil
	}
	if rest[0] == "" {
		// head[] : an array.
		arr, _ := m[head].([]any)
		if _, isArr := m[head].([]any); !isArr && m[head] != nil {
			return fmt.Errorf("parameter %q mixes an array and a value", head)
		}
		if len(rest) == 1 {
			m[head] = append(arr, val)
			return nil
		}
		// head[][k]...: an array of objects; start a new object when the
		// last one already has k.
		var last map[string]any
		if len(arr) > 0 {
			last, _ = arr[len(arr)-1].(map[string]any)
		}
		if last == nil || hasPath(last, rest[1:]) {
			last = map[string]any{}
			arr = append(arr, last)
		}
		m[head] = arr
		return assignPath(last, rest[1:], val)
	}
	sub, ok := m[head].(map[string]any)
	if !ok {
		if m[head] != nil {
			return fmt.Errorf("parameter %q mixes an object and a value", head)
		}
		sub = map[string]any{}
		m[head] = sub
	}
	return assignPath(sub, rest, val)
}

func hasPath(m map[string]any, path []string) bool {
	v, ok := m[path[0]]
	if !ok {
		return false
	}
	if len(path) == 1 || path[1] == "" {
		return true
	}
	sub, ok := v.(map[string]any)
	return ok && hasPath(sub, path[1:])
}

// asRequest is a decoded App Search request: the query parameters merged
// with the JSON body (the body wins), or the body when it is an array.
type asRequest struct {
	// Params are the merged parameters (never nil).
	Params map[string]any
	// Array is the body when it is a JSON array (documents, ids, names).
	Array []json.RawMessage
	// HasBody is true when a non-empty body was sent.
	HasBody bool
}

// readASRequest reads and merges the parameters of an App Search request.
// A malformed body or query string is the decoding error.
func readASRequest(c echo.Context) (*asRequest, error) {
	q, err := parseBracketQuery(c.Request().URL.RawQuery)
	if err != nil {
		return nil, decodingError()
	}
	body, err := readBody(c)
	if err != nil {
		return nil, err
	}
	return mergeASRequest(q, body)
}

// mergeASRequest merges decoded query parameters with a raw body.
func mergeASRequest(q map[string]any, body []byte) (*asRequest, error) {
	r := &asRequest{Params: q}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return r, nil
	}
	r.HasBody = true
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, decodingError()
	}
	if dec.More() {
		return nil, decodingError()
	}
	switch t := v.(type) {
	case map[string]any:
		deepMerge(r.Params, t)
	case []any:
		if err := json.Unmarshal(body, &r.Array); err != nil {
			return nil, decodingError()
		}
	default:
		return nil, decodingError()
	}
	return r, nil
}

// asInt reads an integer given as a JSON number or a numeric string.
func asInt(v any) (int, bool) {
	switch t := v.(type) {
	case json.Number:
		f, err := t.Float64()
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
			return 0, false
		}
		return int(f), true
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(t))
		return n, err == nil
	case float64:
		if t != math.Trunc(t) || math.Abs(t) > 1<<31 {
			return 0, false
		}
		return int(t), true
	}
	return 0, false
}

// asBool reads a boolean given as JSON or as "true"/"false".
func asBool(v any) (bool, bool) {
	switch t := v.(type) {
	case bool:
		return t, true
	case string:
		b, err := strconv.ParseBool(t)
		return b, err == nil
	}
	return false, false
}

// asString reads a string (numbers are stringified).
func asString(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case json.Number:
		return t.String(), true
	}
	return "", false
}

// asStringList reads a list of strings from an array (or a single string).
func asStringList(v any) ([]string, bool) {
	switch t := v.(type) {
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			s, ok := asString(x)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	case string:
		return []string{t}, true
	case json.Number:
		return []string{t.String()}, true
	}
	return nil, false
}

// rawStrings reads a JSON array body as strings (numbers stringified).
func rawStrings(arr []json.RawMessage) ([]string, bool) {
	out := make([]string, 0, len(arr))
	for _, raw := range arr {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return nil, false
		}
		s, ok := asString(v)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// pageParams reads page[current] and page[size]: defaults def, sizes above
// max are truncated to max. Bad values are 400 {"errors"}.
func pageParams(params map[string]any, def, max int) (appsearch.Page, error) {
	p := appsearch.Page{Current: 1, Size: def}
	raw, ok := params["page"]
	if !ok {
		return p, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return p, appsearch.Errors(eserr.Invalid, "Page must be an object")
	}
	var msgs []string
	for _, k := range sortedAnyKeys(m) {
		switch k {
		case "current":
			n, ok := asInt(m[k])
			if !ok || n < 1 {
				msgs = append(msgs, "Page current must be an integer greater than or equal to 1")
				continue
			}
			p.Current = n
		case "size":
			n, ok := asInt(m[k])
			if !ok || n < 1 {
				msgs = append(msgs, "Page size must be an integer greater than or equal to 1")
				continue
			}
			p.Size = min(n, max)
		default:
			msgs = append(msgs, fmt.Sprintf("Page contains invalid key: %s", k))
		}
	}
	if len(msgs) > 0 {
		return p, appsearch.Errors(eserr.Invalid, msgs...)
	}
	return p, nil
}

func sortedAnyKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// deepMerge copies src into dst; objects present in both are merged, and
// src wins everywhere else (the JSON body over the query string).
func deepMerge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				deepMerge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}
