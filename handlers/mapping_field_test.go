package handlers_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestRelease78Mapping covers the 7.8 changes around mappings: typed put
// mapping, the get field mapping API with its deprecated local parameter,
// and the update rules (enabled, include_in_parent/root now fail).
func TestRelease78Mapping(t *testing.T) {
	n := newTestNode(t)
	const js = "application/json"
	if code, b := n.do("PUT", "/m", js, `{"mappings":{"properties":{"title":{"type":"text","fields":{"raw":{"type":"keyword","ignore_above":10}}},"user":{"properties":{"name":{"type":"keyword"}}},"n":{"type":"nested","properties":{"x":{"type":"keyword"}}},"off":{"type":"object","enabled":false}}}}`); code != 200 {
		t.Fatalf("create: %d %v", code, b)
	}
	const (
		typeWarn  = `299 Elasticsearch-7.17.0-quarry "[types removal] Using include_type_name in put mapping requests is deprecated. The parameter will be removed in the next major version."`
		localWarn = `299 Elasticsearch-7.17.0-quarry "Use [local] in get field mapping requests is deprecated. The parameter will be removed in the next major version"`
	)
	cases := []struct {
		name, method, path, body string
		status                   int
		warning                  string
		want                     string
	}{
		{"typed without include_type_name", "PUT", "/m/_mapping/_doc", `{"properties":{"a":{"type":"keyword"}}}`, 400, "",
			`{"error":{"reason":"Types cannot be provided in put mapping requests, unless the include_type_name parameter is set to true.","root_cause":[{"reason":"Types cannot be provided in put mapping requests, unless the include_type_name parameter is set to true.","type":"illegal_argument_exception"}],"type":"illegal_argument_exception"},"status":400}`},
		{"typed with include_type_name", "PUT", "/m/_mapping/_doc?include_type_name=true", `{"_doc":{"properties":{"a":{"type":"keyword"}}}}`, 200, typeWarn, `{"acknowledged":true}`},
		{"typed unwrapped body, POST", "POST", "/m/_mapping/_doc?include_type_name=true", `{"properties":{"b":{"type":"long"}}}`, 200, typeWarn, `{"acknowledged":true}`},
		{"_default_ is refused", "PUT", "/m/_mapping/_default_?include_type_name=true", `{"properties":{}}`, 400, typeWarn, ""},
		{"new multi-field", "PUT", "/m/_mapping", `{"properties":{"title":{"type":"text","fields":{"en":{"type":"text","analyzer":"english"}}}}}`, 200, "", `{"acknowledged":true}`},
		{"new object property", "PUT", "/m/_mapping", `{"properties":{"user":{"properties":{"age":{"type":"short"}}}}}`, 200, "", `{"acknowledged":true}`},
		{"ignore_above update", "PUT", "/m/_mapping", `{"properties":{"title":{"type":"text","fields":{"raw":{"type":"keyword","ignore_above":50}}}}}`, 200, "", `{"acknowledged":true}`},
		{"type change fails", "PUT", "/m/_mapping", `{"properties":{"b":{"type":"keyword"}}}`, 400, "",
			`{"error":{"reason":"mapper [b] cannot be changed from type [long] to [keyword]","root_cause":[{"reason":"mapper [b] cannot be changed from type [long] to [keyword]","type":"illegal_argument_exception"}],"type":"illegal_argument_exception"},"status":400}`},
		{"root enabled fails (7.8)", "PUT", "/m/_mapping", `{"enabled":false}`, 400, "",
			`{"error":{"reason":"the [enabled] parameter can't be updated for the object mapping [_doc]","root_cause":[{"reason":"the [enabled] parameter can't be updated for the object mapping [_doc]","type":"mapper_exception"}],"type":"mapper_exception"},"status":400}`},
		{"object enabled fails", "PUT", "/m/_mapping", `{"properties":{"off":{"type":"object","enabled":true}}}`, 400, "",
			`{"error":{"reason":"the [enabled] parameter can't be updated for the object mapping [off]","root_cause":[{"reason":"the [enabled] parameter can't be updated for the object mapping [off]","type":"mapper_exception"}],"type":"mapper_exception"},"status":400}`},
		{"include_in_parent fails (7.8)", "PUT", "/m/_mapping", `{"properties":{"n":{"type":"nested","include_in_parent":true}}}`, 400, "",
			`{"error":{"reason":"the [include_in_parent] parameter can't be updated on a nested object mapping","root_cause":[{"reason":"the [include_in_parent] parameter can't be updated on a nested object mapping","type":"mapper_exception"}],"type":"mapper_exception"},"status":400}`},
		{"include_in_root fails (7.8)", "PUT", "/m/_mapping", `{"properties":{"n":{"type":"nested","include_in_root":true}}}`, 400, "",
			`{"error":{"reason":"the [include_in_root] parameter can't be updated on a nested object mapping","root_cause":[{"reason":"the [include_in_root] parameter can't be updated on a nested object mapping","type":"mapper_exception"}],"type":"mapper_exception"},"status":400}`},
		{"field mapping", "GET", "/m/_mapping/field/title.raw,user.*", "", 200, "",
			`{"m":{"mappings":{"title.raw":{"full_name":"title.raw","mapping":{"raw":{"ignore_above":50,"type":"keyword"}}},"user.age":{"full_name":"user.age","mapping":{"age":{"type":"short"}}},"user.name":{"full_name":"user.name","mapping":{"name":{"type":"keyword"}}}}}}`},
		{"field mapping local is a deprecated no-op", "GET", "/_mapping/field/a?local=true", "", 200, localWarn,
			`{"m":{"mappings":{"a":{"full_name":"a","mapping":{"a":{"type":"keyword"}}}}}}`},
		{"field mapping no match", "GET", "/m/_mapping/field/nope", "", 200, "", `{"m":{"mappings":{}}}`},
		{"field mapping missing index", "GET", "/zz/_mapping/field/a", "", 404, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, n.URL+tc.path, strings.NewReader(tc.body))
			if tc.body != "" {
				req.Header.Set("Content-Type", js)
			}
			res, err := n.HTTP.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			raw, _ := io.ReadAll(res.Body)
			if res.StatusCode != tc.status {
				t.Fatalf("%s %s status = %d, want %d: %s", tc.method, tc.path, res.StatusCode, tc.status, raw)
			}
			if got := res.Header.Get("Warning"); got != tc.warning {
				t.Errorf("Warning = %q, want %q", got, tc.warning)
			}
			if tc.want != "" && !jsonEqual(raw, tc.want) {
				t.Errorf("%s %s =\n%s\nwant\n%s", tc.method, tc.path, raw, tc.want)
			}
		})
	}
}
