package handlers_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/quarry-search/quarry/clients/clusterclient"
)

// seedBooks indexes a small fixed corpus with refresh.
func seedBooks(t *testing.T, n *testNode) {
	t.Helper()
	n.do("PUT", "/books", "application/json", `{"settings":{"number_of_shards":2},"mappings":{"properties":{
		"title":{"type":"text"},"genre":{"type":"keyword"},"year":{"type":"integer"},"price":{"type":"double"},
		"published":{"type":"date"},"available":{"type":"boolean"}}}}`)
	docs := []string{
		`{"index":{"_id":"1"}}`, `{"title":"The Quick Brown Fox","genre":"fable","year":1990,"price":9.5,"published":"1990-05-01","available":true}`,
		`{"index":{"_id":"2"}}`, `{"title":"Lazy Dogs Sleep","genre":"fable","year":2001,"price":12,"published":"2001-01-15","available":false}`,
		`{"index":{"_id":"3"}}`, `{"title":"Quick Thinking","genre":"essay","year":2015,"price":20.25,"published":"2015-07-30","available":true}`,
		`{"index":{"_id":"4"}}`, `{"title":"A Fox in the Snow","genre":"poetry","year":1975,"published":"1975-12-24"}`,
		`{"index":{"_id":"5"}}`, `{"title":"Essays on Speed","genre":"essay","year":2015,"price":7,"available":true}`,
	}
	code, body := n.do("POST", "/books/_bulk?refresh=true", "application/x-ndjson", strings.Join(docs, "\n")+"\n")
	if code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("seed bulk = %d %v", code, body)
	}
}

func hitIDs(body map[string]any) []string {
	var ids []string
	hits, _ := jsonPath(body, "hits.hits").([]any)
	for _, h := range hits {
		ids = append(ids, jsonPath(h, "_id").(string))
	}
	return ids
}

func TestSearchBasicQueries(t *testing.T) {
	n := newTestNode(t)
	seedBooks(t, n)
	tests := []struct {
		name    string
		body    string
		wantIDs string // in order when the query sorts, else sorted by test
		total   string
	}{
		{"match_all sorted by year", `{"query":{"match_all":{}},"sort":[{"year":"asc"},{"_id":"asc"}]}`, "4,1,2,3,5", "5"},
		{"match or", `{"query":{"match":{"title":"quick fox"}},"sort":["_id"]}`, "1,3,4", "3"},
		{"match and", `{"query":{"match":{"title":{"query":"quick fox","operator":"and"}}}}`, "1", "1"},
		{"term keyword", `{"query":{"term":{"genre":"essay"}},"sort":["_id"]}`, "3,5", "2"},
		{"term on text is not analyzed", `{"query":{"term":{"title":"Quick"}}}`, "", "0"},
		{"terms", `{"query":{"terms":{"genre":["poetry","fable"]}},"sort":["_id"]}`, "1,2,4", "3"},
		{"range integer", `{"query":{"range":{"year":{"gte":2001,"lt":2015}}}}`, "2", "1"},
		{"range date", `{"query":{"range":{"published":{"gte":"1990-01-01","lte":"2001-12-31"}}},"sort":["_id"]}`, "1,2", "2"},
		{"bool", `{"query":{"bool":{"must":[{"match":{"title":"quick"}}],"filter":[{"term":{"available":true}}],"must_not":[{"term":{"genre":"essay"}}]}}}`, "1", "1"},
		{"exists", `{"query":{"exists":{"field":"price"}},"sort":["_id"]}`, "1,2,3,5", "4"},
		{"ids", `{"query":{"ids":{"values":["5","2","9"]}},"sort":["_id"]}`, "2,5", "2"},
		{"sort desc double then id", `{"sort":[{"price":{"order":"desc"}},"_id"],"size":3}`, "3,2,1", "5"},
		{"from size", `{"sort":["_id"],"from":1,"size":2}`, "2,3", "5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", "/books/_search", "application/json", tc.body)
			if code != 200 {
				t.Fatalf("status = %d: %v", code, body)
			}
			if got := strings.Join(hitIDs(body), ","); got != tc.wantIDs {
				t.Errorf("ids = %q, want %q", got, tc.wantIDs)
			}
			if got := str(jsonPath(body, "hits.total.value")); got != tc.total {
				t.Errorf("total = %s, want %s", got, tc.total)
			}
			if got := str(jsonPath(body, "_shards.total")); got != "2" {
				t.Errorf("_shards.total = %s, want 2", got)
			}
		})
	}
}

func TestSearchSortValuesAndScores(t *testing.T) {
	n := newTestNode(t)
	seedBooks(t, n)
	_, body := n.do("POST", "/books/_search", "application/json", `{"query":{"ids":{"values":["1","2"]}},"sort":[{"published":"desc"},{"year":"asc"},{"genre":"asc"}]}`)
	hits := jsonPath(body, "hits.hits").([]any)
	if len(hits) != 2 {
		t.Fatalf("hits = %d", len(hits))
	}
	if got := str(jsonPath(hits[0], "sort")); got != `[979516800000,2001,"fable"]` {
		t.Errorf("sort values = %s, want [979516800000,2001,\"fable\"]", got)
	}
	if got := str(jsonPath(hits[0], "_score")); got != "null" {
		t.Errorf("_score with field sort = %s, want null", got)
	}
	if got := str(jsonPath(body, "hits.max_score")); got != "null" {
		t.Errorf("max_score with field sort = %s, want null", got)
	}
	_, body = n.do("POST", "/books/_search", "application/json", `{"query":{"match":{"title":"fox"}}}`)
	first := jsonPath(body, "hits.hits.0._score")
	if str(first) == "null" || str(jsonPath(body, "hits.max_score")) != str(first) {
		t.Errorf("scored search: first _score %s, max_score %s", str(first), str(jsonPath(body, "hits.max_score")))
	}
}

func TestSearchTotalsAndSource(t *testing.T) {
	n := newTestNode(t)
	seedBooks(t, n)
	ctx := context.Background()
	tests := []struct {
		name   string
		params clusterclient.SearchIndexParams
		body   string
		check  func(t *testing.T, body map[string]any)
	}{
		{"rest_total_hits_as_int", clusterclient.SearchIndexParams{RestTotalHitsAsInt: ptr(clusterclient.EsBooleanTrue)}, `{}`, func(t *testing.T, b map[string]any) {
			if got := str(jsonPath(b, "hits.total")); got != "5" {
				t.Errorf("hits.total = %s, want 5", got)
			}
		}},
		{"track_total_hits false", clusterclient.SearchIndexParams{}, `{"track_total_hits":false}`, func(t *testing.T, b map[string]any) {
			if jsonPath(b, "hits.total") != nil {
				t.Errorf("hits.total present: %v", jsonPath(b, "hits.total"))
			}
		}},
		{"track_total_hits 3", clusterclient.SearchIndexParams{}, `{"track_total_hits":3}`, func(t *testing.T, b map[string]any) {
			if got := str(jsonPath(b, "hits.total")); got != `{"relation":"gte","value":3}` {
				t.Errorf("hits.total = %s", got)
			}
		}},
		{"source off", clusterclient.SearchIndexParams{}, `{"_source":false,"query":{"ids":{"values":["1"]}}}`, func(t *testing.T, b map[string]any) {
			if jsonPath(b, "hits.hits.0._source") != nil {
				t.Errorf("_source present")
			}
		}},
		{"source includes", clusterclient.SearchIndexParams{}, `{"_source":["genre","y*"],"query":{"ids":{"values":["1"]}}}`, func(t *testing.T, b map[string]any) {
			if got := str(jsonPath(b, "hits.hits.0._source")); got != `{"genre":"fable","year":1990}` {
				t.Errorf("_source = %s", got)
			}
		}},
		{"version and seq_no", clusterclient.SearchIndexParams{}, `{"version":true,"seq_no_primary_term":true,"query":{"ids":{"values":["1"]}}}`, func(t *testing.T, b map[string]any) {
			if str(jsonPath(b, "hits.hits.0._version")) != "1" || str(jsonPath(b, "hits.hits.0._primary_term")) != "1" || jsonPath(b, "hits.hits.0._seq_no") == nil {
				t.Errorf("hit = %s", str(jsonPath(b, "hits.hits.0")))
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var body clusterclient.SearchRequest
			_ = json.Unmarshal([]byte(tc.body), &body)
			res, err := n.Client.SearchIndexWithBodyWithResponse(ctx, "books", &tc.params, "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode() != 200 {
				t.Fatalf("status = %d: %s", res.StatusCode(), res.Body)
			}
			var out map[string]any
			dec := json.NewDecoder(strings.NewReader(string(res.Body)))
			dec.UseNumber()
			_ = dec.Decode(&out)
			tc.check(t, out)
		})
	}
}

func TestCountAndMultiIndex(t *testing.T) {
	n := newTestNode(t)
	seedBooks(t, n)
	n.do("PUT", "/other/_doc/1?refresh=true", "application/json", `{"title":"quick other"}`)
	tests := []struct{ path, body, want string }{
		{"/books/_count", ``, "5"},
		{"/books/_count", `{"query":{"match":{"title":"quick"}}}`, "2"},
		{"/books,other/_count", `{"query":{"match":{"title":"quick"}}}`, "3"},
		{"/b*,o*/_count", ``, "6"},
		{"/_count", ``, "6"},
		{"/*,-other/_count", ``, "5"},
	}
	for _, tc := range tests {
		code, body := n.do("POST", tc.path, "application/json", tc.body)
		if code != 200 || str(body["count"]) != tc.want {
			t.Errorf("POST %s %s = %d %v, want count %s", tc.path, tc.body, code, body, tc.want)
		}
	}
	code, body := n.do("POST", "/books/_count", "application/json", `{"match":{"title":"x"}}`)
	if code != 400 {
		t.Errorf("count body without query = %d %v, want 400", code, body)
	}
}

func TestRefreshPolicies(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/r", "application/json", `{"settings":{"refresh_interval":"-1"}}`)
	n.do("PUT", "/r/_doc/1", "application/json", `{"a":1}`)
	if _, body := n.do("GET", "/r/_count", "", ""); str(body["count"]) != "0" {
		t.Errorf("count before refresh = %v, want 0", body["count"])
	}
	_, body := n.do("PUT", "/r/_doc/2?refresh=true", "application/json", `{"a":1}`)
	if str(body["forced_refresh"]) != "true" {
		t.Errorf("forced_refresh = %v", body["forced_refresh"])
	}
	if _, body := n.do("GET", "/r/_count", "", ""); str(body["count"]) != "2" {
		t.Errorf("count after refresh=true = %v, want 2", body["count"])
	}
	n.do("PUT", "/r/_doc/3?refresh=wait_for", "application/json", `{"a":1}`)
	if _, body := n.do("GET", "/r/_count", "", ""); str(body["count"]) != "3" {
		t.Errorf("count after wait_for = %v, want 3", body["count"])
	}
	n.do("PUT", "/r/_doc/4", "application/json", `{"a":1}`)
	n.do("POST", "/r/_refresh", "", "")
	if _, body := n.do("GET", "/r/_count", "", ""); str(body["count"]) != "4" {
		t.Errorf("count after _refresh = %v, want 4", body["count"])
	}
}

func TestRestartKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	func() {
		n := openTestNode(t, dir)
		n.do("PUT", "/keep", "application/json", `{"settings":{"number_of_shards":3},"mappings":{"properties":{"k":{"type":"keyword"}}}}`)
		var lines []string
		for i := 0; i < 300; i++ {
			lines = append(lines, `{"index":{"_id":"`+itoa(i)+`"}}`, `{"k":"v`+itoa(i%7)+`"}`)
		}
		n.do("POST", "/keep/_bulk", "application/x-ndjson", strings.Join(lines, "\n")+"\n")
		n.do("DELETE", "/keep/_doc/5", "", "")
		n.Close() // clean shutdown
	}()
	n := openTestNode(t, dir)
	if _, body := n.do("GET", "/keep/_count", "", ""); str(body["count"]) != "299" {
		t.Errorf("count after restart = %v, want 299", body["count"])
	}
	if _, body := n.do("POST", "/keep/_count", "application/json", `{"query":{"term":{"k":"v3"}}}`); str(body["count"]) != "43" {
		t.Errorf("term count after restart = %v, want 43", body["count"])
	}
	if code, body := n.do("GET", "/keep/_mapping", "", ""); code != 200 || str(jsonPath(body, "keep.mappings.properties.k.type")) != `"keyword"` {
		t.Errorf("mapping after restart = %v", body)
	}
}
