package appsearch

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestTypedValue(t *testing.T) {
	for _, tc := range []struct {
		typ    FieldType
		rev    Revision
		stored string
		want   string // "-" = left out
	}{
		{Text, RevisionLater, `"Heat"`, `"Heat"`},
		{Text, RevisionLater, `["a","b"]`, `["a","b"]`},
		{Number, RevisionLater, `null`, `null`},
		{Number, RevisionEarlier, `"1985"`, `1985`},
		{Number, RevisionEarlier, `"0.1"`, `0.1`},
		{Number, RevisionLater, `"0.1"`, `0.1`},
		{Number, RevisionEarlier, `"16777217"`, `16777217`},
		{Number, RevisionLater, `"16777217"`, `16777216`},
		{Number, RevisionLater, `"265795.23"`, `265795.22`},
		{Number, RevisionLater, `"-0.00001"`, `-0.00001`},
		{Number, RevisionEarlier, `"1e-9"`, `1e-09`},
		{Number, RevisionEarlier, `"1e39"`, `1e+39`},
		{Number, RevisionLater, `"1e39"`, `-`},
		{Number, RevisionLater, `"abc"`, `-`},
		{Number, RevisionLater, `"NaN"`, `-`},
		{Number, RevisionLater, `["1","x","2.5"]`, `[1,2.5]`},
		{Number, RevisionLater, `["x"]`, `-`},
		{Date, RevisionLater, `"2013-02-27T18:09:19"`, `"2013-02-27T18:09:19+00:00"`},
		{Date, RevisionLater, `"1994-10-14T05:00:00Z"`, `"1994-10-14T05:00:00+00:00"`},
		{Date, RevisionLater, `"1994-10-14T07:00:00.250+02:00"`, `"1994-10-14T05:00:00.25+00:00"`},
		{Date, RevisionLater, `"2021-06-01"`, `"2021-06-01T00:00:00+00:00"`},
		{Date, RevisionLater, `"yesterday"`, `-`},
		{Geolocation, RevisionEarlier, `"40.5, -70.25"`, `"40.5,-70.25"`},
		{Geolocation, RevisionEarlier, `"40.5,-70.25"`, `"40.5,-70.25"`},
		{Geolocation, RevisionEarlier, `"40.5,  -70.25"`, `-`},
		{Geolocation, RevisionEarlier, `"POINT (-70.25 40.5)"`, `-`},
		{Geolocation, RevisionEarlier, `"u4pruydqqvj"`, `-`},
		{Geolocation, RevisionEarlier, `["-70.25","40.5"]`, `-`},
		{Geolocation, RevisionLater, `"40.5,-70.25"`, `"40.5,-70.25"`},
		{Geolocation, RevisionLater, `"40.5, -70.25"`, `-`},
		{Geolocation, RevisionLater, `"POINT (-70.25 40.5)"`, `"40.5,-70.25"`},
		{Geolocation, RevisionLater, `"point(-70.25 40.5)"`, `"40.5,-70.25"`},
		{Geolocation, RevisionLater, `["-70.25","40.5"]`, `"40.5,-70.25"`},
		{Geolocation, RevisionLater, `"u4pruydqqvj"`, `"57.649109959602356,10.407439023256302"`},
		{Geolocation, RevisionLater, `"91,0"`, `-`},
		{Geolocation, RevisionLater, `"0,181"`, `-`},
		{Geolocation, RevisionLater, `"u4pruydqqvja"`, `-`},
		{Geolocation, RevisionLater, `"aaaa"`, `-`},
	} {
		got, ok := TypedValue(tc.typ, tc.rev, json.RawMessage(tc.stored))
		g := string(got)
		if !ok {
			g = "-"
		}
		if g != tc.want {
			t.Errorf("TypedValue(%s, %s, %s) = %s; want %s", tc.typ, tc.rev, tc.stored, g, tc.want)
		}
	}
}

func TestStringifyValue(t *testing.T) {
	for _, tc := range []struct{ in, want, msg string }{
		{`"x"`, `"x"`, ""},
		{`12.50`, `"12.50"`, ""},
		{`-1`, `"-1"`, ""},
		{`true`, `"true"`, ""},
		{`null`, `null`, ""},
		{`[1,"a",false,null]`, `["1","a","false",null]`, ""},
		{`{"a":1}`, "", "Nested objects are not supported (flatten them into top-level fields): f."},
		{`[{"a":1}]`, "", "Nested objects and arrays are not supported (flatten them into top-level fields): f."},
	} {
		got, msg := stringifyValue("f", json.RawMessage(tc.in))
		if string(got) != tc.want || msg != tc.msg {
			t.Errorf("stringifyValue(%s) = %s, %q; want %s, %q", tc.in, got, msg, tc.want, tc.msg)
		}
	}
}

func TestValidateFieldName(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"title", ""},
		{"a_1", ""},
		{"id", ""},
		{"Title", "Fields can only contain lowercase letters, numbers, and underscores: Title."},
		{"a b", "Fields can only contain lowercase letters, numbers, and underscores: a b."},
		{"_x", "Fields cannot begin with an underscore: _x."},
		{"12", "Fields must contain at least one letter: 12."},
		{"engine_id", "Field name is reserved: engine_id."},
		{"all", "Field name is reserved: all."},
		{string(make([]byte, 0)) + "a" + string(repeat('b', 64)), "Field name is too long (maximum is 64 characters): a" + string(repeat('b', 64)) + "."},
	} {
		if got := ValidateFieldName(tc.name); got != tc.want {
			t.Errorf("ValidateFieldName(%q) = %q; want %q", tc.name, got, tc.want)
		}
	}
}

func repeat(c byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = c
	}
	return b
}

// FuzzDocument checks that any input document either fails with messages
// or yields a stored form and typed values that are valid JSON.
func FuzzDocument(f *testing.F) {
	for _, s := range []string{`{"id":1,"a":"x"}`, `{"a":[1,2],"b":null}`, `{"loc":"1,2","n":"1e3"}`, `[]`, `{"a":{"b":1}}`, `{"id":""}`} {
		f.Add(s)
	}
	s := &Service{limits: DefaultLimits}
	sc := Schema{"loc": Geolocation, "n": Number, "d": Date, "a": Text}
	f.Fuzz(func(t *testing.T, in string) {
		d, id, errs := s.parseForIndex(json.RawMessage(in))
		if len(errs) > 0 {
			return
		}
		if id == nil || *id == "" {
			t.Fatalf("accepted document %q without id", in)
		}
		for _, rev := range []Revision{RevisionEarlier, RevisionLater} {
			src := coreSource(d, sc, rev)
			if !json.Valid(src) {
				t.Fatalf("core source of %q is not JSON: %s", in, src)
			}
			back, err := decodeStored(src)
			if err != nil || string(back.marshal()) != string(d.marshal()) {
				t.Fatalf("round trip of %q: %v %s != %s", in, err, back.marshal(), d.marshal())
			}
		}
	})
}

// FuzzGeolocation checks the geolocation parsers never panic and return
// in-range "lat,lon" pairs.
func FuzzGeolocation(f *testing.F) {
	for _, s := range []string{"40.5, -70.25", "POINT (1 2)", "u4pruydqqvj", "1,2", "", "-90,180"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !utf8.ValidString(in) {
			return
		}
		for _, rev := range []Revision{RevisionEarlier, RevisionLater} {
			p, ok := ParseGeolocation(in, rev)
			if !ok {
				continue
			}
			var lat, lon float64
			if _, err := fmtSscan(p, &lat, &lon); err != nil || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
				t.Fatalf("ParseGeolocation(%q) = %q", in, p)
			}
		}
	})
}
