package mapping_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

func TestParseMarshalRoundTrip(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", `{}`, `{}`},
		{"empty properties", `{"properties":{}}`, `{}`},
		{"type wrapper", `{"_doc":{"properties":{"a":{"type":"keyword"}}}}`, `{"properties":{"a":{"type":"keyword"}}}`},
		{"text with keyword", `{"properties":{"title":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}}}}`,
			`{"properties":{"title":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}}}}`},
		{"defaults omitted", `{"properties":{"a":{"type":"keyword","index":true,"store":false,"doc_values":true,"ignore_above":2147483647,"norms":false}}}`,
			`{"properties":{"a":{"type":"keyword"}}}`},
		{"non-defaults kept in order", `{"properties":{"a":{"null_value":"NULL","store":true,"doc_values":false,"index":false,"type":"keyword","normalizer":"lower","ignore_above":10}}}`,
			`{"properties":{"a":{"type":"keyword","index":false,"doc_values":false,"store":true,"null_value":"NULL","ignore_above":10,"normalizer":"lower"}}}`},
		{"text params", `{"properties":{"t":{"type":"text","analyzer":"my_an","search_analyzer":"standard","index_options":"offsets","norms":false,"copy_to":"all","position_increment_gap":100}}}`,
			`{"properties":{"t":{"type":"text","index_options":"offsets","norms":false,"analyzer":"my_an","search_analyzer":"standard","copy_to":["all"]}}}`},
		{"numbers", `{"properties":{"i":{"type":"integer","coerce":false,"null_value":"5"},"s":{"type":"scaled_float","scaling_factor":100},"f":{"type":"float","null_value":1,"ignore_malformed":true}}}`,
			`{"properties":{"f":{"type":"float","ignore_malformed":true,"null_value":1.0},"i":{"type":"integer","coerce":false,"null_value":5},"s":{"type":"scaled_float","scaling_factor":100.0}}}`},
		{"date", `{"properties":{"d":{"type":"date","format":"yyyy-MM-dd"},"e":{"type":"date","format":"strict_date_optional_time||epoch_millis"}}}`,
			`{"properties":{"d":{"type":"date","format":"yyyy-MM-dd"},"e":{"type":"date"}}}`},
		{"boolean null", `{"properties":{"b":{"type":"boolean","null_value":"true"}}}`, `{"properties":{"b":{"type":"boolean","null_value":true}}}`},
		{"objects", `{"properties":{"o":{"type":"object","properties":{"x":{"type":"long"}}},"e":{"type":"object","enabled":false},"n":{"type":"nested","include_in_parent":true,"properties":{"y":{"type":"keyword"}}},"empty":{"properties":{}}}}`,
			`{"properties":{"e":{"type":"object","enabled":false},"empty":{"type":"object"},"n":{"type":"nested","include_in_parent":true,"properties":{"y":{"type":"keyword"}}},"o":{"properties":{"x":{"type":"long"}}}}}`},
		{"dotted names", `{"properties":{"a.b.c":{"type":"keyword"},"a.d":{"type":"long"}}}`,
			`{"properties":{"a":{"properties":{"b":{"properties":{"c":{"type":"keyword"}}},"d":{"type":"long"}}}}}`},
		{"root params", `{"dynamic":"strict","date_detection":false,"numeric_detection":true,"dynamic_date_formats":["yyyy-MM-dd"],"_source":{"excludes":["x"]},"_routing":{"required":true},"_meta":{"v":1},"dynamic_templates":[{"s":{"match_mapping_type":"string","mapping":{"type":"keyword"}}}],"properties":{"a":{"type":"geo_point"}}}`,
			`{"dynamic":"strict","_meta":{"v":1},"_routing":{"required":true},"_source":{"excludes":["x"]},"dynamic_date_formats":["yyyy-MM-dd"],"dynamic_templates":[{"s":{"match_mapping_type":"string","mapping":{"type":"keyword"}}}],"date_detection":false,"numeric_detection":true,"properties":{"a":{"type":"geo_point"}}}`},
		{"dynamic bool", `{"dynamic":false,"properties":{"o":{"dynamic":true,"properties":{"x":{"type":"keyword"}}}}}`,
			`{"dynamic":"false","properties":{"o":{"dynamic":"true","properties":{"x":{"type":"keyword"}}}}}`},
		{"root enabled", `{"enabled":false}`, `{"enabled":false}`},
		{"enabled-only object", `{"properties":{"o":{"enabled":false}}}`, `{"properties":{"o":{"type":"object","enabled":false}}}`},
		{"meta on field", `{"properties":{"a":{"type":"long","meta":{"unit":"ms"}}}}`, `{"properties":{"a":{"type":"long","meta":{"unit":"ms"}}}}`},
		{"html not escaped", `{"_meta":{"a":"<b>&"}}`, `{"_meta":{"a":"<b>&"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustParse(t, tc.in)
			got := marshal(t, m)
			if got != tc.want {
				t.Fatalf("Marshal =\n%s\nwant\n%s", got, tc.want)
			}
			again := marshal(t, mustParse(t, got))
			if again != got {
				t.Errorf("round trip not stable:\n%s\n%s", got, again)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in, typ, reason string
	}{
		{"unknown type", `{"properties":{"bar":{"type":"foo"}}}`, "mapper_parsing_exception", "No handler for type [foo] declared on field [bar]"},
		{"no type", `{"properties":{"bar":{}}}`, "mapper_parsing_exception", "No type specified for field [bar]"},
		{"unknown param", `{"properties":{"title":{"type":"text","foo":1}}}`, "mapper_parsing_exception", "unknown parameter [foo] on mapper [title] of type [text]"},
		{"doc_values on text", `{"properties":{"t":{"type":"text","doc_values":false}}}`, "mapper_parsing_exception", "unknown parameter [doc_values] on mapper [t] of type [text]"},
		{"unknown analyzer", `{"properties":{"t":{"type":"text","analyzer":"nope"}}}`, "illegal_argument_exception", "analyzer [nope] has not been configured in mappings"},
		{"unknown normalizer", `{"properties":{"k":{"type":"keyword","normalizer":"nope"}}}`, "mapper_parsing_exception", "normalizer [nope] not found for field [k]"},
		{"scaling factor required", `{"properties":{"s":{"type":"scaled_float"}}}`, "illegal_argument_exception", "Field [scaling_factor] is required"},
		{"bad format", `{"properties":{"d":{"type":"date","format":"yyyy-bb"}}}`, "illegal_argument_exception", "Invalid format: [yyyy-bb]: Unknown pattern letter: b"},
		{"bad null_value", `{"properties":{"i":{"type":"integer","null_value":"abc"}}}`, "mapper_parsing_exception", "Failed to parse value [abc] for [null_value] on field [i]"},
		{"bad bool", `{"properties":{"k":{"type":"keyword","index":"yes"}}}`, "mapper_parsing_exception", "Failed to parse value [yes] as only [true] or [false] are allowed."},
		{"negative ignore_above", `{"properties":{"k":{"type":"keyword","ignore_above":-1}}}`, "mapper_parsing_exception", "[ignore_above] must be positive, got [-1]"},
		{"root unsupported", `{"foo":"bar","properties":{}}`, "mapper_parsing_exception", "Root mapping definition has unsupported parameters:  [foo : bar]"},
		{"object unsupported", `{"properties":{"o":{"type":"object","analyzer":"x"}}}`, "mapper_parsing_exception", "Mapping definition for [o] has unsupported parameters:  [analyzer : x]"},
		{"field not a map", `{"properties":{"a":"keyword"}}`, "mapper_parsing_exception", "Expected map for property [fields] on field [a] but got a class java.lang.String"},
		{"multi-field dot", `{"properties":{"a":{"type":"text","fields":{"x.y":{"type":"keyword"}}}}}`, "mapper_parsing_exception", "Field name [x.y] which is a multi field of [a] cannot contain '.'"},
		{"copy_to in multi-field", `{"properties":{"a":{"type":"text","fields":{"k":{"type":"keyword","copy_to":"b"}}}}}`, "mapper_parsing_exception", "copy_to in multi fields is not allowed. Found the copy_to in field [k] which is within a multi field."},
		{"object multi-field", `{"properties":{"a":{"type":"text","fields":{"k":{"type":"object"}}}}}`, "mapper_parsing_exception", "Type [object] cannot be used in multi field"},
		{"bad dynamic", `{"dynamic":"sometimes"}`, "illegal_argument_exception", "Could not convert [_doc.dynamic] to boolean"},
		{"search_analyzer alone", `{"properties":{"t":{"type":"text","search_analyzer":"standard"}}}`, "mapper_parsing_exception", "analyzer on field [t] must be set when search_analyzer is set"},
		{"dotted conflict", `{"properties":{"a":{"type":"keyword"},"a.b":{"type":"keyword"}}}`, "illegal_argument_exception", "mapper [a] cannot be changed from type [keyword] to [ObjectMapper]"},
		{"bad templates", `{"dynamic_templates":{"a":1}}`, "mapper_parsing_exception", "Dynamic template syntax error. An array of named objects is expected."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mapping.Parse(json.RawMessage(tc.in), testRegistry(t))
			checkErr(t, err, tc.typ, tc.reason)
		})
	}
}

func TestCreateIndexError(t *testing.T) {
	_, err := mapping.Parse(json.RawMessage(`{"properties":{"bar":{"type":"foo"}}}`), nil)
	checkErr(t, mapping.CreateIndexError(err), "mapper_parsing_exception",
		"Failed to parse mapping [_doc]: No handler for type [foo] declared on field [bar]",
		"mapper_parsing_exception", "No handler for type [foo] declared on field [bar]")
}

func TestTotalFieldsLimit(t *testing.T) {
	props := map[string]any{}
	for i := 0; i < 1001; i++ {
		props["f"+string(rune('a'+i%26))+json.Number(rune(i)).String()] = map[string]string{"type": "keyword"}
	}
	body, _ := json.Marshal(map[string]any{"properties": props})
	_, err := mapping.Parse(body, nil)
	checkErr(t, err, "illegal_argument_exception", "Limit of total fields [1000] has been exceeded")
}

func TestLookup(t *testing.T) {
	m := mustParse(t, `{"properties":{"title":{"type":"text","fields":{"keyword":{"type":"keyword"},"raw":{"type":"keyword"}}},
		"user":{"properties":{"name":{"type":"keyword"},"age":{"type":"integer"}}},"tags":{"type":"keyword"}}}`)
	if f := m.Lookup("title.keyword"); f == nil || f.Type != "keyword" {
		t.Errorf("Lookup(title.keyword) = %+v", f)
	}
	if f := m.Lookup("user"); f == nil || !f.IsObject() {
		t.Errorf("Lookup(user) = %+v", f)
	}
	if f := m.Lookup("user.age"); f == nil || f.Type != "integer" {
		t.Errorf("Lookup(user.age) = %+v", f)
	}
	if m.Lookup("nope") != nil || m.Lookup("title.nope") != nil {
		t.Error("unmapped path found")
	}
	wantPaths := []string{"tags", "title", "title.keyword", "title.raw", "user.age", "user.name"}
	if got := m.FieldPaths(); !reflect.DeepEqual(got, wantPaths) {
		t.Errorf("FieldPaths = %v", got)
	}
	for pat, want := range map[string][]string{
		"tit*":     {"title", "title.keyword", "title.raw"},
		"*.name":   {"user.name"},
		"user.*":   {"user.age", "user.name"},
		"t*s":      {"tags"},
		"title":    {"title"},
		"user":     nil,
		"*keyword": {"title.keyword"},
	} {
		if got := m.MatchFields(pat); !reflect.DeepEqual(got, want) {
			t.Errorf("MatchFields(%q) = %v, want %v", pat, got, want)
		}
	}
	if m.FieldCount() != 7 {
		t.Errorf("FieldCount = %d", m.FieldCount())
	}
}
