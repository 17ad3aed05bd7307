package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/quarry-search/quarry/clients/clusterclient"
)

func ptr[T any](v T) *T { return &v }

func TestInfoAndPing(t *testing.T) {
	n := newTestNode(t)
	ctx := context.Background()
	res, err := n.Client.InfoWithResponse(ctx, &clusterclient.InfoParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != 200 || res.JSON200 == nil {
		t.Fatalf("GET / status = %d, body %s", res.StatusCode(), res.Body)
	}
	var body map[string]any
	_ = json.Unmarshal(res.Body, &body)
	for path, want := range map[string]string{
		"name":                 `"node-1"`,
		"cluster_name":         `"test-cluster"`,
		"version.number":       `"7.17.0"`,
		"version.build_flavor": `"default"`,
		"tagline":              `"You Know, for Search"`,
	} {
		if got := str(jsonPath(body, path)); got != want {
			t.Errorf("GET / %s = %s, want %s", path, got, want)
		}
	}
	ping, err := n.Client.PingWithResponse(ctx, &clusterclient.PingParams{})
	if err != nil {
		t.Fatal(err)
	}
	if ping.StatusCode() != 200 || len(ping.Body) != 0 {
		t.Errorf("HEAD / = %d %q, want 200 with no body", ping.StatusCode(), ping.Body)
	}
}

func TestIndexGetDeleteLifecycle(t *testing.T) {
	n := newTestNode(t)
	ctx := context.Background()
	doc := clusterclient.DocumentSource(`{"title":"hello world","n":1}`)
	res, err := n.Client.IndexWithResponse(ctx, "books", "1", &clusterclient.IndexParams{}, doc)
	if err != nil {
		t.Fatal(err)
	}
	var idx map[string]any
	_ = json.Unmarshal(res.Body, &idx)
	if res.StatusCode() != 201 {
		t.Fatalf("index status = %d, want 201: %s", res.StatusCode(), res.Body)
	}
	for path, want := range map[string]string{
		"_index": `"books"`, "_id": `"1"`, "_version": "1", "result": `"created"`, "_seq_no": "0", "_primary_term": "1",
		"_shards.total": "2", "_shards.successful": "1", "_shards.failed": "0",
	} {
		if got := str(jsonPath(idx, path)); got != want {
			t.Errorf("index %s = %s, want %s", path, got, want)
		}
	}
	// Second write is an update with the next version and sequence number.
	res, err = n.Client.IndexWithResponse(ctx, "books", "1", &clusterclient.IndexParams{}, clusterclient.DocumentSource(`{"title":"hello again","n":2}`))
	if err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(res.Body, &idx)
	if res.StatusCode() != 200 || str(idx["result"]) != `"updated"` || str(idx["_version"]) != "2" || str(idx["_seq_no"]) != "1" {
		t.Errorf("re-index = %d %s, want 200 updated v2 seq 1", res.StatusCode(), res.Body)
	}
	// Realtime GET sees it before any refresh.
	get, err := n.Client.GetWithResponse(ctx, "books", "1", &clusterclient.GetParams{})
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]any
	_ = json.Unmarshal(get.Body, &g)
	if get.StatusCode() != 200 || str(g["found"]) != "true" || rawMember(get.Body, "_source") != `{"title":"hello again","n":2}` || str(g["_version"]) != "2" {
		t.Errorf("GET = %d %s", get.StatusCode(), get.Body)
	}
	// Source filtering on GET.
	get, _ = n.Client.GetWithResponse(ctx, "books", "1", &clusterclient.GetParams{SourceIncludes: ptr([]string{"n"})})
	_ = json.Unmarshal(get.Body, &g)
	if got := str(g["_source"]); got != `{"n":2}` {
		t.Errorf("GET _source_includes=n _source = %s, want {\"n\":2}", got)
	}
	// _source endpoint.
	code, _ := n.do("GET", "/books/_source/1", "", "")
	if code != 200 {
		t.Errorf("GET _source status = %d", code)
	}
	// Delete, then GET is 404 with found false, delete again is not_found.
	del, err := n.Client.DeleteWithResponse(ctx, "books", "1", &clusterclient.DeleteParams{})
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	_ = json.Unmarshal(del.Body, &d)
	if del.StatusCode() != 200 || str(d["result"]) != `"deleted"` || str(d["_version"]) != "3" {
		t.Errorf("DELETE = %d %s, want deleted v3", del.StatusCode(), del.Body)
	}
	get, _ = n.Client.GetWithResponse(ctx, "books", "1", &clusterclient.GetParams{})
	_ = json.Unmarshal(get.Body, &g)
	if get.StatusCode() != 404 || str(g["found"]) != "false" {
		t.Errorf("GET deleted = %d %s, want 404 found:false", get.StatusCode(), get.Body)
	}
	del, _ = n.Client.DeleteWithResponse(ctx, "books", "1", &clusterclient.DeleteParams{})
	_ = json.Unmarshal(del.Body, &d)
	if del.StatusCode() != 404 || str(d["result"]) != `"not_found"` {
		t.Errorf("DELETE missing = %d %s, want 404 not_found", del.StatusCode(), del.Body)
	}
	// Re-creating after delete continues the version line.
	res, _ = n.Client.IndexWithResponse(ctx, "books", "1", &clusterclient.IndexParams{}, doc)
	_ = json.Unmarshal(res.Body, &idx)
	if str(idx["_version"]) != "5" || str(idx["result"]) != `"created"` {
		t.Errorf("index after delete = %s, want created v5", res.Body)
	}
}

func TestConcurrencyControl(t *testing.T) {
	n := newTestNode(t)
	put := func(path, body string) (int, map[string]any) {
		return n.do("PUT", path, "application/json", body)
	}
	put("/cc/_doc/1", `{"a":1}`)
	tests := []struct {
		name, method, path, body string
		wantStatus               int
		wantType                 string
		wantReason               string
	}{
		{"create existing", "PUT", "/cc/_create/1", `{"a":2}`, 409, "version_conflict_engine_exception", "[1]: version conflict, document already exists (current version [1])"},
		{"op_type create existing", "PUT", "/cc/_doc/1?op_type=create", `{"a":2}`, 409, "version_conflict_engine_exception", "[1]: version conflict, document already exists (current version [1])"},
		{"if_seq_no mismatch", "PUT", "/cc/_doc/1?if_seq_no=5&if_primary_term=1", `{"a":2}`, 409, "version_conflict_engine_exception", "[1]: version conflict, required seqNo [5], primary term [1]. current document has seqNo [0] and primary term [1]"},
		{"if_seq_no missing doc", "PUT", "/cc/_doc/2?if_seq_no=0&if_primary_term=1", `{"a":2}`, 409, "version_conflict_engine_exception", "[2]: version conflict, required seqNo [0], primary term [1] but no document was found"},
		{"if_seq_no match", "PUT", "/cc/_doc/1?if_seq_no=0&if_primary_term=1", `{"a":3}`, 200, "", ""},
		{"external lower", "PUT", "/cc/_doc/3?version=5&version_type=external", `{"a":1}`, 201, "", ""},
		{"external equal", "PUT", "/cc/_doc/3?version=5&version_type=external", `{"a":1}`, 409, "version_conflict_engine_exception", "[3]: version conflict, current version [5] is higher or equal to the one provided [5]"},
		{"external_gte equal", "PUT", "/cc/_doc/3?version=5&version_type=external_gte", `{"a":1}`, 200, "", ""},
		{"external_gte lower", "PUT", "/cc/_doc/3?version=4&version_type=external_gte", `{"a":1}`, 409, "version_conflict_engine_exception", "[3]: version conflict, current version [5] is higher than the one provided [4]"},
		{"internal version", "PUT", "/cc/_doc/1?version=1", `{"a":1}`, 400, "action_request_validation_exception", "Validation Failed: 1: internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead;"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do(tc.method, tc.path, "application/json", tc.body)
			if code != tc.wantStatus {
				t.Fatalf("%s %s status = %d, want %d: %v", tc.method, tc.path, code, tc.wantStatus, body)
			}
			if tc.wantType != "" {
				if got := str(jsonPath(body, "error.type")); got != `"`+tc.wantType+`"` {
					t.Errorf("error.type = %s, want %s", got, tc.wantType)
				}
				if got := jsonPath(body, "error.reason"); got != tc.wantReason {
					t.Errorf("error.reason = %v, want %v", got, tc.wantReason)
				}
				if got := str(jsonPath(body, "error.root_cause.0.type")); got != `"`+tc.wantType+`"` {
					t.Errorf("root_cause type = %s", got)
				}
				if got := str(body["status"]); got != str(json.Number(itoa(tc.wantStatus))) {
					t.Errorf("status member = %s, want %d", got, tc.wantStatus)
				}
			}
		})
	}
	_ = put
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestUpdate(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/u/_doc/1", "application/json", `{"a":1,"o":{"x":1,"y":2},"list":[1,2]}`)
	tests := []struct {
		name, body  string
		id          string
		wantStatus  int
		wantResult  string
		wantSource  string
		wantErrType string
	}{
		{"partial merge", `{"doc":{"o":{"y":3},"b":true}}`, "1", 200, "updated", `{"a":1,"o":{"x":1,"y":3},"list":[1,2],"b":true}`, ""},
		{"noop", `{"doc":{"a":1}}`, "1", 200, "noop", `{"a":1,"o":{"x":1,"y":3},"list":[1,2],"b":true}`, ""},
		{"array replaced", `{"doc":{"list":[3]}}`, "1", 200, "updated", `{"a":1,"o":{"x":1,"y":3},"list":[3],"b":true}`, ""},
		{"missing doc", `{"doc":{"a":1}}`, "2", 404, "", "", "document_missing_exception"},
		{"upsert", `{"doc":{"a":5},"upsert":{"a":0}}`, "3", 201, "created", `{"a":0}`, ""},
		{"doc_as_upsert", `{"doc":{"a":7},"doc_as_upsert":true}`, "4", 201, "created", `{"a":7}`, ""},
		{"unknown field", `{"docs":{"a":7}}`, "1", 400, "", "", "parsing_exception"},
		{"script refused", `{"script":"ctx._source.a++"}`, "1", 400, "", "", "illegal_argument_exception"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, rawBody := n.raw("POST", "/u/_update/"+tc.id+"?_source=true", "application/json", tc.body)
			var body map[string]any
			_ = json.Unmarshal(rawBody, &body)
			if code != tc.wantStatus {
				t.Fatalf("status = %d, want %d: %v", code, tc.wantStatus, body)
			}
			if tc.wantErrType != "" {
				if got := jsonPath(body, "error.type"); got != tc.wantErrType {
					t.Errorf("error.type = %v, want %s", got, tc.wantErrType)
				}
				return
			}
			if got := body["result"]; got != tc.wantResult {
				t.Errorf("result = %v, want %s", got, tc.wantResult)
			}
			if got := rawMember(rawBody, "get._source"); got != tc.wantSource {
				t.Errorf("get._source = %s, want %s", got, tc.wantSource)
			}
		})
	}
}

func TestBulk(t *testing.T) {
	n := newTestNode(t)
	ctx := context.Background()
	body := strings.Join([]string{
		`{"index":{"_index":"b","_id":"1"}}`, `{"f":1}`,
		`{"create":{"_index":"b","_id":"1"}}`, `{"f":2}`,
		`{"index":{"_index":"b","_id":""}}`, `{"f":3}`,
		`{"index":{"_index":"b","_id":"bad"}}`, `{"f":"not a number"}`,
		`{"update":{"_index":"b","_id":"1"}}`, `{"doc":{"g":"x"}}`,
		`{"delete":{"_index":"b","_id":"1"}}`,
		`{"delete":{"_index":"b","_id":"nope"}}`,
		`{"index":{"_index":"b"}}`, `{"f":4}`,
		"",
	}, "\n")
	res, err := n.Client.BulkWithBodyWithResponse(ctx, &clusterclient.BulkParams{Refresh: ptr(clusterclient.RefreshTrue)}, "application/x-ndjson", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != 200 {
		t.Fatalf("bulk status = %d: %s", res.StatusCode(), res.Body)
	}
	var out map[string]any
	_ = json.Unmarshal(res.Body, &out)
	if str(out["errors"]) != "true" {
		t.Errorf("errors = %v, want true", out["errors"])
	}
	want := []struct{ op, status, result, errType string }{
		{"index", "201", `"created"`, ""},
		{"create", "409", "", "version_conflict_engine_exception"},
		{"index", "400", "", "illegal_argument_exception"},
		{"index", "400", "", "mapper_parsing_exception"},
		{"update", "200", `"updated"`, ""},
		{"delete", "200", `"deleted"`, ""},
		{"delete", "404", `"not_found"`, ""},
		{"index", "201", `"created"`, ""},
	}
	items, _ := out["items"].([]any)
	if len(items) != len(want) {
		t.Fatalf("items = %d, want %d: %s", len(items), len(want), res.Body)
	}
	for i, w := range want {
		item := jsonPath(items[i], w.op)
		if item == nil {
			t.Errorf("item %d: no %q member: %s", i, w.op, str(items[i]))
			continue
		}
		if got := str(jsonPath(item, "status")); got != w.status {
			t.Errorf("item %d status = %s, want %s", i, got, w.status)
		}
		if w.result != "" && str(jsonPath(item, "result")) != w.result {
			t.Errorf("item %d result = %s, want %s", i, str(jsonPath(item, "result")), w.result)
		}
		if w.errType != "" && str(jsonPath(item, "error.type")) != `"`+w.errType+`"` {
			t.Errorf("item %d error.type = %s, want %s", i, str(jsonPath(item, "error.type")), w.errType)
		}
	}
	// Only the auto-id document is left (1 was deleted, "bad" failed).
	code, cnt := n.do("GET", "/b/_count", "", "")
	if code != 200 || str(cnt["count"]) != "1" {
		t.Errorf("count = %d %v, want 1", code, cnt)
	}
}

func TestBulkMalformedWritesNothing(t *testing.T) {
	n := newTestNode(t)
	tests := []struct {
		name, body, reason string
	}{
		{"empty action", "{\"index\":{\"_index\":\"m\",\"_id\":\"1\"}}\n{\"f\":1}\n{}\n", "Malformed action/metadata line [3], expected FIELD_NAME but found [END_OBJECT]"},
		{"unknown action", "{\"index\":{\"_index\":\"m\",\"_id\":\"1\"}}\n{\"f\":1}\n{\"upsert\":{}}\n{}\n", "Malformed action/metadata line [3], expected field [create], [delete], [index] or [update] but found [upsert]"},
		{"unknown parameter", "{\"index\":{\"_index\":\"m\",\"_id\":\"1\",\"foo\":1}}\n{\"f\":1}\n", "Action/metadata line [1] contains an unknown parameter [foo]"},
		{"no final newline", "{\"index\":{\"_index\":\"m\",\"_id\":\"1\"}}\n{\"f\":1}", "The bulk request must be terminated by a newline [\\n]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", "/_bulk?refresh=true", "application/x-ndjson", tc.body)
			if code != 400 {
				t.Fatalf("status = %d, want 400: %v", code, body)
			}
			if got := jsonPath(body, "error.reason"); got != tc.reason {
				t.Errorf("reason = %v, want %v", got, tc.reason)
			}
			if code, _ := n.do("HEAD", "/m", "", ""); code != 404 {
				t.Errorf("index m exists after a rejected bulk (status %d)", code)
			}
		})
	}
	// An empty body is a validation error.
	code, body := n.do("POST", "/_bulk", "application/x-ndjson", "")
	if code != 400 || jsonPath(body, "error.reason") != "Validation Failed: 1: no requests added;" {
		t.Errorf("empty bulk = %d %v", code, body)
	}
}

func TestBadInput(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/typed", "application/json", `{"mappings":{"properties":{"n":{"type":"integer"}}}}`)
	tests := []struct {
		name, method, path, ctype, body string
		status                          int
		errType                         string
		reason                          string
	}{
		{"unknown parameter", "GET", "/typed/_search?foo=1", "", "", 400, "illegal_argument_exception", "request [/typed/_search] contains unrecognized parameter: [foo]"},
		{"wrong type for mapped field", "PUT", "/typed/_doc/1", "application/json", `{"n":"abc"}`, 400, "mapper_parsing_exception", ""},
		{"malformed document", "PUT", "/typed/_doc/2", "application/json", `{"n":`, 400, "mapper_parsing_exception", ""},
		{"index exists", "PUT", "/typed", "application/json", ``, 400, "resource_already_exists_exception", ""},
		{"bad index name", "PUT", "/Upper", "application/json", ``, 400, "invalid_index_name_exception", "Invalid index name [Upper], must be lowercase"},
		{"missing index", "GET", "/nope/_doc/1", "", "", 404, "index_not_found_exception", "no such index [nope]"},
		{"unknown search key", "POST", "/typed/_search", "application/json", `{"bogus":1}`, 400, "parsing_exception", "Unknown key for a VALUE_NUMBER in [bogus]."},
		{"window too large", "POST", "/typed/_search", "application/json", `{"from":9995,"size":10}`, 400, "search_phase_execution_exception", "all shards failed"},
		{"unknown query", "POST", "/typed/_search", "application/json", `{"query":{"nope":{}}}`, 400, "parsing_exception", ""},
		{"bad refresh value", "PUT", "/typed/_doc/3?refresh=sometimes", "application/json", `{"n":1}`, 400, "illegal_argument_exception", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do(tc.method, tc.path, tc.ctype, tc.body)
			if code != tc.status {
				t.Fatalf("status = %d, want %d: %v", code, tc.status, body)
			}
			if got := jsonPath(body, "error.type"); got != tc.errType {
				t.Errorf("error.type = %v, want %v (%v)", got, tc.errType, body)
			}
			if tc.reason != "" && jsonPath(body, "error.reason") != tc.reason {
				t.Errorf("error.reason = %v, want %v", jsonPath(body, "error.reason"), tc.reason)
			}
			if tc.errType == "search_phase_execution_exception" {
				checkAllShardsFailed(t, body)
			}
		})
	}
	// Nothing was written by the failed document writes.
	if code, body := n.do("GET", "/typed/_count", "", ""); code != 200 || str(body["count"]) != "0" {
		t.Errorf("count after rejected writes = %v, want 0", body)
	}
	// Unknown routes answer like Elasticsearch.
	code, body := n.do("GET", "/a/b/c/d", "", "")
	if code != 400 || body["error"] != "no handler found for uri [/a/b/c/d] and method [GET]" {
		t.Errorf("unknown route = %d %v", code, body)
	}
}

func TestOversizeBody(t *testing.T) {
	n := newTestNode(t) // limit 8mb in tests
	big := `{"f":"` + strings.Repeat("x", 9<<20) + `"}`
	code, body := n.do("PUT", "/big/_doc/1", "application/json", big)
	if code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status = %d, want 413: %v", code, body)
	}
	if code, _ := n.do("HEAD", "/big", "", ""); code != 404 {
		t.Errorf("index created by a rejected request (status %d)", code)
	}
}
