package handlers_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

const nestedMapping = `{"mappings":{"properties":{
	"title":{"type":"keyword"},
	"comments":{"type":"nested","properties":{"author":{"type":"keyword"},"stars":{"type":"integer"},
		"replies":{"type":"nested","properties":{"who":{"type":"keyword"}}}}},
	"tags":{"type":"nested","include_in_parent":true,"properties":{"name":{"type":"keyword"}}},
	"meta":{"type":"nested","include_in_root":true,"properties":{"k":{"type":"keyword"}}}}}}`

func seedNested(t *testing.T, n *testNode) {
	t.Helper()
	if code, body := n.do("PUT", "/blog", "application/json", nestedMapping); code != 200 {
		t.Fatalf("create = %d %v", code, body)
	}
	bulk := []string{
		`{"index":{"_id":"a"}}`, `{"title":"A","comments":[{"author":"ann","stars":5,"replies":[{"who":"x"},{"who":"y"}]},{"author":"bob","stars":1}],"tags":[{"name":"go"}],"meta":{"k":"v1"}}`,
		`{"index":{"_id":"b"}}`, `{"title":"B","comments":[{"author":"bob","stars":4},{"author":"bob","stars":2}]}`,
		`{"index":{"_id":"c"}}`, `{"title":"C"}`,
	}
	if code, body := n.do("POST", "/blog/_bulk?refresh=true", "application/x-ndjson", strings.Join(bulk, "\n")+"\n"); code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("bulk = %d %v", code, body)
	}
}

// hitScores renders "id:score" pairs in hit order.
func hitScores(body map[string]any) string {
	var out []string
	hits, _ := jsonPath(body, "hits.hits").([]any)
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s:%s", jsonPath(h, "_id"), str(jsonPath(h, "_score"))))
	}
	return strings.Join(out, " ")
}

func TestNestedQuery(t *testing.T) {
	n := newTestNode(t)
	seedNested(t, n)
	// bob comments score 2, comments with 3+ stars 1 (both: 3).
	inner := `{"bool":{"should":[{"constant_score":{"filter":{"term":{"comments.author":"bob"}},"boost":2}},{"constant_score":{"filter":{"range":{"comments.stars":{"gte":3}}},"boost":1}}]}}`
	tests := []struct {
		name, query, want string
	}{
		{"score_mode avg (default)", `{"nested":{"path":"comments","query":` + inner + `}}`, "b:2.5 a:1.5"},
		{"score_mode sum", `{"nested":{"path":"comments","score_mode":"sum","query":` + inner + `}}`, "b:5 a:3"},
		{"score_mode min", `{"nested":{"path":"comments","score_mode":"min","query":` + inner + `}}`, "b:2 a:1"},
		{"score_mode max", `{"nested":{"path":"comments","score_mode":"max","query":` + inner + `}}`, "b:3 a:2"},
		{"score_mode none", `{"nested":{"path":"comments","score_mode":"none","query":` + inner + `}}`, "a:0 b:0"},
		{"boost", `{"nested":{"path":"comments","score_mode":"max","boost":2,"query":` + inner + `}}`, "b:6 a:4"},
		{"each object matched on its own", `{"nested":{"path":"comments","query":{"bool":{"filter":[{"term":{"comments.author":"bob"}},{"range":{"comments.stars":{"gte":5}}}]}}}}`, ""},
		{"object conditions", `{"nested":{"path":"comments","query":{"bool":{"filter":[{"term":{"comments.author":"ann"}},{"range":{"comments.stars":{"gte":5}}}]}}}}`, "a:0"},
		{"nested field outside nested query", `{"term":{"comments.author":"ann"}}`, ""},
		{"include_in_parent", `{"constant_score":{"filter":{"term":{"tags.name":"go"}}}}`, "a:1"},
		{"include_in_root", `{"constant_score":{"filter":{"term":{"meta.k":"v1"}}}}`, "a:1"},
		{"nested in nested", `{"nested":{"path":"comments","query":{"nested":{"path":"comments.replies","query":{"constant_score":{"filter":{"term":{"comments.replies.who":"y"}}}}}}}}`, "a:1"},
		{"deep path joined to the root", `{"nested":{"path":"comments.replies","score_mode":"sum","query":{"constant_score":{"filter":{"terms":{"comments.replies.who":["x","y"]}}}}}}`, "a:2"},
		{"ignore_unmapped", `{"nested":{"path":"nope","ignore_unmapped":true,"query":{"match_all":{}}}}`, ""},
		{"match_all sees top-level documents only", `{"match_all":{}}`, "a:1 b:1 c:1"},
		{"exists inside nested", `{"nested":{"path":"comments","query":{"exists":{"field":"comments.replies"}}}}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", "/blog/_search", "application/json", `{"query":`+tc.query+`,"sort":["_score",{"title":"asc"}],"track_scores":true}`)
			if code != 200 {
				t.Fatalf("status %d: %v", code, body)
			}
			if got := hitScores(body); got != tc.want {
				t.Errorf("hits = %q, want %q", got, tc.want)
			}
		})
	}
	code, body := n.do("POST", "/blog/_count", "application/json", `{"query":{"match_all":{}}}`)
	if code != 200 || str(body["count"]) != "3" {
		t.Errorf("count = %d %v", code, body)
	}
	// Nested objects follow their document through updates and deletes,
	// also across segments that hold no nested documents at all.
	for _, doc := range []string{`{"title":"E"}`, `{"title":"E","comments":{"author":"eve"}}`, `{"title":"E"}`} {
		if code, body := n.do("PUT", "/blog/_doc/e?refresh=true", "application/json", doc); code != 200 && code != 201 {
			t.Fatalf("index e: %d %v", code, body)
		}
	}
	n.do("DELETE", "/blog/_doc/e?refresh=true", "", "")
	n.do("PUT", "/blog/_doc/b?refresh=true", "application/json", `{"title":"B","comments":[{"author":"cid","stars":3}]}`)
	n.do("DELETE", "/blog/_doc/a?refresh=true", "", "")
	for q, want := range map[string]string{
		`{"nested":{"path":"comments","query":{"term":{"comments.author":"bob"}}}}`:                  "",
		`{"nested":{"path":"comments","query":{"term":{"comments.author":"cid"}}}}`:                  "b",
		`{"nested":{"path":"comments.replies","query":{"exists":{"field":"comments.replies.who"}}}}`: "",
		`{"match_all":{}}`: "b,c",
	} {
		_, body := n.do("POST", "/blog/_search", "application/json", `{"query":`+q+`,"sort":["title"]}`)
		if got := strings.Join(hitIDs(body), ","); got != want {
			t.Errorf("after update/delete %s = %q, want %q", q, got, want)
		}
	}
}

func TestNestedReplayAfterRestart(t *testing.T) {
	dir := t.TempDir()
	n := openTestNode(t, dir)
	seedNested(t, n)
	n.Close()
	n = openTestNode(t, dir)
	_, body := n.do("POST", "/blog/_search", "application/json", `{"query":{"nested":{"path":"comments","query":{"term":{"comments.author":"bob"}}}},"sort":["title"]}`)
	if got := strings.Join(hitIDs(body), ","); got != "a,b" {
		t.Errorf("after restart = %q", got)
	}
}

func TestNestedInnerHits(t *testing.T) {
	n := newTestNode(t)
	seedNested(t, n)
	code, raw := n.raw("POST", "/blog/_search", "application/json", `{"query":{"nested":{"path":"comments",
		"query":{"constant_score":{"filter":{"term":{"comments.author":"bob"}}}},"inner_hits":{"name":"bobs","_source":["comments.stars"]}}},"sort":["title"]}`)
	if code != 200 {
		t.Fatalf("status %d: %s", code, raw)
	}
	var hits []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(rawMember(raw, "hits.hits")), &hits); err != nil || len(hits) != 2 {
		t.Fatalf("hits: %v %s", err, raw)
	}
	want := []string{
		`{"bobs":{"hits":{"total":{"value":1,"relation":"eq"},"max_score":1,"hits":[` +
			`{"_index":"blog","_type":"_doc","_id":"a","_nested":{"field":"comments","offset":1},"_score":1,"_source":{"stars":1}}]}}}`,
		`{"bobs":{"hits":{"total":{"value":2,"relation":"eq"},"max_score":1,"hits":[` +
			`{"_index":"blog","_type":"_doc","_id":"b","_nested":{"field":"comments","offset":0},"_score":1,"_source":{"stars":4}},` +
			`{"_index":"blog","_type":"_doc","_id":"b","_nested":{"field":"comments","offset":1},"_score":1,"_source":{"stars":2}}]}}}`,
	}
	for i, h := range hits {
		if got := string(h["inner_hits"]); got != want[i] {
			t.Errorf("hit %d inner_hits:\n got %s\nwant %s", i, got, want[i])
		}
	}
	// from/size/sort; a deeper path's identity names each level.
	code, raw = n.raw("POST", "/blog/_search?rest_total_hits_as_int=true", "application/json", `{"query":{"nested":{"path":"comments.replies",
		"query":{"match_all":{}},"inner_hits":{"from":1,"size":1,"sort":[{"comments.replies.who":"desc"}]}}}}`)
	wantDeep := `{"comments.replies":{"hits":{"total":2,"max_score":null,"hits":[` +
		`{"_index":"blog","_type":"_doc","_id":"a","_nested":{"field":"comments","offset":0,"_nested":{"field":"replies","offset":0}},"_score":null,"_source":{"who":"x"},"sort":["x"]}]}}}`
	var deep []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(rawMember(raw, "hits.hits")), &deep); code != 200 || err != nil || len(deep) != 1 {
		t.Fatalf("deep inner hits: %d %v %s", code, err, raw)
	}
	if got := string(deep[0]["inner_hits"]); got != wantDeep {
		t.Errorf("deep inner hits:\n got %s\nwant %s", got, wantDeep)
	}
}

func TestNestedErrors(t *testing.T) {
	n := newTestNode(t)
	seedNested(t, n)
	tests := []struct {
		name, body  string
		code        int
		typ, reason string
	}{
		{"missing path", `{"query":{"nested":{"query":{"match_all":{}}}}}`, 400, "parsing_exception", "[nested] requires 'path' field"},
		{"missing query", `{"query":{"nested":{"path":"comments"}}}`, 400, "parsing_exception", "[nested] requires 'query' field"},
		{"unknown member", `{"query":{"nested":{"path":"comments","query":{"match_all":{}},"x":1}}}`, 400, "parsing_exception", "[nested] query does not support [x]"},
		{"bad score_mode", `{"query":{"nested":{"path":"comments","score_mode":"median","query":{"match_all":{}}}}}`, 400, "illegal_argument_exception", "No score mode for child query [median] found"},
		{"unmapped path", `{"query":{"nested":{"path":"nope","query":{"match_all":{}}}}}`, 400, "search_phase_execution_exception", "[nested] failed to find nested object under path [nope]"},
		{"not nested", `{"query":{"nested":{"path":"title","query":{"match_all":{}}}}}`, 400, "search_phase_execution_exception", "[nested] nested object under path [title] is not of nested type"},
		{"inner window", `{"query":{"nested":{"path":"comments","query":{"match_all":{}},"inner_hits":{"from":95,"size":10}}}}`, 400, "search_phase_execution_exception",
			"Inner result window is too large, the inner hit definition's [comments]'s from + size must be less than or equal to: [100] but was [105]. This limit can be set by changing the [index.max_inner_result_window] index level setting."},
		{"duplicate inner_hits name", `{"query":{"bool":{"should":[{"nested":{"path":"comments","query":{"match_all":{}},"inner_hits":{}}},{"nested":{"path":"comments","query":{"match_all":{}},"inner_hits":{}}}]}}}`, 400, "search_phase_execution_exception",
			"[inner_hits] already contains an entry for key [comments]"},
		{"unknown inner_hits option", `{"query":{"nested":{"path":"comments","query":{"match_all":{}},"inner_hits":{"bogus":1}}}}`, 400, "x_content_parse_exception", "[inner_hits] unknown field [bogus]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", "/blog/_search", "application/json", tc.body)
			if code != tc.code || str(jsonPath(body, "error.type")) != `"`+tc.typ+`"` {
				t.Fatalf("= %d %s", code, str(body))
			}
			reason := jsonPath(body, "error.root_cause.0.reason")
			if str(reason) != str(tc.reason) {
				t.Errorf("reason = %s, want %q", str(reason), tc.reason)
			}
			if tc.typ == "search_phase_execution_exception" {
				checkAllShardsFailed(t, body)
			}
		})
	}
}

func TestNestedLimits(t *testing.T) {
	n := newTestNode(t)
	var props []string
	for i := 0; i < 51; i++ {
		props = append(props, fmt.Sprintf(`"n%d":{"type":"nested"}`, i))
	}
	code, body := n.do("PUT", "/many", "application/json", `{"mappings":{"properties":{`+strings.Join(props, ",")+`}}}`)
	if code != 400 || !strings.Contains(str(body), "Limit of nested fields [50] has been exceeded") {
		t.Errorf("51 nested fields: %d %s", code, str(body))
	}
	n.do("PUT", "/objs", "application/json", `{"mappings":{"properties":{"n":{"type":"nested","properties":{"v":{"type":"integer"}}}}}}`)
	objs := strings.TrimSuffix(strings.Repeat(`{"v":1},`, 10001), ",")
	code, body = n.do("PUT", "/objs/_doc/1", "application/json", `{"n":[`+objs+`]}`)
	if code != 400 || str(jsonPath(body, "error.type")) != `"mapper_parsing_exception"` ||
		str(jsonPath(body, "error.reason")) != `"The number of nested documents has exceeded the allowed limit of [10000]. This limit can be set by changing the [index.mapping.nested_objects.limit] index level setting."` {
		t.Errorf("10001 nested objects: %d %s", code, str(body))
	}
	objs = strings.TrimSuffix(strings.Repeat(`{"v":1},`, 10000), ",")
	if code, body = n.do("PUT", "/objs/_doc/1", "application/json", `{"n":[`+objs+`]}`); code != 201 {
		t.Errorf("10000 nested objects: %d %s", code, str(body))
	}
	// index.mapping.nested_objects.limit lowers the limit (0 forbids nested objects).
	n.do("PUT", "/objs2", "application/json", `{"settings":{"index.mapping.nested_objects.limit":2},"mappings":{"properties":{"n":{"type":"nested"}}}}`)
	if code, _ = n.do("PUT", "/objs2/_doc/1", "application/json", `{"n":[{"v":1},{"v":2}]}`); code != 201 {
		t.Errorf("2 objects under limit 2: %d", code)
	}
	code, body = n.do("PUT", "/objs2/_doc/2", "application/json", `{"n":[{"v":1},{"v":2},{"v":3}]}`)
	if code != 400 || !strings.Contains(str(body), "allowed limit of [2]") {
		t.Errorf("3 objects under limit 2: %d %s", code, str(body))
	}
	n.do("PUT", "/objs2/_settings", "application/json", `{"index.mapping.nested_objects.limit":0}`)
	code, body = n.do("PUT", "/objs2/_doc/3", "application/json", `{"n":{"v":1}}`)
	if code != 400 || !strings.Contains(str(body), "allowed limit of [0]") {
		t.Errorf("1 object under limit 0: %d %s", code, str(body))
	}
	code, body = n.do("PUT", "/blog2", "application/json", `{"mappings":{"properties":{"c":{"type":"nested"}}}}`)
	if code != 200 {
		t.Fatalf("create: %d %v", code, body)
	}
	code, body = n.do("PUT", "/blog2/_mapping", "application/json", `{"properties":{"c":{"type":"nested","include_in_parent":true}}}`)
	if code != 400 || !strings.Contains(str(body), "the [include_in_parent] parameter can't be updated on a nested object mapping") {
		t.Errorf("include_in_parent change: %d %s", code, str(body))
	}
}

func TestNestedAggregations(t *testing.T) {
	n := newTestNode(t)
	seedNested(t, n)
	aggs := `{"c":{"nested":{"path":"comments"},"aggs":{
		"authors":{"terms":{"field":"comments.author"},"aggs":{"back":{"reverse_nested":{},"aggs":{"titles":{"terms":{"field":"title"}}}}}},
		"avg_stars":{"avg":{"field":"comments.stars"}},
		"r":{"nested":{"path":"comments.replies"},"aggs":{"w":{"terms":{"field":"comments.replies.who"}},
			"up":{"reverse_nested":{"path":"comments"},"aggs":{"s":{"sum":{"field":"comments.stars"}}}}}}}},
		"none":{"nested":{"path":"unmapped"}}}`
	code, raw := n.raw("POST", "/blog/_search?size=0", "application/json", `{"aggs":`+aggs+`}`)
	want := `{"c":{"doc_count":4,` +
		`"authors":{"doc_count_error_upper_bound":0,"sum_other_doc_count":0,"buckets":[` +
		`{"key":"bob","doc_count":3,"back":{"doc_count":2,"titles":{"doc_count_error_upper_bound":0,"sum_other_doc_count":0,"buckets":[{"key":"A","doc_count":1},{"key":"B","doc_count":1}]}}},` +
		`{"key":"ann","doc_count":1,"back":{"doc_count":1,"titles":{"doc_count_error_upper_bound":0,"sum_other_doc_count":0,"buckets":[{"key":"A","doc_count":1}]}}}]},` +
		`"avg_stars":{"value":3.0},` +
		`"r":{"doc_count":2,"w":{"doc_count_error_upper_bound":0,"sum_other_doc_count":0,"buckets":[{"key":"x","doc_count":1},{"key":"y","doc_count":1}]},"up":{"doc_count":1,"s":{"value":5.0}}}},` +
		`"none":{"doc_count":0}}`
	if got := rawMember(raw, "aggregations"); code != 200 || got != want {
		t.Errorf("aggregations:\n got %s\nwant %s", got, want)
	}
	// The query narrows the documents whose nested objects are counted.
	code, raw = n.raw("POST", "/blog/_search?size=0", "application/json", `{"query":{"term":{"title":"B"}},"aggs":{"c":{"nested":{"path":"comments"},"aggs":{"s":{"sum":{"field":"comments.stars"}}}}}}`)
	if got := rawMember(raw, "aggregations"); code != 200 || got != `{"c":{"doc_count":2,"s":{"value":6.0}}}` {
		t.Errorf("filtered nested agg = %d %s", code, got)
	}
	for _, tc := range []struct{ aggs, typ, reason string }{
		{`{"x":{"nested":{}}}`, "parsing_exception", "Missing [path] field for nested aggregation [x]"},
		{`{"x":{"nested":{"path":"title"}}}`, "aggregation_execution_exception", "[nested] nested path [title] is not nested"},
		{`{"x":{"reverse_nested":{}}}`, "illegal_argument_exception", "Reverse nested aggregation [x] can only be used inside a [nested] aggregation"},
		{`{"x":{"nested":{"path":"comments"},"aggs":{"y":{"reverse_nested":{"path":"tags"}}}}}`, "illegal_argument_exception",
			"Reverse nested aggregation [y] path [tags] is not a parent of the current nested path [comments]"},
	} {
		// The parsing error answers the request; the others fail the shard.
		code, body := n.do("POST", "/blog/_search", "application/json", `{"aggs":`+tc.aggs+`}`)
		cause := jsonPath(body, "error")
		if tc.typ != "parsing_exception" {
			if jsonPath(body, "error.type") != "search_phase_execution_exception" {
				t.Errorf("%s = %d %s", tc.aggs, code, str(body))
				continue
			}
			cause = checkAllShardsFailed(t, body)
		}
		if code != 400 || str(jsonPath(cause, "type")) != `"`+tc.typ+`"` || str(jsonPath(cause, "reason")) != str(tc.reason) {
			t.Errorf("%s = %d %s", tc.aggs, code, str(body))
		}
	}
}

// TestNestedFetchFields checks the fields option groups nested values as
// Elasticsearch 7.17 does: one object per nested object under the
// outermost nested path, keys relative to it, deeper nested fields grouped
// again, objects without a requested value left out.
func TestNestedFetchFields(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/nf", "application/json", `{"mappings":{"properties":{
		"group":{"type":"keyword"},
		"user":{"type":"nested","properties":{
			"first":{"type":"keyword"},"age":{"type":"long"},
			"name":{"type":"text","fields":{"raw":{"type":"keyword"}}},
			"pets":{"type":"nested","properties":{"kind":{"type":"keyword"}}},
			"addr":{"properties":{"city":{"type":"keyword"}}}}}}}}`)
	code, body := n.do("PUT", "/nf/_doc/1?refresh=true", "application/json", `{"group":"fans","user":[
		{"first":"John","age":30,"name":"John Smith","pets":[{"kind":"cat"},{"kind":"dog"}],"addr":{"city":"Paris"}},
		{"first":"Alice","name":"Alice White"},
		{"age":7}]}`)
	if code != 201 {
		t.Fatalf("index = %d %v", code, body)
	}
	tests := []struct{ name, fields, want string }{
		{"one nested leaf", `["user.first"]`, `{"user":[{"first":["John"]},{"first":["Alice"]}]}`},
		{"root and nested", `["group","user.age"]`, `{"group":["fans"],"user":[{"age":[30]},{"age":[7]}]}`},
		{"multi-field and object inside nested", `["user.name.raw","user.addr.city"]`,
			`{"user":[{"addr.city":["Paris"],"name.raw":["John Smith"]},{"name.raw":["Alice White"]}]}`},
		{"nested inside nested", `["user.pets.kind"]`, `{"user":[{"pets":[{"kind":["cat"]},{"kind":["dog"]}]}]}`},
		{"wildcard", `["user.*"]`, `{"user":[` +
			`{"addr.city":["Paris"],"age":[30],"first":["John"],"name":["John Smith"],"name.raw":["John Smith"],"pets":[{"kind":["cat"]},{"kind":["dog"]}]},` +
			`{"first":["Alice"],"name":["Alice White"],"name.raw":["Alice White"]},` +
			`{"age":[7]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkFirstHitFields(t, n, "/nf/_search", `{"_source":false,"fields":`+tt.fields+`}`, tt.want)
		})
	}
}

// TestNestedDocValueFields checks docvalue_fields of a top-level hit: the
// doc values of nested objects' fields are in the nested documents, so a
// hit has none unless include_in_root or include_in_parent (at every
// level) copies them into the top-level document.
func TestNestedDocValueFields(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/ndv", "application/json", `{"mappings":{"properties":{
		"tag":{"type":"keyword"},
		"plain":{"type":"nested","properties":{"v":{"type":"long"},"deep":{"type":"nested","include_in_parent":true,"properties":{"w":{"type":"long"}}}}},
		"rooted":{"type":"nested","include_in_root":true,"properties":{"v":{"type":"long"}}},
		"parented":{"type":"nested","include_in_parent":true,"properties":{"v":{"type":"long"},
			"deep":{"type":"nested","include_in_parent":true,"properties":{"w":{"type":"long"}}}}}}}}`)
	code, body := n.do("PUT", "/ndv/_doc/1?refresh=true", "application/json", `{"tag":"t",
		"plain":[{"v":1,"deep":[{"w":10}]}],"rooted":[{"v":2},{"v":3}],"parented":[{"v":4,"deep":[{"w":40},{"w":41}]}]}`)
	if code != 201 {
		t.Fatalf("index = %d %v", code, body)
	}
	checkFirstHitFields(t, n, "/ndv/_search", `{"_source":false,"docvalue_fields":["tag","plain.*","rooted.v","parented.*"]}`,
		`{"parented.deep.w":[40,41],"parented.v":[4],"rooted.v":[2,3],"tag":["t"]}`)
}

// TestNestedInnerHitsScoresAndHighlight checks inner hits score their
// nested documents as the nested query does (ES BM25 over the nested
// documents, computed here by hand) and highlight them with the nested
// query's inner query.
func TestNestedInnerHitsScoresAndHighlight(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/nh", "application/json", `{"mappings":{"properties":{"comments":{"type":"nested","properties":{
		"text":{"type":"text"},"author":{"type":"keyword"}}}}}}`)
	n.do("PUT", "/nh/_doc/1?refresh=true", "application/json", `{"comments":[
		{"text":"the quick fox","author":"ann"},{"text":"slow dog","author":"bob"},{"text":"quick quick","author":"cy"}]}`)
	code, raw := n.raw("POST", "/nh/_search", "application/json", `{"_source":false,"query":{"nested":{"path":"comments",
		"query":{"match":{"comments.text":"quick"}},
		"inner_hits":{"_source":false,"highlight":{"pre_tags":["["],"post_tags":["]"],"fields":{"comments.*":{}}}}}}}`)
	if code != 200 {
		t.Fatalf("status %d %s", code, raw)
	}
	// 3 nested documents have the field, 2 contain "quick"; lengths 3, 2, 2
	idf := math.Log(1 + (3-2+0.5)/(2+0.5))
	avgdl := 7.0 / 3
	score := func(freq, dl float64) float64 { return 2.2 * idf * freq / (freq + 1.2*(0.25+0.75*dl/avgdl)) }
	var res struct {
		Hits struct {
			Hits []struct {
				Score     float64 `json:"_score"`
				InnerHits map[string]struct {
					Hits struct {
						MaxScore float64 `json:"max_score"`
						Hits     []struct {
							Nested    struct{ Offset int } `json:"_nested"`
							Score     float64              `json:"_score"`
							Highlight map[string][]string  `json:"highlight"`
						} `json:"hits"`
					} `json:"hits"`
				} `json:"inner_hits"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Hits.Hits) != 1 {
		t.Fatalf("decode: %v %s", err, raw)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }
	hit := res.Hits.Hits[0]
	if want := (score(2, 2) + score(1, 3)) / 2; !near(hit.Score, want) {
		t.Errorf("root score = %v, want %v", hit.Score, want)
	}
	ih := hit.InnerHits["comments"].Hits
	if !near(ih.MaxScore, score(2, 2)) || len(ih.Hits) != 2 {
		t.Fatalf("inner hits = %s", raw)
	}
	want := []struct {
		offset int
		score  float64
		hl     string
	}{{2, score(2, 2), `{"comments.text":["[quick] [quick]"]}`}, {0, score(1, 3), `{"comments.text":["the [quick] fox"]}`}}
	for i, w := range want {
		h := ih.Hits[i]
		if h.Nested.Offset != w.offset || !near(h.Score, w.score) || str(h.Highlight) != w.hl {
			t.Errorf("inner hit %d = offset %d score %v highlight %s, want %d %v %s", i, h.Nested.Offset, h.Score, str(h.Highlight), w.offset, w.score, w.hl)
		}
	}
}
