package mapping

import (
	"testing"
)

func TestDecimalFormat(t *testing.T) {
	tests := []struct {
		pattern string
		v       float64
		want    string
	}{
		{"#.0", 1, "1.0"},
		{"#.0", 0.5, ".5"},
		{"#.##", 2.345, "2.35"},
		{"#.##", 2.5, "2.5"},
		{"0.00", 0.125, "0.12"},
		{"0.00", -1.5, "-1.50"},
		{"#,##0", 1234567, "1,234,567"},
		{"#,##0.0", 999.96, "1,000.0"},
		{"000", 7, "007"},
		{"#", 0, "0"},
		{"#%", 0.256, "26%"},
		{"$#,##0.00", 1234.5, "$1,234.50"},
		{"0.0 units", 3, "3.0 units"},
		{"$0.00", posInf, "$∞"},
		{"0.0 units", -posInf, "-∞ units"},
		{"0.00", posInf - posInf, "NaN"},
	}
	for _, tt := range tests {
		df, err := compileDecimalFormat(tt.pattern)
		if err != nil {
			t.Fatalf("%s: %v", tt.pattern, err)
		}
		if got := df.format(tt.v); got != tt.want {
			t.Errorf("format(%q, %v) = %q, want %q", tt.pattern, tt.v, got, tt.want)
		}
	}
	for _, tt := range []struct {
		pattern, in string
		want        float64
		ok          bool
	}{
		{"#,##0.0", "1,234,567.5", 1234567.5, true},
		{"$#,##0.00", "-$1,234.50", -1234.5, true},
		{"0.0 units", "3.0 units", 3, true},
		{"#%", "26%", 0.26, true},
		{"000", "007", 7, true},
		{"0.0", "∞", posInf, true},
		{"$0.00", "1.00", 0, false},
		{"0.0", "1e5", 0, false},
		{"0.0", "", 0, false},
	} {
		parse, err := DecimalParser(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := parse(tt.in); ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parse(%q, %q) = %v %v, want %v %v", tt.pattern, tt.in, got, ok, tt.want, tt.ok)
		}
	}
	for _, bad := range []string{"abc", "#.0.0", "0#"} {
		if _, err := compileDecimalFormat(bad); err == nil {
			t.Errorf("compileDecimalFormat(%q) accepted", bad)
		}
	}
}

func TestHalfFloat(t *testing.T) {
	tests := []struct{ in, want float64 }{
		{1.1, 1.099609375}, {0.1, 0.0999755859375}, {65504, 65504}, {70000, posInf}, {-2.5, -2.5}, {1e-7, 1.1920928955078125e-07},
	}
	for _, tt := range tests {
		if got := halfFloat(tt.in); got != tt.want {
			t.Errorf("halfFloat(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

var posInf = func() float64 { x := 1e308; return x * 10 }()

func TestInstantAndNanosFormatting(t *testing.T) {
	tests := []struct {
		sec, nsec int64
		instant   string
		millis    string
	}{
		{1540815132, 123456789, "2018-10-29T12:12:12.123456789Z", "1540815132123.456789"},
		{1540815132, 987000000, "2018-10-29T12:12:12.987Z", "1540815132987"},
		{1540815132, 120000, "2018-10-29T12:12:12.000120Z", "1540815132000.12"},
		{0, 0, "1970-01-01T00:00:00Z", "0"},
		{-86400, 500000000, "1969-12-31T00:00:00.500Z", "-86399500"},
		{253402300800, 0, "+10000-01-01T00:00:00Z", "253402300800000"},
	}
	for _, tt := range tests {
		if got := instantString(tt.sec, tt.nsec); got != tt.instant {
			t.Errorf("instantString(%d, %d) = %q, want %q", tt.sec, tt.nsec, got, tt.instant)
		}
		if got := FormatDateNanos(tt.sec, tt.nsec, "epoch_millis"); got != tt.millis {
			t.Errorf("epoch_millis(%d, %d) = %q, want %q", tt.sec, tt.nsec, got, tt.millis)
		}
	}
}

// FuzzDecimalFormat checks docvalue_fields decimal patterns never panic and
// that accepted patterns render finite numbers.
func FuzzDecimalFormat(f *testing.F) {
	for _, p := range []string{"#.0", "#,##0.00", "000", "$#%", "0.0 units;(0.0)", "'#'0"} {
		f.Add(p, 1234.5678)
	}
	f.Fuzz(func(t *testing.T, pattern string, v float64) {
		df, err := compileDecimalFormat(pattern)
		if err != nil {
			return
		}
		if s := df.format(v); s == "" {
			t.Fatalf("format(%q, %v) is empty", pattern, v)
		}
	})
}
