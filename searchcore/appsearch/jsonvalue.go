package appsearch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// jkind is the JSON type of a jvalue.
type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jvalue is a decoded JSON value that keeps the order of object members
// (facets, boosts and sorts are rendered in request order).
type jvalue struct {
	kind jkind
	b    bool
	num  json.Number
	str  string
	arr  []*jvalue
	obj  []jmember
}

// jmember is one member of a JSON object.
type jmember struct {
	key string
	val *jvalue
}

// decodeValue decodes one JSON document into a jvalue.
func decodeValue(raw []byte) (*jvalue, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := readValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

// maxJSONDepth bounds nesting so hostile bodies cannot exhaust the stack.
const maxJSONDepth = 64

func readValue(dec *json.Decoder, depth int) (*jvalue, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("JSON nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &jvalue{kind: jNull}, nil
	case bool:
		return &jvalue{kind: jBool, b: t}, nil
	case json.Number:
		return &jvalue{kind: jNumber, num: t}, nil
	case string:
		return &jvalue{kind: jString, str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			v := &jvalue{kind: jArray, arr: []*jvalue{}}
			for dec.More() {
				e, err := readValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, e)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return v, nil
		case '{':
			v := &jvalue{kind: jObject, obj: []jmember{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key must be a string")
				}
				e, err := readValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				v.set(k, e)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return v, nil
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// set replaces member k (keeping its position) or appends it.
func (v *jvalue) set(k string, e *jvalue) {
	for i := range v.obj {
		if v.obj[i].key == k {
			v.obj[i].val = e
			return
		}
	}
	v.obj = append(v.obj, jmember{k, e})
}

// get returns member k of an object, or nil.
func (v *jvalue) get(k string) *jvalue {
	if v == nil || v.kind != jObject {
		return nil
	}
	for _, m := range v.obj {
		if m.key == k {
			return m.val
		}
	}
	return nil
}

// asInt reads an integer, accepting numeric strings (form parameters and
// clients that send numbers as strings).
func (v *jvalue) asInt() (int, bool) {
	f, ok := v.asFloat()
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return 0, false
	}
	return int(f), true
}

// asFloat reads a finite number, accepting numeric strings.
func (v *jvalue) asFloat() (float64, bool) {
	var s string
	switch v.kind {
	case jNumber:
		s = v.num.String()
	case jString:
		s = strings.TrimSpace(v.str)
	default:
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// objects reads a value given as one object or an array of objects.
func (v *jvalue) objects() ([]*jvalue, bool) {
	list := v.arr
	switch v.kind {
	case jObject:
		return []*jvalue{v}, true
	case jArray:
	default:
		return nil, false
	}
	for _, e := range list {
		if e.kind != jObject {
			return nil, false
		}
	}
	return list, true
}

// asPrecision reads the precision option (1..11).
func asPrecision(v *jvalue, errs *errList) int {
	n, ok := v.asInt()
	if !ok || n < 1 || n > 11 {
		errs.add("Precision must be an integer between 1 and 11")
	}
	return n
}

// asBool reads a boolean, accepting "true"/"false" strings.
func (v *jvalue) asBool() (bool, bool) {
	switch v.kind {
	case jBool:
		return v.b, true
	case jString:
		switch v.str {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	return false, false
}

// scalarString renders a scalar as the string App Search compares it as.
func (v *jvalue) scalarString() (string, bool) {
	switch v.kind {
	case jString:
		return v.str, true
	case jNumber:
		return v.num.String(), true
	case jBool:
		return strconv.FormatBool(v.b), true
	}
	return "", false
}

// isScalar reports whether v is a string, number or boolean.
// isOptions reports whether v is an options object; the empty string
// stands for {} since bracketed parameters cannot spell an empty object
// (result_fields[title][raw]=).
func (v *jvalue) isOptions() bool {
	return v.kind == jObject || v.kind == jString && v.str == ""
}

func (v *jvalue) isScalar() bool {
	return v.kind == jString || v.kind == jNumber || v.kind == jBool
}

// toAny converts v back into plain Go values (numbers as json.Number).
func (v *jvalue) toAny() any {
	switch v.kind {
	case jBool:
		return v.b
	case jNumber:
		return v.num
	case jString:
		return v.str
	case jArray:
		out := make([]any, len(v.arr))
		for i, e := range v.arr {
			out[i] = e.toAny()
		}
		return out
	case jObject:
		out := make(obj, 0, len(v.obj))
		for _, m := range v.obj {
			out = append(out, kv{m.key, m.val.toAny()})
		}
		return out
	}
	return nil
}

// kv is one member of an ordered JSON object written by this package.
type kv struct {
	Key   string
	Value any
}

// obj is an ordered JSON object; it marshals its members in order.
type obj []kv

// MarshalJSON writes the members in order.
func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		v, err := marshalNoEscape(m.Value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshalNoEscape marshals without HTML escaping (snippets carry <em>).
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// typeName names a JSON kind in error messages.
func (v *jvalue) typeName() string {
	switch v.kind {
	case jNull:
		return "null"
	case jBool:
		return "boolean"
	case jNumber:
		return "number"
	case jString:
		return "string"
	case jArray:
		return "array"
	}
	return "object"
}
