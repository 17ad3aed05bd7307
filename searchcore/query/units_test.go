package query

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestDateMath(t *testing.T) {
	ms := func(s string) int64 {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("bad test time %s", s)
		}
		return tm.UnixMilli()
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	tests := []struct {
		text    string
		roundUp bool
		format  string
		loc     *time.Location
		want    string
	}{
		{"now", false, "", nil, "2020-03-15T10:20:30.456Z"},
		{"now", true, "", nil, "2020-03-15T10:20:30.456Z"},
		{"now/d", false, "", nil, "2020-03-15T00:00:00Z"},
		{"now/d", true, "", nil, "2020-03-15T23:59:59.999Z"},
		{"now-1d/d", false, "", nil, "2020-03-14T00:00:00Z"},
		{"now+1h", false, "", nil, "2020-03-15T11:20:30.456Z"},
		{"now-90m", false, "", nil, "2020-03-15T08:50:30.456Z"},
		{"now+30s/m", true, "", nil, "2020-03-15T10:21:59.999Z"},
		{"now/M", false, "", nil, "2020-03-01T00:00:00Z"},
		{"now/M", true, "", nil, "2020-03-31T23:59:59.999Z"},
		{"now/y", true, "", nil, "2020-12-31T23:59:59.999Z"},
		{"now/w", false, "", nil, "2020-03-09T00:00:00Z"},
		{"now/w", true, "", nil, "2020-03-15T23:59:59.999Z"},
		{"now/H", false, "", nil, "2020-03-15T10:00:00Z"},
		{"now+1d-1h", false, "", nil, "2020-03-16T09:20:30.456Z"},
		{"now+2w", false, "", nil, "2020-03-29T10:20:30.456Z"},
		{"now-1y", false, "", nil, "2019-03-15T10:20:30.456Z"},
		{"2020-01-31||+1M", false, "", nil, "2020-02-29T00:00:00Z"},
		{"2019-01-31||+1M", false, "", nil, "2019-02-28T00:00:00Z"},
		{"2020-02-29||+1y", false, "", nil, "2021-02-28T00:00:00Z"},
		{"2020-01-01||+1M/d", true, "", nil, "2020-02-01T23:59:59.999Z"},
		{"2020-01-01||", false, "", nil, "2020-01-01T00:00:00Z"},
		{"2020-01-01", true, "", nil, "2020-01-01T23:59:59.999Z"},
		{"2020-01", true, "", nil, "2020-01-01T23:59:59.999Z"},
		{"2020-01-01T10", true, "", nil, "2020-01-01T10:59:59.999Z"},
		{"2020-01-01T10:15", true, "", nil, "2020-01-01T10:15:59.999Z"},
		{"2020-01-01T10:15:30", true, "", nil, "2020-01-01T10:15:30.999Z"},
		{"2020-01-01T10:15:30.5", true, "", nil, "2020-01-01T10:15:30.500Z"},
		{"2020-01-01T10:15:30Z", true, "", nil, "2020-01-01T10:15:30.999Z"},
		{"1577836800000", true, "", nil, "2020-01-01T00:00:00Z"},
		{"1577836800", true, "epoch_second", nil, "2020-01-01T00:00:00.999Z"},
		{"01/02/2020", true, "dd/MM/yyyy", nil, "2020-02-01T23:59:59.999Z"},
		{"2020-01-01 10:00", true, "yyyy-MM-dd HH:mm", nil, "2020-01-01T10:00:59.999Z"},
		{"2020-01-01T10:00:00", false, "", time.FixedZone("x", 2*3600), "2020-01-01T08:00:00Z"},
		{"2020-01-01T10:00:00+01:00", false, "", time.FixedZone("x", 2*3600), "2020-01-01T09:00:00Z"},
		{"2020-07-01T10:00:00", false, "", paris, "2020-07-01T08:00:00Z"},
		{"2020-01-01", false, "", paris, "2019-12-31T23:00:00Z"},
		{"2020-01-01", true, "", paris, "2020-01-01T22:59:59.999Z"},
		{"1577836800000", false, "", paris, "2020-01-01T00:00:00Z"},
		{"now/d", false, "", paris, "2020-03-14T23:00:00Z"},
		{"2020-03-29T12:00:00||/d", true, "", paris, "2020-03-29T21:59:59.999Z"},
	}
	for _, tt := range tests {
		dm := dateMath{format: tt.format, loc: tt.loc, now: func() time.Time { return fixedNow }}
		got, err := dm.resolve(tt.text, tt.roundUp)
		if err != nil {
			t.Errorf("resolve(%q, %v): %v", tt.text, tt.roundUp, err)
			continue
		}
		if want := ms(tt.want); got != want {
			t.Errorf("resolve(%q, up=%v, %q, %v) = %s; want %s", tt.text, tt.roundUp, tt.format, tt.loc,
				time.UnixMilli(got).UTC().Format(time.RFC3339Nano), tt.want)
		}
	}
}

func TestParseZone(t *testing.T) {
	for _, id := range []string{"Z", "UTC", "+01:00", "-0830", "+5", "UTC+01:00", "GMT-3", "Europe/Paris", "America/New_York"} {
		if _, err := parseZone(id); err != nil {
			t.Errorf("parseZone(%q): %v", id, err)
		}
	}
	for id, want := range map[string]string{
		"Nope/Zone": "illegal_argument_exception: java.time.zone.ZoneRulesException: Unknown time-zone ID: Nope/Zone",
		"+1:2":      "illegal_argument_exception: java.time.DateTimeException: Invalid ID for ZoneOffset, invalid format: +1:2",
		"":          "illegal_argument_exception: java.time.DateTimeException: Invalid ID for region-based ZoneId, invalid format: ",
	} {
		if _, err := parseZone(id); errString(err) != want {
			t.Errorf("parseZone(%q) = %s; want %s", id, errString(err), want)
		}
	}
}

func TestMinShouldMatch(t *testing.T) {
	tests := []struct {
		n    int
		spec string
		want int
	}{
		{3, "2", 2}, {3, "5", 5}, {3, "-1", 2}, {3, "-5", 0}, {3, "75%", 2}, {4, "75%", 3}, {3, "-25%", 3},
		{4, "-25%", 3}, {10, "70%", 7}, {7, "-40%", 5}, {3, "100%", 3}, {3, "0%", 0}, {2, "3<90%", 2},
		{4, "3<90%", 3}, {10, "3<90%", 9}, {5, "2<-25% 9<-3", 4}, {10, "2<-25% 9<-3", 7}, {2, "2<-25% 9<-3", 2},
		{4, " 3 < 50% ", 2}, {0, "1", 1}, {0, "-1", 0},
	}
	for _, tt := range tests {
		got, err := minShouldMatch(tt.n, tt.spec)
		if err != nil || got != tt.want {
			t.Errorf("minShouldMatch(%d, %q) = %d, %v; want %d", tt.n, tt.spec, got, err, tt.want)
		}
	}
	for spec, want := range map[string]string{
		"abc":     `number_format_exception: For input string: "abc"`,
		"x%":      `number_format_exception: For input string: "x"`,
		"2<x":     `number_format_exception: For input string: "x"`,
		"2<5 x<1": `number_format_exception: For input string: "x"`,
		"":        `number_format_exception: For input string: ""`,
	} {
		if _, err := minShouldMatch(5, spec); errString(err) != want {
			t.Errorf("minShouldMatch(%q) = %s; want %s", spec, errString(err), want)
		}
	}
}

func TestFuzziness(t *testing.T) {
	tests := []struct {
		raw  string
		term string
		want int
	}{
		{`"AUTO"`, "ab", 0}, {`"AUTO"`, "abc", 1}, {`"auto"`, "abcde", 1}, {`"AUTO"`, "abcdef", 2},
		{`"AUTO:2,4"`, "ab", 1}, {`"AUTO:2,4"`, "abcd", 2}, {`0`, "abc", 0}, {`1`, "abc", 1}, {`"2"`, "abc", 2},
		{`5`, "abc", 2}, {`1.7`, "abc", 1}, {`"0.5"`, "abc", 0},
	}
	for _, tt := range tests {
		v, _ := parseJSON([]byte(tt.raw), &jdoc{})
		f, err := parseFuzziness(v)
		if err != nil {
			t.Errorf("parseFuzziness(%s): %v", tt.raw, err)
			continue
		}
		if got := f.distance(tt.term); got != tt.want {
			t.Errorf("fuzziness %s distance(%q) = %d; want %d", tt.raw, tt.term, got, tt.want)
		}
	}
	v, _ := parseJSON([]byte(`true`), &jdoc{})
	if _, err := parseFuzziness(v); errString(err) != "illegal_argument_exception: Can't parse fuzziness on token: [VALUE_BOOLEAN]" {
		t.Errorf("boolean fuzziness: %s", errString(err))
	}
}

func TestLuceneRegexp(t *testing.T) {
	const noFlags = 0
	tests := []struct {
		re      string
		flags   int
		fold    bool
		match   []string
		nomatch []string
	}{
		{"ab.d", reAll, false, []string{"abcd", "ab\nd", "abéd"}, []string{"abd", "abcde"}},
		{"a+b*c?", reAll, false, []string{"a", "aab", "aabbc"}, []string{"b", "ac c"}},
		{"(ab|cd){2}", reAll, false, []string{"abcd", "cdcd"}, []string{"ab", "abcdab"}},
		{"a{2,3}", reAll, false, []string{"aa", "aaa"}, []string{"a", "aaaa"}},
		{"a{2,}", reAll, false, []string{"aa", "aaaaa"}, []string{"a"}},
		{"a{0}b", reAll, false, []string{"b"}, []string{"ab"}},
		{"[a-c]x[^0-9]", reAll, false, []string{"axy", "cx-", "bxé"}, []string{"dxy", "ax1", "ax"}},
		{"\\d+\\.\\d", reAll, false, []string{"12.5"}, []string{"12x5"}},
		{"\\W\\w\\s\\S", reAll, false, []string{"éa\tx", "-_ 1"}, []string{"aa x", "é- x", "éa\t "}},
		{"a\\*", reAll, false, []string{"a*"}, []string{"aa"}},
		{`"a.b"`, reAll, false, []string{"a.b"}, []string{"axb"}},
		{"ab@", reAll, false, []string{"ab", "abxyz"}, []string{"a"}},
		{"ab@", noFlags, false, []string{"ab@"}, []string{"abx"}},
		{"<1-12>", reAll, false, []string{"1", "9", "10", "12", "007"}, []string{"0", "13", "100", "x"}},
		{"<01-12>", reAll, false, []string{"01", "09", "12"}, []string{"1", "13", "00"}},
		{"<1-100>", reAll, false, []string{"1", "42", "100", "0100"}, []string{"0", "101", "1000", ""}},
		{"x<5-250>", reAll, false, []string{"x5", "x99", "x100", "x249", "x250"}, []string{"x4", "x251", "x1000"}},
		{"<1-12>", noFlags, false, []string{"<1-12>"}, []string{"1"}},
		{"a()b", reAll, false, []string{"ab"}, []string{"a()b"}},
		{"a#", noFlags, false, []string{"a#"}, []string{"a"}},
		{"a#", reAll, false, nil, []string{"a", "a#", ""}},
		{"[a-]", reAll, false, []string{"a", "-"}, []string{"b"}},
		{"[]a]", reAll, false, []string{"]", "a"}, []string{"b"}},
		{"a(#)*b", reAll, false, []string{"ab"}, []string{"a#b"}},
		{"a|b#", reAll, false, []string{"a"}, []string{"b", "b#"}},
		{"", reAll, false, []string{""}, []string{"a"}},
		{"(|a)", reAll, false, []string{"|a"}, []string{"a", ""}},
		// complement and intersection
		{"ab~(c)", reAll, false, []string{"ab", "abd", "abcc", "abé"}, []string{"abc", "a"}},
		{"~a", reAll, false, []string{"", "b", "aa", "é"}, []string{"a"}},
		{"~~a", reAll, false, []string{"a"}, []string{"", "aa"}},
		{"~(a|b)c", reAll, false, []string{"c", "aac", "xc"}, []string{"ac", "bc", "a"}},
		{"a.*&.*z", reAll, false, []string{"az", "abz", "azz"}, []string{"a", "z", "za", "abza"}},
		{"@&~(foo.*)", reAll, false, []string{"", "fo", "bar", "xfoo"}, []string{"foo", "foobar"}},
		{".*(a|b).*&.*c.*&~(.*d.*)", reAll, false, []string{"ac", "cb", "xaxcx"}, []string{"ab", "acd", "c"}},
		{"a&b", reAll, false, nil, []string{"a", "b", "a&b"}},
		{"[^a]", reAll, false, []string{"b", "é", "\U0001F600"}, []string{"a", "", "bb"}},
		// flags off: the character is literal
		{"a~b", noFlags, false, []string{"a~b"}, []string{"ac"}},
		{"a~b", reComplement, false, []string{"ac", "a", "abb", "a~b"}, []string{"ab"}},
		{"a&b", noFlags, false, []string{"a&b"}, []string{"a"}},
		{"a&b", reComplement, false, []string{"a&b"}, nil},
		{"a.*&.*z", reIntersection, false, []string{"az", "a&z"}, []string{"za", "a"}},
		{"~(a|b)", noFlags, false, []string{"~a", "~b"}, []string{"c"}},
		// ASCII_CASE_INSENSITIVE folds literals, not ranges
		{"ab[c-d]é", reAll, true, []string{"abcé", "ABdé", "aBcé"}, []string{"abCé", "abcÉ"}},
		{`"Foo"&~([a-z]..)`, reAll, true, []string{"FOO", "Foo"}, []string{"foo", "fOO"}},
	}
	for _, tt := range tests {
		d, err := compileLuceneRegexp(tt.re, tt.flags, tt.fold, defaultMaxDeterminizedStates)
		if err != nil {
			t.Errorf("compileLuceneRegexp(%q, %#x): %v", tt.re, tt.flags, err)
			continue
		}
		for _, s := range tt.match {
			if !codePointMatch(d, s) || !bytesMatch(d, s) {
				t.Errorf("%q (%#x) does not match %q (bytes %v)", tt.re, tt.flags, s, bytesMatch(d, s))
			}
		}
		for _, s := range tt.nomatch {
			if codePointMatch(d, s) || bytesMatch(d, s) {
				t.Errorf("%q (%#x) matches %q", tt.re, tt.flags, s)
			}
		}
	}
	for re, want := range map[string]string{
		"a(b":               "illegal_argument_exception: expected ')' at position 3",
		"a[bc":              "illegal_argument_exception: expected ']' at position 4",
		"a{x}":              "illegal_argument_exception: integer expected at position 2",
		"a{2":               "illegal_argument_exception: expected '}' at position 3",
		`"abc`:              `illegal_argument_exception: expected '"' at position 4`,
		"a&":                "illegal_argument_exception: unexpected end-of-string",
		"~":                 "illegal_argument_exception: unexpected end-of-string",
		"a|":                "illegal_argument_exception: unexpected end-of-string",
		"a)":                "illegal_argument_exception: end-of-string expected at position 1",
		"<1-x>":             "illegal_argument_exception: interval syntax error at position 4",
		"<12":               "illegal_argument_exception: expected '>' at position 3",
		"<abc>":             "illegal_argument_exception: 'abc' not found",
		"[]":                "illegal_argument_exception: expected ']' at position 2",
		"[z-a]":             "illegal_argument_exception: invalid range: from (122) cannot be > to (97)",
		".*a.{20}":          "too_complex_to_determinize_exception",
		"~(.*a.{20})":       "too_complex_to_determinize_exception",
		"a{99999999}":       "too_complex_to_determinize_exception",
		"(.{0,200}){0,200}": "too_complex_to_determinize_exception", // huge subsets: the work budget
		"(a{1000}){1000}":   "too_complex_to_determinize_exception", // the build size limit
	} {
		_, err := compileLuceneRegexp(re, reAll, false, defaultMaxDeterminizedStates)
		if got := errString(err); got != want && !strings.HasPrefix(got, want+": Determinizing automaton with ") {
			t.Errorf("compileLuceneRegexp(%q) error = %s; want %s", re, got, want)
		}
	}
	if _, err := compileLuceneRegexp("<1-2>", reAll&^reInterval&^reAutomaton, false, 10); err != nil {
		t.Errorf("<1-2> without INTERVAL: %v", err)
	}
	if _, err := compileLuceneRegexp("<1-2>", reAutomaton, false, 10); errString(err) != "illegal_argument_exception: illegal identifier at position 4" {
		t.Errorf("<1-2> with AUTOMATON only: %v", err)
	}
	for _, tc := range []struct {
		re       string
		max      int
		explodes bool
	}{
		{`abc`, 10000, false},
		{`(san|santa) .*`, 10000, false},
		{`[a-z]+[0-9]{2,4}`, 10000, false},
		{`.*a.{3}`, 10000, false},  // 2^4 subsets
		{`.*a.{12}`, 1000, true},   // 2^13 over a lower limit
		{`.*a.{12}`, 10000, false}, // ... and under the default
		{`~(.*a.{12})`, 1000, true},
		{`(.*a.{6})&(.*b.{6})`, 1000, true}, // 2^7 states each, their product over 1000
		{`(.*a.{6})&(.*b.{6})`, 100000, false},
		{`(.*a){12}(.*b){12}`, 10000, false},
	} {
		start := time.Now()
		_, err := compileLuceneRegexp(tc.re, reAll, false, tc.max)
		if (err != nil) != tc.explodes {
			t.Errorf("%s (max %d): err = %v, want explodes %v", tc.re, tc.max, err, tc.explodes)
		}
		if err != nil && !strings.HasSuffix(err.Error(), "would result in more than "+strconv.Itoa(tc.max)+" states.") {
			t.Errorf("%s: error text %q", tc.re, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s took %v", tc.re, d)
		}
	}
	if got := wildcardToRE2(`a*b?c\*.`); !regexp.MustCompile("^" + got + "$").MatchString("axxbyc*.") {
		t.Errorf("wildcardToRE2 = %q", got)
	}
}

// bytesMatch runs the term dictionary (UTF-8 byte) side of the automaton.
func bytesMatch(d *runDFA, s string) bool {
	st := d.Start()
	for i := 0; i < len(s) && d.CanMatch(st); i++ {
		st = d.Accept(st, s[i])
	}
	return d.IsMatch(st)
}

func TestJavaNumbers(t *testing.T) {
	doubles := map[float64]string{
		1: "1.0", 3.14: "3.14", 100: "100.0", 1e7: "1.0E7", 1.5e-5: "1.5E-5", 0.001: "0.001", 1e-4: "1.0E-4",
		-2.5: "-2.5", 123456789: "1.23456789E8", math.Inf(1): "Infinity", math.NaN(): "NaN", 0: "0.0",
	}
	for f, want := range doubles {
		if got := javaDoubleString(f); got != want {
			t.Errorf("javaDoubleString(%v) = %s; want %s", f, got, want)
		}
	}
	if got := javaFloatString(float32(0.1)); got != "0.1" {
		t.Errorf("javaFloatString(0.1) = %s", got)
	}
	for s, ok := range map[string]bool{"1": true, " 2.5 ": true, "1e3": true, "1f": true, "-Infinity": true, "NaN": true,
		".5": true, "5.": true, "0x1p3": true, "abc": false, "1e": false, "--1": false, "inf": false, "1_0": false} {
		if _, err := javaParseDouble(s); (err == nil) != ok {
			t.Errorf("javaParseDouble(%q) error %v; want ok=%v", s, err, ok)
		}
	}
	if _, err := javaParseDouble(""); errString(err) != "number_format_exception: empty String" {
		t.Errorf("javaParseDouble empty: %s", errString(err))
	}
	for s, ok := range map[string]bool{"12": true, "+3": true, "-4": true, "1.0": false, "": false, "99999999999": false} {
		if _, err := javaParseInt(s); (err == nil) != ok {
			t.Errorf("javaParseInt(%q) error %v; want ok=%v", s, err, ok)
		}
	}
	for in, want := range map[float64]float64{1.5: 1.5, 0.1: 0.0999755859375, 65504: 65504, 1e-8: 0, 70000: math.Inf(1)} {
		if got := toHalfFloat(in); got != want {
			t.Errorf("toHalfFloat(%v) = %v; want %v", in, got, want)
		}
	}
	if got := halfNextUp(1); got != 1.0009765625 {
		t.Errorf("halfNextUp(1) = %v", got)
	}
}

func TestValueAccessors(t *testing.T) {
	val := func(s string) *jval {
		v, err := parseJSON([]byte(s), &jdoc{})
		if err != nil {
			t.Fatalf("parseJSON(%s): %v", s, err)
		}
		return v
	}
	if n, err := val(`"7.9"`).intValue(); n != 7 || err != nil {
		t.Errorf(`intValue("7.9") = %d, %v`, n, err)
	}
	if n, err := val(`7.9`).intValue(); n != 7 || err != nil {
		t.Errorf(`intValue(7.9) = %d, %v`, n, err)
	}
	if _, err := val(`3000000000`).intValue(); errString(err) != "json_parse_exception: Numeric value (3000000000) out of range of int (-2147483648 - 2147483647)" {
		t.Errorf("intValue overflow: %s", errString(err))
	}
	if _, err := val(`"3000000000"`).intValue(); errString(err) != "illegal_argument_exception: Value [3000000000] is out of range for an integer" {
		t.Errorf("intValue string overflow: %s", errString(err))
	}
	if b, err := val(`"false"`).booleanValue(); b || err != nil {
		t.Errorf("booleanValue: %v %v", b, err)
	}
	if _, err := val(`1`).booleanValue(); errString(err) != "json_parse_exception: Current token (VALUE_NUMBER_INT) not of boolean type" {
		t.Errorf("booleanValue(1): %s", errString(err))
	}
	if got := (scalar{kind: kNumber, s: "1e2"}).String(); got != "100.0" {
		t.Errorf("scalar 1e2 = %s", got)
	}
	raw, _ := json.Marshal("x\u2028")
	if v := val(string(raw)); v.s != "x\u2028" {
		t.Errorf("unescape = %q", v.s)
	}
	if v := val(`"\ud83d\ude00 \u00e9"`); v.s != "😀 é" {
		t.Errorf("surrogates = %q", v.s)
	}
}

// FuzzLuceneRegexp checks any expression and flags compile to an automaton
// or fail with an error (never a panic), and that the UTF-8 byte side of
// the automaton agrees with the code point side.
func FuzzLuceneRegexp(f *testing.F) {
	for _, s := range []string{"ab~(c)", "a.*&.*z", "@&~(foo.*)", "<1-100>", "[^a-c]x{2,3}", `"q"\d\W#`, "~(a|b)&.+", "(|a)", "<abc>", "a{0,}?"} {
		f.Add(s, reAll, false, "xé1")
	}
	f.Fuzz(func(t *testing.T, expr string, flags int, fold bool, probe string) {
		if len(expr) > 40 {
			return
		}
		d, err := compileLuceneRegexp(expr, flags&reAll, fold, 2000)
		if err != nil {
			return
		}
		if codePointMatch(d, probe) != bytesMatch(d, probe) && utf8.ValidString(probe) {
			t.Errorf("%q on %q: code points %v, bytes %v", expr, probe, codePointMatch(d, probe), bytesMatch(d, probe))
		}
	})
}

// codePointMatch runs the code point automaton over s: the oracle the
// byte automaton (what term dictionaries run) is checked against.
func codePointMatch(r *runDFA, s string) bool {
	q := r.start
	for _, c := range s {
		if q = r.step(q, c); q < 0 {
			return false
		}
	}
	return r.states[q].accept
}
