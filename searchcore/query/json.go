package query

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// kind is the type of a JSON value, named after the Elasticsearch
// XContentParser token that starts it.
type kind uint8

const (
	kObject kind = iota + 1
	kArray
	kString
	kNumber
	kBool
	kNull
)

// token returns the XContentParser token name ES uses in error messages.
func (k kind) token() string {
	switch k {
	case kObject:
		return "START_OBJECT"
	case kArray:
		return "START_ARRAY"
	case kString:
		return "VALUE_STRING"
	case kNumber:
		return "VALUE_NUMBER"
	case kBool:
		return "VALUE_BOOLEAN"
	case kNull:
		return "VALUE_NULL"
	}
	return "END_OBJECT"
}

// isValue mirrors XContentParser.Token.isValue: scalars except null.
func (k kind) isValue() bool { return k == kString || k == kNumber || k == kBool }

// jval is one parsed JSON value. Objects keep their members in source order
// (duplicates are rejected while parsing, as ES's strict duplicate detection does).
type jval struct {
	kind kind
	// off is the byte offset of the value's first byte in the document.
	off int
	// s is the unescaped string, the number literal or "true"/"false".
	s       string
	members []member
	elems   []*jval
	doc     *jdoc
}

// member is one key of an object.
type member struct {
	key string
	off int // offset of the key's opening quote
	val *jval
}

// jdoc is a parsed document plus what is needed to locate errors in it.
type jdoc struct {
	src []byte
	// located is set when offsets can be turned into positions of the
	// enclosing request body (line/col are the position of src[0]).
	located   bool
	line, col int
}

// maxDepth bounds nesting so hostile input cannot exhaust memory.
const maxDepth = 2000

// parseJSON parses src into a value tree.
func parseJSON(src []byte, d *jdoc) (*jval, error) {
	d.src = src
	p := jparser{src: src, doc: d}
	p.skipWS()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipWS()
	if p.pos < len(src) {
		return nil, p.errf(p.pos, "Unexpected character ('%c' (code %d)): expected end of input", rune(src[p.pos]), src[p.pos])
	}
	return v, nil
}

type jparser struct {
	src  []byte
	pos  int
	doc  *jdoc
	slab []jval // values are carved from here to save allocations
}

// newVal returns a zeroed value from the slab.
func (p *jparser) newVal(k kind, off int) *jval {
	if len(p.slab) == 0 {
		n := len(p.src)/16 + 4
		if n > 256 {
			n = 256
		}
		p.slab = make([]jval, n)
	}
	v := &p.slab[0]
	p.slab = p.slab[1:]
	v.kind, v.off, v.doc = k, off, p.doc
	return v
}

func (p *jparser) errf(off int, format string, args ...any) *searchcore.Error {
	return p.doc.errAt(off, "json_parse_exception", false, format, args...)
}

func (p *jparser) skipWS() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jparser) value(depth int) (*jval, error) {
	if depth > maxDepth {
		return nil, p.errf(p.pos, "Maximum nesting depth [%d] exceeded", maxDepth)
	}
	if p.pos >= len(p.src) {
		return nil, p.errf(p.pos, "Unexpected end-of-input")
	}
	start := p.pos
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		v := p.newVal(kString, start)
		v.s = s
		return v, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", kBool)
	case c == 'f':
		return p.literal("false", kBool)
	case c == 'n':
		return p.literal("null", kNull)
	default:
		return nil, p.errf(p.pos, "Unexpected character ('%c' (code %d)): expected a valid value", rune(c), c)
	}
}

func (p *jparser) literal(word string, k kind) (*jval, error) {
	start := p.pos
	if len(p.src)-p.pos < len(word) || string(p.src[p.pos:p.pos+len(word)]) != word {
		return nil, p.errf(p.pos, "Unrecognized token: was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')")
	}
	p.pos += len(word)
	v := p.newVal(k, start)
	v.s = word
	return v, nil
}

func (p *jparser) number() (*jval, error) {
	start := p.pos
	i := p.pos
	if p.src[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(p.src) && p.src[i] >= '0' && p.src[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(p.src) && p.src[i] == '0' {
		i++
	} else if digits() == 0 {
		return nil, p.errf(start, "Unexpected character: expected digit")
	}
	if i < len(p.src) && p.src[i] == '.' {
		i++
		if digits() == 0 {
			return nil, p.errf(i, "Unexpected character: Decimal point not followed by a digit")
		}
	}
	if i < len(p.src) && (p.src[i] == 'e' || p.src[i] == 'E') {
		i++
		if i < len(p.src) && (p.src[i] == '+' || p.src[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, p.errf(i, "Unexpected character: Exponent indicator not followed by a digit")
		}
	}
	p.pos = i
	v := p.newVal(kNumber, start)
	v.s = string(p.src[start:i])
	return v, nil
}

func (p *jparser) str() (string, error) {
	start := p.pos
	p.pos++ // opening quote
	// fast path: no escapes
	i := p.pos
	for i < len(p.src) {
		c := p.src[i]
		if c == '"' {
			s := string(p.src[p.pos:i])
			p.pos = i + 1
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		i++
	}
	buf := make([]byte, 0, i-p.pos+16)
	buf = append(buf, p.src[p.pos:i]...)
	p.pos = i
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(buf), nil
		case c < 0x20:
			return "", p.errf(p.pos, "Illegal unquoted character ((CTRL-CHAR, code %d)): has to be escaped using backslash to be included in string value", c)
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return "", p.errf(p.pos, "Unexpected end-of-input in character escape sequence")
			}
			e := p.src[p.pos+1]
			p.pos += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.errf(p.pos, "Unexpected character: expected a hex-digit for character escape sequence")
				}
				if utf16.IsSurrogate(r) {
					// combine with a following low surrogate when present
					if p.pos+1 < len(p.src) && p.src[p.pos] == '\\' && p.src[p.pos+1] == 'u' {
						save := p.pos
						p.pos += 2
						if r2, ok := p.hex4(); ok && utf16.DecodeRune(r, r2) != utf8.RuneError {
							r = utf16.DecodeRune(r, r2)
						} else {
							p.pos = save
							r = utf8.RuneError
						}
					} else {
						r = utf8.RuneError
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", p.errf(p.pos-1, "Unrecognized character escape '%c' (code %d)", rune(e), e)
			}
		default:
			buf = append(buf, c)
			p.pos++
		}
	}
	return "", p.errf(start, "Unexpected end-of-input: was expecting closing quote for a string value")
}

func (p *jparser) hex4() (rune, bool) {
	if len(p.src)-p.pos < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.src[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(n), true
}

func (p *jparser) object(depth int) (*jval, error) {
	v := p.newVal(kObject, p.pos)
	p.pos++
	p.skipWS()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	for {
		p.skipWS()
		if p.pos >= len(p.src) {
			return nil, p.errf(p.pos, "Unexpected end-of-input: expected close marker for Object")
		}
		if p.src[p.pos] != '"' {
			return nil, p.errf(p.pos, "Unexpected character ('%c' (code %d)): was expecting double-quote to start field name", rune(p.src[p.pos]), p.src[p.pos])
		}
		koff := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		for _, m := range v.members {
			if m.key == key {
				return nil, p.errf(koff, "Duplicate field '%s'", key)
			}
		}
		p.skipWS()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errf(p.pos, "Unexpected character: was expecting a colon to separate field name and value")
		}
		p.pos++
		p.skipWS()
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.members = append(v.members, member{key: key, off: koff, val: val})
		p.skipWS()
		if p.pos >= len(p.src) {
			return nil, p.errf(p.pos, "Unexpected end-of-input: expected close marker for Object")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return v, nil
		default:
			return nil, p.errf(p.pos, "Unexpected character ('%c' (code %d)): was expecting comma to separate Object entries", rune(p.src[p.pos]), p.src[p.pos])
		}
	}
}

func (p *jparser) array(depth int) (*jval, error) {
	v := p.newVal(kArray, p.pos)
	p.pos++
	p.skipWS()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for {
		p.skipWS()
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.elems = append(v.elems, e)
		p.skipWS()
		if p.pos >= len(p.src) {
			return nil, p.errf(p.pos, "Unexpected end-of-input: expected close marker for Array")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return v, nil
		default:
			return nil, p.errf(p.pos, "Unexpected character ('%c' (code %d)): was expecting comma to separate Array entries", rune(p.src[p.pos]), p.src[p.pos])
		}
	}
}

// position turns a byte offset into the 1-based line and column of the
// enclosing request body, as Jackson reports them (columns count bytes).
func (d *jdoc) position(off int) (line, col int) {
	if off > len(d.src) {
		off = len(d.src)
	}
	line, lineStart := 1, 0
	for i := 0; i < off; i++ {
		if d.src[i] == '\n' {
			line++
			lineStart = i + 1
		}
	}
	col = off - lineStart + 1
	baseLine, baseCol := max(d.line, 1), max(d.col, 1)
	if line == 1 {
		col += baseCol - 1
	}
	return line + baseLine - 1, col
}

// errAt builds an error located at off. ParsingException-style errors carry
// the position as line/col members; XContentParseException-style errors
// (prefix true) put "[line:col] " in front of the reason, as ES does.
// Positions are only rendered when the document is located.
func (d *jdoc) errAt(off int, typ string, prefix bool, format string, args ...any) *searchcore.Error {
	e := searchcore.Errorf(searchcore.Invalid, typ, format, args...)
	if d == nil || !d.located {
		return e
	}
	line, col := d.position(off)
	if prefix {
		e.Reason = "[" + strconv.Itoa(line) + ":" + strconv.Itoa(col) + "] " + e.Reason
		return e
	}
	return e.With("line", line).With("col", col)
}

// parsingErr is ES's ParsingException (parsing_exception) at v.
func (v *jval) parsingErr(format string, args ...any) *searchcore.Error {
	return v.doc.errAt(v.off, "parsing_exception", false, format, args...)
}

// xcontentErr is ES's XContentParseException (x_content_parse_exception) at off.
func (d *jdoc) xcontentErr(off int, format string, args ...any) *searchcore.Error {
	return d.errAt(off, "x_content_parse_exception", true, format, args...)
}

// get returns the member value for key, or nil.
func (v *jval) get(key string) *jval {
	for i := range v.members {
		if v.members[i].key == key {
			return v.members[i].val
		}
	}
	return nil
}

// nextTokenAfter names the token that follows member i of object v, as a
// streaming parser would see it (FIELD_NAME or END_OBJECT).
func (v *jval) nextTokenAfter(i int) string {
	if i+1 < len(v.members) {
		return "FIELD_NAME"
	}
	return "END_OBJECT"
}
