package searchcore

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestWithDefaults checks the _default_ merge of XContentHelper.mergeDefaults:
// content wins, objects merge recursively, single-key object lists merge by
// key (defaults after content), other lists are the defaults then the new
// content values, and numbers stay exact.
func TestWithDefaults(t *testing.T) {
	cases := []struct{ name, content, defaults, want string }{
		{"no defaults", `{"a":1}`, ``, `{"a":1}`},
		{"content wins, objects merge", `{"dynamic":"true","properties":{"a":{"type":"text"}}}`,
			`{"dynamic":"strict","date_detection":false,"properties":{"a":{"type":"keyword","ignore_above":9},"b":{"type":"long"}}}`,
			`{"dynamic":"true","date_detection":false,"properties":{"a":{"type":"text","ignore_above":9},"b":{"type":"long"}}}`},
		{"templates by name", `{"dynamic_templates":[{"x":{"mapping":{"type":"text"}}},{"y":{"mapping":{"type":"long"}}}]}`,
			`{"dynamic_templates":[{"z":{"mapping":{"type":"keyword"}}},{"x":{"match":"x*","mapping":{"type":"keyword"}}}]}`,
			`{"dynamic_templates":[{"x":{"match":"x*","mapping":{"type":"text"}}},{"y":{"mapping":{"type":"long"}}},{"z":{"mapping":{"type":"keyword"}}}]}`},
		{"plain lists", `{"dynamic_date_formats":["yyyy","MM/dd"]}`, `{"dynamic_date_formats":["MM/dd","dd"]}`,
			`{"dynamic_date_formats":["MM/dd","dd","yyyy"]}`},
		{"exact numbers", `{}`, `{"properties":{"n":{"type":"long","null_value":9007199254740993}}}`,
			`{"properties":{"n":{"type":"long","null_value":9007199254740993}}}`},
		{"not an object is left to the parser", `[1]`, `{"a":1}`, `[1]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := withDefaults(json.RawMessage(tc.content), json.RawMessage(tc.defaults))
			if err != nil {
				t.Fatal(err)
			}
			g, err := decodeObjectNumbers(got)
			w, err2 := decodeObjectNumbers(json.RawMessage(tc.want))
			if err != nil || err2 != nil {
				if string(got) != tc.want {
					t.Fatalf("got %s, want %s", got, tc.want)
				}
				return
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
