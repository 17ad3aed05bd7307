package query

import (
	"math"
	"strconv"
	"strings"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// This file mirrors the Java number handling ES relies on: the parse
// functions accept what Double.parseDouble/Integer.parseInt accept and fail
// with the same NumberFormatException messages, and the format functions
// print numbers the way Double.toString/Float.toString do.

// numberFormatErr is Java's NumberFormatException as ES renders it.
func numberFormatErr(s string) *searchcore.Error {
	return searchcore.Errorf(searchcore.Invalid, "number_format_exception", "For input string: \"%s\"", s)
}

// javaParseDouble parses s like Double.parseDouble.
func javaParseDouble(s string) (float64, error) {
	return javaParseFloating(s, 64)
}

// javaParseFloat parses s like Float.parseFloat.
func javaParseFloat(s string) (float32, error) {
	f, err := javaParseFloating(s, 32)
	return float32(f), err
}

func javaParseFloating(s string, bits int) (float64, error) {
	t := strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if t == "" {
		return 0, searchcore.Errorf(searchcore.Invalid, "number_format_exception", "empty String")
	}
	body := t
	neg := false
	if body[0] == '+' || body[0] == '-' {
		neg = body[0] == '-'
		body = body[1:]
	}
	switch body {
	case "NaN":
		return math.NaN(), nil
	case "Infinity":
		if neg {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	// Java accepts a trailing type suffix.
	if n := len(body); n > 1 {
		switch body[n-1] {
		case 'f', 'F', 'd', 'D':
			body = body[:n-1]
		}
	}
	if !validJavaDecimal(body) {
		return 0, numberFormatErr(s)
	}
	lit := body
	if neg {
		lit = "-" + body
	}
	f, err := strconv.ParseFloat(lit, bits)
	if err != nil {
		// out of range values round to infinity (or zero) in Java
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, nil
		}
		return 0, numberFormatErr(s)
	}
	return f, nil
}

// validJavaDecimal accepts digits[.digits][e[+-]digits] with at least one digit
// in the mantissa, or a hexadecimal floating literal.
func validJavaDecimal(s string) bool {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return strings.ContainsAny(s, "pP") && !strings.Contains(s, "_")
	}
	i, mant := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		mant++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			mant++
		}
	}
	if mant == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// javaParseInt parses s like Integer.parseInt.
func javaParseInt(s string) (int, error) {
	n, err := javaParseInteger(s, 32)
	return int(n), err
}

// javaParseLong parses s like Long.parseLong.
func javaParseLong(s string) (int64, error) {
	return javaParseInteger(s, 64)
}

func javaParseInteger(s string, bits int) (int64, error) {
	if s == "" {
		return 0, numberFormatErr(s)
	}
	body := s
	if body[0] == '+' || body[0] == '-' {
		body = body[1:]
	}
	if body == "" {
		return 0, numberFormatErr(s)
	}
	for i := 0; i < len(body); i++ {
		if body[i] < '0' || body[i] > '9' {
			return 0, numberFormatErr(s)
		}
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, numberFormatErr(s)
	}
	return n, nil
}

// javaDoubleString formats f like Java's Double.toString.
func javaDoubleString(f float64) string {
	return javaFloatingString(f, 64)
}

// javaFloatString formats f like Java's Float.toString.
func javaFloatString(f float32) string {
	return javaFloatingString(float64(f), 32)
}

func javaFloatingString(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, bits) // d.ddde±XX
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	if exp[0] == '+' {
		exp = exp[1:]
	}
	exp = strings.TrimLeft(exp, "0")
	if strings.HasPrefix(exp, "-") {
		exp = "-" + strings.TrimLeft(exp[1:], "0")
	}
	return mant + "E" + exp
}

// isIntegerLiteral reports whether a JSON number literal has no fraction or
// exponent (Jackson parses those as int/long/BigInteger).
func isIntegerLiteral(lit string) bool {
	return !strings.ContainsAny(lit, ".eE")
}

// javaNumberString is the Java toString of the Number Jackson produces for a
// JSON number literal: integers keep their digits, floats become Doubles.
func javaNumberString(lit string) string {
	if isIntegerLiteral(lit) {
		if lit == "-0" {
			return "0"
		}
		return lit
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !isRangeErr(err) {
		return lit
	}
	return javaDoubleString(f)
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// roundHalfUp is Java's Math.round for doubles.
func roundHalfUp(f float64) float64 {
	return math.Floor(f + 0.5)
}

// toHalfFloat rounds f to the nearest IEEE 754 half-precision value, as
// Lucene's HalfFloatPoint does before indexing.
func toHalfFloat(f float64) float64 {
	return halfToFloat(floatToHalf(float32(f)))
}

func floatToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int((b >> 23) & 0xff)
	mant := b & 0x7fffff
	switch {
	case exp == 0xff: // inf / nan
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp-127 > 15:
		return sign | 0x7c00
	case exp-127 >= -14:
		// normal half: round mantissa to 10 bits, nearest-even
		e := uint32(exp - 127 + 15)
		m := mant >> 13
		rest := mant & 0x1fff
		if rest > 0x1000 || (rest == 0x1000 && m&1 == 1) {
			m++
			if m == 0x400 {
				m = 0
				e++
				if e >= 31 {
					return sign | 0x7c00
				}
			}
		}
		return sign | uint16(e<<10) | uint16(m)
	default:
		// subnormal half or zero
		shift := uint32(-14 - (exp - 127))
		if shift > 24 {
			return sign
		}
		full := mant | 0x800000
		s := 13 + shift
		m := full >> s
		rest := full & ((1 << s) - 1)
		half := uint32(1) << (s - 1)
		if rest > half || (rest == half && m&1 == 1) {
			m++
		}
		return sign | uint16(m)
	}
}

func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	mant := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * mant * math.Pow(2, -24)
	case 31:
		if mant != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * (1 + mant/1024) * math.Pow(2, float64(exp-15))
}
