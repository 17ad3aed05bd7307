package searchcore

import (
	"strings"
	"time"

	"github.com/quarry-search/quarry/searchcore/mapping"
	"github.com/quarry-search/quarry/searchcore/query"
)

// defaultIndexDateFormat is the format of a date-math placeholder without one.
const defaultIndexDateFormat = "uuuu.MM.dd"

// resolveDateMathParts resolves the date-math names of an expression list.
func resolveDateMathParts(parts []string, now time.Time) ([]string, error) {
	for i, p := range parts {
		neg := strings.HasPrefix(p, "-<")
		if neg {
			p = p[1:]
		}
		r, err := resolveDateMathName(p, now)
		if err != nil {
			return nil, err
		}
		if neg {
			r = "-" + r
		}
		parts[i] = r
	}
	return parts, nil
}

// resolveDateMathName resolves an index name of the form
// <static{date_math{format|time_zone}}static> (IndexNameExpressionResolver's
// DateMathExpressionResolver); names not wrapped in <> are returned as is.
// Braces are escaped with a backslash.
func resolveDateMathName(expr string, now time.Time) (string, error) {
	if !strings.HasPrefix(expr, "<") || !strings.HasSuffix(expr, ">") || len(expr) < 2 {
		return expr, nil
	}
	text := expr[1 : len(expr)-1]
	invalid := func(why string) error {
		return Errorf(Invalid, "parse_exception", "invalid dynamic name expression [%s]. %s", text, why)
	}
	var out, math strings.Builder
	inMath, escaped := false, false
	depth := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if escaped {
			escaped = false
			if inMath {
				math.WriteByte(c)
			} else {
				out.WriteByte(c)
			}
			continue
		}
		switch {
		case c == '\\':
			if i+1 == len(text) {
				return "", invalid("missing escaped char at the end of the expression")
			}
			escaped = true
		case c == '{' && !inMath:
			inMath, depth = true, 1
			math.Reset()
		case c == '{':
			depth++
			if depth > 2 {
				return "", invalid("nested placeholders are not supported")
			}
			math.WriteByte(c)
		case c == '}' && inMath:
			depth--
			if depth > 0 {
				math.WriteByte(c)
				continue
			}
			inMath = false
			s, err := evalIndexDateMath(math.String(), now, invalid)
			if err != nil {
				return "", err
			}
			out.WriteString(s)
		case c == '}':
			return "", invalid("invalid character at position [" + itoa(int64(i)) + "]. `{` and `}` are reserved characters and should be escaped when used as part of the index name using `\\` (e.g. `\\{text\\}`)")
		case inMath:
			math.WriteByte(c)
		default:
			out.WriteByte(c)
		}
	}
	if inMath {
		return "", invalid("date math placeholder is open ended")
	}
	if out.Len() == 0 {
		return "", invalid("nothing captured")
	}
	return out.String(), nil
}

// evalIndexDateMath evaluates one placeholder: math, math{format} or
// math{format|time_zone}.
func evalIndexDateMath(ph string, now time.Time, invalid func(string) error) (string, error) {
	mathExpr, format, tz := ph, defaultIndexDateFormat, ""
	if i := strings.IndexByte(ph, '{'); i >= 0 {
		if !strings.HasSuffix(ph, "}") {
			return "", invalid("missing closing `}` for date math format")
		}
		mathExpr = ph[:i]
		inner := ph[i+1 : len(ph)-1]
		if f, z, ok := strings.Cut(inner, "|"); ok {
			format, tz = f, z
		} else {
			format = inner
		}
		if format == "" {
			return "", invalid("missing date format")
		}
	}
	t, err := query.NowMath(now, mathExpr, tz)
	if err != nil {
		return "", err
	}
	s, err := mapping.FormatTime(t, format)
	if err != nil {
		return "", invalid("invalid date format [" + format + "]")
	}
	return s, nil
}
