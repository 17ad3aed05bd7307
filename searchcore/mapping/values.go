package mapping

import (
	"math"
	"strconv"
	"strings"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Value conversion for leaf types, with Elasticsearch 7's rules and error
// reasons (the "caused_by" of "failed to parse field [...]").

// nodeText is the text Elasticsearch takes from a scalar token.
func nodeText(n *jnode) string {
	switch n.kind {
	case jString, jNumber:
		return n.str
	case jTrue:
		return "true"
	case jFalse:
		return "false"
	case jNull:
		return "null"
	}
	return n.preview()
}

// javaNumberClass is the Java class named in coercion errors.
func javaNumberClass(typ string) string {
	switch typ {
	case TypeLong:
		return "Long"
	case TypeInteger:
		return "Integer"
	case TypeShort:
		return "Short"
	case TypeByte:
		return "Byte"
	case TypeFloat, TypeHalfFloat:
		return "Float"
	case TypeUnsignedLong:
		return "BigInteger"
	}
	return "Double"
}

func notNumeric(n *jnode) *eserr.Error {
	return eserr.New("json_parse_exception", "Current token ("+n.tokenName()+") not numeric, can not use numericValue accessors")
}

// parseFloatValue parses a number or numeric string as Java's
// Double.parseDouble would (whitespace trimmed, trailing d/f allowed).
func parseFloatValue(n *jnode) (float64, bool) {
	s := n.str
	if n.kind == jString {
		s = strings.TrimSpace(s)
		if l := len(s); l > 1 && strings.ContainsRune("dDfF", rune(s[l-1])) && s[l-2] >= '0' && s[l-2] <= '9' {
			s = s[:l-1]
		}
		if strings.HasPrefix(strings.ToLower(strings.TrimLeft(s, "+-")), "0x") || strings.ContainsAny(s, "_") {
			return 0, false
		}
		switch s {
		case "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity":
			return 0, false // Java only accepts "Infinity"
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v, true
		}
		return 0, false
	}
	return v, true
}

var intRanges = map[string]struct {
	min, max float64
	noun     string
}{
	TypeLong:    {math.MinInt64, math.MaxInt64, "a long"},
	TypeInteger: {math.MinInt32, math.MaxInt32, "an integer"},
	TypeShort:   {math.MinInt16, math.MaxInt16, "a short"},
	TypeByte:    {math.MinInt8, math.MaxInt8, "a byte"},
}

// parseNumeric converts a value for a numeric field. isNull is true for
// values Elasticsearch treats as null (an empty string with coerce).
func parseNumeric(f *Field, n *jnode) (v float64, isNull bool, cause *eserr.Error) {
	coerce := f.Coerce == nil || *f.Coerce
	switch n.kind {
	case jNumber:
	case jString:
		if n.str == "" && coerce {
			return 0, true, nil
		}
		if !coerce {
			return 0, false, eserr.IllegalArgument("%s value passed as String", javaNumberClass(f.Type))
		}
	default:
		return 0, false, notNumeric(n)
	}
	text := n.str
	if n.kind == jString {
		text = strings.TrimSpace(text)
	}
	switch f.Type {
	case TypeLong, TypeInteger, TypeShort, TypeByte:
		r := intRanges[f.Type]
		outOfRange := eserr.IllegalArgument("Value [%s] is out of range for %s", n.str, r.noun)
		if isIntLiteral(text) {
			i, err := strconv.ParseInt(strings.TrimPrefix(text, "+"), 10, 64)
			if err != nil || float64(i) < r.min || float64(i) > r.max {
				return 0, false, outOfRange
			}
			return float64(i), false, nil
		}
		d, ok := parseFloatValue(n)
		if !ok {
			reason := "For input string: \"" + n.str + "\""
			if f.Type == TypeLong {
				return 0, false, eserr.IllegalArgument("%s", reason)
			}
			return 0, false, eserr.New("number_format_exception", reason)
		}
		if math.IsNaN(d) || math.IsInf(d, 0) || d < r.min || d >= r.max+1 {
			return 0, false, outOfRange
		}
		t := math.Trunc(d)
		if t != d && !coerce {
			return 0, false, eserr.IllegalArgument("%s cannot be converted to %s without data loss", javaDouble(d), javaNumberClass(f.Type))
		}
		return t, false, nil
	case TypeUnsignedLong:
		outOfRange := eserr.IllegalArgument("Value [%s] is out of range for an unsigned_long", n.str)
		if isIntLiteral(text) {
			u, err := strconv.ParseUint(strings.TrimPrefix(text, "+"), 10, 64)
			if err != nil {
				return 0, false, outOfRange
			}
			return float64(u), false, nil
		}
		d, ok := parseFloatValue(n)
		if !ok {
			return 0, false, eserr.New("number_format_exception", "For input string: \""+n.str+"\"")
		}
		if d < 0 || d >= 18446744073709551616.0 || math.IsNaN(d) {
			return 0, false, outOfRange
		}
		t := math.Trunc(d)
		if t != d && !coerce {
			return 0, false, eserr.IllegalArgument("Value [%s] has a decimal part", n.str)
		}
		return t, false, nil
	}
	d, ok := parseFloatValue(n)
	if !ok {
		return 0, false, eserr.New("number_format_exception", "For input string: \""+n.str+"\"")
	}
	switch f.Type {
	case TypeFloat:
		d32 := float32(d)
		if math.IsInf(float64(d32), 0) || math.IsNaN(d) {
			return 0, false, eserr.IllegalArgument("[float] supports only finite values, but got [%s]", javaFloat(d32))
		}
		return float64(d32), false, nil
	case TypeHalfFloat:
		h := toHalf(d)
		if math.IsInf(h, 0) || math.IsNaN(h) {
			return 0, false, eserr.IllegalArgument("[half_float] supports only finite values, but got [%s]", javaFloat(float32(h)))
		}
		return h, false, nil
	case TypeScaledFloat:
		if math.IsInf(d, 0) || math.IsNaN(d) {
			return 0, false, eserr.IllegalArgument("[scaled_float] only supports finite values, but got [%s]", javaDouble(d))
		}
		sf := 1.0
		if f.ScalingFactor != nil {
			sf = *f.ScalingFactor
		}
		scaled := math.Floor(d*sf + 0.5) // Java Math.round
		return scaled / sf, false, nil
	}
	if math.IsInf(d, 0) || math.IsNaN(d) {
		return 0, false, eserr.IllegalArgument("[double] supports only finite values, but got [%s]", javaDouble(d))
	}
	return d, false, nil
}

func javaFloat(f float32) string {
	if math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
		return javaDouble(float64(f))
	}
	s := javaDouble(float64(f))
	// Java prints the shortest float representation.
	short := strconv.FormatFloat(float64(f), 'f', -1, 32)
	if !strings.Contains(s, "E") {
		if !strings.Contains(short, ".") {
			short += ".0"
		}
		return short
	}
	return s
}

func isIntLiteral(s string) bool {
	if s == "" {
		return false
	}
	i := 0
	if s[0] == '-' || s[0] == '+' {
		i = 1
	}
	return allDigits(s[i:])
}

// toHalf rounds to the nearest IEEE half-precision value.
func toHalf(d float64) float64 {
	if math.IsNaN(d) || math.IsInf(d, 0) || d == 0 {
		return d
	}
	a := math.Abs(d)
	if a >= 65520 { // rounds to infinity
		return math.Inf(int(math.Copysign(1, d)))
	}
	var r float64
	if a < 6.103515625e-05 { // subnormal: multiples of 2^-24
		r = math.RoundToEven(a/5.960464477539063e-08) * 5.960464477539063e-08
	} else {
		_, e := math.Frexp(a) // a = m * 2^e, m in [0.5, 1)
		ulp := math.Ldexp(1, e-11)
		r = math.RoundToEven(a/ulp) * ulp
	}
	return math.Copysign(r, d)
}

// parseBoolean converts a value for a boolean field.
func parseBoolean(n *jnode) (bool, *eserr.Error) {
	switch n.kind {
	case jTrue:
		return true, nil
	case jFalse:
		return false, nil
	case jString:
		switch n.str {
		case "true":
			return true, nil
		case "false", "":
			return false, nil
		}
		return false, eserr.IllegalArgument("Failed to parse value [%s] as only [true] or [false] are allowed.", n.str)
	}
	return false, eserr.New("json_parse_exception", "Current token ("+n.tokenName()+") not of boolean type")
}

// scalarText returns the text of a scalar for text and keyword fields.
func scalarText(n *jnode) (string, *eserr.Error) {
	switch n.kind {
	case jString, jNumber:
		return n.str, nil
	case jTrue:
		return "true", nil
	case jFalse:
		return "false", nil
	}
	return "", eserr.New("illegal_state_exception", "Can't get text on a "+n.tokenName())
}

// utf16Len is Java's String.length (UTF-16 code units), used by ignore_above.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
	}
	return n
}
