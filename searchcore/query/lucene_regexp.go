package query

import (
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"unicode"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// Lucene RegExp syntax flags (org.apache.lucene.util.automaton.RegExp).
const (
	reIntersection = 0x0001
	reComplement   = 0x0002
	reEmpty        = 0x0004
	reAnyString    = 0x0008
	reAutomaton    = 0x0010
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

// buildStatesPerState bounds the automaton a regular expression may build
// before determinization (repetition counts such as a{100000} copy their
// operand): at most this many states per allowed deterministic state, and
// at least minBuildStates.
const (
	buildStatesPerState = 32
	minBuildStates      = 1 << 16
)

// compileLuceneRegexp builds the determinized automaton of a Lucene regular
// expression (org.apache.lucene.util.automaton.RegExp, always anchored at
// both ends of the term) with the given syntax flags: complement (~) and
// intersection (&) determinize their operands over the whole code point
// alphabet, and no step may need more than maxStates deterministic states
// (too_complex_to_determinize_exception). caseInsensitive folds the case of
// ASCII literals, as Lucene's ASCII_CASE_INSENSITIVE does.
func compileLuceneRegexp(expr string, flags int, caseInsensitive bool, maxStates int) (*runDFA, error) {
	p := &lreParser{s: []rune(expr), flags: flags, fold: caseInsensitive, maxStates: maxStates}
	var f fragment
	if len(p.s) == 0 {
		f = p.b.emptyString()
	} else {
		var err error
		if f, err = p.union(); err != nil {
			return nil, err
		}
		if p.pos < len(p.s) {
			return nil, searchcore.IllegalArgument("end-of-string expected at position %d", p.pos)
		}
	}
	a := p.b.extract(f)
	d, err := a.determinize(maxStates)
	if err != nil {
		return nil, err
	}
	return newRunDFA(d), nil
}

type lreParser struct {
	s         []rune
	pos       int
	flags     int
	fold      bool
	maxStates int
	b         abuilder
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

func (p *lreParser) next() (rune, error) {
	if !p.more() {
		return 0, searchcore.IllegalArgument("unexpected end-of-string")
	}
	p.pos++
	return p.s[p.pos-1], nil
}

func (p *lreParser) maxBuild() int {
	return max(minBuildStates, buildStatesPerState*p.maxStates)
}

// guard stops expressions whose construction alone would exhaust memory.
func (p *lreParser) guard() error {
	if len(p.b.states) > p.maxBuild() {
		return tooComplex(&automaton{states: p.b.states}, p.maxStates)
	}
	return nil
}

func (p *lreParser) union() (fragment, error) {
	e, err := p.inter()
	if err != nil {
		return fragment{}, err
	}
	if p.match('|') {
		r, err := p.union()
		if err != nil {
			return fragment{}, err
		}
		return p.b.union(e, r), nil
	}
	return e, nil
}

func (p *lreParser) inter() (fragment, error) {
	e, err := p.concat()
	if err != nil {
		return fragment{}, err
	}
	if p.check(reIntersection) && p.match('&') {
		r, err := p.inter()
		if err != nil {
			return fragment{}, err
		}
		a, err := intersection(p.b.extract(e), p.b.extract(r), p.maxStates)
		if err != nil {
			return fragment{}, err
		}
		return p.b.embed(a), nil
	}
	return e, nil
}

func (p *lreParser) concat() (fragment, error) {
	e, err := p.repeat()
	if err != nil {
		return fragment{}, err
	}
	for p.more() && !p.peek(")|") && (!p.check(reIntersection) || !p.peek("&")) {
		r, err := p.repeat()
		if err != nil {
			return fragment{}, err
		}
		e = p.b.concat(e, r)
	}
	return e, nil
}

// integer reads the digits of a repetition bound.
func (p *lreParser) integer() (int, bool) {
	start := p.pos
	for p.peek("0123456789") {
		p.pos++
	}
	if start == p.pos {
		return 0, false
	}
	n, err := strconv.Atoi(string(p.s[start:p.pos]))
	if err != nil {
		n = math.MaxInt32
	}
	return n, true
}

func (p *lreParser) repeat() (fragment, error) {
	e, err := p.complement()
	if err != nil {
		return fragment{}, err
	}
	for p.peek("?*+{") {
		switch {
		case p.match('?'):
			e = p.b.optional(e)
		case p.match('*'):
			e = p.b.star(e)
		case p.match('+'):
			e = p.b.concat(e, p.b.star(p.b.copyOf(e)))
		case p.match('{'):
			n, ok := p.integer()
			if !ok {
				return fragment{}, searchcore.IllegalArgument("integer expected at position %d", p.pos)
			}
			m := n
			if p.match(',') {
				if m, ok = p.integer(); !ok {
					m = -1
				}
			}
			if !p.match('}') {
				return fragment{}, searchcore.IllegalArgument("expected '}' at position %d", p.pos)
			}
			if e, err = p.repeatRange(e, n, m); err != nil {
				return fragment{}, err
			}
		}
		if err := p.guard(); err != nil {
			return fragment{}, err
		}
	}
	return e, nil
}

// repeatRange is Operations.repeat(a, n) (m < 0) and repeat(a, n, m).
func (p *lreParser) repeatRange(e fragment, n, m int) (fragment, error) {
	if m >= 0 && n > m {
		return p.b.emptyLang(), nil
	}
	if n > p.maxBuild() || m > p.maxBuild() {
		return fragment{}, tooComplex(&automaton{states: p.b.states}, p.maxStates)
	}
	out := p.b.emptyString()
	for i := 0; i < n; i++ {
		out = p.b.concat(out, p.b.copyOf(e))
		if err := p.guard(); err != nil {
			return fragment{}, err
		}
	}
	if m < 0 {
		return p.b.concat(out, p.b.star(p.b.copyOf(e))), nil
	}
	for i := n; i < m; i++ {
		out = p.b.concat(out, p.b.optional(p.b.copyOf(e)))
		if err := p.guard(); err != nil {
			return fragment{}, err
		}
	}
	return out, nil
}

func (p *lreParser) complement() (fragment, error) {
	if p.check(reComplement) && p.match('~') {
		e, err := p.complement()
		if err != nil {
			return fragment{}, err
		}
		a, err := p.b.extract(e).complement(p.maxStates)
		if err != nil {
			return fragment{}, err
		}
		return p.b.embed(a), nil
	}
	return p.charClassExp()
}

// anyChar is the fragment of one code point.
func (p *lreParser) anyChar() fragment {
	return p.b.ranges([2]rune{0, maxCodePoint})
}

// char is the fragment of one literal code point (both ASCII cases when
// folding).
func (p *lreParser) char(c rune) fragment {
	if p.fold && c < 128 {
		if u, l := unicode.ToUpper(c), unicode.ToLower(c); u != l {
			return p.b.ranges([2]rune{u, u}, [2]rune{l, l})
		}
	}
	return p.b.ranges([2]rune{c, c})
}

func (p *lreParser) str(s []rune) fragment {
	f := p.b.emptyString()
	for _, c := range s {
		f = p.b.concat(f, p.char(c))
	}
	return f
}

// negated is [^...]: any code point but those of e.
func (p *lreParser) negated(e fragment) (fragment, error) {
	c, err := p.b.extract(e).complement(p.maxStates)
	if err != nil {
		return fragment{}, err
	}
	any := p.b.extract(p.anyChar())
	a, err := intersection(any, c, p.maxStates)
	if err != nil {
		return fragment{}, err
	}
	return p.b.embed(a), nil
}

func (p *lreParser) charClassExp() (fragment, error) {
	if !p.match('[') {
		return p.simple()
	}
	negate := p.match('^')
	e, err := p.charClass()
	if err != nil {
		return fragment{}, err
	}
	for p.more() && !p.peek("]") {
		r, err := p.charClass()
		if err != nil {
			return fragment{}, err
		}
		e = p.b.union(e, r)
	}
	if negate {
		if e, err = p.negated(e); err != nil {
			return fragment{}, err
		}
	}
	if !p.match(']') {
		return fragment{}, searchcore.IllegalArgument("expected ']' at position %d", p.pos)
	}
	return e, nil
}

func (p *lreParser) charClass() (fragment, error) {
	if f, ok, err := p.predefined(); ok || err != nil {
		return f, err
	}
	c, err := p.charExp()
	if err != nil {
		return fragment{}, err
	}
	if !p.match('-') {
		return p.char(c), nil
	}
	if p.peek("]") {
		return p.b.union(p.char(c), p.char('-')), nil
	}
	to, err := p.charExp()
	if err != nil {
		return fragment{}, err
	}
	if c > to {
		return fragment{}, searchcore.IllegalArgument("invalid range: from (%d) cannot be > to (%d)", c, to)
	}
	return p.b.ranges([2]rune{c, to}), nil
}

// charExp is parseCharExp: one character, optionally escaped.
func (p *lreParser) charExp() (rune, error) {
	p.match('\\')
	return p.next()
}

// predefined reads \d \D \s \S \w \W (Java's predefined classes).
func (p *lreParser) predefined() (fragment, bool, error) {
	if p.pos+1 >= len(p.s) || p.s[p.pos] != '\\' || !strings.ContainsRune("dDsSwW", p.s[p.pos+1]) {
		return fragment{}, false, nil
	}
	c := p.s[p.pos+1]
	p.pos += 2
	var f fragment
	switch unicode.ToLower(c) {
	case 'd':
		f = p.b.ranges([2]rune{'0', '9'})
	case 's':
		f = p.b.ranges([2]rune{' ', ' '}, [2]rune{'\t', '\n'}, [2]rune{'\v', '\r'})
	case 'w':
		f = p.b.ranges([2]rune{'a', 'z'}, [2]rune{'A', 'Z'}, [2]rune{'_', '_'}, [2]rune{'0', '9'})
	}
	if unicode.IsUpper(c) {
		nf, err := p.negated(f)
		return nf, true, err
	}
	return f, true, nil
}

func (p *lreParser) simple() (fragment, error) {
	switch {
	case p.match('.'):
		return p.anyChar(), nil
	case p.check(reEmpty) && p.match('#'):
		return p.b.emptyLang(), nil
	case p.check(reAnyString) && p.match('@'):
		return p.b.star(p.anyChar()), nil
	case p.match('"'):
		start := p.pos
		for p.more() && p.s[p.pos] != '"' {
			p.pos++
		}
		if !p.match('"') {
			return fragment{}, searchcore.IllegalArgument("expected '\"' at position %d", p.pos)
		}
		return p.str(p.s[start : p.pos-1]), nil
	case p.match('('):
		if p.match(')') {
			return p.b.emptyString(), nil
		}
		e, err := p.union()
		if err != nil {
			return fragment{}, err
		}
		if !p.match(')') {
			return fragment{}, searchcore.IllegalArgument("expected ')' at position %d", p.pos)
		}
		return e, nil
	case (p.check(reAutomaton) || p.check(reInterval)) && p.match('<'):
		start := p.pos
		for p.more() && p.s[p.pos] != '>' {
			p.pos++
		}
		if !p.match('>') {
			return fragment{}, searchcore.IllegalArgument("expected '>' at position %d", p.pos)
		}
		body := string(p.s[start : p.pos-1])
		lo, hi, ok := strings.Cut(body, "-")
		if !ok {
			if !p.check(reAutomaton) {
				return fragment{}, searchcore.IllegalArgument("interval syntax error at position %d", p.pos-1)
			}
			// no automaton provider: Lucene's RegExp.toAutomaton
			return fragment{}, searchcore.IllegalArgument("'%s' not found", body)
		}
		if !p.check(reInterval) {
			return fragment{}, searchcore.IllegalArgument("illegal identifier at position %d", p.pos-1)
		}
		re, err := decimalInterval(lo, hi)
		if err != nil {
			return fragment{}, searchcore.IllegalArgument("interval syntax error at position %d", p.pos-1)
		}
		parsed, err := syntax.Parse(re, syntax.Perl)
		if err != nil {
			return fragment{}, searchcore.IllegalArgument("interval syntax error at position %d", p.pos-1)
		}
		return p.b.fromSyntax(parsed), nil
	}
	if f, ok, err := p.predefined(); ok || err != nil {
		return f, err
	}
	c, err := p.charExp()
	if err != nil {
		return fragment{}, err
	}
	return p.char(c), nil
}

// fromSyntax is the fragment of a (star, alternation, class and literal
// only) RE2 expression, such as decimalInterval's.
func (b *abuilder) fromSyntax(re *syntax.Regexp) fragment {
	switch re.Op {
	case syntax.OpLiteral:
		f := b.emptyString()
		for _, c := range re.Rune {
			f = b.concat(f, b.ranges([2]rune{c, c}))
		}
		return f
	case syntax.OpCharClass:
		var rs [][2]rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			rs = append(rs, [2]rune{re.Rune[i], re.Rune[i+1]})
		}
		return b.ranges(rs...)
	case syntax.OpConcat:
		f := b.emptyString()
		for _, sub := range re.Sub {
			f = b.concat(f, b.fromSyntax(sub))
		}
		return f
	case syntax.OpAlternate:
		fs := make([]fragment, len(re.Sub))
		for i, sub := range re.Sub {
			fs[i] = b.fromSyntax(sub)
		}
		return b.union(fs...)
	case syntax.OpStar:
		return b.star(b.fromSyntax(re.Sub[0]))
	case syntax.OpCapture:
		return b.fromSyntax(re.Sub[0])
	case syntax.OpEmptyMatch:
		return b.emptyString()
	}
	return b.emptyLang()
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

func quoteRune(c rune) string {
	return regexp.QuoteMeta(string(c))
}
