package handlers_test

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// f32 renders a score the way responses do (float32, shortest form).
func f32(x float64) string { return strconv.FormatFloat(x, 'g', -1, 32) }

// bm25 computes Elasticsearch 7's BM25 term score independently of the code
// under test (LegacyBM25Similarity: boost 2.2, float32 arithmetic; field
// lengths below 24 are exact).
func bm25(freq, dl, n, docs, sumLen float64) (score, idf, tf, avgdl float32) {
	idf = float32(math.Log(1 + (docs-n+0.5)/(n+0.5)))
	avgdl = float32(sumLen / docs)
	w := float32(2.2) * idf
	normInv := 1 / (float32(1.2) * ((1 - float32(0.75)) + float32(0.75)*float32(dl)/avgdl))
	score = w - w/(1+float32(freq)*normInv)
	norm := float32(1.2) * ((1 - float32(0.75)) + float32(0.75)*float32(dl)/avgdl)
	tf = float32(freq / (freq + float64(norm)))
	return
}

// seedPets indexes three short documents in one bulk (one segment) into a
// single-shard index.
func seedPets(t *testing.T, n *testNode, index string, shards int) {
	t.Helper()
	n.do("PUT", "/"+index, "application/json", fmt.Sprintf(`{"settings":{"number_of_shards":%d},"mappings":{"properties":{
		"title":{"type":"text"},"kind":{"type":"keyword"},"age":{"type":"integer"}}}}`, shards))
	docs := `{"index":{"_id":"1"}}
{"title":"quick brown fox","kind":"fox","age":3}
{"index":{"_id":"2"}}
{"title":"quick quick dog","kind":"dog","age":5}
{"index":{"_id":"3"}}
{"title":"lazy cat","kind":"cat","age":5}
{"index":{"_id":"4"}}
{"title":"brown dog sleeps","kind":"dog","age":7}
`
	code, body := n.do("POST", "/"+index+"/_bulk?refresh=true", "application/x-ndjson", docs)
	if code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("seed %s = %d %v", index, code, body)
	}
}

func TestSearchExplain(t *testing.T) {
	n := newTestNode(t)
	seedPets(t, n, "pets", 1)
	// doc 2: "quick quick dog": freq 2, length 3; "quick" is in 2 of 4
	// documents, total length 3+3+2+3 = 11.
	score, idf, tf, avgdl := bm25(2, 3, 2, 4, 11)
	w := float32(4.4) * idf // boost 2 folds into the weight: 2.2 * 2
	boosted := w - w/(1+2/(float32(1.2)*((1-float32(0.75))+float32(0.75)*3/avgdl)))
	term := func(boost string, s float32) string {
		return `{"value":` + f32(float64(s)) + `,"description":"weight(title:quick in 1) [PerFieldSimilarity], result of:","details":[` +
			`{"value":` + f32(float64(s)) + `,"description":"score(freq=2.0), computed as boost * idf * tf from:","details":[` +
			`{"value":` + boost + `,"description":"boost","details":[]},` +
			`{"value":` + f32(float64(idf)) + `,"description":"idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:","details":[` +
			`{"value":2,"description":"n, number of documents containing term","details":[]},` +
			`{"value":4,"description":"N, total number of documents with field","details":[]}]},` +
			`{"value":` + f32(float64(tf)) + `,"description":"tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:","details":[` +
			`{"value":2,"description":"freq, occurrences of term within document","details":[]},` +
			`{"value":1.2,"description":"k1, term saturation parameter","details":[]},` +
			`{"value":0.75,"description":"b, length normalization parameter","details":[]},` +
			`{"value":3,"description":"dl, length of field","details":[]},` +
			`{"value":` + f32(float64(avgdl)) + `,"description":"avgdl, average length of field","details":[]}]}]}]}`
	}
	tests := []struct {
		name, body, want string
		score            float64
	}{
		{"term weight", `{"query":{"term":{"title":"quick"}},"explain":true,"size":1}`, term("2.2", score), float64(score)},
		{"boost folds into the term weight", `{"query":{"term":{"title":{"value":"quick","boost":2}}},"explain":true,"size":1}`,
			term("4.4", boosted), float64(boosted)},
		{"constant_score", `{"query":{"constant_score":{"filter":{"term":{"kind":"dog"}},"boost":1.5}},"explain":true,"size":1,"sort":["_score",{"age":"asc"}]}`,
			`{"value":1.5,"description":"ConstantScore(kind:dog)^1.5","details":[]}`, 1.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, raw := n.raw("POST", "/pets/_search", "application/json", tc.body)
			if code != 200 {
				t.Fatalf("status %d: %s", code, raw)
			}
			var res struct {
				Hits struct {
					Hits []struct {
						ID          string          `json:"_id"`
						Score       float64         `json:"_score"`
						Shard       string          `json:"_shard"`
						Node        string          `json:"_node"`
						Explanation json.RawMessage `json:"_explanation"`
					} `json:"hits"`
				} `json:"hits"`
			}
			if err := json.Unmarshal(raw, &res); err != nil || len(res.Hits.Hits) != 1 {
				t.Fatalf("bad response %s", raw)
			}
			h := res.Hits.Hits[0]
			if h.ID != "2" || f32(h.Score) != f32(tc.score) {
				t.Errorf("hit = %s %v, want 2 %v", h.ID, h.Score, tc.score)
			}
			if h.Shard != "[pets][0]" || h.Node == "" {
				t.Errorf("_shard/_node = %q %q", h.Shard, h.Node)
			}
			if string(h.Explanation) != tc.want {
				t.Errorf("explanation =\n%s\nwant\n%s", h.Explanation, tc.want)
			}
		})
	}
	// The bool explanation sums its clauses' weights.
	code, body := n.do("POST", "/pets/_search", "application/json",
		`{"query":{"bool":{"should":[{"term":{"title":"quick"}},{"term":{"title":"dog"}}]}},"explain":true,"size":1}`)
	dogScore, _, _, _ := bm25(1, 3, 2, 4, 11)
	if code != 200 || str(jsonPath(body, "hits.hits.0._explanation.description")) != `"sum of:"` ||
		f32(mustFloat(t, jsonPath(body, "hits.hits.0._explanation.value"))) != f32(float64(score+dogScore)) {
		t.Errorf("bool explanation = %v", jsonPath(body, "hits.hits.0._explanation"))
	}
	// A match of two terms is one "sum of:" over the two term weights
	// (no extra level for the one-clause wrapper, as Lucene rewrites it).
	_, body = n.do("POST", "/pets/_search", "application/json", `{"query":{"match":{"title":"quick dog"}},"explain":true,"size":1}`)
	if d := jsonPath(body, "hits.hits.0._explanation.details").([]any); len(d) != 2 ||
		str(jsonPath(d[0], "description")) != `"weight(title:quick in 1) [PerFieldSimilarity], result of:"` ||
		str(jsonPath(d[1], "description")) != `"weight(title:dog in 1) [PerFieldSimilarity], result of:"` {
		t.Errorf("match explanation = %v", jsonPath(body, "hits.hits.0._explanation"))
	}
	// A filter clause adds 0, explained as Lucene's FILTER clause.
	_, body = n.do("POST", "/pets/_search", "application/json", `{"query":{"bool":{"must":[{"term":{"title":"quick"}}],"filter":[{"term":{"kind":"dog"}}]}},"explain":true}`)
	if got := str(jsonPath(body, "hits.hits.0._explanation.details.1")); !strings.HasPrefix(got,
		`{"description":"match on required clause, product of:","details":[{"description":"# clause","details":[],"value":0},`) {
		t.Errorf("filter clause explanation = %s", got)
	}
	// function_score: the query's weight times the combined functions.
	code, body = n.do("POST", "/pets/_search", "application/json", `{"query":{"function_score":{"query":{"term":{"title":"dog"}},`+
		`"functions":[{"filter":{"term":{"kind":"dog"}},"weight":3},{"field_value_factor":{"field":"age"}}],"score_mode":"sum"}},"explain":true,"size":1,"sort":["_score",{"age":"desc"}]}`)
	want := map[string]string{
		"hits.hits.0._id":                                          `"4"`,
		"hits.hits.0._explanation.value":                           f32(float64(dogScore) * 10),
		"hits.hits.0._explanation.description":                     `"function score, boost_mode [multiply], boost 1.0, of:"`,
		"hits.hits.0._explanation.details.0.value":                 f32(float64(dogScore)),
		"hits.hits.0._explanation.details.1.value":                 "10",
		"hits.hits.0._explanation.details.1.details.0.description": `"function matching filter: weight"`,
		"hits.hits.0._explanation.details.1.details.1.value":       "7",
		"hits.hits.0._explanation.details.1.details.1.description": `"field value function: none(doc['age'].value * factor=1.0)"`,
	}
	for p, w := range want {
		if got := str(jsonPath(body, p)); code != 200 || got != w {
			t.Errorf("function_score %s = %s, want %s", p, got, w)
		}
	}
	// Without explain there is no _explanation, _shard or _node.
	_, raw := n.raw("POST", "/pets/_search", "application/json", `{"query":{"term":{"title":"quick"}},"size":1}`)
	if strings.Contains(string(raw), "_explanation") || strings.Contains(string(raw), `"_shard"`) {
		t.Errorf("explanation without explain: %s", raw)
	}
}

func mustFloat(t *testing.T, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			t.Fatal(err)
		}
		return f
	case float64:
		return x
	}
	t.Fatalf("not a number: %v", v)
	return 0
}

func TestExplainAPI(t *testing.T) {
	n := newTestNode(t)
	seedPets(t, n, "pets", 2)
	tests := []struct {
		name, path, body string
		code             int
		want             map[string]string // jsonPath -> JSON
	}{
		{"matching document", "/pets/_explain/3", `{"query":{"match":{"title":"lazy"}}}`, 200, map[string]string{
			"matched": `true`, "_id": `"3"`, "_index": `"pets"`,
			"explanation.description": `"weight(title:lazy in 2) [PerFieldSimilarity], result of:"`}},
		{"q parameter", "/pets/_explain/3?q=title:lazy", ``, 200, map[string]string{"matched": `true`}},
		{"not matching", "/pets/_explain/1", `{"query":{"term":{"kind":"cat"}}}`, 200, map[string]string{
			"matched": `false`, "explanation.value": `0`, "explanation.description": `"no match on required clause (kind:cat)"`}},
		{"missing document", "/pets/_explain/99", `{"query":{"match_all":{}}}`, 404, map[string]string{"matched": `false`, "_id": `"99"`}},
		{"missing query", "/pets/_explain/1", ``, 400, map[string]string{"error.type": `"action_request_validation_exception"`}},
		{"unknown body key", "/pets/_explain/1", `{"size":1}`, 400, map[string]string{"error.type": `"parsing_exception"`}},
		{"missing index", "/nope/_explain/1", `{"query":{"match_all":{}}}`, 404, map[string]string{"error.type": `"index_not_found_exception"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", tc.path, "application/json", tc.body)
			if code != tc.code {
				t.Fatalf("status = %d, want %d: %v", code, tc.code, body)
			}
			checkPaths(t, body, tc.want)
		})
	}
	// The explained value is the document's search score.
	_, s := n.do("POST", "/pets/_search", "application/json", `{"query":{"match":{"title":"brown dog"}}}`)
	_, e := n.do("GET", "/pets/_explain/4", "application/json", `{"query":{"match":{"title":"brown dog"}}}`)
	for _, h := range jsonPath(s, "hits.hits").([]any) {
		if str(jsonPath(h, "_id")) == `"4"` && str(jsonPath(h, "_score")) != str(jsonPath(e, "explanation.value")) {
			t.Errorf("explain value %s != score %s", str(jsonPath(e, "explanation.value")), str(jsonPath(h, "_score")))
		}
	}
}

func TestSearchMatchedQueries(t *testing.T) {
	n := newTestNode(t)
	seedPets(t, n, "pets", 2)
	tests := []struct {
		name, body string
		want       map[string]string // id -> matched_queries JSON ("" = absent)
	}{
		{"bool should clauses", `{"query":{"bool":{"should":[{"match":{"title":{"query":"quick","_name":"fast"}}},{"term":{"kind":{"value":"dog","_name":"dogs"}}}]}}}`,
			map[string]string{"1": `["fast"]`, "2": `["fast","dogs"]`, "4": `["dogs"]`}},
		{"nested bool and filter", `{"query":{"bool":{"_name":"outer","filter":[{"range":{"age":{"gte":5,"_name":"old"}}}],"must_not":[{"term":{"kind":{"value":"cat","_name":"cats"}}}]}}}`,
			map[string]string{"2": `["old","outer"]`, "4": `["old","outer"]`}},
		{"unnamed queries", `{"query":{"match":{"title":"quick"}}}`, map[string]string{"1": ``, "2": ``}},
		{"post_filter names count", `{"query":{"match_all":{}},"post_filter":{"terms":{"kind":["cat"],"_name":"pf"}}}`, map[string]string{"3": `["pf"]`}},
		{"constant_score and function_score", `{"query":{"function_score":{"query":{"constant_score":{"filter":{"term":{"kind":"fox"}},"_name":"cs"}},"_name":"fs"}}}`,
			map[string]string{"1": `["cs","fs"]`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", "/pets/_search", "application/json", tc.body)
			if code != 200 {
				t.Fatalf("status %d: %v", code, body)
			}
			hits := jsonPath(body, "hits.hits").([]any)
			if len(hits) != len(tc.want) {
				t.Fatalf("hits = %d, want %d: %v", len(hits), len(tc.want), hits)
			}
			for _, h := range hits {
				id := jsonPath(h, "_id").(string)
				got := ""
				if m := jsonPath(h, "matched_queries"); m != nil {
					got = str(m)
				}
				if got != tc.want[id] {
					t.Errorf("hit %s matched_queries = %s, want %s", id, got, tc.want[id])
				}
			}
		})
	}
}

func TestSearchProfile(t *testing.T) {
	n := newTestNode(t)
	seedPets(t, n, "pets", 2)
	code, raw := n.raw("POST", "/pets/_search", "application/json",
		`{"profile":true,"query":{"bool":{"must":[{"term":{"title":"dog"}}],"filter":[{"range":{"age":{"gte":5}}}]}}}`)
	if code != 200 {
		t.Fatalf("status %d: %s", code, raw)
	}
	var res struct {
		Profile struct {
			Shards []struct {
				ID       string `json:"id"`
				Searches []struct {
					Query []struct {
						Type        string           `json:"type"`
						Description string           `json:"description"`
						Time        int64            `json:"time_in_nanos"`
						Breakdown   map[string]int64 `json:"breakdown"`
						Children    []struct {
							Type        string `json:"type"`
							Description string `json:"description"`
							Time        int64  `json:"time_in_nanos"`
						} `json:"children"`
					} `json:"query"`
					RewriteTime int64 `json:"rewrite_time"`
					Collector   []struct {
						Name, Reason string
						Time         int64 `json:"time_in_nanos"`
					} `json:"collector"`
				} `json:"searches"`
				Aggregations []any `json:"aggregations"`
			} `json:"shards"`
		} `json:"profile"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Profile.Shards) != 2 {
		t.Fatalf("profile shards = %d, want 2: %s", len(res.Profile.Shards), raw)
	}
	for i, sh := range res.Profile.Shards {
		if !strings.HasSuffix(sh.ID, "][pets]["+strconv.Itoa(i)+"]") || !strings.HasPrefix(sh.ID, "[") {
			t.Errorf("shard id = %q", sh.ID)
		}
		if len(sh.Searches) != 1 || len(sh.Searches[0].Query) != 1 || sh.Aggregations == nil {
			t.Fatalf("shape: %s", raw)
		}
		q := sh.Searches[0].Query[0]
		if q.Type != "BooleanQuery" || q.Description != "+title:dog #age:[5.0 TO 1.7976931E308]" && !strings.HasPrefix(q.Description, "+title:dog #age:[5") {
			t.Errorf("root = %s %q", q.Type, q.Description)
		}
		var sum int64
		for k, v := range q.Breakdown {
			if !strings.HasSuffix(k, "_count") {
				sum += v
			}
		}
		if q.Time != sum || q.Time <= 0 || q.Breakdown["create_weight_count"] != 1 || q.Breakdown["next_doc_count"] < 1 {
			t.Errorf("time %d, breakdown %v", q.Time, q.Breakdown)
		}
		if len(q.Children) != 2 || q.Children[0].Type != "TermQuery" || q.Children[0].Description != "title:dog" ||
			q.Children[1].Type != "IndexOrDocValuesQuery" || q.Children[0].Time > q.Time {
			t.Errorf("children = %+v", q.Children)
		}
		c := sh.Searches[0].Collector
		if len(c) != 1 || c[0].Name != "SimpleTopScoreDocCollector" || c[0].Reason != "search_top_hits" || c[0].Time <= 0 {
			t.Errorf("collector = %+v", c)
		}
		if sh.Searches[0].RewriteTime <= 0 {
			t.Errorf("rewrite_time = %d", sh.Searches[0].RewriteTime)
		}
	}
	// Aggregations: one timing per top-level aggregation and shard; every
	// matching document of the shard is collected once.
	_, agg := n.do("POST", "/pets/_search", "application/json",
		`{"profile":true,"size":0,"aggs":{"k":{"terms":{"field":"kind"},"aggs":{"m":{"max":{"field":"age"}}}},"a":{"avg":{"field":"age"}}}}`)
	var collected int64
	for i := 0; i < 2; i++ {
		sh := jsonPath(agg, "profile.shards."+strconv.Itoa(i))
		if got := str(jsonPath(sh, "searches.0.collector.0.name")); got != `"MultiCollector"` {
			t.Errorf("collector with aggregations = %s", got)
		}
		list, _ := jsonPath(sh, "aggregations").([]any)
		if len(list) != 2 || str(jsonPath(list[0], "type")) != `"TermsAggregator"` || str(jsonPath(list[0], "description")) != `"k"` ||
			str(jsonPath(list[1], "type")) != `"AvgAggregator"` || str(jsonPath(list[1], "description")) != `"a"` {
			t.Fatalf("aggregations profile = %v", list)
		}
		for _, a := range list {
			tm := mustFloat(t, jsonPath(a, "time_in_nanos"))
			if tm <= 0 || tm != mustFloat(t, jsonPath(a, "breakdown.initialize"))+mustFloat(t, jsonPath(a, "breakdown.collect")) {
				t.Errorf("aggregation time = %v, breakdown %v", tm, jsonPath(a, "breakdown"))
			}
		}
		collected += int64(mustFloat(t, jsonPath(list[0], "breakdown.collect_count")))
	}
	if collected != 4 {
		t.Errorf("collect_count over shards = %d, want 4", collected)
	}
	// Profiling does not change the hits.
	_, plain := n.do("POST", "/pets/_search", "application/json", `{"query":{"bool":{"must":[{"term":{"title":"dog"}}],"filter":[{"range":{"age":{"gte":5}}}]}}}`)
	var prof map[string]any
	_ = json.Unmarshal(raw, &prof)
	if str(jsonPath(plain, "hits.hits")) != str(jsonPath(prof, "hits.hits")) {
		t.Errorf("profiled hits differ")
	}
	if _, ok := plain["profile"]; ok {
		t.Errorf("profile without profile: true")
	}
}

func TestSearchRescore(t *testing.T) {
	n := newTestNode(t)
	seedPets(t, n, "pets", 1)
	// Base scores of match title:"brown dog quick".
	_, base := n.do("POST", "/pets/_search", "application/json", `{"query":{"match":{"title":"brown dog quick"}}}`)
	scores := map[string]float64{}
	for _, h := range jsonPath(base, "hits.hits").([]any) {
		scores[jsonPath(h, "_id").(string)] = mustFloat(t, jsonPath(h, "_score"))
	}
	// The rescore query gives dogs a constant 3.
	rq := `{"constant_score":{"filter":{"term":{"kind":"dog"}},"boost":3}}`
	combine := map[string]func(p, s float64) float64{
		"total":    func(p, s float64) float64 { return p + s },
		"multiply": func(p, s float64) float64 { return p * s },
		"avg":      func(p, s float64) float64 { return (p + s) / 2 },
		"max":      math.Max,
		"min":      math.Min,
	}
	for mode, fn := range combine {
		t.Run(mode, func(t *testing.T) {
			body := fmt.Sprintf(`{"query":{"match":{"title":"brown dog quick"}},"rescore":{"window_size":3,"query":{"rescore_query":%s,"query_weight":0.5,"rescore_query_weight":2,"score_mode":%q}}}`, rq, mode)
			code, res := n.do("POST", "/pets/_search", "application/json", body)
			if code != 200 {
				t.Fatalf("status %d: %v", code, res)
			}
			// Expected: the top 3 base hits rescored and re-sorted, the rest kept.
			type hit struct {
				id    string
				score float64
			}
			var order []hit
			for _, h := range jsonPath(base, "hits.hits").([]any) {
				id := jsonPath(h, "_id").(string)
				order = append(order, hit{id, scores[id]})
			}
			for i := range order[:3] {
				p := order[i].score * 0.5
				if order[i].id == "2" || order[i].id == "4" {
					order[i].score = fn(p, 3*2)
				} else {
					order[i].score = p
				}
			}
			sort.SliceStable(order[:3], func(i, j int) bool { return order[i].score > order[j].score })
			sort.SliceStable(order, func(i, j int) bool { return order[i].score > order[j].score })
			var want, got []string
			for _, h := range order {
				want = append(want, h.id+"="+f32(h.score))
			}
			for _, h := range jsonPath(res, "hits.hits").([]any) {
				got = append(got, jsonPath(h, "_id").(string)+"="+f32(mustFloat(t, jsonPath(h, "_score"))))
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("hits = %v, want %v", got, want)
			}
			if f32(mustFloat(t, jsonPath(res, "hits.max_score"))) != f32(order[0].score) {
				t.Errorf("max_score = %v, want %v", jsonPath(res, "hits.max_score"), order[0].score)
			}
		})
	}
	t.Run("array of rescorers, explain", func(t *testing.T) {
		body := `{"query":{"term":{"kind":"dog"}},"explain":true,"rescore":[` +
			`{"window_size":5,"query":{"rescore_query":{"term":{"age":7}}}},` +
			`{"query":{"rescore_query":{"match_all":{"boost":10}},"score_mode":"max"}}]}`
		code, res := n.do("POST", "/pets/_search", "application/json", body)
		if code != 200 {
			t.Fatalf("status %d: %v", code, res)
		}
		// term kind:dog scores equal (keyword, 2 of 4 docs); age 7 adds 1 to
		// doc 4; then max(score, 10) = 10 for both.
		if got := str(jsonPath(res, "hits.hits.0._score")) + str(jsonPath(res, "hits.hits.1._score")); got != "1010" {
			t.Errorf("scores = %s", got)
		}
		if str(jsonPath(res, "hits.hits.0._explanation.description")) != `"max of:"` {
			t.Errorf("explanation = %v", jsonPath(res, "hits.hits.0._explanation"))
		}
	})
	errs := []searchErrCase{
		{"window too large", "/pets/_search", `{"rescore":{"window_size":10001,"query":{"rescore_query":{"match_all":{}}}}}`, "search_phase_execution_exception/illegal_argument_exception",
			"Rescore window [10001] is too large. It must be less than [10000]. This prevents allocating massive heaps for storing the results to be rescored. This limit can be set by changing the [index.max_rescore_window] index level setting."},
		{"window above the index setting", "/small/_search", `{"rescore":{"window_size":6,"query":{"rescore_query":{"match_all":{}}}}}`, "search_phase_execution_exception/illegal_argument_exception",
			"Rescore window [6] is too large. It must be less than [5]. This prevents allocating massive heaps for storing the results to be rescored. This limit can be set by changing the [index.max_rescore_window] index level setting."},
		{"with sort", "/pets/_search", `{"sort":["age"],"rescore":{"query":{"rescore_query":{"match_all":{}}}}}`, "illegal_argument_exception", "Cannot use [sort] option in conjunction with [rescore]."},
		{"bad score_mode", "/pets/_search", `{"rescore":{"query":{"rescore_query":{"match_all":{}},"score_mode":"sum"}}}`, "illegal_argument_exception", "illegal score_mode [sum]"},
		{"missing rescore_query", "/pets/_search", `{"rescore":{"query":{"query_weight":1}}}`, "illegal_argument_exception", "rescore_query cannot be null"},
		{"unknown rescorer", "/pets/_search", `{"rescore":{"learning_to_rank":{}}}`, "parsing_exception", "rescore doesn't support rescorer with name [learning_to_rank]"},
		{"unknown query field", "/pets/_search", `{"rescore":{"query":{"rescore_query":{"match_all":{}},"weight":1}}}`, "parsing_exception", "[query] unknown field [weight]"},
		{"no rescorer", "/pets/_search", `{"rescore":{"window_size":5}}`, "parsing_exception", "missing rescore type"},
	}
	n.do("PUT", "/small", "application/json", `{"settings":{"index.max_rescore_window":5}}`)
	runSearchErrors(t, n, errs)
}

// checkPaths compares dotted paths of a decoded response with JSON values.
func checkPaths(t *testing.T, body map[string]any, want map[string]string) {
	t.Helper()
	for p, w := range want {
		if got := str(jsonPath(body, p)); got != w {
			t.Errorf("%s = %s, want %s", p, got, w)
		}
	}
}

// searchErrCase is a search that must fail with a 400 of type typ and
// exactly reason (of the shards' exception when typ is
// "search_phase_execution_exception/<its type>", see searchErrorOf).
type searchErrCase struct{ name, path, body, typ, reason string }

func runSearchErrors(t *testing.T, n *testNode, cases []searchErrCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", tc.path, "application/json", tc.body)
			if typ, reason := searchErrorOf(t, body); code != 400 || typ != tc.typ || reason != tc.reason {
				t.Errorf("= %d %v", code, jsonPath(body, "error"))
			}
		})
	}
}

// TestURISearch runs q= URI searches with df, default_operator, analyzer
// and lenient, and checks URL parameters win over the body as in
// Elasticsearch's RestSearchAction: q replaces the body query, size the
// body size, and URL sort keys follow the body's.
func TestURISearch(t *testing.T) {
	n := newTestNode(t)
	seedPets(t, n, "pets", 1)
	tests := []struct {
		name, query, body, ids string
	}{
		{"q with df", "q=quick&df=title&sort=age:asc", "", "1,2"},
		{"default_operator AND", "q=quick%20dog&df=title&default_operator=AND", "", "2"},
		{"default_operator OR", "q=title:quick%20title:dog&default_operator=OR&sort=age:desc", "", "4,2,1"},
		{"lenient number field", "q=age:abc&lenient=true", "", ""},
		{"keyword analyzer keeps case", "q=title:QUICK&analyzer=keyword", "", ""},
		{"keyword analyzer", "q=title:quick&analyzer=keyword&sort=age:asc", "", "1,2"},
		{"one-sided ranges in a group", "q=age:(%3E3%20AND%20%3C=5)&sort=_doc", "", "2,3"},
		{"q replaces the body query", "q=kind:dog&sort=age:asc", `{"query":{"term":{"kind":"cat"}}}`, "2,4"},
		{"size replaces the body size", "size=3&sort=age:asc", `{"size":1}`, "1,2,3"},
		{"URL sort follows the body sort", "sort=kind:asc", `{"sort":[{"age":"desc"}]}`, "4,3,2,1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := ""
			if tt.body != "" {
				ct = "application/json"
			}
			code, body := n.do("POST", "/pets/_search?"+tt.query, ct, tt.body)
			if code != 200 {
				t.Fatalf("status %d %v", code, body)
			}
			if got := strings.Join(hitIDs(body), ","); got != tt.ids {
				t.Errorf("ids = %q, want %q", got, tt.ids)
			}
		})
	}
	code, body := n.do("GET", "/pets/_search?q=kind:cat&_source_includes=age", "", "")
	if got := str(jsonPath(body, "hits.hits.0._source")); code != 200 || got != `{"age":5}` {
		t.Errorf("_source_includes: %d %s", code, got)
	}
	code, body = n.do("POST", "/pets/_search?q=kind:cat&explain=false", "application/json", `{"explain":true}`)
	if code != 200 || jsonPath(body, "hits.hits.0._explanation") != nil {
		t.Errorf("explain=false over the body: %d %s", code, str(body))
	}
}
