package mapping

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A small, allocation-light JSON parser for document sources. It keeps
// object member order (Elasticsearch maps fields in document order), keeps
// numbers as their literal text (no precision loss for big longs), rejects
// duplicate keys like Elasticsearch's strict duplicate detection, and
// reports positions the way Jackson does (line and column).

type jkind uint8

const (
	jNull jkind = iota
	jFalse
	jTrue
	jNumber
	jString
	jObject
	jArray
)

// jnode is one parsed JSON value. For strings str is the decoded text, for
// numbers the literal text; objects have keys/vals, arrays vals.
type jnode struct {
	kind jkind
	str  string
	keys []string
	vals []*jnode
}

// isInt reports whether a number literal has no fraction or exponent.
func (n *jnode) isInt() bool {
	return n.kind == jNumber && !strings.ContainsAny(n.str, ".eE")
}

type jsonSyntaxError struct {
	msg          string
	line, column int
}

type jparser struct {
	s     string
	pos   int
	depth int
	err   *jsonSyntaxError
}

const maxJSONDepth = 1000

// parseJSON parses one JSON value that must be the whole input (bar
// whitespace).
func parseJSON(s string) (*jnode, *jsonSyntaxError) {
	p := &jparser{s: s}
	p.skipWS()
	if p.pos >= len(p.s) {
		return nil, p.fail("No content to map due to end-of-input")
	}
	n := p.value()
	if p.err != nil {
		return nil, p.err
	}
	p.skipWS()
	if p.pos < len(p.s) {
		return nil, p.fail("Unexpected character (" + p.charDesc() + "): expected end-of-input")
	}
	return n, nil
}

func (p *jparser) fail(msg string) *jsonSyntaxError {
	if p.err == nil {
		line, col := 1, 1
		for i := 0; i < p.pos && i < len(p.s); i++ {
			if p.s[i] == '\n' {
				line++
				col = 1
			} else {
				col++
			}
		}
		p.err = &jsonSyntaxError{msg: msg, line: line, column: col}
	}
	return p.err
}

func (p *jparser) charDesc() string {
	if p.pos >= len(p.s) {
		return "end-of-input"
	}
	r, _ := utf8.DecodeRuneInString(p.s[p.pos:])
	return "'" + string(r) + "' (code " + strconv.Itoa(int(r)) + ")"
}

func (p *jparser) skipWS() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jparser) value() *jnode {
	if p.pos >= len(p.s) {
		p.fail("Unexpected end-of-input: expected a value")
		return nil
	}
	switch c := p.s[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, ok := p.str()
		if !ok {
			return nil
		}
		return &jnode{kind: jString, str: s}
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case strings.HasPrefix(p.s[p.pos:], "true"):
		p.pos += 4
		return &jnode{kind: jTrue}
	case strings.HasPrefix(p.s[p.pos:], "false"):
		p.pos += 5
		return &jnode{kind: jFalse}
	case strings.HasPrefix(p.s[p.pos:], "null"):
		p.pos += 4
		return &jnode{kind: jNull}
	}
	p.fail("Unexpected character (" + p.charDesc() + "): expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')")
	return nil
}

func (p *jparser) object() *jnode {
	p.depth++
	if p.depth > maxJSONDepth {
		p.fail("Maximum nesting depth exceeded")
		return nil
	}
	defer func() { p.depth-- }()
	p.pos++ // {
	n := &jnode{kind: jObject}
	p.skipWS()
	if p.pos < len(p.s) && p.s[p.pos] == '}' {
		p.pos++
		return n
	}
	var seen map[string]struct{}
	for {
		p.skipWS()
		if p.pos >= len(p.s) || p.s[p.pos] != '"' {
			p.fail("Unexpected character (" + p.charDesc() + "): was expecting double-quote to start field name")
			return nil
		}
		keyPos := p.pos
		key, ok := p.str()
		if !ok {
			return nil
		}
		// Duplicate detection: linear for small objects, a set beyond.
		dup := false
		if len(n.keys) < 16 {
			for _, k := range n.keys {
				if k == key {
					dup = true
					break
				}
			}
		} else {
			if seen == nil {
				seen = make(map[string]struct{}, 32)
				for _, k := range n.keys {
					seen[k] = struct{}{}
				}
			}
			_, dup = seen[key]
			seen[key] = struct{}{}
		}
		if dup {
			p.pos = keyPos + 1
			p.fail("Duplicate field '" + key + "'")
			return nil
		}
		p.skipWS()
		if p.pos >= len(p.s) || p.s[p.pos] != ':' {
			p.fail("Unexpected character (" + p.charDesc() + "): was expecting a colon to separate field name and value")
			return nil
		}
		p.pos++
		p.skipWS()
		v := p.value()
		if v == nil {
			return nil
		}
		n.keys = append(n.keys, key)
		n.vals = append(n.vals, v)
		p.skipWS()
		if p.pos >= len(p.s) {
			p.fail("Unexpected end-of-input: expected close marker for Object")
			return nil
		}
		switch p.s[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return n
		default:
			p.fail("Unexpected character (" + p.charDesc() + "): was expecting comma to separate Object entries")
			return nil
		}
	}
}

func (p *jparser) array() *jnode {
	p.depth++
	if p.depth > maxJSONDepth {
		p.fail("Maximum nesting depth exceeded")
		return nil
	}
	defer func() { p.depth-- }()
	p.pos++ // [
	n := &jnode{kind: jArray}
	p.skipWS()
	if p.pos < len(p.s) && p.s[p.pos] == ']' {
		p.pos++
		return n
	}
	for {
		p.skipWS()
		v := p.value()
		if v == nil {
			return nil
		}
		n.vals = append(n.vals, v)
		p.skipWS()
		if p.pos >= len(p.s) {
			p.fail("Unexpected end-of-input: expected close marker for Array")
			return nil
		}
		switch p.s[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return n
		default:
			p.fail("Unexpected character (" + p.charDesc() + "): was expecting comma to separate Array entries")
			return nil
		}
	}
}

func (p *jparser) number() *jnode {
	start := p.pos
	if p.s[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	intStart := p.pos
	if digits() == 0 {
		p.fail("Unexpected character (" + p.charDesc() + ") in numeric value: expected digit (0-9) to follow minus sign, for valid numeric value")
		return nil
	}
	if p.s[intStart] == '0' && p.pos-intStart > 1 {
		p.pos = intStart + 1
		p.fail("Invalid numeric value: Leading zeroes not allowed")
		return nil
	}
	if p.pos < len(p.s) && p.s[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			p.fail("Unexpected character (" + p.charDesc() + ") in numeric value: Decimal point not followed by a digit")
			return nil
		}
	}
	if p.pos < len(p.s) && (p.s[p.pos] == 'e' || p.s[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.s) && (p.s[p.pos] == '+' || p.s[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			p.fail("Unexpected character (" + p.charDesc() + ") in numeric value: Exponent indicator not followed by a digit")
			return nil
		}
	}
	return &jnode{kind: jNumber, str: p.s[start:p.pos]}
}

// str parses a string starting at the opening quote.
func (p *jparser) str() (string, bool) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes, valid UTF-8 control-free text.
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '"' {
			s := p.s[start:p.pos]
			p.pos++
			return s, true
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.pos++
	}
	var b strings.Builder
	b.WriteString(p.s[start:p.pos])
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), true
		case c < 0x20:
			p.fail("Illegal unquoted character ((CTRL-CHAR, code " + strconv.Itoa(int(c)) + ")): has to be escaped using backslash to be included in string value")
			return "", false
		case c == '\\':
			p.pos++
			if p.pos >= len(p.s) {
				break
			}
			e := p.s[p.pos]
			p.pos++
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", false
				}
				if utf16.IsSurrogate(r) {
					if strings.HasPrefix(p.s[p.pos:], `\u`) {
						p.pos += 2
						r2, ok := p.hex4()
						if !ok {
							return "", false
						}
						r = utf16.DecodeRune(r, r2)
					} else {
						r = utf8.RuneError
					}
				}
				b.WriteRune(r)
			default:
				p.pos--
				p.fail("Unrecognized character escape " + p.charDesc())
				return "", false
			}
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	p.fail("Unexpected end-of-input: was expecting closing quote for a string value")
	return "", false
}

func (p *jparser) hex4() (rune, bool) {
	if p.pos+4 > len(p.s) {
		p.pos = len(p.s)
		p.fail("Unexpected end-of-input within/between String entries")
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.pos:p.pos+4], 16, 32)
	if err != nil {
		p.fail("Unexpected character (" + p.charDesc() + "): expected a hex-digit for character escape sequence")
		return 0, false
	}
	p.pos += 4
	return rune(v), true
}

// preview renders a value the way Elasticsearch's "Preview of field's value"
// does (Java toString of the parsed value: maps as {k=v}, lists as [a, b]).
func (n *jnode) preview() string {
	var b strings.Builder
	n.writePreview(&b)
	return b.String()
}

func (n *jnode) writePreview(b *strings.Builder) { n.write(b, false) }

// writeJSON renders the value back to JSON (numbers keep their text).
func (n *jnode) writeJSON(b *strings.Builder) { n.write(b, true) }

// write renders the value as JSON or as a Java-style preview.
func (n *jnode) write(b *strings.Builder, asJSON bool) {
	sep, kv := ", ", "="
	if asJSON {
		sep, kv = ",", ":"
	}
	str := func(s string) {
		if asJSON {
			q, _ := json.Marshal(s)
			b.Write(q)
		} else {
			b.WriteString(s)
		}
	}
	switch n.kind {
	case jNull:
		b.WriteString("null")
	case jTrue:
		b.WriteString("true")
	case jFalse:
		b.WriteString("false")
	case jNumber:
		b.WriteString(n.str)
	case jString:
		str(n.str)
	case jArray:
		b.WriteByte('[')
		for i, v := range n.vals {
			if i > 0 {
				b.WriteString(sep)
			}
			v.write(b, asJSON)
		}
		b.WriteByte(']')
	case jObject:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteString(sep)
			}
			str(k)
			b.WriteString(kv)
			n.vals[i].write(b, asJSON)
		}
		b.WriteByte('}')
	}
}

// tokenName is the Jackson token name of a value, used in error reasons.
func (n *jnode) tokenName() string {
	switch n.kind {
	case jNull:
		return "VALUE_NULL"
	case jTrue:
		return "VALUE_TRUE"
	case jFalse:
		return "VALUE_FALSE"
	case jNumber:
		if n.isInt() {
			return "VALUE_NUMBER_INT"
		}
		return "VALUE_NUMBER_FLOAT"
	case jString:
		return "VALUE_STRING"
	case jArray:
		return "START_ARRAY"
	}
	return "START_OBJECT"
}
