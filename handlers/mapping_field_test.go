package handlers_test

import (
	"fmt"
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
		{"_default_ is stored, not merged into the type", "PUT", "/m/_mapping/_default_?include_type_name=true", `{"properties":{"b":{"type":"keyword"}}}`, 200, typeWarn + "\n" + defaultWarn, `{"acknowledged":true}`},
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
			wantWarnedResponse(t, n, tc.method, tc.path, tc.body, tc.status, tc.warning, tc.want)
		})
	}
}

// wantWarnedResponse sends one JSON request and checks the status, the
// Warning headers (exactly, one a line, "" for none) and, when want is not
// empty, the body (as JSON).
func wantWarnedResponse(t *testing.T, n *testNode, method, path, body string, status int, warning, want string) {
	t.Helper()
	req, _ := http.NewRequest(method, n.URL+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := n.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		t.Fatalf("%s %s status = %d, want %d: %s", method, path, res.StatusCode, status, raw)
	}
	if got := strings.Join(res.Header.Values("Warning"), "\n"); got != warning {
		t.Errorf("Warning = %q, want %q", got, warning)
	}
	if want != "" && !jsonEqual(raw, want) {
		t.Errorf("%s %s =\n%s\nwant\n%s", method, path, raw, want)
	}
}

// The Warning headers of include_type_name in each typed API (7.x wording).
const (
	createWarn = `299 Elasticsearch-7.17.0-quarry "[types removal] Using include_type_name in create index requests is deprecated. The parameter will be removed in the next major version."`
	putWarn    = `299 Elasticsearch-7.17.0-quarry "[types removal] Using include_type_name in put mapping requests is deprecated. The parameter will be removed in the next major version."`
	getWarn    = `299 Elasticsearch-7.17.0-quarry "[types removal] Using include_type_name in get mapping requests is deprecated. The parameter will be removed in the next major version."`
	indexWarn  = "299 Elasticsearch-7.17.0-quarry \"[types removal] Using `include_type_name` in get indices requests is deprecated. The parameter will be removed in the next major version.\""
	fieldWarn  = `299 Elasticsearch-7.17.0-quarry "[types removal] Using include_type_name in get field mapping requests is deprecated. The parameter will be removed in the next major version."`
)

// TestTypedMappings covers include_type_name=true across the mapping APIs
// as in 7.x: an index holds one mapping type, named by a typed create or
// put mapping (else _doc); the typed get APIs nest the mapping under it;
// every use of the parameter answers its deprecation warning.
func TestTypedMappings(t *testing.T) {
	dir := t.TempDir()
	n := openTestNode(t, dir)
	const (
		moreTypes = `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Rejecting mapping update to [typed] as the final mapping would have more than 1 type: [not_doc, %s]"}],"type":"illegal_argument_exception","reason":"Rejecting mapping update to [typed] as the final mapping would have more than 1 type: [not_doc, %s]"},"status":400}`
	)
	typedMapping := `{"typed":{"mappings":{"not_doc":{"properties":{"bar":{"type":"long"},"baz":{"type":"long"},"foo":{"type":"keyword"}}}}}}`
	cases := []struct {
		name, method, path, body string
		status                   int
		warning, want            string
	}{
		{"typed create", "PUT", "/typed?include_type_name=true", `{"mappings":{"not_doc":{"properties":{"foo":{"type":"keyword"}}}}}`, 200, createWarn,
			`{"acknowledged":true,"shards_acknowledged":true,"index":"typed"}`},
		{"typeless put on a typed index", "PUT", "/typed/_mapping?include_type_name=false", `{"properties":{"bar":{"type":"long"}}}`, 200, putWarn, `{"acknowledged":true}`},
		{"typeless get", "GET", "/typed/_mapping?include_type_name=false", "", 200, getWarn,
			`{"typed":{"mappings":{"properties":{"bar":{"type":"long"},"foo":{"type":"keyword"}}}}}`},
		{"second type", "PUT", "/typed/_mapping/other?include_type_name=true", `{"other":{"properties":{"bar":{"type":"long"}}}}`, 400, putWarn,
			fmt.Sprintf(moreTypes, "other", "other")},
		{"wrapped _doc is a second type", "PUT", "/typed/_mapping/_doc?include_type_name=true", `{"_doc":{"properties":{"bar":{"type":"long"}}}}`, 400, putWarn,
			fmt.Sprintf(moreTypes, "_doc", "_doc")},
		{"bare _doc updates the index's type", "PUT", "/typed/_mapping/_doc?include_type_name=true", `{"properties":{"baz":{"type":"long"}}}`, 200, putWarn, `{"acknowledged":true}`},
		{"own type, wrapped", "POST", "/typed/_mapping/not_doc?include_type_name=true", `{"not_doc":{"properties":{"baz":{"type":"long"}}}}`, 200, putWarn, `{"acknowledged":true}`},
		{"typed get mapping", "GET", "/typed/_mapping?include_type_name=true", "", 200, getWarn, typedMapping},
		{"typed get index", "GET", "/typed?include_type_name=true&filter_path=*.mappings", "", 200, indexWarn, typedMapping},
		{"typed field mapping", "GET", "/typed/_mapping/field/foo?include_type_name=true", "", 200, fieldWarn,
			`{"typed":{"mappings":{"not_doc":{"foo":{"full_name":"foo","mapping":{"foo":{"type":"keyword"}}}}}}}`},
		{"untyped put with include_type_name", "PUT", "/typed/_mapping?include_type_name=true", `{"not_doc":{}}`, 400, putWarn,
			`{"error":{"root_cause":[{"type":"action_request_validation_exception","reason":"Validation Failed: 1: mapping type is missing;"}],"type":"action_request_validation_exception","reason":"Validation Failed: 1: mapping type is missing;"},"status":400}`},
		{"no mapping yet: no type", "PUT", "/empty", "", 200, "", ""},
		{"typed get of an index without mapping", "GET", "/empty/_mapping?include_type_name=true", "", 200, getWarn, `{"empty":{"mappings":{}}}`},
		{"first typed put names the type", "PUT", "/empty/_mapping/mine?include_type_name=true", `{"mine":{"properties":{"a":{"type":"long"}}}}`, 200, putWarn, `{"acknowledged":true}`},
		{"typed get after it", "GET", "/empty/_mapping?include_type_name=true", "", 200, getWarn, `{"empty":{"mappings":{"mine":{"properties":{"a":{"type":"long"}}}}}}`},
		{"typeless index is _doc", "PUT", "/plain", `{"mappings":{"properties":{"a":{"type":"long"}}}}`, 200, "", ""},
		{"typeless index typed get", "GET", "/plain/_mapping?include_type_name=true", "", 200, getWarn, `{"plain":{"mappings":{"_doc":{"properties":{"a":{"type":"long"}}}}}}`},
		{"typed put wrapped in another name", "PUT", "/plain/_mapping/_doc?include_type_name=true", `{"wrong":{"properties":{"z":{"type":"long"}}}}`, 400, putWarn,
			`{"error":{"root_cause":[{"type":"mapper_parsing_exception","reason":"Root mapping definition has unsupported parameters:  [wrong : {properties={z={type=long}}}]"}],"type":"mapper_parsing_exception","reason":"Root mapping definition has unsupported parameters:  [wrong : {properties={z={type=long}}}]"},"status":400}`},
		{"_default_ without include_type_name", "PUT", "/plain/_mapping/_default_", `{"properties":{}}`, 400, "",
			`{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Types cannot be provided in put mapping requests, unless the include_type_name parameter is set to true."}],"type":"illegal_argument_exception","reason":"Types cannot be provided in put mapping requests, unless the include_type_name parameter is set to true."},"status":400}`},
		{"typeless create with a custom type name", "PUT", "/bad", `{"mappings":{"mytype":{"properties":{"z":{"type":"long"}}}}}`, 400, "",
			`{"error":{"root_cause":[{"type":"mapper_parsing_exception","reason":"Root mapping definition has unsupported parameters:  [mytype : {properties={z={type=long}}}]"}],"type":"mapper_parsing_exception","reason":"Failed to parse mapping [_doc]: Root mapping definition has unsupported parameters:  [mytype : {properties={z={type=long}}}]","caused_by":{"type":"mapper_parsing_exception","reason":"Root mapping definition has unsupported parameters:  [mytype : {properties={z={type=long}}}]"}},"status":400}`},
		{"typed create with two types", "PUT", "/bad?include_type_name=true", `{"mappings":{"t2":{},"t1":{}}}`, 400, createWarn,
			`{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Rejecting mapping update to [bad] as the final mapping would have more than 1 type: [t1, t2]"}],"type":"illegal_argument_exception","reason":"Rejecting mapping update to [bad] as the final mapping would have more than 1 type: [t1, t2]"},"status":400}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantWarnedResponse(t, n, tc.method, tc.path, tc.body, tc.status, tc.warning, tc.want)
		})
	}
	// The type survives a restart.
	n.Close()
	n = openTestNode(t, dir)
	wantWarnedResponse(t, n, "GET", "/typed/_mapping?include_type_name=true", "", 200, getWarn, typedMapping)
}
