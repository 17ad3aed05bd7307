package handlers_test

import (
	"regexp"
	"strings"
	"testing"
)

// tookRE matches a response's took member.
var tookRE = regexp.MustCompile(`"took":[0-9]+`)

// TestShardFailures: exceptions raised while a shard builds its search
// (the query against the mapping, a sort or aggregation on a text field, the
// result window) are shard failures as in Elasticsearch 7.17: a
// search_phase_execution_exception when every shard failed (grouped by
// index and exception), the other shards' answer with _shards.failures
// otherwise. Request errors stay plain errors.
func TestShardFailures(t *testing.T) {
	n := newTestNode(t)
	n.runSteps([]httpStep{
		{"create t", "PUT", "/t", `{"mappings":{"properties":{"title":{"type":"text"}}}}`, 200, ""},
		{"create t2", "PUT", "/t2", `{"settings":{"number_of_shards":2},"mappings":{"properties":{"n":{"type":"integer"}}}}`, 200, ""},
		{"create a", "PUT", "/a", `{"mappings":{"properties":{"tag":{"type":"text"},"v":{"type":"integer"}}}}`, 200, ""},
		{"create b", "PUT", "/b", `{"mappings":{"properties":{"tag":{"type":"keyword"},"v":{"type":"keyword"}}}}`, 200, ""},
		{"doc t", "PUT", "/t/_doc/1?refresh=true", `{"title":"hello world"}`, 201, ""},
		{"doc a", "PUT", "/a/_doc/1?refresh=true", `{"tag":"red","v":7}`, 201, ""},
		{"doc b1", "PUT", "/b/_doc/1?refresh=true", `{"tag":"blue","v":"x"}`, 201, ""},
		{"doc b2", "PUT", "/b/_doc/2?refresh=true", `{"tag":"blue","v":"7"}`, 201, ""},
	})
	node := n.Engine.LocalNode().ID
	uuid := func(name string) string {
		idx, err := n.Engine.ResolveSingle(name)
		if err != nil {
			t.Fatal(err)
		}
		return idx.UUID()
	}
	fielddata := func(field string) string {
		return `"reason":"Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [` + field + `] in order to load field data by uninverting the inverted index. Note that this can use significant memory."`
	}
	iae := `{"type":"illegal_argument_exception",` + fielddata("title") + `}`
	// All shards of t fail: the root cause is the exception, caused_by
	// wraps it once more (a plain Java exception's guessed root cause).
	textAgg := `{"error":{"root_cause":[` + iae + `],"type":"search_phase_execution_exception","reason":"all shards failed","phase":"query","grouped":true,` +
		`"failed_shards":[{"shard":0,"index":"t","node":"` + node + `","reason":` + iae + `}],` +
		`"caused_by":{"type":"illegal_argument_exception",` + fielddata("title") + `,"caused_by":` + iae + `}},"status":400}`
	qse := func(index, value string) string {
		return `"type":"query_shard_exception","reason":"failed to create query: For input string: \"` + value + `\"","index_uuid":"` + uuid(index) + `","index":"` + index + `"`
	}
	nfe := `"caused_by":{"type":"number_format_exception","reason":"For input string: \"abc\""}`
	// Both shards of t2 fail alike: one failed_shards entry (shard 0).
	termT2 := `{"error":{"root_cause":[{` + qse("t2", "abc") + `}],"type":"search_phase_execution_exception","reason":"all shards failed","phase":"query","grouped":true,` +
		`"failed_shards":[{"shard":0,"index":"t2","node":"` + node + `","reason":{` + qse("t2", "abc") + `,` + nfe + `}}],` +
		`"caused_by":{` + qse("t2", "abc") + `,` + nfe + `}},"status":400}`
	window := `{"type":"illegal_argument_exception","reason":"Result window is too large, from + size must be less than or equal to: [10000] but was [10001]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting."}`
	windowErr := `{"error":{"root_cause":[` + window + `],"type":"search_phase_execution_exception","reason":"all shards failed","phase":"query","grouped":true,` +
		`"failed_shards":[{"shard":0,"index":"t","node":"` + node + `","reason":` + window + `}],` +
		`"caused_by":{"type":"illegal_argument_exception","reason":` + window[strings.Index(window, `"reason":`)+9:len(window)-1] + `,"caused_by":` + window + `}},"status":400}`
	partialAgg := `{"total":2,"successful":1,"skipped":0,"failed":1,"failures":[{"shard":0,"index":"a","node":"` + node + `","reason":{"type":"illegal_argument_exception",` + fielddata("tag") + `}}]}`
	partialTerm := `{"total":2,"successful":1,"skipped":0,"failed":1,"failures":[{"shard":0,"index":"a","node":"` + node + `","reason":{` + qse("a", "x") +
		`,"caused_by":{"type":"number_format_exception","reason":"For input string: \"x\""}}}]}`

	for _, c := range []struct {
		name, path, body string
		status           int
		// member is "" to compare the whole body, else the member compared.
		member, want string
	}{
		{"terms agg on text", "/t/_search", `{"size":0,"aggs":{"x":{"terms":{"field":"title"}}}}`, 400, "", textAgg},
		{"sort on text", "/t/_search", `{"sort":["title"]}`, 400, "", textAgg},
		{"two shards, one group", "/t2/_search", `{"query":{"term":{"n":"abc"}}}`, 400, "", termT2},
		{"result window", "/t/_search", `{"from":10000,"size":1}`, 400, "", windowErr},
		{"dfs phase", "/t2/_search?search_type=dfs_query_then_fetch", `{"query":{"term":{"n":"abc"}}}`, 400, "", strings.Replace(termT2, `"phase":"query"`, `"phase":"dfs"`, 1)},
		{"scroll", "/t2/_search?scroll=1m", `{"query":{"term":{"n":"abc"}}}`, 400, "", termT2},
		{"count all failed", "/t2/_count", `{"query":{"term":{"n":"abc"}}}`, 400, "", termT2},
		{"search template", "/t2/_search/template", `{"source":{"query":{"term":{"n":"{{v}}"}}},"params":{"v":"abc"}}`, 400, "", termT2},
		{"partial agg shards", "/a,b/_search", `{"size":0,"aggs":{"x":{"terms":{"field":"tag"}}}}`, 200, "_shards", partialAgg},
		{"partial agg values", "/a,b/_search", `{"size":0,"aggs":{"x":{"terms":{"field":"tag"}}}}`, 200, "aggregations",
			`{"x":{"doc_count_error_upper_bound":0,"sum_other_doc_count":0,"buckets":[{"key":"blue","doc_count":2}]}}`},
		{"partial agg total", "/a,b/_search", `{"size":0,"aggs":{"x":{"terms":{"field":"tag"}}}}`, 200, "hits", `{"total":{"value":2,"relation":"eq"},"max_score":null,"hits":[]}`},
		{"partial sort", "/a,b/_search", `{"sort":["tag"],"_source":false}`, 200, "_shards", partialAgg},
		{"partial term shards", "/a,b/_search", `{"query":{"term":{"v":"x"}}}`, 200, "_shards", partialTerm},
		{"partial term hits", "/a,b/_search", `{"query":{"term":{"v":"x"}},"_source":false}`, 200, "hits",
			`{"total":{"value":1,"relation":"eq"},"max_score":0.6931471,"hits":[{"_index":"b","_type":"_doc","_id":"1","_score":0.6931471}]}`},
		{"count partial", "/a,b/_count", `{"query":{"term":{"v":"x"}}}`, 200, "", `{"count":1,"_shards":` + partialTerm + `}`},
		// Request errors are not shard failures.
		{"unknown query", "/t/_search", `{"query":{"nope":{}}}`, 400, "error.type", `"parsing_exception"`},
		{"missing index", "/nope/_search", `{}`, 404, "error.type", `"index_not_found_exception"`},
	} {
		code, b := n.raw("POST", c.path, "application/json", c.body)
		if code != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, code, c.status, b)
			continue
		}
		got := strings.TrimSpace(string(b))
		if c.member != "" {
			got = rawMember(b, c.member)
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}

	// A multi search entry carries the wrapped error; the next one answers.
	code, b := n.raw("POST", "/_msearch", "application/x-ndjson", strings.Join([]string{
		`{"index":"t"}`, `{"size":0,"aggs":{"x":{"terms":{"field":"title"}}}}`,
		`{"index":"t"}`, `{"size":0}`, ""}, "\n"))
	if code != 200 {
		t.Fatalf("msearch status %d: %s", code, b)
	}
	want := `{"responses":[` + textAgg + `,{"took":0,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":1,"relation":"eq"},"max_score":null,"hits":[]},"status":200}]}`
	if got := tookRE.ReplaceAllString(`{`+string(b[strings.Index(string(b), `"responses"`):]), `"took":0`); strings.TrimSpace(got) != want {
		t.Errorf("msearch:\n got %s\nwant %s", got, want)
	}
}

// plainExceptions are the Java exceptions Elasticsearch does not count as
// root causes: a shard failing with one reports a root cause named after it
// whose cause it is.
var plainExceptions = map[string]bool{"illegal_argument_exception": true, "number_format_exception": true, "illegal_state_exception": true}

// checkAllShardsFailed checks that body is a search_phase_execution_exception
// whose members all follow from its failed_shards (root causes, caused_by)
// and returns the first shard's exception.
func checkAllShardsFailed(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	e, _ := body["error"].(map[string]any)
	failed, _ := e["failed_shards"].([]any)
	if e["type"] != "search_phase_execution_exception" || e["reason"] != "all shards failed" || e["phase"] != "query" || e["grouped"] != true || len(failed) == 0 {
		t.Errorf("not an all shards failed error: %s", str(body))
		return nil
	}
	var roots []any
	var first map[string]any
	for i, f := range failed {
		fm, _ := f.(map[string]any)
		cause, _ := fm["reason"].(map[string]any)
		if fm["node"] == "" || fm["index"] == "" || fm["shard"] == nil || cause == nil {
			t.Errorf("failed_shards.%d = %s", i, str(f))
		}
		// The guessed root cause: a wrapper of a plain exception, else
		// the deepest Elasticsearch exception.
		typ, _ := cause["type"].(string)
		root := map[string]any{"type": typ, "reason": cause["reason"], "caused_by": cause}
		if !plainExceptions[typ] {
			root = cause
			for {
				next, _ := root["caused_by"].(map[string]any)
				if nextType, _ := next["type"].(string); next == nil || plainExceptions[nextType] {
					break
				}
				root = next
			}
		}
		if i == 0 {
			first = root
		}
		short := map[string]any{}
		for k, v := range root {
			if k != "caused_by" {
				short[k] = v
			}
		}
		roots = append(roots, short)
	}
	if str(e["root_cause"]) != str(roots) {
		t.Errorf("root_cause = %s, want %s", str(e["root_cause"]), str(roots))
	}
	if str(e["caused_by"]) != str(first) {
		t.Errorf("caused_by = %s, want %s", str(e["caused_by"]), str(first))
	}
	cause, _ := failed[0].(map[string]any)["reason"].(map[string]any)
	return cause
}

// searchErrorOf returns an error body's type and reason; for a search
// whose shards all failed (checked with checkAllShardsFailed) the type is
// "search_phase_execution_exception/" + the shard's exception type and the
// reason the shard's.
func searchErrorOf(t *testing.T, body map[string]any) (typ, reason string) {
	t.Helper()
	typ, _ = jsonPath(body, "error.type").(string)
	reason, _ = jsonPath(body, "error.reason").(string)
	if typ == "search_phase_execution_exception" {
		cause := checkAllShardsFailed(t, body)
		ct, _ := jsonPath(cause, "type").(string)
		reason, _ = jsonPath(cause, "reason").(string)
		typ += "/" + ct
	}
	return typ, reason
}
