package template

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// CheckJSON reports whether s starts with one well-formed JSON value, with
// the error Elasticsearch's JSON parser (Jackson) gives when it does not:
// json_e_o_f_exception for a document cut short, json_parse_exception for
// anything else, both 400. What follows the first value is not examined
// (Elasticsearch stops reading there too).
func CheckJSON(s string) error {
	c := jsonChecker{s: s}
	c.skipWS()
	if c.pos >= len(s) {
		return nil
	}
	return c.value(0)
}

type marker struct {
	object bool
	pos    int
}

type jsonChecker struct {
	s     string
	pos   int
	stack []marker
}

const maxCheckDepth = 1000

func (c *jsonChecker) skipWS() {
	for c.pos < len(c.s) {
		switch c.s[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

// location renders Jackson's "[Source: ...; line: L, column: C]".
func (c *jsonChecker) location(pos int) string {
	src := c.s
	if len(src) > 500 {
		src = src[:500] + fmt.Sprintf("[truncated %d chars]", len(c.s)-500)
	}
	line := strings.Count(c.s[:pos], "\n") + 1
	col := pos - strings.LastIndexByte(c.s[:pos], '\n')
	return fmt.Sprintf(`[Source: (String)"%s"; line: %d, column: %d]`, src, line, col)
}

func (c *jsonChecker) fail(pos int, format string, args ...any) error {
	return eserr.Errorf(eserr.Invalid, "json_parse_exception", "%s\n at %s", fmt.Sprintf(format, args...), c.location(pos))
}

func (c *jsonChecker) eof(what string) error {
	msg := "Unexpected end-of-input"
	if n := len(c.stack); n > 0 && what == "" {
		m := c.stack[n-1]
		kind := "Array"
		if m.object {
			kind = "Object"
		}
		msg += fmt.Sprintf(": expected close marker for %s (start marker at %s)", kind, c.location(m.pos))
	} else if what != "" {
		msg += what
	}
	return eserr.Errorf(eserr.Invalid, "json_e_o_f_exception", "%s\n at %s", msg, c.location(len(c.s)))
}

// charDesc is Jackson's description of an unexpected character.
func (c *jsonChecker) charDesc(pos int) string {
	r, _ := utf8.DecodeRuneInString(c.s[pos:])
	if r < 0x20 {
		return fmt.Sprintf("(CTRL-CHAR, code %d)", r)
	}
	return fmt.Sprintf("('%c' (code %d))", r, r)
}

const expectedValue = "(JSON String, Number, Array, Object or token 'null', 'true' or 'false')"

func (c *jsonChecker) value(depth int) error {
	if depth > maxCheckDepth {
		return c.fail(c.pos, "Maximum nesting depth [%d] exceeded", maxCheckDepth)
	}
	if c.pos >= len(c.s) {
		return c.eof("")
	}
	switch ch := c.s[c.pos]; {
	case ch == '{':
		return c.object(depth)
	case ch == '[':
		return c.array(depth)
	case ch == '"':
		return c.str()
	case ch == '-' || (ch >= '0' && ch <= '9'):
		return c.number()
	case ch == ']' && len(c.stack) > 0 && !c.stack[len(c.stack)-1].object:
		return c.fail(c.pos, "Unexpected character %s: expected a value", c.charDesc(c.pos))
	case isTokenChar(ch):
		start := c.pos
		for c.pos < len(c.s) && isTokenChar(c.s[c.pos]) {
			c.pos++
		}
		tok := c.s[start:c.pos]
		if tok == "true" || tok == "false" || tok == "null" {
			return nil
		}
		return c.fail(start, "Unrecognized token '%s': was expecting %s", tok, expectedValue)
	default:
		return c.fail(c.pos, "Unexpected character %s: expected a valid value %s", c.charDesc(c.pos), expectedValue)
	}
}

func isTokenChar(ch byte) bool {
	return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch >= 0x80
}

func (c *jsonChecker) object(depth int) error {
	c.stack = append(c.stack, marker{object: true, pos: c.pos})
	c.pos++
	c.skipWS()
	if c.pos < len(c.s) && c.s[c.pos] == '}' {
		c.pos++
		c.stack = c.stack[:len(c.stack)-1]
		return nil
	}
	for {
		c.skipWS()
		if c.pos >= len(c.s) {
			return c.eof("")
		}
		if c.s[c.pos] != '"' {
			return c.fail(c.pos, "Unexpected character %s: was expecting double-quote to start field name", c.charDesc(c.pos))
		}
		if err := c.str(); err != nil {
			return err
		}
		c.skipWS()
		if c.pos >= len(c.s) {
			return c.eof("")
		}
		if c.s[c.pos] != ':' {
			return c.fail(c.pos, "Unexpected character %s: was expecting a colon to separate field name and value", c.charDesc(c.pos))
		}
		c.pos++
		c.skipWS()
		if err := c.value(depth + 1); err != nil {
			return err
		}
		c.skipWS()
		if c.pos >= len(c.s) {
			return c.eof("")
		}
		switch c.s[c.pos] {
		case ',':
			c.pos++
		case '}':
			c.pos++
			c.stack = c.stack[:len(c.stack)-1]
			return nil
		default:
			return c.fail(c.pos, "Unexpected character %s: was expecting comma to separate Object entries", c.charDesc(c.pos))
		}
	}
}

func (c *jsonChecker) array(depth int) error {
	c.stack = append(c.stack, marker{object: false, pos: c.pos})
	c.pos++
	c.skipWS()
	if c.pos < len(c.s) && c.s[c.pos] == ']' {
		c.pos++
		c.stack = c.stack[:len(c.stack)-1]
		return nil
	}
	for {
		c.skipWS()
		if err := c.value(depth + 1); err != nil {
			return err
		}
		c.skipWS()
		if c.pos >= len(c.s) {
			return c.eof("")
		}
		switch c.s[c.pos] {
		case ',':
			c.pos++
		case ']':
			c.pos++
			c.stack = c.stack[:len(c.stack)-1]
			return nil
		default:
			return c.fail(c.pos, "Unexpected character %s: was expecting comma to separate Array entries", c.charDesc(c.pos))
		}
	}
}

func (c *jsonChecker) str() error {
	c.pos++ // opening quote
	for c.pos < len(c.s) {
		ch := c.s[c.pos]
		switch {
		case ch == '"':
			c.pos++
			return nil
		case ch == '\\':
			if c.pos+1 >= len(c.s) {
				c.pos = len(c.s)
				return c.eof(" in character escape sequence")
			}
			e := c.s[c.pos+1]
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c.pos += 2
			case 'u':
				if c.pos+6 > len(c.s) {
					c.pos = len(c.s)
					return c.eof(" in character escape sequence")
				}
				for i := 2; i < 6; i++ {
					h := c.s[c.pos+i]
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return c.fail(c.pos+i, "Unexpected character %s: expected a hex-digit for character escape sequence", c.charDesc(c.pos+i))
					}
				}
				c.pos += 6
			default:
				return c.fail(c.pos+1, "Unrecognized character escape %s", strings.TrimSuffix(strings.TrimPrefix(c.charDesc(c.pos+1), "("), ")"))
			}
		case ch < 0x20:
			return c.fail(c.pos, "Illegal unquoted character (%s): has to be escaped using backslash to be included in string value", c.charDesc(c.pos))
		default:
			c.pos++
		}
	}
	return c.eof(": was expecting closing quote for a string value")
}

func (c *jsonChecker) number() error {
	start := c.pos
	if c.s[c.pos] == '-' {
		c.pos++
		if c.pos >= len(c.s) {
			return c.eof(" in a Number value")
		}
		if c.s[c.pos] < '0' || c.s[c.pos] > '9' {
			return c.fail(c.pos, "Unexpected character %s in numeric value: expected digit (0-9) to follow minus sign, for valid numeric value", c.charDesc(c.pos))
		}
	}
	if c.s[c.pos] == '0' && c.pos+1 < len(c.s) && c.s[c.pos+1] >= '0' && c.s[c.pos+1] <= '9' {
		return c.fail(start, "Invalid numeric value: Leading zeroes not allowed")
	}
	digits := func() int {
		n := 0
		for c.pos < len(c.s) && c.s[c.pos] >= '0' && c.s[c.pos] <= '9' {
			c.pos++
			n++
		}
		return n
	}
	digits()
	if c.pos < len(c.s) && c.s[c.pos] == '.' {
		c.pos++
		if digits() == 0 {
			if c.pos >= len(c.s) {
				return c.eof(" in a Number value")
			}
			return c.fail(c.pos, "Unexpected character %s in fractional part: Decimal point not followed by a digit", c.charDesc(c.pos))
		}
	}
	if c.pos < len(c.s) && (c.s[c.pos] == 'e' || c.s[c.pos] == 'E') {
		c.pos++
		if c.pos < len(c.s) && (c.s[c.pos] == '+' || c.s[c.pos] == '-') {
			c.pos++
		}
		if digits() == 0 {
			if c.pos >= len(c.s) {
				return c.eof(" in a Number value")
			}
			return c.fail(c.pos, "Unexpected character %s in exponent: Exponent indicator not followed by a digit", c.charDesc(c.pos))
		}
	}
	if c.pos < len(c.s) && isTokenChar(c.s[c.pos]) {
		end := c.pos
		for end < len(c.s) && isTokenChar(c.s[end]) {
			end++
		}
		return c.fail(start, "Unrecognized token '%s': was expecting %s", c.s[start:end], expectedValue)
	}
	return nil
}

// CompleteMembers returns, for a document that starts with an object, that
// object cut down to the top-level members complete before the first syntax
// error ({} when there are none). A streaming parser such as Elasticsearch's
// acts on those members before it reaches the error, so their own errors
// (an unknown query, say) come first. ok is false when s is not an object.
func CompleteMembers(s string) (obj string, ok bool) {
	c := jsonChecker{s: s}
	c.skipWS()
	if c.pos >= len(s) || s[c.pos] != '{' {
		return "", false
	}
	c.pos++
	last := c.pos
	for {
		c.skipWS()
		if c.pos >= len(s) || s[c.pos] != '"' || c.str() != nil {
			break
		}
		c.skipWS()
		if c.pos >= len(s) || s[c.pos] != ':' {
			break
		}
		c.pos++
		c.skipWS()
		if c.value(1) != nil {
			break
		}
		last = c.pos
		c.skipWS()
		if c.pos >= len(s) || s[c.pos] != ',' {
			break
		}
		c.pos++
	}
	return s[:last] + "}", true
}
