package mapping

import (
	"strconv"
	"strings"
	"time"
)

// A subset of java.time.format.DateTimeFormatter patterns: y u Y (year),
// M L (month, numeric or text), d, D (day of year), H k h K (hours), a,
// m, s, S (fraction), n (nano), E (day-of-week text, ignored on parse),
// G (era text, ignored), Z X x (offsets), z V (zone ids), 'literals', and
// [optional sections].

type javaElem struct {
	lit      string
	letter   byte
	count    int
	optional []javaElem
	isOpt    bool
	maxWidth int // for numeric fields: widest accepted
	minWidth int
}

type javaPattern struct {
	elems   []javaElem
	lenient bool
}

const javaLetters = "GuyDMLdQqYwWEecFaBhKkHmsSAnNVvzOXxZp"

func isNumericLetter(c byte) bool {
	return strings.IndexByte("uyYDMLdhKkHmsSn", c) >= 0
}

// compileJavaPattern compiles a pattern; lenient accepts fewer digits than
// the pattern width (Elasticsearch's non-strict named formats).
func compileJavaPattern(pat string, lenient bool) (*javaPattern, error) {
	elems, rest, err := parseJavaElems(pat, false)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		return nil, formatError("Found unpaired ']' character in pattern")
	}
	p := &javaPattern{elems: elems, lenient: lenient}
	setWidths(p.elems, lenient, nil)
	return p, nil
}

func parseJavaElems(pat string, inOpt bool) ([]javaElem, string, error) {
	var out []javaElem
	for len(pat) > 0 {
		c := pat[0]
		switch {
		case c == '[':
			sub, rest, err := parseJavaElems(pat[1:], true)
			if err != nil {
				return nil, "", err
			}
			out = append(out, javaElem{isOpt: true, optional: sub})
			pat = rest
		case c == ']':
			if !inOpt {
				return nil, "", formatError("Found unpaired ']' character in pattern")
			}
			return out, pat[1:], nil
		case c == '\'':
			end := 1
			var lit strings.Builder
			for {
				if end >= len(pat) {
					return nil, "", formatError("Pattern ends with an incomplete string literal: " + pat)
				}
				if pat[end] == '\'' {
					if end+1 < len(pat) && pat[end+1] == '\'' {
						lit.WriteByte('\'')
						end += 2
						continue
					}
					break
				}
				lit.WriteByte(pat[end])
				end++
			}
			s := lit.String()
			if end == 1 {
				s = "'"
			}
			out = append(out, javaElem{lit: s})
			pat = pat[end+1:]
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			n := 1
			for n < len(pat) && pat[n] == c {
				n++
			}
			if strings.IndexByte(javaLetters, c) < 0 || strings.IndexByte("QqwWecFBAONvp", c) >= 0 {
				return nil, "", formatError("Unknown pattern letter: " + string(c))
			}
			if (c == 'M' || c == 'L') && n > 4 || (c == 'd' || c == 'H' || c == 'm' || c == 's' || c == 'h' || c == 'k' || c == 'K') && n > 2 || c == 'D' && n > 3 || c == 'a' && n > 1 || c == 'Z' && n > 5 || (c == 'X' || c == 'x') && n > 5 || c == 'S' && n > 9 {
				return nil, "", formatError("Too many pattern letters: " + string(c))
			}
			out = append(out, javaElem{letter: c, count: n})
			pat = pat[n:]
		case c == '{' || c == '}' || c == '#':
			return nil, "", formatError("Pattern includes reserved character: '" + string(c) + "'")
		default:
			out = append(out, javaElem{lit: string(c)})
			pat = pat[1:]
		}
	}
	if inOpt {
		return out, "", nil
	}
	return out, "", nil
}

// setWidths computes digit widths; a numeric field directly followed by
// another numeric field parses exactly its width (adjacent value parsing).
func setWidths(elems []javaElem, lenient bool, next *javaElem) {
	for i := range elems {
		e := &elems[i]
		if e.isOpt {
			var nx *javaElem
			if i+1 < len(elems) {
				nx = &elems[i+1]
			}
			setWidths(e.optional, lenient, nx)
			continue
		}
		if e.letter == 0 || !isNumericLetter(e.letter) {
			continue
		}
		var following *javaElem
		if i+1 < len(elems) {
			following = &elems[i+1]
		} else {
			following = next
		}
		adjacent := following != nil && following.letter != 0 && isNumericLetter(following.letter) && !((e.letter == 'M' || e.letter == 'L') && e.count >= 3)
		switch {
		case e.letter == 'S':
			e.minWidth, e.maxWidth = e.count, e.count
			if lenient {
				e.minWidth, e.maxWidth = 1, 9
			}
		case e.letter == 'n':
			e.minWidth, e.maxWidth = 1, 9
		case (e.letter == 'y' || e.letter == 'u' || e.letter == 'Y') && e.count == 2:
			e.minWidth, e.maxWidth = 2, 2
		case e.letter == 'y' || e.letter == 'u' || e.letter == 'Y':
			e.minWidth, e.maxWidth = e.count, 9
			if e.count < 4 && e.count != 1 {
				e.maxWidth = 9
			}
			if lenient {
				e.minWidth = 1
			}
		case e.letter == 'D':
			e.minWidth, e.maxWidth = e.count, 3
		default:
			e.minWidth, e.maxWidth = e.count, 2
			if lenient {
				e.minWidth = 1
			}
		}
		if adjacent && !lenient {
			e.maxWidth = e.count
			if e.count == 1 {
				e.maxWidth = 2
			}
		} else if adjacent {
			e.maxWidth = max(e.count, e.minWidth)
		}
	}
}

// dateFields accumulates parsed values.
type dateFields struct {
	year, month, day, doy       int
	hour, hour12, minute, sec   int
	nano                        int
	pm, hasAmPm, hasH12, hasDoy bool
	hasYear                     bool
	offset                      int
	loc                         *time.Location
}

var monthNames = []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}
var dayNames = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

func (p *javaPattern) parse(s string) (int64, int64, bool) {
	f := dateFields{year: 1970, month: 1, day: 1}
	pos, ok := p.parseElems(p.elems, s, 0, &f)
	if !ok || pos != len(s) {
		return 0, 0, false
	}
	if f.hasH12 {
		if f.hour12 < 1 || f.hour12 > 12 {
			return 0, 0, false
		}
		f.hour = f.hour12 % 12
		if f.pm {
			f.hour += 12
		}
	} else if f.hasAmPm && f.pm && f.hour < 12 {
		f.hour += 12
	}
	if f.hasDoy {
		leap := isLeap(f.year)
		if f.doy < 1 || f.doy > 365 || (f.doy == 366 && !leap) {
			if !(f.doy == 366 && leap) {
				return 0, 0, false
			}
		}
		t := time.Date(f.year, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, f.doy-1)
		f.month, f.day = int(t.Month()), t.Day()
	}
	if f.loc != nil {
		if f.month < 1 || f.month > 12 || f.day < 1 || f.day > 31 {
			return 0, 0, false
		}
		t := time.Date(f.year, time.Month(f.month), f.day, f.hour, f.minute, f.sec, f.nano, f.loc)
		if t.Day() != f.day {
			return 0, 0, false
		}
		return t.Unix(), int64(t.Nanosecond()), true
	}
	return resolveDate(f.year, f.month, f.day, f.hour, f.minute, f.sec, f.nano, f.offset)
}

func (p *javaPattern) parseElems(elems []javaElem, s string, pos int, f *dateFields) (int, bool) {
	for i := range elems {
		e := &elems[i]
		if e.isOpt {
			saved := *f
			if np, ok := p.parseElems(e.optional, s, pos, f); ok {
				pos = np
			} else {
				*f = saved
			}
			continue
		}
		if e.letter == 0 {
			if !strings.HasPrefix(s[pos:], e.lit) {
				if !(len(e.lit) == 1 && pos < len(s) && strings.EqualFold(s[pos:pos+1], e.lit)) {
					return pos, false
				}
			}
			pos += len(e.lit)
			continue
		}
		np, ok := p.parseField(e, s, pos, f)
		if !ok {
			return pos, false
		}
		pos = np
	}
	return pos, true
}

func readDigits(s string, pos, minW, maxW int) (int, int, bool) {
	start := pos
	for pos < len(s) && pos-start < maxW && s[pos] >= '0' && s[pos] <= '9' {
		pos++
	}
	if pos-start < minW || pos == start {
		return 0, start, false
	}
	n, err := strconv.Atoi(s[start:pos])
	if err != nil {
		return 0, start, false
	}
	return n, pos, true
}

func matchName(s string, pos int, names []string, short bool) (int, int, bool) {
	for i, n := range names {
		if short {
			n = n[:3]
		}
		if len(s)-pos >= len(n) && strings.EqualFold(s[pos:pos+len(n)], n) {
			return i, pos + len(n), true
		}
	}
	return 0, pos, false
}

func (p *javaPattern) parseField(e *javaElem, s string, pos int, f *dateFields) (int, bool) {
	switch e.letter {
	case 'y', 'u', 'Y':
		neg := false
		if e.count != 2 && pos < len(s) && (s[pos] == '-' || s[pos] == '+') && e.count > 3 {
			neg = s[pos] == '-'
			pos++
		}
		n, np, ok := readDigits(s, pos, e.minWidth, e.maxWidth)
		if !ok {
			return pos, false
		}
		if e.count == 2 {
			n += 2000
		}
		if neg {
			n = -n
		}
		f.year, f.hasYear = n, true
		return np, true
	case 'M', 'L':
		if e.count >= 3 {
			i, np, ok := matchName(s, pos, monthNames, e.count == 3)
			if !ok {
				return pos, false
			}
			f.month = i + 1
			return np, true
		}
		n, np, ok := readDigits(s, pos, e.minWidth, e.maxWidth)
		f.month = n
		return np, ok
	case 'd':
		n, np, ok := readDigits(s, pos, e.minWidth, e.maxWidth)
		f.day = n
		return np, ok
	case 'D':
		n, np, ok := readDigits(s, pos, e.minWidth, e.maxWidth)
		f.doy, f.hasDoy = n, true
		return np, ok
	case 'H':
		n, np, ok := readDigits(s, pos, e.minWidth, e.maxWidth)
		f.hour = n
		return np, ok && n <= 23
	case 'k':
		n, np, ok := readDigits(s, pos, e.minWidth, e.maxWidth)
		if n == 24 {
			n = 0
		}
		f.hour = n
		return np, ok && n >= 0 && n <= 23
	case 'h':
		n, np, ok := readDigits(s, pos, e.minWidth, e.maxWidth)
		f.hour12, f.hasH12 = n, true
		return np, ok
	case 'K':
		n, np, ok := readDigits(s, pos, e.minWidth, e.maxWidth)
		f.hour12, f.hasH12 = n%12, true
		if n == 0 {
			f.hour12 = 12
		}
		return np, ok && n < 12
	case 'm':
		n, np, ok := readDigits(s, pos, e.minWidth, e.maxWidth)
		f.minute = n
		return np, ok && n <= 59
	case 's':
		n, np, ok := readDigits(s, pos, e.minWidth, e.maxWidth)
		f.sec = n
		return np, ok && n <= 59
	case 'S':
		start := pos
		_, np, ok := readDigits(s, pos, e.minWidth, e.maxWidth)
		if !ok {
			return pos, false
		}
		digits := s[start:np]
		for len(digits) < 9 {
			digits += "0"
		}
		f.nano, _ = strconv.Atoi(digits[:9])
		return np, true
	case 'n':
		n, np, ok := readDigits(s, pos, e.minWidth, e.maxWidth)
		f.nano = n
		return np, ok
	case 'a':
		if len(s)-pos >= 2 {
			switch strings.ToUpper(s[pos : pos+2]) {
			case "AM":
				f.hasAmPm, f.pm = true, false
				return pos + 2, true
			case "PM":
				f.hasAmPm, f.pm = true, true
				return pos + 2, true
			}
		}
		return pos, false
	case 'E':
		if _, np, ok := matchName(s, pos, dayNames, false); ok {
			return np, true
		}
		_, np, ok := matchName(s, pos, dayNames, true)
		return np, ok
	case 'G':
		if len(s)-pos >= 2 && (strings.EqualFold(s[pos:pos+2], "AD") || strings.EqualFold(s[pos:pos+2], "BC")) {
			return pos + 2, true
		}
		return pos, false
	case 'Z', 'X', 'x':
		end := pos
		if end < len(s) && (s[end] == 'Z' || s[end] == 'z') {
			end++
		} else if end < len(s) && (s[end] == '+' || s[end] == '-') {
			end++
			for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == ':') && end-pos < 6 {
				end++
			}
		}
		style := offsetAny
		switch {
		case e.letter == 'Z' && e.count <= 3:
			style = offsetHHMM
		case e.letter == 'Z' || e.count == 3 || e.count == 5:
			style = offsetColon
		case e.count == 1:
			style = offsetHH
		case e.count == 2 || e.count == 4:
			style = offsetHHMM
		}
		off, ok := parseOffset(s[pos:end], style, e.letter != 'x')
		if !ok {
			// Be lenient like Elasticsearch's parsers about Z vs +00:00 forms.
			off, ok = parseOffset(s[pos:end], offsetAny, true)
			if !ok {
				return pos, false
			}
		}
		f.offset = off
		return end, true
	case 'z', 'V':
		end := pos
		for end < len(s) && (s[end] == '/' || s[end] == '_' || s[end] == '+' || s[end] == '-' || s[end] >= '0' && s[end] <= '9' || s[end] >= 'A' && s[end] <= 'Z' || s[end] >= 'a' && s[end] <= 'z') {
			end++
		}
		id := s[pos:end]
		switch id {
		case "Z", "UTC", "GMT", "UT":
			f.offset = 0
			return end, true
		}
		if off, ok := parseOffset(id, offsetAny, true); ok {
			f.offset = off
			return end, true
		}
		loc, err := time.LoadLocation(id)
		if err != nil || id == "" || id == "Local" {
			return pos, false
		}
		f.loc = loc
		return end, true
	}
	return pos, false
}

func (p *javaPattern) print(t time.Time) string {
	var b strings.Builder
	p.printElems(&b, p.elems, t)
	return b.String()
}

func pad(b *strings.Builder, n, width int) {
	s := strconv.Itoa(n)
	if n < 0 {
		b.WriteByte('-')
		s = s[1:]
	}
	for i := len(s); i < width; i++ {
		b.WriteByte('0')
	}
	b.WriteString(s)
}

func (p *javaPattern) printElems(b *strings.Builder, elems []javaElem, t time.Time) {
	for i := range elems {
		e := &elems[i]
		if e.isOpt {
			p.printElems(b, e.optional, t)
			continue
		}
		if e.letter == 0 {
			b.WriteString(e.lit)
			continue
		}
		switch e.letter {
		case 'y', 'u', 'Y':
			if e.count == 2 {
				pad(b, t.Year()%100, 2)
			} else {
				pad(b, t.Year(), e.count)
			}
		case 'M', 'L':
			switch {
			case e.count == 3:
				b.WriteString(t.Month().String()[:3])
			case e.count == 4:
				b.WriteString(t.Month().String())
			default:
				pad(b, int(t.Month()), e.count)
			}
		case 'd':
			pad(b, t.Day(), e.count)
		case 'D':
			pad(b, t.YearDay(), e.count)
		case 'H':
			pad(b, t.Hour(), e.count)
		case 'k':
			h := t.Hour()
			if h == 0 {
				h = 24
			}
			pad(b, h, e.count)
		case 'h':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			pad(b, h, e.count)
		case 'K':
			pad(b, t.Hour()%12, e.count)
		case 'm':
			pad(b, t.Minute(), e.count)
		case 's':
			pad(b, t.Second(), e.count)
		case 'S':
			frac := strconv.Itoa(1e9 + t.Nanosecond())[1:]
			b.WriteString(frac[:e.count])
		case 'n':
			b.WriteString(strconv.Itoa(t.Nanosecond()))
		case 'a':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'E':
			if e.count >= 4 {
				b.WriteString(t.Weekday().String())
			} else {
				b.WriteString(t.Weekday().String()[:3])
			}
		case 'G':
			b.WriteString("AD")
		case 'Z':
			if e.count == 5 {
				b.WriteString("Z")
			} else {
				b.WriteString("+0000")
			}
		case 'X':
			b.WriteString("Z")
		case 'x':
			switch e.count {
			case 1:
				b.WriteString("+00")
			case 3, 5:
				b.WriteString("+00:00")
			default:
				b.WriteString("+0000")
			}
		case 'z', 'V':
			b.WriteString("UTC")
		}
	}
}
