package aggs

import (
	"strconv"
	"strings"
	"time"

	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// parseDateMath parses a date_range bound: "now" or "<date>||" followed by
// date math (+1d, -2h, /M), a date in format, or epoch millis.
func parseDateMath(s, format string, now time.Time) (float64, error) {
	anchor, expr := s, ""
	var t time.Time
	switch {
	case strings.HasPrefix(s, "now"):
		t, expr = now.UTC(), s[3:]
	default:
		if i := strings.Index(s, "||"); i >= 0 {
			anchor, expr = s[:i], s[i+2:]
		}
		ms, err := mapping.ParseDate(anchor, format)
		if err != nil {
			if f, perr := parseJavaDouble(anchor); perr == nil && expr == "" {
				return f, nil
			}
			return 0, err
		}
		t = time.UnixMilli(ms).UTC()
	}
	for expr != "" {
		op := expr[0]
		expr = expr[1:]
		switch op {
		case '+', '-':
			i := 0
			for i < len(expr) && expr[i] >= '0' && expr[i] <= '9' {
				i++
			}
			n := 1
			if i > 0 {
				n, _ = strconv.Atoi(expr[:i])
			}
			if i >= len(expr) {
				return 0, badMath(s)
			}
			if op == '-' {
				n = -n
			}
			var ok bool
			if t, ok = addUnit(t, expr[i], n); !ok {
				return 0, badMath(s)
			}
			expr = expr[i+1:]
		case '/':
			if expr == "" {
				return 0, badMath(s)
			}
			y, mo, d := t.Date()
			switch expr[0] {
			case 'y':
				t = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
			case 'M':
				t = time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC)
			case 'w':
				t = time.Date(y, mo, d-(int(t.Weekday())+6)%7, 0, 0, 0, 0, time.UTC)
			case 'd':
				t = time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
			case 'h', 'H':
				t = t.Truncate(time.Hour)
			case 'm':
				t = t.Truncate(time.Minute)
			case 's':
				t = t.Truncate(time.Second)
			default:
				return 0, badMath(s)
			}
			expr = expr[1:]
		default:
			return 0, badMath(s)
		}
	}
	return float64(t.UnixMilli()), nil
}

func addUnit(t time.Time, u byte, n int) (time.Time, bool) {
	switch u {
	case 'y':
		return t.AddDate(n, 0, 0), true
	case 'M':
		return t.AddDate(0, n, 0), true
	case 'w':
		return t.AddDate(0, 0, 7*n), true
	case 'd':
		return t.AddDate(0, 0, n), true
	case 'h', 'H':
		return t.Add(time.Duration(n) * time.Hour), true
	case 'm':
		return t.Add(time.Duration(n) * time.Minute), true
	case 's':
		return t.Add(time.Duration(n) * time.Second), true
	}
	return t, false
}

func badMath(s string) error {
	return eserr.Errorf(eserr.Invalid, "parse_exception", "failed to parse date field [%s]: unsupported date math", s)
}
