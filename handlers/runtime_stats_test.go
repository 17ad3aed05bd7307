package handlers_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestNodesStatsRequestFigures checks the measured http, thread_pool and
// breakers sections: exact request counts per pool, connections, and a
// parent breaker trip under a tiny memory limit.
func TestNodesStatsRequestFigures(t *testing.T) {
	n := newTestNode(t)
	id := n.Engine.LocalNode().ID
	stats := func() map[string]any {
		t.Helper()
		code, body := n.do(http.MethodGet, "/_nodes/stats/http,thread_pool,breaker?human", "", "")
		if code != 200 {
			t.Fatalf("nodes stats: %d %v", code, body)
		}
		return jsonPath(body, "nodes."+id).(map[string]any)
	}
	num := func(v any) int64 {
		i, err := strconv.ParseInt(str(v), 10, 64)
		if err != nil {
			t.Fatalf("not an integer: %s", str(v))
		}
		return i
	}
	before := stats()
	// 3 searches, 2 writes, 1 get, and the stats call itself (management).
	steps := []struct{ method, path, body string }{
		{"PUT", "/t/_doc/1?refresh=true", `{"a":1}`},
		{"POST", "/t/_bulk?refresh=true", "{\"index\":{\"_id\":\"2\"}}\n{\"a\":2}\n"},
		{"GET", "/t/_doc/1", ""},
		{"POST", "/t/_search", `{"query":{"match_all":{}}}`},
		{"GET", "/t/_count", ""},
		{"POST", "/_msearch", "{\"index\":\"t\"}\n{}\n"},
	}
	for _, s := range steps {
		ct := ""
		if s.body != "" {
			ct = "application/json"
			if strings.Contains(s.path, "_bulk") || strings.Contains(s.path, "_msearch") {
				ct = "application/x-ndjson"
			}
		}
		if code, b := n.do(s.method, s.path, ct, s.body); code >= 300 {
			t.Fatalf("%s %s: %d %v", s.method, s.path, code, b)
		}
	}
	after := stats()
	for _, c := range []struct {
		pool string
		want int64
	}{{"search", 3}, {"write", 2}, {"get", 1}, {"management", 1}} {
		got := num(jsonPath(after, "thread_pool."+c.pool+".completed")) - num(jsonPath(before, "thread_pool."+c.pool+".completed"))
		if got != c.want {
			t.Errorf("thread_pool.%s.completed grew by %d, want %d", c.pool, got, c.want)
		}
		if r := num(jsonPath(after, "thread_pool."+c.pool+".rejected")); r != 0 {
			t.Errorf("thread_pool.%s.rejected = %d, want 0", c.pool, r)
		}
	}
	// The stats request is being handled while it is measured.
	if got := str(jsonPath(after, "thread_pool.management")); !strings.Contains(got, `"active":1`) || !strings.Contains(got, `"threads":1`) || !strings.Contains(got, `"queue":0`) {
		t.Errorf("thread_pool.management = %s, want active and threads 1, queue 0", got)
	}
	if got := keysOf(jsonPath(after, "thread_pool")); got != "get,management,search,write" {
		t.Errorf("thread_pool pools = %s", got)
	}
	if open := num(jsonPath(after, "http.current_open")); open < 1 {
		t.Errorf("http.current_open = %d, want at least this client's connection", open)
	}
	if total := num(jsonPath(after, "http.total_opened")); total < num(jsonPath(after, "http.current_open")) || total < 1 {
		t.Errorf("http.total_opened = %d", total)
	}
	if got := keysOf(jsonPath(after, "breakers")); got != "in_flight_requests,parent" {
		t.Errorf("breakers = %s", got)
	}
	if got := keysOf(jsonPath(after, "breakers.parent")); got != "estimated_size,estimated_size_in_bytes,limit_size,limit_size_in_bytes,overhead,tripped" {
		t.Errorf("breakers.parent members = %s", got)
	}
	if got := num(jsonPath(after, "breakers.in_flight_requests.estimated_size_in_bytes")); got != 0 {
		t.Errorf("in_flight_requests estimated with only a GET in flight = %d, want 0", got)
	}
	if got := num(jsonPath(after, "breakers.parent.estimated_size_in_bytes")); got <= 0 {
		t.Errorf("parent estimated (heap in use) = %d, want > 0", got)
	}

	// Breakers sized for 1 MiB: the heap in use is over 95% of it, and
	// the parent breaker rejects requests with 429.
	small := openTestNodeWith(t, t.TempDir(), nodeOptions{BreakerMemory: 1 << 20})
	if code, _ := small.do("PUT", "/t", "", ""); code != http.StatusTooManyRequests {
		t.Fatalf("create index under a 1 MiB breaker = %d, want 429", code)
	}
	code, body := small.do("POST", "/t/_search", "application/json", `{}`)
	if code != http.StatusTooManyRequests || str(jsonPath(body, "error.type")) != `"circuit_breaking_exception"` ||
		str(jsonPath(body, "error.bytes_limit")) != "996147" || str(jsonPath(body, "error.durability")) != `"TRANSIENT"` ||
		!strings.HasPrefix(jsonPath(body, "error.reason").(string), "[parent] Data too large, data for [<http_request>] would be [") ||
		!strings.Contains(jsonPath(body, "error.reason").(string), "which is larger than the limit of [996147/972.8kb], real usage: [") {
		t.Fatalf("search under a 1 MiB limit = %d %s", code, str(body))
	}
	if got := num(jsonPath(after, "breakers.parent.limit_size_in_bytes")); got <= 1<<20 {
		t.Errorf("default parent limit = %d, want 95%% of the machine's memory", got)
	}
}
