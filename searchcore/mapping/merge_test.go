package mapping_test

import (
	"testing"
)

func TestMerge(t *testing.T) {
	base := `{"dynamic":"true","_meta":{"v":1},"properties":{
		"title":{"type":"text","analyzer":"my_an","fields":{"raw":{"type":"keyword","ignore_above":10}}},
		"tag":{"type":"keyword","ignore_above":5},
		"count":{"type":"integer"},
		"user":{"properties":{"name":{"type":"keyword"}}},
		"n":{"type":"nested","properties":{"x":{"type":"keyword"}}},
		"off":{"type":"object","enabled":false},
		"d":{"type":"date","format":"yyyy-MM-dd"}}}`
	tests := []struct {
		name, update, want string
	}{
		{"new field", `{"properties":{"extra":{"type":"long"}}}`,
			`{"dynamic":"true","_meta":{"v":1},"properties":{"count":{"type":"integer"},"d":{"type":"date","format":"yyyy-MM-dd"},"extra":{"type":"long"},"n":{"type":"nested","properties":{"x":{"type":"keyword"}}},"off":{"type":"object","enabled":false},"tag":{"type":"keyword","ignore_above":5},"title":{"type":"text","analyzer":"my_an","fields":{"raw":{"type":"keyword","ignore_above":10}}},"user":{"properties":{"name":{"type":"keyword"}}}}}`},
		{"new object property and multi-field, ignore_above", `{"properties":{"user":{"properties":{"age":{"type":"short"}}},"title":{"type":"text","analyzer":"my_an","fields":{"en":{"type":"text","analyzer":"english"}}},"tag":{"type":"keyword","ignore_above":100}}}`,
			`{"dynamic":"true","_meta":{"v":1},"properties":{"count":{"type":"integer"},"d":{"type":"date","format":"yyyy-MM-dd"},"n":{"type":"nested","properties":{"x":{"type":"keyword"}}},"off":{"type":"object","enabled":false},"tag":{"type":"keyword","ignore_above":100},"title":{"type":"text","analyzer":"my_an","fields":{"en":{"type":"text","analyzer":"english"},"raw":{"type":"keyword","ignore_above":10}}},"user":{"properties":{"age":{"type":"short"},"name":{"type":"keyword"}}}}}`},
		{"root updatables", `{"dynamic":"strict","_meta":{"v":2},"date_detection":false,"numeric_detection":true}`,
			`{"dynamic":"strict","_meta":{"v":2},"date_detection":false,"numeric_detection":true,"properties":{"count":{"type":"integer"},"d":{"type":"date","format":"yyyy-MM-dd"},"n":{"type":"nested","properties":{"x":{"type":"keyword"}}},"off":{"type":"object","enabled":false},"tag":{"type":"keyword","ignore_above":5},"title":{"type":"text","analyzer":"my_an","fields":{"raw":{"type":"keyword","ignore_above":10}}},"user":{"properties":{"name":{"type":"keyword"}}}}}`},
		{"object dynamic and search analyzer", `{"properties":{"user":{"type":"object","dynamic":false},"title":{"type":"text","analyzer":"my_an","search_analyzer":"standard"},"count":{"type":"integer","coerce":false}}}`,
			`{"dynamic":"true","_meta":{"v":1},"properties":{"count":{"type":"integer","coerce":false},"d":{"type":"date","format":"yyyy-MM-dd"},"n":{"type":"nested","properties":{"x":{"type":"keyword"}}},"off":{"type":"object","enabled":false},"tag":{"type":"keyword","ignore_above":5},"title":{"type":"text","analyzer":"my_an","search_analyzer":"standard","fields":{"raw":{"type":"keyword","ignore_above":10}}},"user":{"dynamic":"false","properties":{"name":{"type":"keyword"}}}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustParse(t, base)
			before := marshal(t, m)
			upd := mustParse(t, tc.update)
			updBefore := marshal(t, upd)
			merged, err := m.Merge(upd)
			if err != nil {
				t.Fatal(err)
			}
			if got := marshal(t, merged); got != tc.want {
				t.Errorf("merged =\n%s\nwant\n%s", got, tc.want)
			}
			if marshal(t, m) != before || marshal(t, upd) != updBefore {
				t.Error("Merge changed its inputs")
			}
			if merged.Lookup("title") == nil {
				t.Error("merged mapping lookup broken")
			}
		})
	}
}

func TestMergeErrors(t *testing.T) {
	base := `{"_source":{"enabled":true},"properties":{
		"foo":{"type":"text"},
		"title":{"type":"text","analyzer":"my_an","fields":{"raw":{"type":"keyword"}}},
		"k":{"type":"keyword","store":true},
		"user":{"properties":{"name":{"type":"keyword"}}},
		"n":{"type":"nested","properties":{"x":{"type":"keyword"}}},
		"off":{"type":"object","enabled":false},
		"d":{"type":"date"},
		"s":{"type":"scaled_float","scaling_factor":10}}}`
	tests := []struct {
		name, update, typ, reason string
	}{
		{"type change", `{"properties":{"foo":{"type":"long"}}}`, "illegal_argument_exception", "mapper [foo] cannot be changed from type [text] to [long]"},
		{"analyzer change", `{"properties":{"title":{"type":"text","analyzer":"english"}}}`, "illegal_argument_exception",
			"Mapper for [title] conflicts with existing mapper:\n\tCannot update parameter [analyzer] from [my_an] to [english]"},
		{"analyzer removed", `{"properties":{"title":{"type":"text"}}}`, "illegal_argument_exception",
			"Mapper for [title] conflicts with existing mapper:\n\tCannot update parameter [analyzer] from [my_an] to [default]"},
		{"two conflicts", `{"properties":{"k":{"type":"keyword","index":false}}}`, "illegal_argument_exception",
			"Mapper for [k] conflicts with existing mapper:\n\tCannot update parameter [index] from [true] to [false]\n\tCannot update parameter [store] from [true] to [false]"},
		{"multi-field type", `{"properties":{"title":{"type":"text","analyzer":"my_an","fields":{"raw":{"type":"text"}}}}}`, "illegal_argument_exception",
			"mapper [title.raw] cannot be changed from type [keyword] to [text]"},
		{"nested path", `{"properties":{"user":{"properties":{"name":{"type":"text"}}}}}`, "illegal_argument_exception",
			"mapper [user.name] cannot be changed from type [keyword] to [text]"},
		{"object to leaf", `{"properties":{"user":{"type":"keyword"}}}`, "illegal_argument_exception", "can't merge a non object mapping [user] with an object mapping"},
		{"leaf to object", `{"properties":{"foo":{"properties":{"x":{"type":"keyword"}}}}}`, "illegal_argument_exception", "mapper [foo] cannot be changed from type [text] to [ObjectMapper]"},
		{"object to nested", `{"properties":{"user":{"type":"nested"}}}`, "illegal_argument_exception", "object mapping [user] can't be changed from non-nested to nested"},
		{"nested to object", `{"properties":{"n":{"type":"object","properties":{}}}}`, "illegal_argument_exception", "object mapping [n] can't be changed from nested to non-nested"},
		{"object enabled", `{"properties":{"off":{"type":"object","enabled":true}}}`, "mapper_exception", "the [enabled] parameter can't be updated for the object mapping [off]"},
		{"root enabled", `{"enabled":false}`, "mapper_exception", "the [enabled] parameter can't be updated for the object mapping [_doc]"},
		{"include_in_parent", `{"properties":{"n":{"type":"nested","include_in_parent":true}}}`, "mapper_exception", "the [include_in_parent] parameter can't be updated on a nested object mapping"},
		{"include_in_root", `{"properties":{"n":{"type":"nested","include_in_root":true}}}`, "mapper_exception", "the [include_in_root] parameter can't be updated on a nested object mapping"},
		{"date format", `{"properties":{"d":{"type":"date","format":"epoch_millis"}}}`, "illegal_argument_exception",
			"Mapper for [d] conflicts with existing mapper:\n\tCannot update parameter [format] from [strict_date_optional_time||epoch_millis] to [epoch_millis]"},
		{"scaling factor", `{"properties":{"s":{"type":"scaled_float","scaling_factor":100}}}`, "illegal_argument_exception",
			"Mapper for [s] conflicts with existing mapper:\n\tCannot update parameter [scaling_factor] from [10.0] to [100.0]"},
		{"_source enabled", `{"_source":{"enabled":false}}`, "illegal_argument_exception",
			"Mapper for [_source] conflicts with existing mapper:\n\tCannot update parameter [enabled] from [true] to [false]"},
		{"_routing", `{"_routing":{"required":true}}`, "illegal_argument_exception",
			"Mapper for [_routing] conflicts with existing mapper:\n\tCannot update parameter [required] from [false] to [true]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustParse(t, base)
			_, err := m.Merge(mustParse(t, tc.update))
			checkErr(t, err, tc.typ, tc.reason)
		})
	}
}
