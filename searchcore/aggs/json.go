package aggs

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// jw writes JSON with ordered keys and ES number formatting.
type jw struct {
	b        bytes.Buffer
	comma    []bool // per open container: a value was written
	afterKey bool
}

// pre writes the separator before a value.
func (w *jw) pre() {
	if w.afterKey {
		w.afterKey = false
		return
	}
	if n := len(w.comma); n > 0 {
		if w.comma[n-1] {
			w.b.WriteByte(',')
		}
		w.comma[n-1] = true
	}
}

// begin opens an object ('{') or array ('[').
func (w *jw) begin(c byte) {
	w.pre()
	w.b.WriteByte(c)
	w.comma = append(w.comma, false)
}

// end closes the innermost container.
func (w *jw) end(c byte) {
	w.b.WriteByte(c)
	w.comma = w.comma[:len(w.comma)-1]
}

// key writes `"k":`.
func (w *jw) key(k string) {
	w.pre()
	w.str0(k)
	w.b.WriteByte(':')
	w.afterKey = true
}

// str0 writes s as a JSON string, escaped as encoding/json does (HTML
// characters included); strings of printable ASCII needing no escape, most
// keys and terms, are copied without a json.Marshal.
func (w *jw) str0(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			w.b.Write(b)
			return
		}
	}
	w.b.WriteByte('"')
	w.b.WriteString(s)
	w.b.WriteByte('"')
}

// value writes a scalar: nil, string, bool, int/int64, float64 (Java
// double), json.RawMessage.
func (w *jw) value(v any) {
	w.pre()
	switch x := v.(type) {
	case nil:
		w.b.WriteString("null")
	case string:
		w.str0(x)
	case bool:
		w.b.WriteString(strconv.FormatBool(x))
	case int:
		w.b.WriteString(strconv.Itoa(x))
	case int64:
		w.b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		w.b.WriteString(jsonDouble(x))
	case json.RawMessage:
		w.b.Write(x)
	default:
		b, _ := json.Marshal(x)
		w.b.Write(b)
	}
}

func (w *jw) kv(k string, v any) {
	w.key(k)
	w.value(v)
}

// jsonDouble renders a double as ES does (Jackson: Java Double.toString);
// NaN/Infinity have no JSON form and render as null.
func jsonDouble(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	return javaDouble(f)
}

// javaDouble formats f like Java's Double.toString.
func javaDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
}

// parseJavaDouble parses a number string as Java's Double.parseDouble.
func parseJavaDouble(s string) (float64, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimSuffix(s, "d"), "D")
	s = strings.TrimSuffix(strings.TrimSuffix(s, "f"), "F")
	return strconv.ParseFloat(s, 64)
}
