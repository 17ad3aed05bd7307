package handlers_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLatencyCities measures search latency over HTTP on the full cities
// dataset (135k documents, 1 shard) for a fixed query set and logs
// p50/p99 per query. It is skipped unless QUARRY_LATENCY is set (to the
// number of timed runs per query, e.g. QUARRY_LATENCY=300). With
// QUARRY_LATENCY_DIR the node keeps its data there, and a later run reuses
// the loaded index instead of indexing 135k documents again:
//
//	QUARRY_LATENCY=300 QUARRY_LATENCY_DIR=/tmp/lat go test ./handlers -run TestLatencyCities -v -timeout 30m
func TestLatencyCities(t *testing.T) {
	runs, _ := strconv.Atoi(os.Getenv("QUARRY_LATENCY"))
	if runs <= 0 {
		t.Skip("set QUARRY_LATENCY=<runs> to measure search latency on the full cities dataset")
	}
	cs := dsReadCities(t, 0)
	dir := os.Getenv("QUARRY_LATENCY_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	n := openTestNode(t, dir)
	if code, body := n.do("GET", "/cities/_count", "", ""); code != 200 || int(num(body["count"])) != len(cs) {
		n.do("DELETE", "/cities", "", "")
		if code, body := n.do("PUT", "/cities", "application/json", strings.Replace(dsCitiesMapping, `"number_of_shards":3`, `"number_of_shards":1`, 1)); code != 200 {
			t.Fatalf("create = %d %v", code, body)
		}
		ids, srcs := make([]string, len(cs)), make([]string, len(cs))
		for i, c := range cs {
			ids[i], srcs[i] = c.ID, c.line
		}
		start := time.Now()
		dsBulk(t, n, "cities", ids, srcs)
		t.Logf("loaded %d cities in %v", len(cs), time.Since(start).Round(time.Millisecond))
	}

	queries := []struct{ name, body string }{
		{"match_all", `{"query":{"match_all":{}}}`},
		{"term", `{"query":{"term":{"country":"FR"}}}`},
		{"match", `{"query":{"match":{"name":"san"}}}`},
		{"range", `{"query":{"range":{"population":{"gte":10000,"lt":20000}}}}`},
		{"bool+filter+sort", `{"query":{"bool":{"must":{"match":{"name":"saint"}},"filter":[{"term":{"country":"FR"}},{"range":{"population":{"gte":1000}}}]}},"sort":[{"population":"desc"}]}`},
		{"terms agg", `{"size":0,"aggs":{"c":{"terms":{"field":"country"}}}}`},
		{"terms+avg", `{"size":0,"aggs":{"c":{"terms":{"field":"country"},"aggs":{"p":{"avg":{"field":"population"}}}}}}`},
		{"geo_distance", `{"query":{"geo_distance":{"distance":"50km","location":{"lat":48.8566,"lon":2.3522}}}}`},
	}
	// A plain client: the spec-validating transport would add its own cost.
	hc := &http.Client{}
	do := func(body string) {
		res, err := hc.Post(n.URL+"/cities/_search", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("search = %d %s", res.StatusCode, b)
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-18s %10s %10s %10s\n", "query", "p50", "p99", "max")
	for _, q := range queries {
		for i := 0; i < 20; i++ {
			do(q.body)
		}
		d := make([]time.Duration, runs)
		for i := range d {
			s := time.Now()
			do(q.body)
			d[i] = time.Since(s)
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		p := func(q float64) time.Duration { return d[min(len(d)-1, int(q*float64(len(d))))] }
		line := fmt.Sprintf("%-18s %10v %10v %10v", q.name, p(0.50).Round(time.Microsecond), p(0.99).Round(time.Microsecond), d[len(d)-1].Round(time.Microsecond))
		t.Log(line)
		table.WriteString(line + "\n")
	}
	t.Log(table.String())
}
