package template

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Parameters are converted to these types before rendering. They behave like
// plain maps, slices, strings and booleans for the mustache library (which
// looks values up by reflection), and add two methods:
//
//   - String, which fmt uses when {{var}} names an object or an array
//     (Elasticsearch writes Java's Map.toString: {a=1, b=x});
//   - QuarryJSON, the JSON of the value. The functions (toJson, join, ...)
//     receive only their section's text, not the current context, so they
//     resolve their argument by rendering {{{name.QuarryJSON}}} in the
//     context they run in: that finds the value the way {{name}} would,
//     inside sections too, with its type intact.
type (
	jsonObject map[string]any
	jsonArray  []any
	jsonString string
	jsonNumber string
	jsonBool   bool
	// jsonNull is a null parameter: empty text, false in sections.
	jsonNull bool
)

// valueMethod is the method the functions render to read a value as JSON.
const valueMethod = "QuarryJSON"

// DecodeParams decodes template parameters (a JSON object, or null/empty for
// none). Numbers keep their literal text.
func DecodeParams(raw []byte) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, eserr.ParsingError("[params] must be an object: %s", err.Error())
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// wrap converts decoded JSON (with json.Number) into the rendering types.
func wrap(v any) any {
	switch t := v.(type) {
	case map[string]any:
		o := make(jsonObject, len(t))
		for k, x := range t {
			o[k] = wrap(x)
		}
		return o
	case []any:
		a := make(jsonArray, len(t))
		for i, x := range t {
			a[i] = wrap(x)
		}
		return a
	case string:
		return jsonString(t)
	case json.Number:
		return jsonNumber(t)
	case float64: // parameters built in Go rather than decoded
		return jsonNumber(strconv.FormatFloat(t, 'f', -1, 64))
	case int:
		return jsonNumber(strconv.Itoa(t))
	case int64:
		return jsonNumber(strconv.FormatInt(t, 10))
	case bool:
		return jsonBool(t)
	case jsonObject, jsonArray, jsonString, jsonNumber, jsonBool, jsonNull:
		return t
	}
	return jsonNull(false)
}

// MarshalJSON writes the number literal as it was sent.
func (n jsonNumber) MarshalJSON() ([]byte, error) { return []byte(n), nil }

func (o jsonObject) QuarryJSON() string { return encodeJSON(o) }
func (a jsonArray) QuarryJSON() string  { return encodeJSON(a) }
func (s jsonString) QuarryJSON() string { return encodeJSON(string(s)) }
func (n jsonNumber) QuarryJSON() string { return string(n) }
func (b jsonBool) QuarryJSON() string   { return strconv.FormatBool(bool(b)) }
func (jsonNull) QuarryJSON() string     { return "null" }
func (jsonNull) String() string         { return "" }
func (jsonNull) MarshalJSON() ([]byte, error) {
	return []byte("null"), nil
}

func (o jsonObject) String() string { return stringify(o) }
func (a jsonArray) String() string  { return stringify(a) }

// encodeJSON encodes v compactly without HTML escaping; map keys are sorted.
func encodeJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// decodeJSON reads back what QuarryJSON wrote.
func decodeJSON(s string) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// stringify renders a value the way Elasticsearch's object handler does:
// scalars as text, maps as Java's Map.toString ({a=1, b=x}) and arrays as
// the index-keyed map Elasticsearch wraps them in ({0=a, 1=b}).
func stringify(v any) string {
	var b strings.Builder
	writeJava(&b, v)
	return b.String()
}

func writeJava(b *strings.Builder, v any) {
	switch t := v.(type) {
	case nil, jsonNull:
		b.WriteString("null")
	case string:
		b.WriteString(t)
	case jsonString:
		b.WriteString(string(t))
	case json.Number:
		b.WriteString(string(t))
	case jsonNumber:
		b.WriteString(string(t))
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case jsonBool:
		b.WriteString(strconv.FormatBool(bool(t)))
	case map[string]any:
		writeJavaMap(b, t)
	case jsonObject:
		writeJavaMap(b, t)
	case []any:
		writeJavaList(b, t)
	case jsonArray:
		writeJavaList(b, t)
	}
}

func writeJavaMap(b *strings.Builder, m map[string]any) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteByte('=')
		writeJava(b, m[k])
	}
	b.WriteByte('}')
}

func writeJavaList(b *strings.Builder, l []any) {
	b.WriteByte('{')
	for i, x := range l {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('=')
		writeJava(b, x)
	}
	b.WriteByte('}')
}
