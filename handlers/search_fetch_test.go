package handlers_test

import (
	"strings"
	"testing"
)

// seedFetch indexes one document covering every doc-value type.
func seedFetch(t *testing.T, n *testNode) {
	t.Helper()
	code, body := n.do("PUT", "/fetch", "application/json", `{
		"settings":{"index.max_docvalue_fields_search":12,"index.max_script_fields":1,
			"analysis":{"normalizer":{"lc":{"type":"custom","filter":["lowercase"]}}}},
		"mappings":{"dynamic":false,"properties":{
		"title":{"type":"text","fields":{"raw":{"type":"keyword"}}},
		"tag":{"type":"keyword"},"code":{"type":"keyword","normalizer":"lc","ignore_above":5},
		"n":{"type":"long"},"i":{"type":"integer"},"f":{"type":"float"},"h":{"type":"half_float"},
		"s":{"type":"scaled_float","scaling_factor":10},"dbl":{"type":"double"},
		"d":{"type":"date"},"dn":{"type":"date_nanos"},"dc":{"type":"date","format":"dd/MM/yyyy"},
		"b":{"type":"boolean"},"g":{"type":"geo_point"},"nv":{"type":"long","null_value":7},
		"obj":{"properties":{"x":{"type":"keyword"}}}}}}`)
	if code != 200 {
		t.Fatalf("create = %d %v", code, body)
	}
	doc := `{"title":"Hello World","tag":["b","a","b"],"code":["ABC","TooLongCode"],"n":[30,1,20,1],"i":5,
		"f":3.14,"h":1.1,"s":2.345,"dbl":0.1,"d":"2020-01-02T03:04:05.678Z","dn":"2018-10-29T12:12:12.123456789Z",
		"dc":"05/03/2021","b":[true,false],"g":{"lat":41.12,"lon":-71.34},"nv":null,"obj":{"x":"in"},"extra":"unmapped"}`
	if code, body := n.do("PUT", "/fetch/_doc/1?refresh=true", "application/json", doc); code != 201 {
		t.Fatalf("index = %d %v", code, body)
	}
}

func TestSearchDocValueFields(t *testing.T) {
	n := newTestNode(t)
	seedFetch(t, n)
	tests := []struct {
		name, path, body string
		want             string // hits.hits.0.fields
	}{
		{"keyword sorted and de-duplicated", "", `{"docvalue_fields":["tag"]}`, `{"tag":["a","b"]}`},
		{"keyword normalised, ignore_above dropped", "", `{"docvalue_fields":["code"]}`, `{"code":["abc"]}`},
		{"multi-field", "", `{"docvalue_fields":["title.raw"]}`, `{"title.raw":["Hello World"]}`},
		{"long sorted with duplicates", "", `{"docvalue_fields":["n"]}`, `{"n":[1,1,20,30]}`},
		{"float at float precision", "", `{"docvalue_fields":["f"]}`, `{"f":[3.140000104904175]}`},
		{"half_float at half precision", "", `{"docvalue_fields":["h"]}`, `{"h":[1.099609375]}`},
		{"scaled_float rounded to the factor", "", `{"docvalue_fields":["s"]}`, `{"s":[2.3]}`},
		{"double", "", `{"docvalue_fields":["dbl"]}`, `{"dbl":[0.1]}`},
		{"null_value", "", `{"docvalue_fields":["nv"]}`, `{"nv":[7]}`},
		{"boolean", "", `{"docvalue_fields":["b"]}`, `{"b":[false,true]}`},
		{"date default format", "", `{"docvalue_fields":["d"]}`, `{"d":["2020-01-02T03:04:05.678Z"]}`},
		{"date mapping format", "", `{"docvalue_fields":["dc"]}`, `{"dc":["05/03/2021"]}`},
		{"date epoch_millis", "", `{"docvalue_fields":[{"field":"d","format":"epoch_millis"}]}`, `{"d":["1577934245678"]}`},
		{"date custom format", "", `{"docvalue_fields":[{"field":"d","format":"yyyy/MM/dd HH:mm"}]}`, `{"d":["2020/01/02 03:04"]}`},
		{"date_nanos default keeps nanos", "", `{"docvalue_fields":["dn"]}`, `{"dn":["2018-10-29T12:12:12.123456789Z"]}`},
		{"date_nanos epoch_millis fraction", "", `{"docvalue_fields":[{"field":"dn","format":"epoch_millis"}]}`, `{"dn":["1540815132123.456789"]}`},
		{"geo_point at index precision", "", `{"docvalue_fields":["g"]}`, `{"g":["41.1199999647215, -71.34000004269183"]}`},
		{"decimal format", "", `{"docvalue_fields":[{"field":"n","format":"#,##0.00"},{"field":"i","format":"000"}]}`,
			`{"i":["005"],"n":["1.00","1.00","20.00","30.00"]}`},
		{"use_field_mapping is the default", "", `{"docvalue_fields":[{"field":"i","format":"use_field_mapping"}]}`, `{"i":[5]}`},
		{"wildcard over mapped fields", "", `{"docvalue_fields":["t*g","obj.*"]}`, `{"obj.x":["in"],"tag":["a","b"]}`},
		{"unmapped field is skipped", "", `{"docvalue_fields":["extra","nope","i"]}`, `{"i":[5]}`},
		{"same field twice appends", "", `{"docvalue_fields":["d",{"field":"d","format":"epoch_second"}]}`, `{"d":["2020-01-02T03:04:05.678Z","1577934245.678"]}`},
		{"URL parameter", "?docvalue_fields=i,tag", ``, `{"i":[5],"tag":["a","b"]}`},
		{"URL parameter adds to the body", "?docvalue_fields=i", `{"docvalue_fields":["b"]}`, `{"b":[false,true],"i":[5]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkFirstHitFields(t, n, "/fetch/_search"+tt.path, tt.body, tt.want)
		})
	}
}

// checkFirstHitFields runs a search and compares the "fields" of its first
// hit with want.
func checkFirstHitFields(t *testing.T, n *testNode, path, body, want string) {
	t.Helper()
	code, res := n.do("POST", path, "application/json", body)
	if code != 200 {
		t.Fatalf("status = %d %v", code, res)
	}
	if got := str(jsonPath(res, "hits.hits.0.fields")); got != want {
		t.Errorf("fields = %s\nwant     %s", got, want)
	}
}

func TestSearchFieldsOption(t *testing.T) {
	n := newTestNode(t)
	seedFetch(t, n)
	tests := []struct {
		name, body, want string
	}{
		{"keyword in source order, normalised", `{"fields":["tag","code"]}`, `{"code":["abc"],"tag":["b","a","b"]}`},
		{"text and its multi-field", `{"fields":["title*"]}`, `{"title":["Hello World"],"title.raw":["Hello World"]}`},
		{"numbers parsed by type", `{"fields":["n","f","h","s","i"]}`, `{"f":[3.14],"h":[1.1],"i":[5],"n":[30,1,20,1],"s":[2.3]}`},
		{"dates with mapping and request formats", `{"fields":["d",{"field":"dc"},{"field":"dn","format":"strict_date_optional_time"}]}`,
			`{"d":["2020-01-02T03:04:05.678Z"],"dc":["05/03/2021"],"dn":["2018-10-29T12:12:12.123Z"]}`},
		{"geo_point as GeoJSON and WKT", `{"fields":["g"]}`, `{"g":[{"coordinates":[-71.34,41.12],"type":"Point"}]}`},
		{"geo_point wkt", `{"fields":[{"field":"g","format":"wkt"}]}`, `{"g":["POINT (-71.34 41.12)"]}`},
		{"null_value and booleans", `{"fields":["nv","b"]}`, `{"b":[true,false],"nv":[7]}`},
		{"object leaves by pattern", `{"fields":["obj.*"]}`, `{"obj.x":["in"]}`},
		{"unmapped excluded", `{"fields":["extra"]}`, `null`},
		{"unmapped with include_unmapped", `{"fields":[{"field":"extra","include_unmapped":true}]}`, `{"extra":["unmapped"]}`},
		{"unmapped by pattern with include_unmapped", `{"fields":[{"field":"ex*","include_unmapped":true},{"field":"o*","include_unmapped":true}]}`,
			`{"extra":["unmapped"],"obj.x":["in"]}`},
		{"with docvalue_fields the fields option wins", `{"fields":["tag"],"docvalue_fields":["tag"]}`, `{"tag":["b","a","b"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := n.do("POST", "/fetch/_search", "application/json", tt.body)
			if code != 200 {
				t.Fatalf("status = %d %v", code, body)
			}
			if got := str(jsonPath(body, "hits.hits.0.fields")); got != tt.want {
				t.Errorf("fields = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestSearchFetchErrors(t *testing.T) {
	n := newTestNode(t)
	seedFetch(t, n)
	many := `"a1","a2","a3","a4","a5","a6","a7","a8","a9","a10","a11","a12","a13"`
	tests := []struct {
		name, path, body string
		status           int
		errType, reason  string
	}{
		{"docvalue_fields limit counts mapped fields", "", `{"docvalue_fields":["*"]}`, 400, "search_phase_execution_exception/illegal_argument_exception",
			"Trying to retrieve too many mapped docvalue_fields. Must be less than or equal to: [12] but was [17]. This limit can be set by changing the [index.max_docvalue_fields_search] index level setting."},
		{"unmapped names do not count", "", `{"docvalue_fields":[` + many + `]}`, 200, "", ""},
		{"text field without fielddata", "", `{"docvalue_fields":["title"]}`, 400, "search_phase_execution_exception/illegal_argument_exception",
			"Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [title] in order to load field data by uninverting the inverted index. Note that this can use significant memory."},
		{"format on keyword", "", `{"docvalue_fields":[{"field":"tag","format":"x"}]}`, 400, "search_phase_execution_exception/illegal_argument_exception",
			"Field [tag] of type [keyword] does not support custom formats"},
		{"bad date format", "", `{"docvalue_fields":[{"field":"d","format":"yyyy-MM-dd'T"}]}`, 400, "search_phase_execution_exception/illegal_argument_exception", ""},
		{"fields format on a number", "", `{"fields":[{"field":"n","format":"0.0"}]}`, 400, "search_phase_execution_exception/illegal_argument_exception",
			"Field [n] of type [long] doesn't support formats."},
		{"docvalue_fields not an array", "", `{"docvalue_fields":"tag"}`, 400, "parsing_exception", "Unknown key for a VALUE_STRING in [docvalue_fields]."},
		{"docvalue_fields unknown member", "", `{"docvalue_fields":[{"field":"tag","fmt":"x"}]}`, 400, "parsing_exception", "[docvalue_fields] unknown field [fmt]"},
		{"script_fields over the limit", "", `{"script_fields":{"a":{"script":"1"},"b":{"script":"2"}}}`, 400, "search_phase_execution_exception/illegal_argument_exception",
			"Trying to retrieve too many script_fields. Must be less than or equal to: [1] but was [2]. This limit can be set by changing the [index.max_script_fields] index level setting."},
		{"script_fields are not executed", "", `{"script_fields":{"a":{"script":"1"}}}`, 400, "search_phase_execution_exception/illegal_argument_exception",
			"[script_fields] are not supported: this node does not execute scripts; use [fields] or [docvalue_fields] instead"},
		{"_none_ with _source requested", "", `{"stored_fields":"_none_","_source":["tag"]}`, 400, "search_phase_execution_exception/search_exception",
			"[stored_fields] cannot be disabled if [_source] is requested"},
		{"_none_ with fields", "", `{"stored_fields":"_none_","fields":["tag"]}`, 400, "search_phase_execution_exception/search_exception",
			"[stored_fields] cannot be disabled when using the [fields] option"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := n.do("POST", "/fetch/_search"+tt.path, "application/json", tt.body)
			if code != tt.status {
				t.Fatalf("status = %d %v, want %d", code, body, tt.status)
			}
			if tt.status == 200 {
				return
			}
			typ, reason := searchErrorOf(t, body)
			if typ != tt.errType {
				t.Errorf("type = %q, want %q (%v)", typ, tt.errType, body)
			}
			if tt.reason != "" && reason != tt.reason {
				t.Errorf("reason = %q\nwant     %q", reason, tt.reason)
			}
		})
	}
}

func TestSearchStoredFieldsAndSource(t *testing.T) {
	n := newTestNode(t)
	code, body := n.do("PUT", "/sf", "application/json", `{"mappings":{"properties":{"a":{"type":"keyword","store":true},"b":{"type":"keyword"}}}}`)
	if code != 200 {
		t.Fatalf("create = %d %v", code, body)
	}
	n.do("PUT", "/sf/_doc/1?refresh=true&routing=r1", "application/json", `{"a":"x","b":"y"}`)
	tests := []struct {
		name, path, body string
		want             string // the hit without _index, _type and _score
	}{
		{"default", "", `{}`, `{"_id":"1","_routing":"r1","_source":{"a":"x","b":"y"}}`},
		{"empty stored_fields drops _source", "", `{"stored_fields":[]}`, `{"_id":"1","_routing":"r1"}`},
		{"stored_fields list", "", `{"stored_fields":["a","b"]}`, `{"_id":"1","_routing":"r1","fields":{"a":["x"]}}`},
		{"stored_fields with _source", "", `{"stored_fields":["a","_source"]}`, `{"_id":"1","_routing":"r1","_source":{"a":"x","b":"y"},"fields":{"a":["x"]}}`},
		{"stored_fields with explicit _source filter", "", `{"stored_fields":["a"],"_source":["b"]}`, `{"_id":"1","_routing":"r1","_source":{"b":"y"},"fields":{"a":["x"]}}`},
		{"_none_ drops _id and metadata", "", `{"stored_fields":"_none_"}`, `{}`},
		{"_none_ keeps docvalue_fields", "", `{"stored_fields":"_none_","docvalue_fields":["b"]}`, `{"fields":{"b":["y"]}}`},
		{"URL stored_fields replaces the body's", "?stored_fields=a", `{"stored_fields":"_none_"}`, `{"_id":"1","_routing":"r1","fields":{"a":["x"]}}`},
		{"URL _source_includes replaces the body's _source", "?_source_includes=a", `{"_source":"b"}`, `{"_id":"1","_routing":"r1","_source":{"a":"x"}}`},
		{"URL _source=false", "?_source=false", `{"_source":true}`, `{"_id":"1","_routing":"r1"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := n.do("POST", "/sf/_search"+tt.path, "application/json", tt.body)
			if code != 200 {
				t.Fatalf("status = %d %v", code, body)
			}
			hit, _ := jsonPath(body, "hits.hits.0").(map[string]any)
			if hit["_index"] != "sf" {
				t.Fatalf("hit = %v", hit)
			}
			delete(hit, "_index")
			delete(hit, "_type")
			delete(hit, "_score")
			if got := str(hit); got != tt.want {
				t.Errorf("hit = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestDateNanosRange(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/ns", "application/json", `{"mappings":{"properties":{"date":{"type":"date_nanos"}}}}`)
	tests := []struct{ value, reason string }{
		{"1969-10-28T12:12:12.123456789Z", "date[1969-10-28T12:12:12.123456789Z] is before the epoch in 1970 and cannot be stored in nanosecond resolution"},
		{"2263-10-29T12:12:12.123456789Z", "date[2263-10-29T12:12:12.123456789Z] is after 2262-04-11T23:47:16.854775807 and cannot be stored in nanosecond resolution"},
		{"1970-01-01T00:30:00+00:30", ""},
		{"2262-04-11T23:47:16.854775807Z", ""},
		{"2262-04-11T23:47:16.854775808Z", "date[2262-04-11T23:47:16.854775808Z] is after 2262-04-11T23:47:16.854775807 and cannot be stored in nanosecond resolution"},
		{"1969-12-31T23:59:59.5Z", "date[1969-12-31T23:59:59.500Z] is before the epoch in 1970 and cannot be stored in nanosecond resolution"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			code, body := n.do("PUT", "/ns/_doc/1", "application/json", `{"date":"`+tt.value+`"}`)
			if tt.reason == "" {
				if code != 200 && code != 201 {
					t.Fatalf("status = %d %v", code, body)
				}
				return
			}
			if code != 400 || errType(body) != "mapper_parsing_exception" {
				t.Fatalf("status = %d %v", code, body)
			}
			if got, _ := jsonPath(body, "error.caused_by.reason").(string); got != tt.reason {
				t.Errorf("caused_by = %q\nwant        %q", got, tt.reason)
			}
			if got, _ := jsonPath(body, "error.caused_by.type").(string); got != "illegal_argument_exception" {
				t.Errorf("caused_by.type = %q", got)
			}
		})
	}
}

// TestDocValueFieldsAcrossDateAndDateNanos runs 240_date_nanos.yml's case:
// one field name, date in one index and date_nanos in the other.
func TestDocValueFieldsAcrossDateAndDateNanos(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/date_ns", "application/json", `{"settings":{"number_of_shards":3},"mappings":{"properties":{"date":{"type":"date_nanos"}}}}`)
	n.do("PUT", "/date_ms", "application/json", `{"settings":{"number_of_shards":3},"mappings":{"properties":{"date":{"type":"date"}}}}`)
	bulk := strings.Join([]string{
		`{"index":{"_index":"date_ns","_id":"date_ns_1"}}`, `{"date":"2018-10-29T12:12:12.123456789Z"}`,
		`{"index":{"_index":"date_ms","_id":"date_ms_1"}}`, `{"date":"2018-10-29T12:12:12.987Z"}`,
	}, "\n") + "\n"
	if code, body := n.do("POST", "/_bulk?refresh=true", "application/x-ndjson", bulk); code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("bulk = %d %v", code, body)
	}
	code, body := n.do("POST", "/date*/_search", "application/json", `{"docvalue_fields":[
		{"field":"date","format":"strict_date_optional_time"},{"field":"date","format":"epoch_millis"},
		{"field":"date","format":"uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSSX"}],"sort":[{"date":"desc"}]}`)
	if code != 200 {
		t.Fatalf("search = %d %v", code, body)
	}
	if got := strings.Join(hitIDs(body), ","); got != "date_ns_1,date_ms_1" {
		t.Errorf("order = %s (raw longs: nanos sort after millis)", got)
	}
	want := []string{
		`["2018-10-29T12:12:12.123Z","1540815132123.456789","2018-10-29T12:12:12.123456789Z"]`,
		`["2018-10-29T12:12:12.987Z","1540815132987","2018-10-29T12:12:12.987000000Z"]`,
	}
	for i, w := range want {
		if got := str(jsonPath(body, "hits.hits."+string(rune('0'+i))+".fields.date")); got != w {
			t.Errorf("hit %d date = %s, want %s", i, got, w)
		}
	}
}

func TestDocValueFieldsUseFieldMappingWarning(t *testing.T) {
	n := newTestNode(t)
	seedFetch(t, n)
	for _, tt := range []struct {
		format string
		warn   bool
	}{{"use_field_mapping", true}, {"000", false}} {
		res, err := n.HTTP.Post(n.URL+"/fetch/_search", "application/json",
			strings.NewReader(`{"docvalue_fields":[{"field":"i","format":"`+tt.format+`"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		got := res.Header.Get("Warning")
		want := ""
		if tt.warn {
			want = `"[use_field_mapping] is a special format that was only used to ease the transition to 7.x. It has become the default and shouldn't be set explicitly anymore."`
		}
		if res.StatusCode != 200 || !strings.HasSuffix(got, want) || (want == "") != (got == "") {
			t.Errorf("%s: status %d, Warning = %q", tt.format, res.StatusCode, got)
		}
	}
}
