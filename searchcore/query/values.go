package query

import (
	"math"
	"strconv"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// The accessors below behave like the XContentParser methods the ES query
// builders call on the current token (text, floatValue, intValue,
// booleanValue, objectText, objectBytes), including their failures.

// jacksonToken is Jackson's name for the token, used in its own messages.
func (v *jval) jacksonToken() string {
	switch v.kind {
	case kBool:
		if v.s == "true" {
			return "VALUE_TRUE"
		}
		return "VALUE_FALSE"
	case kNumber:
		if isIntegerLiteral(v.s) {
			return "VALUE_NUMBER_INT"
		}
		return "VALUE_NUMBER_FLOAT"
	}
	return v.kind.token()
}

func (v *jval) jacksonErr(format string, args ...any) *searchcore.Error {
	return v.doc.errAt(v.off, "json_parse_exception", false, format, args...)
}

// text is XContentParser.text(): the text of a string, number or boolean.
func (v *jval) text() (string, error) {
	if v.kind.isValue() {
		return v.s, nil
	}
	e := searchcore.Errorf(searchcore.Invalid, "illegal_state_exception", "Can't get text on a %s", v.kind.token())
	if v.doc != nil && v.doc.located {
		l, c := v.doc.position(v.off)
		e.Reason += " at " + strconv.Itoa(l) + ":" + strconv.Itoa(c)
	}
	return "", e
}

// textOrNull is XContentParser.textOrNull(); null reports ok=false.
func (v *jval) textOrNull() (s string, ok bool, err error) {
	if v.kind == kNull {
		return "", false, nil
	}
	s, err = v.text()
	return s, err == nil, err
}

// floatValue is XContentParser.floatValue() (coercing strings).
func (v *jval) floatValue() (float32, error) {
	switch v.kind {
	case kNumber:
		f, err := strconv.ParseFloat(v.s, 64)
		if err != nil && !isRangeErr(err) {
			return 0, numberFormatErr(v.s)
		}
		return float32(f), nil
	case kString:
		return javaParseFloat(v.s)
	}
	return 0, v.jacksonErr("Current token (%s) not numeric, can not use numeric value accessors", v.jacksonToken())
}

// doubleValue is XContentParser.doubleValue() (coercing strings).
func (v *jval) doubleValue() (float64, error) {
	switch v.kind {
	case kNumber:
		f, err := strconv.ParseFloat(v.s, 64)
		if err != nil && !isRangeErr(err) {
			return 0, numberFormatErr(v.s)
		}
		return f, nil
	case kString:
		return javaParseDouble(v.s)
	}
	return 0, v.jacksonErr("Current token (%s) not numeric, can not use numeric value accessors", v.jacksonToken())
}

// intValue is XContentParser.intValue() with coercion, as ES calls it.
func (v *jval) intValue() (int, error) {
	switch v.kind {
	case kNumber:
		if isIntegerLiteral(v.s) {
			n, err := strconv.ParseInt(v.s, 10, 32)
			if err != nil {
				return 0, v.jacksonErr("Numeric value (%s) out of range of int (%d - %d)", v.s, math.MinInt32, math.MaxInt32)
			}
			return int(n), nil
		}
		f, _ := strconv.ParseFloat(v.s, 64)
		if f < math.MinInt32 || f > math.MaxInt32 {
			return 0, v.jacksonErr("Numeric value (%s) out of range of int (%d - %d)", v.s, math.MinInt32, math.MaxInt32)
		}
		return int(f), nil
	case kString:
		f, err := javaParseDouble(v.s)
		if err != nil {
			return 0, err
		}
		if f < math.MinInt32 || f > math.MaxInt32 {
			return 0, searchcore.IllegalArgument("Value [%s] is out of range for an integer", v.s)
		}
		return int(f), nil
	}
	return 0, v.jacksonErr("Current token (%s) not numeric, can not use numeric value accessors", v.jacksonToken())
}

// booleanValue is XContentParser.booleanValue(): booleans and the strings
// "true"/"false".
func (v *jval) booleanValue() (bool, error) {
	switch v.kind {
	case kBool:
		return v.s == "true", nil
	case kString:
		switch v.s {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return false, searchcore.IllegalArgument("Failed to parse value [%s] as only [true] or [false] are allowed.", v.s)
	}
	return false, v.jacksonErr("Current token (%s) not of boolean type", v.jacksonToken())
}

// scalar is a query value taken from the request (objectText/objectBytes):
// a string, a number (literal kept) or a boolean.
type scalar struct {
	kind kind // kString, kNumber or kBool
	s    string
}

// String is the Java toString of the value ES would hold (BytesRef, Integer,
// Long, Double, Boolean).
func (s scalar) String() string {
	if s.kind == kNumber {
		return javaNumberString(s.s)
	}
	return s.s
}

// scalarOf returns the scalar for a value token; ok is false for null,
// objects and arrays.
func scalarOf(v *jval) (scalar, bool) {
	if v.kind.isValue() {
		return scalar{kind: v.kind, s: v.s}, true
	}
	return scalar{}, false
}

// scalarFromAny converts a value returned by a lookup hook.
func scalarFromAny(x any) (scalar, bool) {
	switch t := x.(type) {
	case string:
		return scalar{kind: kString, s: t}, true
	case bool:
		if t {
			return scalar{kind: kBool, s: "true"}, true
		}
		return scalar{kind: kBool, s: "false"}, true
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
			return scalar{kind: kNumber, s: strconv.FormatInt(int64(t), 10)}, true
		}
		return scalar{kind: kNumber, s: strconv.FormatFloat(t, 'g', -1, 64)}, true
	case float32:
		return scalar{kind: kNumber, s: strconv.FormatFloat(float64(t), 'g', -1, 32)}, true
	case int:
		return scalar{kind: kNumber, s: strconv.Itoa(t)}, true
	case int64:
		return scalar{kind: kNumber, s: strconv.FormatInt(t, 10)}, true
	case uint64:
		return scalar{kind: kNumber, s: strconv.FormatUint(t, 10)}, true
	case interface{ String() string }: // json.Number
		s := t.String()
		if _, err := strconv.ParseFloat(s, 64); err == nil || isRangeErr(err) {
			return scalar{kind: kNumber, s: s}, true
		}
		return scalar{kind: kString, s: s}, true
	}
	return scalar{}, false
}

// float64Of returns the double value ES would compute with
// objectToDouble(value): numbers directly, everything else through
// Double.parseDouble(value.toString()).
func (s scalar) float64Of() (float64, error) {
	if s.kind == kNumber {
		f, err := strconv.ParseFloat(s.s, 64)
		if err != nil && !isRangeErr(err) {
			return 0, numberFormatErr(s.s)
		}
		return f, nil
	}
	return javaParseDouble(s.s)
}
