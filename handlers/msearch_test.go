package handlers_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/quarry-search/quarry/clients/clusterclient"
)

// ndjson joins lines into an NDJSON body (with the final newline).
func ndjson(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// seedMsearch indexes the documents the multi search tests query.
func seedMsearch(t *testing.T, n *testNode) {
	t.Helper()
	code, body := n.do("POST", "/_bulk?refresh=true", "application/x-ndjson", ndjson(
		`{"index":{"_index":"index_1","_id":"1"}}`, `{"foo":"bar","n":1}`,
		`{"index":{"_index":"index_1","_id":"2"}}`, `{"foo":"baz","n":2}`,
		`{"index":{"_index":"index_1","_id":"3"}}`, `{"foo":"foo","n":3}`,
		`{"index":{"_index":"index_2","_id":"1"}}`, `{"foo":"foo","n":4}`,
	))
	if code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("seed bulk = %d %v", code, body)
	}
}

func TestMsearch(t *testing.T) {
	n := newTestNode(t)
	seedMsearch(t, n)

	t.Run("responses in order with status", func(t *testing.T) {
		code, body := n.do("POST", "/_msearch?rest_total_hits_as_int=true", "application/x-ndjson", ndjson(
			`{"index":"index_*"}`, `{"query":{"match":{"foo":"foo"}}}`,
			`{"index":"index_2"}`, `{"query":{"match_all":{}}}`,
			`{"index":"index_1"}`, `{"query":{"match":{"foo":"foo"}}}`,
			`{"index":"index_3"}`, `{"query":{"match_all":{}}}`,
			`{}`, `{"query":{"match_all":{}}}`,
			``, `{"size":0}`,
		))
		if code != 200 {
			t.Fatalf("status = %d: %v", code, body)
		}
		for i, want := range []string{"2", "1", "1", "", "4", "4"} {
			if want == "" {
				continue
			}
			if got := str(jsonPath(body, "responses."+strconv.Itoa(i)+".hits.total")); got != want {
				t.Errorf("responses.%d.hits.total = %s, want %s", i, got, want)
			}
			if got := str(jsonPath(body, "responses."+strconv.Itoa(i)+".status")); got != "200" {
				t.Errorf("responses.%d.status = %s, want 200", i, got)
			}
		}
		if got := str(jsonPath(body, "responses.3.status")); got != "404" {
			t.Errorf("failed entry status = %s, want 404", got)
		}
		if got := str(jsonPath(body, "responses.3.error.root_cause.0.type")); got != `"index_not_found_exception"` {
			t.Errorf("failed entry type = %s", got)
		}
		if got := str(jsonPath(body, "responses.3.error.root_cause.0.index")); got != `"index_3"` {
			t.Errorf("failed entry index = %s", got)
		}
		if got := str(jsonPath(body, "responses.5.hits.hits")); got != "[]" {
			t.Errorf("size 0 entry hits = %s, want []", got)
		}
		if _, ok := body["took"]; !ok {
			t.Errorf("no took in %v", body)
		}
	})

	t.Run("path index is the default", func(t *testing.T) {
		code, body := n.do("GET", "/index_1/_msearch", "application/json", ndjson(
			`{}`, `{"query":{"match_all":{}}}`,
			`{"index":"index_2"}`, `{}`,
		))
		if code != 200 {
			t.Fatalf("status = %d: %v", code, body)
		}
		if got := str(jsonPath(body, "responses.0.hits.total.value")); got != "3" {
			t.Errorf("default index total = %s, want 3", got)
		}
		if got := str(jsonPath(body, "responses.1.hits.total.value")); got != "1" {
			t.Errorf("header index total = %s, want 1", got)
		}
	})

	t.Run("header options", func(t *testing.T) {
		code, body := n.do("POST", "/_msearch", "application/x-ndjson", ndjson(
			`{"index":["index_3","index_1"],"ignore_unavailable":true}`, `{"query":{"match_all":{}}}`,
			`{"index":"nomatch*","allow_no_indices":false}`, `{}`,
			`{"index":"index_1","routing":"x","preference":"_local","search_type":"dfs_query_then_fetch","request_cache":false}`, `{"size":1,"sort":["n"]}`,
		))
		if code != 200 {
			t.Fatalf("status = %d: %v", code, body)
		}
		if got := str(jsonPath(body, "responses.0.hits.total.value")); got != "3" {
			t.Errorf("ignore_unavailable total = %s, want 3", got)
		}
		if got := str(jsonPath(body, "responses.1.status")); got != "404" {
			t.Errorf("allow_no_indices=false status = %s, want 404", got)
		}
		if got := str(jsonPath(body, "responses.2.hits.hits.0._id")); got != `"1"` {
			t.Errorf("sorted first hit = %s, want \"1\"", got)
		}
	})

	t.Run("one failing search among successes", func(t *testing.T) {
		code, body := n.do("POST", "/_msearch", "application/x-ndjson", ndjson(
			`{"index":"index_1"}`, `{"query":{"match_all":{}},"from":-1}`,
			`{"index":"index_1"}`, `{"query":{"range":{"foo":{"gte":"a"}}}}`,
			`{"index":"index_2"}`, `{}`,
		))
		if code != 200 {
			t.Fatalf("status = %d: %v", code, body)
		}
		if got := str(jsonPath(body, "responses.0.status")); got != "400" {
			t.Errorf("bad from status = %s, want 400 (%v)", got, jsonPath(body, "responses.0"))
		}
		if got := str(jsonPath(body, "responses.2.status")); got != "200" {
			t.Errorf("good search status = %s, want 200", got)
		}
	})

	t.Run("concurrency limit 1 keeps order", func(t *testing.T) {
		var lines []string
		for i := 0; i < 20; i++ {
			lines = append(lines, `{"index":"index_1"}`, `{"query":{"term":{"n":`+strconv.Itoa(i%4)+`}}}`)
		}
		code, body := n.do("POST", "/_msearch?max_concurrent_searches=1&max_concurrent_shard_requests=1&pre_filter_shard_size=1&typed_keys=true&ccs_minimize_roundtrips=false", "application/x-ndjson", ndjson(lines...))
		if code != 200 {
			t.Fatalf("status = %d: %v", code, body)
		}
		for i := 0; i < 20; i++ {
			want := "1"
			if i%4 == 0 {
				want = "0"
			}
			if got := str(jsonPath(body, "responses."+strconv.Itoa(i)+".hits.total.value")); got != want {
				t.Errorf("responses.%d total = %s, want %s", i, got, want)
			}
		}
	})

	t.Run("compatible content type", func(t *testing.T) {
		code, body := n.do("POST", "/_msearch", "application/vnd.elasticsearch+x-ndjson; compatible-with=7", ndjson(`{}`, `{}`))
		if code != 200 || str(jsonPath(body, "responses.0.status")) != "200" {
			t.Fatalf("status = %d: %v", code, body)
		}
	})

	t.Run("generated client", func(t *testing.T) {
		res, err := n.Client.MsearchWithBodyWithResponse(context.Background(), &clusterclient.MsearchParams{},
			"application/x-ndjson", strings.NewReader(ndjson(`{"index":"index_1"}`, `{"query":{"match_all":{}}}`, `{"index":"nope"}`, `{}`)))
		if err != nil {
			t.Fatal(err)
		}
		if res.JSON200 == nil || len(res.JSON200.Responses) != 2 {
			t.Fatalf("response = %d %s", res.StatusCode(), res.Body)
		}
		r := res.JSON200.Responses
		if r[0].Status != 200 || r[0].Hits == nil || len(r[0].Hits.Hits) != 3 {
			t.Errorf("first = %+v", r[0])
		}
		if r[1].Status != 404 || r[1].Error == nil || r[1].Error.Type != "index_not_found_exception" {
			t.Errorf("second = %+v", r[1])
		}
	})
}

func TestMsearchBadInput(t *testing.T) {
	n := newTestNode(t)
	seedMsearch(t, n)
	tests := []struct {
		name, query, body string
		status            int
		typ, reason       string
	}{
		{"body line not JSON", "", ndjson(`{}`, `{"query":`), 400, "parsing_exception", "Failed to parse request body"},
		{"header line not JSON", "", ndjson(`{"index":`, `{}`), 400, "json_parse_exception", "Failed to parse the multi search header"},
		{"header not an object", "", ndjson(`"index_1"`, `{}`), 400, "parsing_exception", "expected [START_OBJECT] but found [VALUE_STRING]"},
		{"unknown header key", "", ndjson(`{"index":"index_1","from":1}`, `{}`), 400, "illegal_argument_exception", "key [from] is not supported in the metadata section"},
		{"unknown body key", "", ndjson(`{}`, `{"qeury":{}}`), 400, "parsing_exception", "Unknown key for a START_OBJECT in [qeury]."},
		{"unknown query", "", ndjson(`{}`, `{"query":{"nope":{}}}`), 400, "parsing_exception", "unknown query [nope]"},
		{"empty body line", "", ndjson(`{}`, ``), 400, "parsing_exception", "Expected [START_OBJECT] but found [null]"},
		{"missing final newline", "", "{}\n{}", 400, "illegal_argument_exception", "The msearch request must be terminated by a newline [\\n]"},
		{"no searches", "", "", 400, "action_request_validation_exception", "Validation Failed: 1: no requests added;"},
		{"max_concurrent_searches zero", "?max_concurrent_searches=0", ndjson(`{}`, `{}`), 400, "illegal_argument_exception", "maxConcurrentSearchRequests must be positive"},
		{"max_concurrent_searches negative", "?max_concurrent_searches=-3", ndjson(`{}`, `{}`), 400, "illegal_argument_exception", "maxConcurrentSearchRequests must be positive"},
		{"max_concurrent_searches not a number", "?max_concurrent_searches=many", ndjson(`{}`, `{}`), 400, "illegal_argument_exception", "max_concurrent_searches"},
		{"bad search_type", "?search_type=scan", ndjson(`{}`, `{}`), 400, "illegal_argument_exception", ""},
		{"unknown parameter", "?size=3", ndjson(`{}`, `{}`), 400, "illegal_argument_exception", "contains unrecognized parameter: [size]"},
		{"inaccurate total with rest_total_hits_as_int", "?rest_total_hits_as_int=true", ndjson(`{}`, `{"track_total_hits":10}`), 400, "illegal_argument_exception",
			"[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got 10"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", "/_msearch"+tc.query, "application/x-ndjson", tc.body)
			if code != tc.status {
				t.Fatalf("status = %d, want %d: %v", code, tc.status, body)
			}
			if got := jsonPath(body, "error.type"); got != tc.typ {
				t.Errorf("error.type = %v, want %s (%v)", got, tc.typ, body)
			}
			if reason, _ := jsonPath(body, "error.reason").(string); !strings.Contains(reason, tc.reason) {
				t.Errorf("error.reason = %q, want it to contain %q", reason, tc.reason)
			}
		})
	}
}

func TestMsearchWithPointInTime(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/pt/_doc/1?refresh=true", "application/json", `{"a":1}`)
	n.do("PUT", "/pt/_doc/2?refresh=true", "application/json", `{"a":2}`)
	_, pit := n.do("POST", "/pt/_pit?keep_alive=1m", "", "")
	id, _ := pit["id"].(string)
	n.do("PUT", "/pt/_doc/3?refresh=true", "application/json", `{"a":3}`) // after the PIT: invisible
	body := "{}\n" + `{"pit":{"id":"` + id + `","keep_alive":"1m"},"query":{"match_all":{}}}` + "\n" +
		`{"index":"pt"}` + "\n" + `{"pit":{"id":"` + id + `"}}` + "\n"
	code, out := n.do("POST", "/_msearch", "application/x-ndjson", body)
	if code != 200 {
		t.Fatalf("msearch = %d %v", code, out)
	}
	if got := str(jsonPath(out, "responses.0.hits.total.value")); got != "2" {
		t.Errorf("PIT search in msearch total = %s, want 2 (snapshot)", got)
	}
	if got := jsonPath(out, "responses.1.error.type"); got != "action_request_validation_exception" {
		t.Errorf("index with PIT in msearch: error type %v", got)
	}
}
