package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/aggregations"
)

// benchQuery is one query of the fixed set: its HTTP form and the same
// search expressed directly against bluge on the ceiling index.
type benchQuery struct {
	name  string
	index string // "cities" or "emails"
	body  string
	// inProcess builds the equivalent bluge request.
	inProcess func() bluge.SearchRequest
	// pit pages a point in time: body gets the PIT id added.
	pit bool
	// maxP50 is the absolute p50 target in milliseconds (0: none).
	maxP50 float64
}

// queryResult holds the latency figures of one query.
type queryResult struct {
	Name        string  `json:"name"`
	Index       string  `json:"index"`
	Runs        int     `json:"runs"`
	Hits        int     `json:"hits"`
	ClientP50Ms float64 `json:"client_p50_ms"`
	ClientP99Ms float64 `json:"client_p99_ms"`
	TookP50Ms   float64 `json:"took_p50_ms"`
	TookP99Ms   float64 `json:"took_p99_ms"`
	InProcP50Ms float64 `json:"in_process_p50_ms"`
	InProcP99Ms float64 `json:"in_process_p99_ms"`
	Ratio       float64 `json:"ratio"` // client p50 / in-process p50
	MaxP50Ms    float64 `json:"max_p50_ms,omitempty"`
}

// querySet returns the fixed query set. months are the calendar-month
// boundaries (epoch milliseconds) of the emails' dates, for the in-process
// form of the date histogram.
func querySet(months []float64) []benchQuery {
	terms := func(sub bool) func() bluge.SearchRequest {
		return func() bluge.SearchRequest {
			req := bluge.NewTopNSearch(0, bluge.NewMatchAllQuery())
			t := aggregations.NewTermsAggregation(search.Field("country.keyword"), 10)
			if sub {
				t.AddAggregation("avg_pop", aggregations.Avg(search.Field("population")))
			}
			req.Aggregations().Add("countries", t)
			return req
		}
	}
	return []benchQuery{
		{name: "match_all", index: "cities", body: `{"query":{"match_all":{}}}`,
			inProcess: func() bluge.SearchRequest { return bluge.NewTopNSearch(10, bluge.NewMatchAllQuery()) }},
		{name: "term", index: "cities", body: `{"query":{"term":{"country.keyword":"FR"}}}`, maxP50: 1,
			inProcess: func() bluge.SearchRequest {
				return bluge.NewTopNSearch(10, bluge.NewTermQuery("FR").SetField("country.keyword"))
			}},
		{name: "match", index: "cities", body: `{"query":{"match":{"name":"san jose"}}}`, maxP50: 1,
			inProcess: func() bluge.SearchRequest {
				return bluge.NewTopNSearch(10, bluge.NewMatchQuery("san jose").SetField("name"))
			}},
		{name: "range", index: "cities", body: `{"query":{"range":{"population":{"gte":100000,"lt":500000}}}}`, maxP50: 1,
			inProcess: func() bluge.SearchRequest {
				return bluge.NewTopNSearch(10, bluge.NewNumericRangeInclusiveQuery(100000, 500000, true, false).SetField("population"))
			}},
		{name: "bool_filter_sort", index: "cities",
			body: `{"query":{"bool":{"must":[{"match":{"name":"saint"}}],"filter":[{"range":{"population":{"gte":1000}}}]}},"sort":[{"population":{"order":"desc"}}]}`,
			inProcess: func() bluge.SearchRequest {
				q := bluge.NewBooleanQuery().
					AddMust(bluge.NewMatchQuery("saint").SetField("name")).
					AddMust(bluge.NewNumericRangeInclusiveQuery(1000, math.Inf(1), true, false).SetField("population").SetBoost(0))
				return bluge.NewTopNSearch(10, q).SortBy([]string{"-population"})
			}},
		{name: "terms_agg", index: "cities", body: `{"size":0,"aggs":{"countries":{"terms":{"field":"country.keyword","size":10}}}}`, maxP50: 10,
			inProcess: terms(false)},
		{name: "terms_avg_agg", index: "cities", body: `{"size":0,"aggs":{"countries":{"terms":{"field":"country.keyword","size":10},"aggs":{"avg_pop":{"avg":{"field":"population"}}}}}}`, maxP50: 20,
			inProcess: terms(true)},
		{name: "date_histogram", index: "emails", body: `{"size":0,"aggs":{"months":{"date_histogram":{"field":"date","calendar_interval":"month"}}}}`,
			inProcess: func() bluge.SearchRequest {
				req := bluge.NewTopNSearch(0, bluge.NewMatchAllQuery())
				r := aggregations.Ranges(search.Field("date"))
				for i := 0; i+1 < len(months); i++ {
					r.AddRange(aggregations.Range(months[i], months[i+1]))
				}
				req.Aggregations().Add("months", r)
				return req
			}},
		{name: "phrase", index: "emails", body: `{"query":{"match_phrase":{"body":"mailing list"}}}`,
			inProcess: func() bluge.SearchRequest {
				return bluge.NewTopNSearch(10, bluge.NewMatchPhraseQuery("mailing list").SetField("body"))
			}},
		{name: "pit_page_1000", index: "cities", pit: true,
			body: `{"size":1000,"sort":[{"_shard_doc":"asc"}],"query":{"match_all":{}}}`,
			inProcess: func() bluge.SearchRequest {
				return bluge.NewTopNSearch(1000, bluge.NewMatchAllQuery()).SortBy([]string{"_id"})
			}},
	}
}

// monthBoundaries returns the epoch-millisecond starts of every calendar
// month (UTC) from the earliest to one past the latest "date" of ds.
func monthBoundaries(ds *dataset) []float64 {
	var lo, hi time.Time
	for _, d := range ds.docs {
		var v struct {
			Date string `json:"date"`
		}
		if json.Unmarshal(d, &v) != nil {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, v.Date)
		if err != nil {
			continue
		}
		if lo.IsZero() || t.Before(lo) {
			lo = t
		}
		if hi.IsZero() || t.After(hi) {
			hi = t
		}
	}
	if lo.IsZero() {
		return nil
	}
	var out []float64
	m := time.Date(lo.Year(), lo.Month(), 1, 0, 0, 0, 0, time.UTC)
	for !m.After(hi) {
		out = append(out, float64(m.UnixMilli()))
		m = m.AddDate(0, 1, 0)
	}
	return append(out, float64(m.UnixMilli()))
}

// searchResponse is the part of a search response the benchmark reads.
type searchResponse struct {
	Took int64 `json:"took"`
	Hits struct {
		Hits []json.RawMessage `json:"hits"`
	} `json:"hits"`
	PitID string `json:"pit_id"`
}

// runQuery times q over HTTP (client latency and server took) and in
// process against the ceiling reader, alternating: warm runs first, then
// runs timed.
func runQuery(ctx context.Context, s *server, readers map[string]*bluge.Reader, q benchQuery, warm, runs int) (queryResult, error) {
	res := queryResult{Name: q.name, Index: q.index, Runs: runs, MaxP50Ms: q.maxP50}
	path := "/" + q.index + "/_search"
	body := []byte(q.body)
	if q.pit {
		var open struct {
			ID string `json:"id"`
		}
		if err := s.call(ctx, "POST", "/"+q.index+"/_pit?keep_alive=5m", "", nil, &open); err != nil {
			return res, err
		}
		defer func() {
			_ = s.call(context.Background(), "DELETE", "/_pit", "application/json", []byte(`{"id":"`+open.ID+`"}`), nil)
		}()
		var b map[string]any
		_ = json.Unmarshal(body, &b)
		b["pit"] = map[string]any{"id": open.ID, "keep_alive": "5m"}
		body, _ = json.Marshal(b)
		path = "/_search"
	}
	// HTTP and in-process runs alternate, so that both meet the same
	// conditions of the machine (a background merge, another process).
	r := readers[q.index]
	var client, took, inproc []float64
	for i := 0; i < warm+runs; i++ {
		var sr searchResponse
		t0 := time.Now()
		if err := s.call(ctx, "POST", path, "application/json", body, &sr); err != nil {
			return res, fmt.Errorf("query %s: %w", q.name, err)
		}
		el := time.Since(t0)
		res.Hits = len(sr.Hits.Hits)
		t0 = time.Now()
		if _, err := runInProcess(ctx, r, q.inProcess()); err != nil {
			return res, fmt.Errorf("query %s in process: %w", q.name, err)
		}
		if i >= warm {
			client = append(client, ms(el))
			took = append(took, float64(sr.Took))
			inproc = append(inproc, ms(time.Since(t0)))
		}
	}
	res.ClientP50Ms, res.ClientP99Ms = percentile(client, 50), percentile(client, 99)
	res.TookP50Ms, res.TookP99Ms = percentile(took, 50), percentile(took, 99)
	res.InProcP50Ms, res.InProcP99Ms = percentile(inproc, 50), percentile(inproc, 99)
	if res.InProcP50Ms > 0 {
		res.Ratio = res.ClientP50Ms / res.InProcP50Ms
	}
	return res, nil
}

// throughputResult compares search throughput with 1 and 8 clients.
type throughputResult struct {
	Seconds  float64 `json:"seconds"`
	QPS1     float64 `json:"qps_1_client"`
	QPS8     float64 `json:"qps_8_clients"`
	Scaling  float64 `json:"scaling"`
	Requests int64   `json:"requests"`
}

// throughput runs the cities term/match/range/bool queries in a loop from
// clients concurrent clients for d and returns the completed queries per
// second.
func throughput(ctx context.Context, s *server, qs []benchQuery, clients int, d time.Duration) (float64, int64, error) {
	var mix [][]byte
	for _, q := range qs {
		switch q.name {
		case "term", "match", "range", "bool_filter_sort":
			mix = append(mix, []byte(q.body))
		}
	}
	var done atomic.Int64
	var firstErr error
	var once sync.Once
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := c; ctx.Err() == nil; i++ {
				err := s.call(ctx, "POST", "/cities/_search", "application/json", mix[i%len(mix)], nil)
				if err != nil {
					if ctx.Err() == nil {
						once.Do(func() { firstErr = err })
					}
					return
				}
				done.Add(1)
			}
		}(c)
	}
	wg.Wait()
	if firstErr != nil {
		return 0, 0, firstErr
	}
	n := done.Load()
	return float64(n) / time.Since(start).Seconds(), n, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentile returns the p-th percentile (nearest rank) of xs.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	rank := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(rank, len(s)-1))]
}

// median returns the median of xs (0 when empty).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
