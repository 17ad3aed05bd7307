package handlers_test

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// seedNumbered indexes docs d000..d(n-1) with {"n": i, "tag": "t<i%3>"} in
// an index of the given shard count.
func seedNumbered(t *testing.T, n *testNode, index string, shards, count int) {
	t.Helper()
	code, body := n.do("PUT", "/"+index, "application/json", fmt.Sprintf(`{"settings":{"number_of_shards":%d},
		"mappings":{"properties":{"n":{"type":"integer"},"tag":{"type":"keyword"},"title":{"type":"text"}}}}`, shards))
	if code != 200 {
		t.Fatalf("create %s = %d %v", index, code, body)
	}
	var b strings.Builder
	for i := 0; i < count; i++ {
		fmt.Fprintf(&b, "{\"index\":{\"_id\":\"d%03d\"}}\n{\"n\":%d,\"tag\":\"t%d\",\"title\":\"doc %d\"}\n", i, i, i%3, i)
	}
	code, body = n.do("POST", "/"+index+"/_bulk?refresh=true", "application/x-ndjson", b.String())
	if code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("seed bulk = %d %v", code, body)
	}
}

func numberedIDs(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("d%03d", i))
	}
	return out
}

func errType(body map[string]any) string {
	s, _ := jsonPath(body, "error.type").(string)
	return s
}

func errReason(body map[string]any) string {
	s, _ := jsonPath(body, "error.reason").(string)
	return s
}

func TestSearchAfter(t *testing.T) {
	n := newTestNode(t)
	seedNumbered(t, n, "nums", 3, 25)
	// Page through n descending, 7 at a time, with search_after.
	var got []string
	var after string
	for page := 0; page < 10; page++ {
		body := `{"size":7,"sort":[{"n":"desc"}]` + after + `}`
		code, res := n.do("POST", "/nums/_search", "application/json", body)
		if code != 200 {
			t.Fatalf("page %d = %d %v", page, code, res)
		}
		ids := hitIDs(res)
		if len(ids) == 0 {
			break
		}
		got = append(got, ids...)
		hits := jsonPath(res, "hits.hits").([]any)
		after = `,"search_after":` + str(jsonPath(hits[len(hits)-1], "sort"))
	}
	var want []string
	for i := 24; i >= 0; i-- {
		want = append(want, fmt.Sprintf("d%03d", i))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("paged = %v, want %v", got, want)
	}

	tests := []struct {
		name, body string
		status     int
		errType    string // as searchErrorOf reports it
		reason     string
		ids        string
	}{
		{"from -1 is no from", `{"from":-1,"size":2,"sort":[{"n":"asc"}],"search_after":[3]}`, 200, "", "", "d004,d005"},
		{"from 0", `{"from":0,"size":2,"sort":[{"n":"asc"}],"search_after":[3]}`, 200, "", "", "d004,d005"},
		{"keyword tiebreaker", `{"size":3,"sort":[{"tag":"asc"},{"n":"desc"}],"search_after":["t0",3]}`, 200, "", "", "d000,d022,d019"},
		{"string number", `{"size":1,"sort":[{"n":"asc"}],"search_after":["23"]}`, 200, "", "", "d024"},
		{"from must be 0", `{"from":5,"size":2,"sort":[{"n":"asc"}],"search_after":[3]}`, 400,
			"action_request_validation_exception", "Validation Failed: 1: `from` parameter must be set to 0 when `search_after` is used.;", ""},
		{"too many values", `{"size":2,"sort":[{"n":"asc"}],"search_after":[3,4]}`, 400,
			"search_phase_execution_exception/illegal_argument_exception", "search_after has 2 value(s) but sort has 1.", ""},
		{"wrong type", `{"size":2,"sort":[{"n":"asc"}],"search_after":["abc"]}`, 400,
			"search_phase_execution_exception/illegal_argument_exception", "Failed to parse search_after value for field [n].", ""},
		{"_shard_doc needs a pit", `{"size":1,"sort":["_shard_doc"],"search_after":[0]}`, 400,
			"illegal_argument_exception", "[_shard_doc] sort field cannot be used without [point in time]", ""},
		{"slice needs scroll or pit", `{"slice":{"id":0,"max":2}}`, 400,
			"action_request_validation_exception", "Validation Failed: 1: [slice] can only be used with [scroll] or [point-in-time] requests;", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, res := n.do("POST", "/nums/_search", "application/json", tc.body)
			if code != tc.status {
				t.Fatalf("status = %d, want %d: %v", code, tc.status, res)
			}
			if tc.status != 200 {
				typ, reason := searchErrorOf(t, res)
				if typ != tc.errType || reason != tc.reason {
					t.Fatalf("error = %s %q, want %s %q", typ, reason, tc.errType, tc.reason)
				}
				return
			}
			if got := strings.Join(hitIDs(res), ","); got != tc.ids {
				t.Fatalf("ids = %s, want %s", got, tc.ids)
			}
		})
	}
}

// scrollAll follows a scroll to its empty page and returns every id.
func scrollAll(t *testing.T, n *testNode, first map[string]any) ([]string, string) {
	t.Helper()
	ids := hitIDs(first)
	id, _ := first["_scroll_id"].(string)
	for i := 0; i < 1000; i++ {
		code, res := n.do("POST", "/_search/scroll", "application/json", `{"scroll":"1m","scroll_id":"`+id+`"}`)
		if code != 200 {
			t.Fatalf("scroll = %d %v", code, res)
		}
		page := hitIDs(res)
		if len(page) == 0 {
			return ids, id
		}
		ids = append(ids, page...)
		id = res["_scroll_id"].(string)
	}
	t.Fatal("scroll did not end")
	return nil, ""
}

// Every row of SPEC.md "Scroll search context".
func TestScrollStates(t *testing.T) {
	n := newTestNode(t)
	seedNumbered(t, n, "nums", 2, 10)

	t.Run("open returns an id and a snapshot; scroll pages; end is an empty hits array", func(t *testing.T) {
		code, first := n.do("POST", "/nums/_search?scroll=1m&size=4&sort=n", "", "")
		if code != 200 || first["_scroll_id"] == nil {
			t.Fatalf("open = %d %v", code, first)
		}
		if got := strings.Join(hitIDs(first), ","); got != "d000,d001,d002,d003" {
			t.Fatalf("first page = %s", got)
		}
		if s := n.Engine.SearchContextStats(); s.ScrollCurrent != 1 || s.OpenContexts != 1 {
			t.Fatalf("stats after open = %+v", s)
		}
		// Changes after the open are invisible to the scroll.
		n.do("PUT", "/nums/_doc/d100?refresh=true", "application/json", `{"n":-1}`)
		n.do("DELETE", "/nums/_doc/d005?refresh=true", "", "")
		n.do("PUT", "/nums/_doc/d006?refresh=true", "application/json", `{"n":6,"tag":"changed"}`)
		id := first["_scroll_id"].(string)
		code, second := n.do("GET", "/_search/scroll?scroll=1m&scroll_id="+id, "", "")
		if code != 200 || strings.Join(hitIDs(second), ",") != "d004,d005,d006,d007" {
			t.Fatalf("second page = %d %v", code, hitIDs(second))
		}
		if str(jsonPath(second, "hits.total")) != `{"relation":"eq","value":10}` {
			t.Fatalf("total = %s", str(jsonPath(second, "hits.total")))
		}
		if got := str(jsonPath(second, "hits.hits.2._source")); got != `{"n":6,"tag":"t0","title":"doc 6"}` {
			t.Fatalf("snapshot source = %s", got)
		}
		code, third := n.do("POST", "/_search/scroll/"+id+"?scroll=1m", "", "")
		if code != 200 || strings.Join(hitIDs(third), ",") != "d008,d009" {
			t.Fatalf("third page = %d %v", code, hitIDs(third))
		}
		code, end := n.do("POST", "/_search/scroll", "application/json", `{"scroll":"1m","scroll_id":"`+id+`"}`)
		if code != 200 || rawMember(mustJSON(end), "hits.hits") != "[]" {
			t.Fatalf("end = %d %v", code, end)
		}
		code, cl := n.do("DELETE", "/_search/scroll", "application/json", `{"scroll_id":"`+id+`"}`)
		if code != 200 || str(cl) != `{"num_freed":1,"succeeded":true}` {
			t.Fatalf("clear = %d %v", code, cl)
		}
		// restore the corpus
		n.do("DELETE", "/nums/_doc/d100?refresh=true", "", "")
		n.do("PUT", "/nums/_doc/d005?refresh=true", "application/json", `{"n":5,"tag":"t2","title":"doc 5"}`)
		n.do("PUT", "/nums/_doc/d006?refresh=true", "application/json", `{"n":6,"tag":"t0","title":"doc 6"}`)
	})

	t.Run("scroll without scroll frees the context with that request", func(t *testing.T) {
		_, first := n.do("POST", "/nums/_search?scroll=1m&size=3&sort=n", "", "")
		id := first["_scroll_id"].(string)
		code, page := n.do("POST", "/_search/scroll", "application/json", `{"scroll_id":"`+id+`"}`)
		if code != 200 || strings.Join(hitIDs(page), ",") != "d003,d004,d005" {
			t.Fatalf("last page = %d %v", code, page)
		}
		code, res := n.do("POST", "/_search/scroll", "application/json", `{"scroll":"1m","scroll_id":"`+id+`"}`)
		if code != 404 || errType(res) != "search_context_missing_exception" {
			t.Fatalf("after free = %d %v", code, res)
		}
	})

	t.Run("timeout frees the context", func(t *testing.T) {
		before := n.Engine.SearchContextStats()
		_, first := n.do("POST", "/nums/_search?scroll=100ms&size=3&sort=n", "", "")
		id := first["_scroll_id"].(string)
		time.Sleep(700 * time.Millisecond) // past keep_alive and a reaper tick
		if s := n.Engine.SearchContextStats(); s.ScrollCurrent != before.ScrollCurrent || s.ScrollTotal != before.ScrollTotal+1 {
			t.Fatalf("stats after expiry = %+v (before %+v)", s, before)
		}
		code, res := n.do("POST", "/_search/scroll", "application/json", `{"scroll":"1m","scroll_id":"`+id+`"}`)
		if code != 404 || errType(res) != "search_context_missing_exception" || errReason(res) != "No search context found for id ["+id+"]" {
			t.Fatalf("expired = %d %v", code, res)
		}
	})

	t.Run("keep alive is extended by each scroll", func(t *testing.T) {
		_, first := n.do("POST", "/nums/_search?scroll=300ms&size=1&sort=n", "", "")
		id := first["_scroll_id"].(string)
		for i := 0; i < 3; i++ {
			time.Sleep(150 * time.Millisecond)
			code, res := n.do("POST", "/_search/scroll", "application/json", `{"scroll":"300ms","scroll_id":"`+id+`"}`)
			if code != 200 || len(hitIDs(res)) != 1 {
				t.Fatalf("scroll %d = %d %v", i, code, res)
			}
		}
		n.do("DELETE", "/_search/scroll/"+id, "", "")
	})

	t.Run("clear scroll forms", func(t *testing.T) {
		open := func() string {
			_, r := n.do("POST", "/nums/_search?scroll=1m&size=1", "", "")
			return r["_scroll_id"].(string)
		}
		a, b, c, d := open(), open(), open(), open()
		code, res := n.do("DELETE", "/_search/scroll/"+a+","+b, "", "")
		if code != 200 || str(res) != `{"num_freed":2,"succeeded":true}` {
			t.Fatalf("path list = %d %v", code, res)
		}
		code, res = n.do("DELETE", "/_search/scroll", "application/json", `{"scroll_id":["`+c+`"]}`)
		if code != 200 || str(res) != `{"num_freed":1,"succeeded":true}` {
			t.Fatalf("body list = %d %v", code, res)
		}
		code, res = n.do("DELETE", "/_search/scroll/"+a, "", "")
		if code != 404 || str(res) != `{"num_freed":0,"succeeded":true}` {
			t.Fatalf("cleared again = %d %v", code, res)
		}
		code, res = n.do("POST", "/_search/scroll", "application/json", `{"scroll":"1m","scroll_id":"`+c+`"}`)
		if code != 404 || errType(res) != "search_context_missing_exception" {
			t.Fatalf("scroll cleared id = %d %v", code, res)
		}
		code, res = n.do("DELETE", "/_search/scroll/_all", "", "")
		if code != 200 || str(res) != `{"num_freed":1,"succeeded":true}` {
			t.Fatalf("_all = %d %v (d=%s)", code, res, d)
		}
		code, res = n.do("DELETE", "/_search/scroll", "", "")
		if code != 400 || errReason(res) != "Validation Failed: 1: no scroll ids specified;" {
			t.Fatalf("no ids = %d %v", code, res)
		}
		code, res = n.do("DELETE", "/_search/scroll/not-an-id", "", "")
		if code != 400 || errReason(res) != "Cannot parse scroll id" {
			t.Fatalf("malformed = %d %v", code, res)
		}
	})

	t.Run("request errors", func(t *testing.T) {
		tests := []struct{ path, body, reason string }{
			{"/nums/_search?scroll=1m", `{"size":0}`, "Validation Failed: 1: [size] cannot be [0] in a scroll context;"},
			{"/nums/_search?scroll=1m&request_cache=true", `{"size":0}`, "Validation Failed: 1: [request_cache] cannot be used in a scroll context;2: [size] cannot be [0] in a scroll context;"},
			{"/nums/_search?scroll=1m", `{"sort":["n"],"search_after":[1]}`, "Validation Failed: 1: `search_after` cannot be used in a scroll context.;"},
			{"/nums/_search?scroll=1m", `{"track_total_hits":false}`, "Validation Failed: 1: disabling [track_total_hits] is not allowed in a scroll context;"},
			{"/nums/_search?scroll=2d", `{}`, "Keep alive for request (2d) is too large. It must be less than (1d). This limit can be set by changing the [search.max_keep_alive] cluster level setting."},
			{"/_search/scroll", `{"scroll":"1m"}`, "Validation Failed: 1: scrollId is missing;"},
		}
		for _, tc := range tests {
			code, res := n.do("POST", tc.path, "application/json", tc.body)
			if code != 400 || errReason(res) != tc.reason {
				t.Errorf("%s %s = %d %q, want 400 %q", tc.path, tc.body, code, errReason(res), tc.reason)
			}
		}
	})
	if s := n.Engine.SearchContextStats(); s.ScrollCurrent != 0 {
		t.Fatalf("scrolls left open: %+v", s)
	}
}

func mustJSON(v any) []byte { return []byte(str(v)) }

// The search.max_open_scroll_context limit (default 500), and the heap
// returning to its baseline once 500 open scrolls are dropped.
func TestScrollLimitAndMemory(t *testing.T) {
	n := newTestNode(t)
	seedNumbered(t, n, "nums", 2, 200)
	heap := func() uint64 {
		var m runtime.MemStats
		for i := 0; i < 3; i++ {
			runtime.GC()
		}
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	// warm up code paths once
	_, r := n.do("POST", "/nums/_search?scroll=1m&size=50", "", "")
	n.do("DELETE", "/_search/scroll/"+r["_scroll_id"].(string), "", "")
	base := heap()
	for i := 0; i < 500; i++ {
		if i%10 == 0 {
			// a write and a refresh between opens: the scrolls hold 50
			// distinct snapshots, not one shared reader
			n.do("PUT", fmt.Sprintf("/nums/_doc/x%03d?refresh=true", i), "application/json", `{"n":-1}`)
		}
		code, res := n.do("POST", "/nums/_search?scroll=1m&size=50", "application/json", `{"sort":["_doc"]}`)
		if code != 200 {
			t.Fatalf("open %d = %d %v", i, code, res)
		}
	}
	if s := n.Engine.SearchContextStats(); s.ScrollCurrent != 500 {
		t.Fatalf("stats = %+v", s)
	}
	code, res := n.do("POST", "/nums/_search?scroll=1m", "", "")
	if code != 429 || errType(res) != "too_many_scroll_contexts_exception" ||
		errReason(res) != "Trying to create too many scroll contexts. Must be less than or equal to: [500]. This limit can be set by changing the [search.max_open_scroll_context] setting." {
		t.Fatalf("501st = %d %v", code, res)
	}
	held := heap()
	code, res = n.do("DELETE", "/_search/scroll/_all", "", "")
	if code != 200 || str(res) != `{"num_freed":500,"succeeded":true}` {
		t.Fatalf("clear all = %d %v", code, res)
	}
	after := heap()
	t.Logf("heap: baseline %d KiB, 500 scrolls %d KiB, dropped %d KiB", base>>10, held>>10, after>>10)
	if after > base+2<<20 {
		t.Fatalf("heap after dropping 500 scrolls = %d, baseline %d", after, base)
	}
	if code, _ := n.do("POST", "/nums/_search?scroll=1m", "", ""); code != 200 {
		t.Fatalf("open after clear = %d", code)
	}
}

// Every row of SPEC.md "Point in time", the snapshot and _shard_doc.
func TestPointInTimeStates(t *testing.T) {
	n := newTestNode(t)
	seedNumbered(t, n, "nums", 3, 20)
	openPIT := func(path string) string {
		t.Helper()
		code, res := n.do("POST", path, "", "")
		if code != 200 {
			t.Fatalf("open pit = %d %v", code, res)
		}
		return res["id"].(string)
	}
	pit := openPIT("/nums/_pit?keep_alive=1m")
	if s := n.Engine.SearchContextStats(); s.PointInTimeCurrent != 1 || s.OpenContexts != 1 {
		t.Fatalf("stats = %+v", s)
	}
	// changes after opening: invisible through the pit
	n.do("PUT", "/nums/_doc/d100?refresh=true", "application/json", `{"n":100}`)
	n.do("PUT", "/nums/_doc/d003?refresh=true", "application/json", `{"n":3,"tag":"updated"}`)
	n.do("DELETE", "/nums/_doc/d004?refresh=true", "", "")

	t.Run("search with pit extends it and returns pit_id; the view is a snapshot", func(t *testing.T) {
		code, res := n.do("POST", "/_search", "application/json", `{"size":5,"sort":[{"n":"asc"}],"pit":{"id":"`+pit+`","keep_alive":"2m"}}`)
		if code != 200 || res["pit_id"] != pit {
			t.Fatalf("search = %d %v", code, res)
		}
		if got := strings.Join(hitIDs(res), ","); got != "d000,d001,d002,d003,d004" {
			t.Fatalf("ids = %s", got)
		}
		if str(jsonPath(res, "hits.total")) != `{"relation":"eq","value":20}` {
			t.Fatalf("total = %v", jsonPath(res, "hits.total"))
		}
		if got := str(jsonPath(res, "hits.hits.3._source")); got != `{"n":3,"tag":"t0","title":"doc 3"}` {
			t.Fatalf("source = %s", got)
		}
		// the implicit _shard_doc tiebreaker is rendered after the sort value
		sortVals, _ := jsonPath(res, "hits.hits.0.sort").([]any)
		if len(sortVals) != 2 || str(sortVals[0]) != "0" {
			t.Fatalf("sort = %v", sortVals)
		}
		// without the pit the new state shows
		_, live := n.do("POST", "/nums/_search", "application/json", `{"size":5,"sort":[{"n":"asc"}]}`)
		if got := strings.Join(hitIDs(live), ","); got != "d000,d001,d002,d003,d005" {
			t.Fatalf("live ids = %s", got)
		}
	})

	t.Run("paging with _shard_doc returns every document once", func(t *testing.T) {
		for _, sortSpec := range []string{`"sort":[{"_shard_doc":"desc"}]`, `"sort":["_shard_doc"]`, `"sort":[{"tag":"asc"}]`, `"track_total_hits":false`} {
			seen := map[string]int{}
			after := ""
			for page := 0; page < 20; page++ {
				code, res := n.do("POST", "/_search", "application/json", `{"size":3,`+sortSpec+`,"pit":{"id":"`+pit+`"}`+after+`}`)
				if code != 200 {
					t.Fatalf("%s page %d = %d %v", sortSpec, page, code, res)
				}
				hits, _ := jsonPath(res, "hits.hits").([]any)
				if len(hits) == 0 {
					break
				}
				for _, id := range hitIDs(res) {
					seen[id]++
				}
				after = `,"search_after":` + str(jsonPath(hits[len(hits)-1], "sort"))
			}
			var ids []string
			for id, c := range seen {
				if c != 1 {
					t.Errorf("%s: %s seen %d times", sortSpec, id, c)
				}
				ids = append(ids, id)
			}
			sort.Strings(ids)
			if strings.Join(ids, ",") != strings.Join(numberedIDs(0, 20), ",") {
				t.Errorf("%s: ids = %v", sortSpec, ids)
			}
		}
	})

	t.Run("search_after without the tiebreaker value pages on the user sort", func(t *testing.T) {
		tests := []struct{ after, ids, sort string }{
			{`[3]`, "d004,d005", `[4]`},
			{`[3,` + "\"t0\"" + `]`, "", ""},
		}
		for _, tc := range tests {
			code, res := n.do("POST", "/_search", "application/json", `{"size":2,"sort":[{"n":"asc"}],"search_after":`+tc.after+`,"pit":{"id":"`+pit+`"}}`)
			if tc.ids == "" {
				if code != 400 {
					t.Fatalf("after %s = %d %v", tc.after, code, res)
				}
				continue
			}
			if code != 200 || strings.Join(hitIDs(res), ",") != tc.ids || str(jsonPath(res, "hits.hits.0.sort")) != tc.sort {
				t.Fatalf("after %s = %d %v", tc.after, code, res)
			}
		}
	})

	t.Run("errors", func(t *testing.T) {
		code, res := n.do("POST", "/nums/_search", "application/json", `{"pit":{"id":"`+pit+`"}}`)
		if code != 400 || errReason(res) != "Validation Failed: 1: [indices] cannot be used with point in time. Do not specify any index with point in time.;" {
			t.Fatalf("index with pit = %d %v", code, res)
		}
		code, res = n.do("POST", "/nums/_pit?keep_alive=2d", "", "")
		if code != 400 || !strings.HasPrefix(errReason(res), "Keep alive for request (2d) is too large.") {
			t.Fatalf("keep_alive too large = %d %v", code, res)
		}
		code, res = n.do("POST", "/missing/_pit?keep_alive=1m", "", "")
		if code != 404 || errType(res) != "index_not_found_exception" {
			t.Fatalf("missing index = %d %v", code, res)
		}
	})

	t.Run("expiry", func(t *testing.T) {
		short := openPIT("/nums/_pit?keep_alive=150ms")
		time.Sleep(400 * time.Millisecond)
		code, res := n.do("POST", "/_search", "application/json", `{"pit":{"id":"`+short+`"}}`)
		if code != 404 || errType(res) != "search_context_missing_exception" {
			t.Fatalf("expired pit = %d %v", code, res)
		}
	})

	t.Run("close", func(t *testing.T) {
		code, res := n.do("DELETE", "/_pit", "application/json", `{"id":"`+pit+`"}`)
		if code != 200 || str(res) != `{"num_freed":1,"succeeded":true}` {
			t.Fatalf("close = %d %v", code, res)
		}
		code, res = n.do("POST", "/_search", "application/json", `{"pit":{"id":"`+pit+`"}}`)
		if code != 404 || errType(res) != "search_context_missing_exception" {
			t.Fatalf("search closed = %d %v", code, res)
		}
		code, res = n.do("DELETE", "/_pit", "application/json", `{"id":"`+pit+`"}`)
		if code != 404 || str(res) != `{"num_freed":0,"succeeded":true}` {
			t.Fatalf("close again = %d %v", code, res)
		}
		if s := n.Engine.SearchContextStats(); s.PointInTimeCurrent != 0 || s.PointInTimeTotal != 2 {
			t.Fatalf("stats = %+v", s)
		}
	})
}

// Slices over scrolls and points in time: all slices together return every
// document exactly once.
func TestSlices(t *testing.T) {
	n := newTestNode(t)
	seedNumbered(t, n, "nums", 3, 60)
	check := func(t *testing.T, name string, seen map[string]int) {
		t.Helper()
		var ids []string
		for id, c := range seen {
			if c != 1 {
				t.Errorf("%s: %s seen %d times", name, id, c)
			}
			ids = append(ids, id)
		}
		sort.Strings(ids)
		if strings.Join(ids, ",") != strings.Join(numberedIDs(0, 60), ",") {
			t.Errorf("%s: got %d ids", name, len(ids))
		}
	}
	for _, tc := range []struct {
		max   int
		field string
	}{{2, ""}, {3, ""}, {5, ""}, {7, ""}, {4, "n"}} {
		name := fmt.Sprintf("scroll max %d field %q", tc.max, tc.field)
		seen := map[string]int{}
		for id := 0; id < tc.max; id++ {
			slice := fmt.Sprintf(`{"id":%d,"max":%d}`, id, tc.max)
			if tc.field != "" {
				slice = fmt.Sprintf(`{"id":%d,"max":%d,"field":%q}`, id, tc.max, tc.field)
			}
			code, first := n.do("POST", "/nums/_search?scroll=1m&size=4", "application/json", `{"sort":["_doc"],"slice":`+slice+`}`)
			if code != 200 {
				t.Fatalf("%s: open = %d %v", name, code, first)
			}
			ids, last := scrollAll(t, n, first)
			for _, x := range ids {
				seen[x]++
			}
			n.do("DELETE", "/_search/scroll/"+last, "", "")
		}
		check(t, name, seen)
	}
	_, p := n.do("POST", "/nums/_pit?keep_alive=1m", "", "")
	pit := p["id"].(string)
	seen := map[string]int{}
	for id := 0; id < 4; id++ {
		after := ""
		for page := 0; page < 100; page++ {
			code, res := n.do("POST", "/_search", "application/json",
				fmt.Sprintf(`{"size":5,"slice":{"id":%d,"max":4},"pit":{"id":%q}%s}`, id, pit, after))
			if code != 200 {
				t.Fatalf("pit slice = %d %v", code, res)
			}
			hits, _ := jsonPath(res, "hits.hits").([]any)
			if len(hits) == 0 {
				break
			}
			for _, x := range hitIDs(res) {
				seen[x]++
			}
			after = `,"search_after":` + str(jsonPath(hits[len(hits)-1], "sort"))
		}
	}
	check(t, "pit slices", seen)

	// The slice's own checks answer the request; those against the
	// index (its limit, the field) fail its shards.
	errs := []struct {
		body, reason string
		shard        bool
	}{
		{`{"slice":{"id":0,"max":1025}}`, "The number of slices [1025] is too large. It must be less than [1024]. This limit can be set by changing the [index.max_slices_per_scroll] index level setting.", true},
		{`{"slice":{"id":2,"max":2}}`, "max must be greater than id", false},
		{`{"slice":{"id":0,"max":1}}`, "max must be greater than 1", false},
		{`{"slice":{"id":0,"max":2,"field":"title"}}`, "cannot load numeric doc values on title", true},
		{`{"slice":{"id":0,"max":2,"field":"nope"}}`, "field nope not found", true},
	}
	for _, tc := range errs {
		code, res := n.do("POST", "/nums/_search?scroll=1m", "application/json", tc.body)
		typ, reason := searchErrorOf(t, res)
		if wrapped := strings.HasPrefix(typ, "search_phase_execution_exception/"); wrapped != tc.shard {
			t.Errorf("%s: wrapped = %v, want %v", tc.body, wrapped, tc.shard)
		}
		if code != 400 || reason != tc.reason {
			t.Errorf("%s = %d %q, want 400 %q", tc.body, code, reason, tc.reason)
		}
	}
}

// The doc-order fast path (sorts led by _doc or _shard_doc ascending, no
// counting) over several segments, with and without a query, returns every
// matching document once.
func TestDocOrderFastPath(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/segs", "application/json", `{"settings":{"number_of_shards":3},"mappings":{"properties":{"n":{"type":"integer"},"tag":{"type":"keyword"}}}}`)
	for batch := 0; batch < 6; batch++ {
		var b strings.Builder
		for i := batch * 40; i < (batch+1)*40; i++ {
			fmt.Fprintf(&b, "{\"index\":{\"_id\":\"d%03d\"}}\n{\"n\":%d,\"tag\":\"t%d\"}\n", i, i, i%3)
		}
		if code, res := n.do("POST", "/segs/_bulk?refresh=true", "application/x-ndjson", b.String()); code != 200 || str(res["errors"]) != "false" {
			t.Fatalf("bulk = %d %v", code, res)
		}
	}
	// deletes leave holes in the document numbers
	for i := 0; i < 240; i += 11 {
		n.do("DELETE", fmt.Sprintf("/segs/_doc/d%03d?refresh=true", i), "", "")
	}
	want := func(keep func(i int) bool) string {
		var ids []string
		for i := 0; i < 240; i++ {
			if i%11 != 0 && keep(i) {
				ids = append(ids, fmt.Sprintf("d%03d", i))
			}
		}
		return strings.Join(ids, ",")
	}
	_, p := n.do("POST", "/segs/_pit?keep_alive=1m", "", "")
	pit := p["id"].(string)
	for _, tc := range []struct {
		name, body string
		keep       func(int) bool
	}{
		{"shard_doc all", `"sort":["_shard_doc"],"track_total_hits":false`, func(int) bool { return true }},
		{"shard_doc query", `"sort":["_shard_doc"],"track_total_hits":false,"query":{"term":{"tag":"t1"}}`, func(i int) bool { return i%3 == 1 }},
		{"doc then shard_doc", `"sort":["_doc"],"track_total_hits":false,"query":{"range":{"n":{"gte":100}}}`, func(i int) bool { return i >= 100 }},
	} {
		var ids []string
		after := ""
		for page := 0; page < 100; page++ {
			code, res := n.do("POST", "/_search", "application/json", `{"size":7,`+tc.body+`,"pit":{"id":"`+pit+`"}`+after+`}`)
			if code != 200 {
				t.Fatalf("%s: %d %v", tc.name, code, res)
			}
			hits, _ := jsonPath(res, "hits.hits").([]any)
			if len(hits) == 0 {
				break
			}
			ids = append(ids, hitIDs(res)...)
			after = `,"search_after":` + str(jsonPath(hits[len(hits)-1], "sort"))
		}
		sort.Strings(ids)
		if got := strings.Join(ids, ","); got != want(tc.keep) {
			t.Errorf("%s: got %d ids, want %d", tc.name, len(ids), len(strings.Split(want(tc.keep), ",")))
		}
	}
	for _, q := range []string{`{"sort":["_doc"]}`, `{"sort":["_doc"],"query":{"term":{"tag":"t2"}}}`} {
		_, first := n.do("POST", "/segs/_search?scroll=1m&size=9", "application/json", q)
		ids, last := scrollAll(t, n, first)
		n.do("DELETE", "/_search/scroll/"+last, "", "")
		sort.Strings(ids)
		keep := func(int) bool { return true }
		if strings.Contains(q, "t2") {
			keep = func(i int) bool { return i%3 == 2 }
		}
		if got := strings.Join(ids, ","); got != want(keep) {
			t.Errorf("scroll %s: got %d ids", q, len(ids))
		}
	}
}

// Deleting an index frees the scrolls and points in time over it.
func TestContextsFreedWithIndex(t *testing.T) {
	n := newTestNode(t)
	seedNumbered(t, n, "gone", 2, 5)
	_, p := n.do("POST", "/gone/_pit?keep_alive=1m", "", "")
	_, s := n.do("POST", "/gone/_search?scroll=1m&size=1", "", "")
	if st := n.Engine.SearchContextStats(); st.OpenContexts != 2 {
		t.Fatalf("stats = %+v", st)
	}
	n.do("DELETE", "/gone", "", "")
	if st := n.Engine.SearchContextStats(); st.OpenContexts != 0 || st.ScrollTotal != 1 || st.PointInTimeTotal != 1 {
		t.Fatalf("stats after delete = %+v", st)
	}
	code, res := n.do("POST", "/_search", "application/json", `{"pit":{"id":"`+p["id"].(string)+`"}}`)
	if code != 404 || errType(res) != "search_context_missing_exception" {
		t.Fatalf("pit after delete = %d %v", code, res)
	}
	code, res = n.do("POST", "/_search/scroll", "application/json", `{"scroll":"1m","scroll_id":"`+s["_scroll_id"].(string)+`"}`)
	if code != 404 || errType(res) != "search_context_missing_exception" {
		t.Fatalf("scroll after delete = %d %v", code, res)
	}
	code, res = n.do("POST", "/_search", "application/json", `{"pit":{"id":"zzz"}}`)
	if code != 400 || errReason(res) != "invalid id: [zzz]" {
		t.Fatalf("malformed pit id = %d %v", code, res)
	}
}

// search.max_open_scroll_context and search.max_keep_alive as dynamic
// cluster settings.
func TestScrollClusterSettings(t *testing.T) {
	n := newTestNode(t)
	seedNumbered(t, n, "nums", 1, 3)
	code, res := n.do("PUT", "/_cluster/settings", "application/json",
		`{"transient":{"search.max_open_scroll_context":1,"search.max_keep_alive":"2m"}}`)
	if code != 200 {
		t.Fatalf("put settings = %d %v", code, res)
	}
	if code, res := n.do("POST", "/nums/_search?scroll=1m", "", ""); code != 200 {
		t.Fatalf("first = %d %v", code, res)
	}
	code, res = n.do("POST", "/nums/_search?scroll=1m", "", "")
	if code != 429 || !strings.HasPrefix(errReason(res), "Trying to create too many scroll contexts. Must be less than or equal to: [1].") {
		t.Fatalf("second = %d %v", code, res)
	}
	code, res = n.do("POST", "/nums/_pit?keep_alive=3m", "", "")
	if code != 400 || errReason(res) != "Keep alive for request (3m) is too large. It must be less than (2m). This limit can be set by changing the [search.max_keep_alive] cluster level setting." {
		t.Fatalf("pit keep_alive = %d %v", code, res)
	}
	n.do("PUT", "/_cluster/settings", "application/json", `{"transient":{"search.max_open_scroll_context":null,"search.max_keep_alive":null}}`)
	if code, res := n.do("POST", "/nums/_search?scroll=1h", "", ""); code != 200 {
		t.Fatalf("after reset = %d %v", code, res)
	}
}
