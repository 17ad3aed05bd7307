package searchcore

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"

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
