package searchcore

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// member is one key/value of a JSON object, in document order.
type member struct {
	key   string
	value json.RawMessage
}

// decodeObject splits a JSON object into its members, in order. A body that
// is not an object is a parsing_exception like Elasticsearch's.
func decodeObject(raw []byte) ([]member, error) {
	if out, ok := scanObject(raw); ok {
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonParseError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, ParsingError("Unknown key for a %s in [%s].", TokenName(raw), "")
	}
	var out []member
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, jsonParseError(err)
		}
		key, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, jsonParseError(err)
		}
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonParseError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, ParsingError("Unexpected trailing content after the request body")
	}
	return out, nil
}

// scanObject is the allocation-light fast path of decodeObject for the
// common case (bulk action lines, small request objects): a well-formed
// object whose keys and string values have no escapes and no control
// characters. It returns exactly what decodeObject would; ok is false when
// the input is anything else (malformed JSON included), leaving it to the
// decoder and its error messages.
func scanObject(raw []byte) (out []member, ok bool) {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return nil, skipWS(raw, i+1) == len(raw)
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return nil, false
		}
		end, ok := scanPlainString(raw, i)
		if !ok {
			return nil, false
		}
		key := raw[i+1 : end-1]
		if !utf8.Valid(key) {
			return nil, false
		}
		i = skipWS(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = skipWS(raw, i+1)
		vend, ok := scanValue(raw, i)
		if !ok {
			return nil, false
		}
		out = append(out, member{string(key), json.RawMessage(raw[i:vend])})
		i = skipWS(raw, vend)
		if i >= len(raw) {
			return nil, false
		}
		if raw[i] == '}' {
			return out, skipWS(raw, i+1) == len(raw)
		}
		if raw[i] != ',' {
			return nil, false
		}
		i = skipWS(raw, i+1)
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanPlainString returns the index after the closing quote of the string
// starting at b[i], refusing escapes and control characters.
func scanPlainString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j + 1, true
		case c == '\\' || c < 0x20:
			return 0, false
		}
	}
	return 0, false
}

// scanValue returns the end of the JSON value starting at b[i]: a plain
// string, or a literal/number/object/array checked by json.Valid.
func scanValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	if b[i] == '"' {
		return scanPlainString(b, i)
	}
	j := i
	if b[i] == '{' || b[i] == '[' {
		depth := 0
		for ; j < len(b); j++ {
			switch b[j] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			case '"':
				e, ok := scanPlainString(b, j)
				if !ok {
					return 0, false
				}
				j = e - 1
			}
			if depth == 0 {
				j++
				break
			}
		}
		if depth != 0 {
			return 0, false
		}
	} else {
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
	}
	if j == i || !json.Valid(b[i:j]) {
		return 0, false
	}
	return j, true
}

// jsonParseError is the x_content_parse_exception/json_parse_exception of
// malformed JSON.
func jsonParseError(err error) error {
	return Errorf(Invalid, "parsing_exception", "Failed to parse request body").
		Caused(Errorf(Invalid, "json_parse_exception", "%s", err.Error()))
}

// TokenName names the JSON token a value starts with, as Jackson does in
// Elasticsearch's error messages (START_OBJECT, VALUE_STRING, ...).
func TokenName(v []byte) string { return eserr.TokenName(v) }

// intMember decodes an integer body member, accepting numeric strings like ES.
func intMember(name string, v json.RawMessage) (int, error) {
	var n json.Number
	if err := json.Unmarshal(v, &n); err != nil {
		var s string
		if err2 := json.Unmarshal(v, &s); err2 != nil {
			return 0, ParsingError("[%s] failed to parse field [%s]", name, name)
		}
		n = json.Number(s)
	}
	i, err := strconv.ParseInt(n.String(), 10, 32)
	if err != nil {
		f, ferr := strconv.ParseFloat(n.String(), 64)
		if ferr != nil || f != float64(int64(f)) {
			return 0, Errorf(Invalid, "x_content_parse_exception", "[%s] failed to parse field [%s]", name, name).
				Caused(IllegalArgument("For input string: \"%s\"", n.String()))
		}
		i = int64(f)
	}
	return int(i), nil
}

// boolMember decodes a boolean body member ("true"/"false" strings allowed).
func boolMember(name string, v json.RawMessage) (bool, error) {
	var b bool
	if err := json.Unmarshal(v, &b); err == nil {
		return b, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		switch s {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, ParsingError("[%s] failed to parse field [%s]", name, name)
}
