package query

import (
	"encoding/json"
	"reflect"
	"testing"
)

const testSource = `{ "include": {"field1": "v1", "field2": "v2"}, "count": 1, "bigint": 72057594037927936,
  "d": 3.14, "obj": {"a": {"b": 1, "c": 2}, "arr": [{"x": 1, "y": 2}, {"x": 3}, [{"x": 4}], 5], "list": [1, 2]},
  "flt": 1.0, "exp": 1e2, "neg": -0, "s": "q\"\u0001\u00e9/\t", "dotted.key": true, "dotted": {"key": false}, "nil": null }`

func TestSourceFilterApply(t *testing.T) {
	tests := []struct {
		name               string
		includes, excludes []string
		want               string
	}{
		{"one leaf", []string{"include.field1"}, nil, `{"include":{"field1":"v1"}}`},
		{"includes and excludes", []string{"include"}, []string{"*.field2"}, `{"include":{"field1":"v1"}}`},
		{"exclude top level", nil, []string{"count", "obj", "s", "d*", "nil", "include"},
			`{"bigint":72057594037927936,"flt":1.0,"exp":100.0,"neg":0}`},
		{"string escaping", []string{"s"}, nil, `{"s":"q\"\u0001é/\t"}`},
		{"bigint exact", []string{"bigint"}, nil, `{"bigint":72057594037927936}`},
		{"doubles as java", []string{"d", "flt", "exp"}, nil, `{"d":3.14,"flt":1.0,"exp":100.0}`},
		{"object whole", []string{"ob*"}, nil,
			`{"obj":{"a":{"b":1,"c":2},"arr":[{"x":1,"y":2},{"x":3},[{"x":4}],5],"list":[1,2]}}`},
		{"array of objects", []string{"obj.arr.x"}, nil, `{"obj":{"arr":[{"x":1},{"x":3},[{"x":4}]]}}`},
		{"wildcard in middle", []string{"obj.*.b"}, nil, `{"obj":{"a":{"b":1}}}`},
		{"wildcard prefix", []string{"*.b"}, nil, `{"obj":{"a":{"b":1}}}`},
		{"wildcard everything", []string{"*"}, nil, `{"include":{"field1":"v1","field2":"v2"},"count":1,"bigint":72057594037927936,"d":3.14,"obj":{"a":{"b":1,"c":2},"arr":[{"x":1,"y":2},{"x":3},[{"x":4}],5],"list":[1,2]},"flt":1.0,"exp":100.0,"neg":0,"s":"q\"\u0001é/\t","dotted.key":true,"dotted":{"key":false},"nil":null}`},
		{"exclude in included object", []string{"obj"}, []string{"obj.a"}, `{"obj":{"arr":[{"x":1,"y":2},{"x":3},[{"x":4}],5],"list":[1,2]}}`},
		{"exclude in arrays", []string{"obj.arr"}, []string{"obj.arr.y"}, `{"obj":{"arr":[{"x":1},{"x":3},[{"x":4}],5]}}`},
		{"exclude wins", []string{"count"}, []string{"count"}, `{}`},
		{"included object emptied by excludes", []string{"obj.a"}, []string{"obj.a.*"}, `{"obj":{"a":{}}}`},
		{"scalar list", []string{"obj.list"}, nil, `{"obj":{"list":[1,2]}}`},
		{"no match", []string{"nothing"}, nil, `{}`},
		{"dotted keys", []string{"dotted.key"}, nil, `{"dotted.key":true,"dotted":{"key":false}}`},
		{"null value", []string{"nil"}, nil, `{"nil":null}`},
		{"prefix of name is not a match", []string{"coun"}, nil, `{}`},
		{"star suffix", []string{"inc*.field1"}, nil, `{"include":{"field1":"v1"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewSourceFilter(tt.includes, tt.excludes, nil)
			got, present, err := f.Apply([]byte(testSource))
			if err != nil || !present {
				t.Fatalf("Apply: %v, present %v", err, present)
			}
			if string(got) != tt.want {
				t.Errorf("Apply(%v, %v)\n got %s\nwant %s", tt.includes, tt.excludes, got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("invalid JSON %s", got)
			}
		})
	}
}

func TestSourceFilterFastPath(t *testing.T) {
	src := []byte(testSource)
	for _, f := range []*SourceFilter{nil, NewSourceFilter(nil, nil, nil), mustParseSource(t, `true`)} {
		got, present, err := f.Apply(src)
		if err != nil || !present || &got[0] != &src[0] {
			t.Errorf("Apply without filtering did not return the source as-is")
		}
		if n := testing.AllocsPerRun(100, func() { _, _, _ = f.Apply(src) }); n != 0 {
			t.Errorf("Apply without filtering allocates %v times", n)
		}
	}
	off := false
	for _, f := range []*SourceFilter{NewSourceFilter([]string{"a"}, nil, &off), mustParseSource(t, `false`)} {
		got, present, err := f.Apply(src)
		if err != nil || present || got != nil {
			t.Errorf("disabled source: got %s present %v err %v", got, present, err)
		}
	}
	if _, present, _ := NewSourceFilter([]string{"a"}, nil, nil).Apply(nil); present {
		t.Error("missing source reported present")
	}
}

func mustParseSource(t *testing.T, raw string) *SourceFilter {
	t.Helper()
	f, err := ParseSourceFilter(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("ParseSourceFilter(%s): %v", raw, err)
	}
	return f
}

func TestParseSourceFilter(t *testing.T) {
	tests := []struct {
		raw                string
		enabled            bool
		includes, excludes []string
	}{
		{`true`, true, nil, nil},
		{`false`, false, nil, nil},
		{`"a.b"`, true, []string{"a.b"}, nil},
		{`["a","b*"]`, true, []string{"a", "b*"}, nil},
		{`[1]`, true, []string{"1"}, nil},
		{`{"includes":["a"],"excludes":"b"}`, true, []string{"a"}, []string{"b"}},
		{`{"include":"a","exclude":["b","c"]}`, true, []string{"a"}, []string{"b", "c"}},
		{`{}`, true, nil, nil},
	}
	for _, tt := range tests {
		f := mustParseSource(t, tt.raw)
		if f.Enabled() != tt.enabled || !reflect.DeepEqual(f.Includes(), tt.includes) || !reflect.DeepEqual(f.Excludes(), tt.excludes) {
			t.Errorf("ParseSourceFilter(%s) = %v %v %v", tt.raw, f.Enabled(), f.Includes(), f.Excludes())
		}
	}
	errs := []struct{ raw, want string }{
		{`1`, "parsing_exception: Expected one of [VALUE_BOOLEAN, START_OBJECT] but found [VALUE_NUMBER]"},
		{`null`, "parsing_exception: Expected one of [VALUE_BOOLEAN, START_OBJECT] but found [VALUE_NULL]"},
		{`{"foo":"a"}`, "parsing_exception: Unknown key for a VALUE_STRING in [foo]."},
		{`{"includes":[1]}`, "parsing_exception: Unknown key for a VALUE_NUMBER in [includes]."},
		{`{"includes":{}}`, "parsing_exception: Unknown key for a START_OBJECT in [includes]."},
		{`[{}]`, "illegal_state_exception: Can't get text on a START_OBJECT"},
	}
	for _, tt := range errs {
		_, err := ParseSourceFilter(json.RawMessage(tt.raw))
		if got := errString(err); got != tt.want {
			t.Errorf("ParseSourceFilter(%s)\n got %s\nwant %s", tt.raw, got, tt.want)
		}
	}
	// conformance "_source: include.field1" and URL overrides
	f := NewSourceFilter([]string{"include.field1"}, nil, nil)
	got, _, _ := f.Apply([]byte(`{"include":{"field1":"v1","field2":"v2"},"count":1}`))
	if string(got) != `{"include":{"field1":"v1"}}` {
		t.Errorf("got %s", got)
	}
}

func TestValidateWindow(t *testing.T) {
	tests := []struct {
		from, size, max int
		want            string
	}{
		{0, 10, 10000, "<nil>"},
		{9990, 10, 10000, "<nil>"},
		{9991, 10, 10000, "illegal_argument_exception: Result window is too large, from + size must be less than or equal to: [10000] but was [10001]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting."},
		{10000, 10, 10000, "illegal_argument_exception: Result window is too large, from + size must be less than or equal to: [10000] but was [10010]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting."},
		{-1, 10, 10000, "illegal_argument_exception: [from] parameter cannot be negative"},
		{0, -1, 10000, "illegal_argument_exception: [size] parameter cannot be negative, found [-1]"},
	}
	for _, tt := range tests {
		if got := errString(ValidateWindow(tt.from, tt.size, tt.max)); got != tt.want {
			t.Errorf("ValidateWindow(%d, %d, %d) = %s; want %s", tt.from, tt.size, tt.max, got, tt.want)
		}
	}
	if got := errString(ValidateScrollSize(10010, 10000)); got != "illegal_argument_exception: Batch size is too large, size must be less than or equal to: [10000] but was [10010]. Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting." {
		t.Errorf("ValidateScrollSize = %s", got)
	}
}
