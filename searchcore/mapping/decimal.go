package mapping

import (
	"math"
	"strconv"
	"strings"
)

// DecimalFormatter compiles a java.text.DecimalFormat pattern, the numeric
// "format" of Elasticsearch's DocValueFormat.Decimal (docvalue_fields,
// aggregations' *_as_string), into a function that renders a value.
func DecimalFormatter(pattern string) (func(float64) string, error) {
	df, err := compileDecimalFormat(pattern)
	if err != nil {
		return nil, err
	}
	return df.format, nil
}

// DecimalParser compiles a java.text.DecimalFormat pattern into the inverse
// of DecimalFormatter, as DecimalFormat.parse reads a formatted number: an
// optional minus sign, the pattern's literal prefix and suffix, ','
// grouping separators, and '%' dividing by 100. ok is false when s is not
// a number in that format.
func DecimalParser(pattern string) (func(s string) (v float64, ok bool), error) {
	df, err := compileDecimalFormat(pattern)
	if err != nil {
		return nil, err
	}
	return df.parse, nil
}

func (df *decimalFormat) parse(s string) (float64, bool) {
	if s == "NaN" {
		return math.NaN(), true
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if !strings.HasPrefix(s, df.prefix) || !strings.HasSuffix(s, df.suffix) || len(s) < len(df.prefix)+len(df.suffix) {
		return 0, false
	}
	s = strings.ReplaceAll(s[len(df.prefix):len(s)-len(df.suffix)], ",", "")
	var v float64
	if s == "∞" {
		v = math.Inf(1)
	} else {
		if s == "" || strings.ContainsAny(s, "+-eEinfINFxX_") {
			return 0, false
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false
		}
		v = f
	}
	if df.percent {
		v /= 100
	}
	if neg {
		v = -v
	}
	return v, true
}
