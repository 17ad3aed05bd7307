package query

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	searchcore "github.com/quarry-search/quarry/searchcore/analysis/eserr"
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
// both ends of the term) into RE2 syntax for bluge's automaton. Complement
// (~) and intersection (&) have no RE2 equivalent and are rejected.
func luceneToRE2(expr string, flags int) (string, error) {
	p := &lreParser{s: []rune(expr), flags: flags}
	var sb strings.Builder
	if err := p.union(&sb); err != nil {
		return "", err
	}
	if p.pos < len(p.s) {
		return "", searchcore.IllegalArgument("end-of-string expected at position %d", p.pos)
	}
	return sb.String(), nil
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

func (p *lreParser) union(sb *strings.Builder) error {
	var parts []string
	for {
		var part strings.Builder
		if err := p.inter(&part); err != nil {
			return err
		}
		parts = append(parts, part.String())
		if !p.match('|') {
			break
		}
	}
	if len(parts) == 1 {
		sb.WriteString(parts[0])
		return nil
	}
	sb.WriteString("(?:" + strings.Join(parts, "|") + ")")
	return nil
}

func (p *lreParser) inter(sb *strings.Builder) error {
	if err := p.concat(sb); err != nil {
		return err
	}
	if p.check(reIntersection) && p.peek("&") {
		return searchcore.IllegalArgument("intersection operator [&] is not supported (position %d)", p.pos)
	}
	return nil
}

func (p *lreParser) concat(sb *strings.Builder) error {
	for p.more() && !p.peek(")|") && (!p.check(reIntersection) || !p.peek("&")) {
		if err := p.repeat(sb); err != nil {
			return err
		}
	}
	return nil
}

func (p *lreParser) repeat(sb *strings.Builder) error {
	var atom strings.Builder
	if err := p.complement(&atom); err != nil {
		return err
	}
	e := atom.String()
	for p.peek("?*+{") {
		switch {
		case p.match('?'):
			e = "(?:" + e + ")?"
		case p.match('*'):
			e = "(?:" + e + ")*"
		case p.match('+'):
			e = "(?:" + e + ")+"
		case p.match('{'):
			start := p.pos
			for p.peek("0123456789") {
				p.pos++
			}
			if start == p.pos {
				return searchcore.IllegalArgument("integer expected at position %d", p.pos)
			}
			n := string(p.s[start:p.pos])
			m := ""
			hasComma := false
			if p.match(',') {
				hasComma = true
				start = p.pos
				for p.peek("0123456789") {
					p.pos++
				}
				m = string(p.s[start:p.pos])
			}
			if !p.match('}') {
				return searchcore.IllegalArgument("expected '}' at position %d", p.pos)
			}
			switch {
			case !hasComma:
				e = "(?:" + e + "){" + n + "}"
			case m == "":
				e = "(?:" + e + "){" + n + ",}"
			default:
				e = "(?:" + e + "){" + n + "," + m + "}"
			}
		}
	}
	sb.WriteString(e)
	return nil
}

func (p *lreParser) complement(sb *strings.Builder) error {
	if p.check(reComplement) && p.peek("~") {
		return searchcore.IllegalArgument("complement operator [~] is not supported (position %d)", p.pos)
	}
	return p.charClassExp(sb)
}

func (p *lreParser) charClassExp(sb *strings.Builder) error {
	if !p.match('[') {
		return p.simple(sb)
	}
	negate := p.match('^')
	var cls strings.Builder
	for p.more() && !p.peek("]") {
		lo, err := p.classChar()
		if err != nil {
			return err
		}
		if p.match('-') {
			if p.peek("]") {
				// a trailing '-' is a literal
				cls.WriteString(lo + `\-`)
				continue
			}
			hi, err := p.classChar()
			if err != nil {
				return err
			}
			cls.WriteString(lo + "-" + hi)
			continue
		}
		cls.WriteString(lo)
	}
	if !p.match(']') {
		return searchcore.IllegalArgument("expected ']' at position %d", p.pos)
	}
	if negate {
		sb.WriteString("[^" + cls.String() + "]")
	} else {
		sb.WriteString("[" + cls.String() + "]")
	}
	return nil
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

func (p *lreParser) simple(sb *strings.Builder) error {
	if !p.more() {
		return searchcore.IllegalArgument("unexpected end-of-string")
	}
	c := p.s[p.pos]
	switch {
	case c == '.':
		p.pos++
		sb.WriteString(`(?s:.)`)
	case c == '#' && p.check(reEmpty):
		p.pos++
		sb.WriteString(`[^\x00-\x{10FFFF}]`)
	case c == '@' && p.check(reAnyString):
		p.pos++
		sb.WriteString(`(?s:.*)`)
	case c == '"':
		p.pos++
		start := p.pos
		for p.more() && p.s[p.pos] != '"' {
			p.pos++
		}
		if !p.match('"') {
			return searchcore.IllegalArgument("expected '\"' at position %d", p.pos)
		}
		sb.WriteString(regexp.QuoteMeta(string(p.s[start : p.pos-1])))
	case c == '(':
		p.pos++
		if p.match(')') {
			sb.WriteString("(?:)")
			return nil
		}
		var inner strings.Builder
		if err := p.union(&inner); err != nil {
			return err
		}
		if !p.match(')') {
			return searchcore.IllegalArgument("expected ')' at position %d", p.pos)
		}
		sb.WriteString("(?:" + inner.String() + ")")
	case c == '<' && p.check(reInterval):
		p.pos++
		start := p.pos
		for p.more() && p.s[p.pos] != '>' {
			p.pos++
		}
		if !p.match('>') {
			return searchcore.IllegalArgument("expected '>' at position %d", p.pos)
		}
		body := string(p.s[start : p.pos-1])
		lo, hi, ok := strings.Cut(body, "-")
		if !ok {
			return searchcore.IllegalArgument("interval syntax error at position %d", p.pos-1)
		}
		re, err := decimalInterval(lo, hi)
		if err != nil {
			return searchcore.IllegalArgument("interval syntax error at position %d", p.pos-1)
		}
		sb.WriteString(re)
	case c == '\\':
		p.pos++
		if !p.more() {
			return searchcore.IllegalArgument("unexpected end-of-string")
		}
		e := p.s[p.pos]
		p.pos++
		switch e {
		case 'd', 'D', 's', 'S', 'w', 'W':
			sb.WriteString(`\` + string(e))
		default:
			sb.WriteString(quoteRune(e))
		}
	default:
		p.pos++
		sb.WriteString(quoteRune(c))
	}
	return nil
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
