package query

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// Lucene RegExp syntax flags (org.apache.lucene.util.automaton.RegExp).
const (
	reIntersection = 0x0001
	reComplement   = 0x0002
	reEmpty        = 0x0004
	reAnyString    = 0x0008
	reInterval     = 0x0020
	reAll          = 0xffff
)

// resolveRegexpFlags is RegexpFlag.resolveValue for "ALL|ANYSTRING|...".
func resolveRegexpFlags(flags string) (int, error) {
	if flags == "" {
		return reAll, nil
	}
	magic := 0
	for _, s := range strings.Split(flags, "|") {
		if s == "" {
			continue
		}
		switch strings.ToUpper(s) {
		case "NONE":
		case "ALL":
			return reAll, nil
		case "INTERSECTION":
			magic |= reIntersection
		case "COMPLEMENT":
			magic |= reComplement
		case "EMPTY":
			magic |= reEmpty
		case "ANYSTRING":
			magic |= reAnyString
		case "INTERVAL":
			magic |= reInterval
		default:
			return 0, searchcore.IllegalArgument("Unknown regexp flag [%s]", s)
		}
	}
	return magic, nil
}

// luceneToRE2 translates a Lucene regular expression (always anchored at
// both ends of the term) into RE2 syntax for bluge's automaton. none
// reports an expression whose language is empty (such as "a#" with the
// EMPTY flag, or "a{3,2}"). Complement (~) and intersection (&) have no
// RE2 equivalent and are rejected.
func luceneToRE2(expr string, flags int) (re string, none bool, err error) {
	p := &lreParser{s: []rune(expr), flags: flags}
	r, err := p.union()
	if err != nil {
		return "", false, err
	}
	if p.pos < len(p.s) {
		return "", false, searchcore.IllegalArgument("end-of-string expected at position %d", p.pos)
	}
	return r.s, r.empty, nil
}

// lre is a translated sub-expression; empty marks the empty language.
type lre struct {
	s     string
	empty bool
}

type lreParser struct {
	s     []rune
	pos   int
	flags int
}

func (p *lreParser) more() bool { return p.pos < len(p.s) }
func (p *lreParser) peek(chars string) bool {
	return p.more() && strings.ContainsRune(chars, p.s[p.pos])
}
func (p *lreParser) match(c rune) bool {
	if p.more() && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}
func (p *lreParser) check(flag int) bool { return p.flags&flag != 0 }

func (p *lreParser) union() (lre, error) {
	var parts []string
	for {
		r, err := p.inter()
		if err != nil {
			return lre{}, err
		}
		if !r.empty {
			parts = append(parts, r.s)
		}
		if !p.match('|') {
			break
		}
	}
	switch len(parts) {
	case 0:
		return lre{empty: true}, nil
	case 1:
		return lre{s: parts[0]}, nil
	}
	return lre{s: "(?:" + strings.Join(parts, "|") + ")"}, nil
}

func (p *lreParser) inter() (lre, error) {
	r, err := p.concat()
	if err != nil {
		return lre{}, err
	}
	if p.check(reIntersection) && p.peek("&") {
		return lre{}, searchcore.IllegalArgument("intersection operator [&] is not supported (position %d)", p.pos)
	}
	return r, nil
}

func (p *lreParser) concat() (lre, error) {
	var sb strings.Builder
	empty := false
	for p.more() && !p.peek(")|") && (!p.check(reIntersection) || !p.peek("&")) {
		r, err := p.repeat()
		if err != nil {
			return lre{}, err
		}
		empty = empty || r.empty
		sb.WriteString(r.s)
	}
	if empty {
		return lre{empty: true}, nil
	}
	return lre{s: sb.String()}, nil
}

func (p *lreParser) repeat() (lre, error) {
	e, err := p.complement()
	if err != nil {
		return lre{}, err
	}
	for p.peek("?*+{") {
		switch {
		case p.match('?'):
			if e.empty {
				e = lre{s: "(?:)"}
			} else {
				e.s = "(?:" + e.s + ")?"
			}
		case p.match('*'):
			if e.empty {
				e = lre{s: "(?:)"}
			} else {
				e.s = "(?:" + e.s + ")*"
			}
		case p.match('+'):
			if !e.empty {
				e.s = "(?:" + e.s + ")+"
			}
		case p.match('{'):
			start := p.pos
			for p.peek("0123456789") {
				p.pos++
			}
			if start == p.pos {
				return lre{}, searchcore.IllegalArgument("integer expected at position %d", p.pos)
			}
			n, _ := strconv.Atoi(string(p.s[start:p.pos]))
			m := -1
			bounded := true
			if p.match(',') {
				start = p.pos
				for p.peek("0123456789") {
					p.pos++
				}
				if start == p.pos {
					bounded = false
				} else {
					m, _ = strconv.Atoi(string(p.s[start:p.pos]))
				}
			} else {
				m = n
			}
			if !p.match('}') {
				return lre{}, searchcore.IllegalArgument("expected '}' at position %d", p.pos)
			}
			switch {
			case bounded && n > m:
				e = lre{empty: true}
			case e.empty && n == 0:
				e = lre{s: "(?:)"}
			case e.empty:
			case !bounded:
				e.s = "(?:" + e.s + "){" + strconv.Itoa(n) + ",}"
			case n == m:
				e.s = "(?:" + e.s + "){" + strconv.Itoa(n) + "}"
			default:
				e.s = "(?:" + e.s + "){" + strconv.Itoa(n) + "," + strconv.Itoa(m) + "}"
			}
		}
	}
	return e, nil
}

func (p *lreParser) complement() (lre, error) {
	if p.check(reComplement) && p.peek("~") {
		return lre{}, searchcore.IllegalArgument("complement operator [~] is not supported (position %d)", p.pos)
	}
	return p.charClassExp()
}

func (p *lreParser) charClassExp() (lre, error) {
	if !p.match('[') {
		return p.simple()
	}
	negate := p.match('^')
	var cls strings.Builder
	// the first class member is read unconditionally ("[]a]" holds ']')
	for first := true; first || (p.more() && !p.peek("]")); first = false {
		lo, err := p.classChar()
		if err != nil {
			return lre{}, err
		}
		if p.match('-') {
			if p.peek("]") {
				// a trailing '-' is a literal
				cls.WriteString(lo + `\-`)
				continue
			}
			hi, err := p.classChar()
			if err != nil {
				return lre{}, err
			}
			cls.WriteString(lo + "-" + hi)
			continue
		}
		cls.WriteString(lo)
	}
	if !p.match(']') {
		return lre{}, searchcore.IllegalArgument("expected ']' at position %d", p.pos)
	}
	if negate {
		return lre{s: "[^" + cls.String() + "]"}, nil
	}
	return lre{s: "[" + cls.String() + "]"}, nil
}

// classChar reads one character of a character class, escaped for RE2.
func (p *lreParser) classChar() (string, error) {
	if !p.more() {
		return "", searchcore.IllegalArgument("unexpected end-of-string")
	}
	c := p.s[p.pos]
	p.pos++
	if c == '\\' {
		if !p.more() {
			return "", searchcore.IllegalArgument("unexpected end-of-string")
		}
		c = p.s[p.pos]
		p.pos++
		switch c {
		case 'd', 'D', 's', 'S', 'w', 'W':
			return `\` + string(c), nil
		}
	}
	return quoteRune(c), nil
}

func quoteRune(c rune) string {
	return regexp.QuoteMeta(string(c))
}

func (p *lreParser) simple() (lre, error) {
	if !p.more() {
		return lre{}, searchcore.IllegalArgument("unexpected end-of-string")
	}
	c := p.s[p.pos]
	switch {
	case c == '.':
		p.pos++
		return lre{s: `(?s:.)`}, nil
	case c == '#' && p.check(reEmpty):
		p.pos++
		return lre{empty: true}, nil
	case c == '@' && p.check(reAnyString):
		p.pos++
		return lre{s: `(?s:.*)`}, nil
	case c == '"':
		p.pos++
		start := p.pos
		for p.more() && p.s[p.pos] != '"' {
			p.pos++
		}
		if !p.match('"') {
			return lre{}, searchcore.IllegalArgument("expected '\"' at position %d", p.pos)
		}
		return lre{s: regexp.QuoteMeta(string(p.s[start : p.pos-1]))}, nil
	case c == '(':
		p.pos++
		if p.match(')') {
			return lre{s: "(?:)"}, nil
		}
		inner, err := p.union()
		if err != nil {
			return lre{}, err
		}
		if !p.match(')') {
			return lre{}, searchcore.IllegalArgument("expected ')' at position %d", p.pos)
		}
		if inner.empty {
			return inner, nil
		}
		return lre{s: "(?:" + inner.s + ")"}, nil
	case c == '<' && p.check(reInterval):
		p.pos++
		start := p.pos
		for p.more() && p.s[p.pos] != '>' {
			p.pos++
		}
		if !p.match('>') {
			return lre{}, searchcore.IllegalArgument("expected '>' at position %d", p.pos)
		}
		body := string(p.s[start : p.pos-1])
		lo, hi, ok := strings.Cut(body, "-")
		if !ok {
			return lre{}, searchcore.IllegalArgument("interval syntax error at position %d", p.pos-1)
		}
		re, err := decimalInterval(lo, hi)
		if err != nil {
			return lre{}, searchcore.IllegalArgument("interval syntax error at position %d", p.pos-1)
		}
		return lre{s: re}, nil
	case c == '\\':
		p.pos++
		if !p.more() {
			return lre{}, searchcore.IllegalArgument("unexpected end-of-string")
		}
		e := p.s[p.pos]
		p.pos++
		switch e {
		case 'd', 'D', 's', 'S', 'w', 'W':
			return lre{s: `\` + string(e)}, nil
		}
		return lre{s: quoteRune(e)}, nil
	}
	p.pos++
	return lre{s: quoteRune(c)}, nil
}

// decimalInterval is Automata.makeDecimalInterval as a regexp: decimal
// numbers in [lo, hi], zero padded to a fixed width when both bounds have
// the same length, with optional leading zeros otherwise.
func decimalInterval(slo, shi string) (string, error) {
	lo, err1 := strconv.ParseUint(slo, 10, 63)
	hi, err2 := strconv.ParseUint(shi, 10, 63)
	if err1 != nil || err2 != nil || slo == "" || shi == "" {
		return "", fmt.Errorf("bad interval")
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	width := 0
	if len(slo) == len(shi) {
		width = len(slo)
	}
	var alts []string
	for _, r := range splitRange(lo, hi) {
		pat := digitPattern(r[0], r[1])
		if width > 0 {
			if pad := width - len(strconv.FormatUint(r[0], 10)); pad > 0 {
				pat = strings.Repeat("0", pad) + pat
			}
		}
		alts = append(alts, pat)
	}
	prefix := ""
	if width == 0 {
		prefix = "0*"
	}
	return "(?:" + prefix + "(?:" + strings.Join(alts, "|") + "))", nil
}

// splitRange splits [lo, hi] into ranges whose bounds have the same number
// of digits and can be written digit by digit.
func splitRange(lo, hi uint64) [][2]uint64 {
	min, max := int64(lo), int64(hi)
	stops := map[int64]bool{max: true}
	for nines, stop := 1, fillNines(min, 1); min <= stop && stop < max; {
		stops[stop] = true
		nines++
		stop = fillNines(min, nines)
	}
	for zeros, stop := 1, fillZeros(max+1, 1)-1; min < stop && stop <= max; {
		stops[stop] = true
		zeros++
		stop = fillZeros(max+1, zeros) - 1
	}
	list := make([]int64, 0, len(stops))
	for s := range stops {
		list = append(list, s)
	}
	sort.Slice(list, func(i, j int) bool { return list[i] < list[j] })
	var out [][2]uint64
	start := min
	for _, s := range list {
		out = append(out, [2]uint64{uint64(start), uint64(s)})
		start = s + 1
	}
	return out
}

// fillNines replaces the last n digits of v with nines.
func fillNines(v int64, n int) int64 {
	s := strconv.FormatInt(v, 10)
	keep := ""
	if n < len(s) {
		keep = s[:len(s)-n]
	}
	x, err := strconv.ParseInt(keep+strings.Repeat("9", n), 10, 64)
	if err != nil {
		return -1
	}
	return x
}

// fillZeros replaces the last n digits of v with zeros.
func fillZeros(v int64, n int) int64 {
	pow := int64(1)
	for i := 0; i < n; i++ {
		if pow > (1<<62)/10 {
			return -1
		}
		pow *= 10
	}
	return v - v%pow
}

// digitPattern is the pattern for [a, b] where a and b have the same length
// and every digit after the first differing one spans 0-9.
func digitPattern(a, b uint64) string {
	sa, sbs := strconv.FormatUint(a, 10), strconv.FormatUint(b, 10)
	if len(sa) != len(sbs) {
		// fall back to enumeration (should not happen after splitRange)
		var alts []string
		for v := a; v <= b && len(alts) < 10000; v++ {
			alts = append(alts, strconv.FormatUint(v, 10))
		}
		return strings.Join(alts, "|")
	}
	var sb strings.Builder
	for i := range sa {
		x, y := sa[i], sbs[i]
		switch {
		case x == y:
			sb.WriteByte(x)
		case x == '0' && y == '9':
			sb.WriteString("[0-9]")
		default:
			sb.WriteString("[" + string(x) + "-" + string(y) + "]")
		}
	}
	return sb.String()
}

// wildcardToRE2 translates a Lucene wildcard pattern (* any string, ? one
// character, \ escapes) to RE2.
func wildcardToRE2(pattern string) string {
	var sb strings.Builder
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			sb.WriteString(`(?s:.*)`)
		case '?':
			sb.WriteString(`(?s:.)`)
		case '\\':
			if i+1 < len(rs) {
				i++
				sb.WriteString(quoteRune(rs[i]))
			} else {
				sb.WriteString(`\\`)
			}
		default:
			sb.WriteString(quoteRune(c))
		}
	}
	return sb.String()
}
