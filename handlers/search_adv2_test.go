package handlers_test

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestSearchCollapse(t *testing.T) {
	n := newTestNode(t)
	seedPets(t, n, "pets", 2)
	tests := []struct {
		name, body string
		hits       string // id:collapse value, in order
		extra      map[string]string
	}{
		{"keyword, best by sort", `{"collapse":{"field":"kind"},"sort":[{"age":"desc"}],"_source":false}`,
			"4:dog 3:cat 1:fox", map[string]string{"hits.total.value": "4", "hits.hits.0.sort": "[7]"}},
		{"numeric field, from/size over groups", `{"collapse":{"field":"age"},"sort":["age"],"from":1,"size":1,"_source":false}`,
			"2:5", map[string]string{"hits.hits.0.fields": `{"age":[5]}`}},
		{"score order", `{"query":{"match":{"title":"quick dog"}},"collapse":{"field":"kind"},"_source":false}`, "2:dog 1:fox", nil},
		{"inner hits", `{"collapse":{"field":"kind","inner_hits":[{"name":"young","size":1,"sort":["age"],"_source":false},{"name":"all","size":5,"sort":[{"age":"desc"}],"_source":false}],"max_concurrent_group_searches":2},"sort":["age"],"size":1,"_source":false}`,
			"1:fox", map[string]string{"hits.hits.0.inner_hits.young.hits.total.value": "1", "hits.hits.0.inner_hits.all.hits.hits.0._id": `"1"`}},
		{"inner hits of a larger group", `{"query":{"term":{"kind":"dog"}},"collapse":{"field":"kind","inner_hits":{"name":"g","size":5,"sort":[{"age":"desc"}],"_source":false}},"_source":false}`,
			"", map[string]string{"hits.hits.0.inner_hits.g.hits.total.value": "2", "hits.hits.0.inner_hits.g.hits.hits.0._id": `"4"`,
				"hits.hits.0.inner_hits.g.hits.hits.1._id": `"2"`, "hits.hits.0.inner_hits.g.hits.hits.1.sort": `[5]`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", "/pets/_search", "application/json", tc.body)
			if code != 200 {
				t.Fatalf("status %d: %v", code, body)
			}
			if tc.hits != "" {
				var got []string
				for _, h := range jsonPath(body, "hits.hits").([]any) {
					var v string
					for _, x := range jsonPath(h, "fields").(map[string]any) {
						v = strings.Trim(str(x), `[]"`)
					}
					got = append(got, jsonPath(h, "_id").(string)+":"+v)
				}
				if strings.Join(got, " ") != tc.hits {
					t.Errorf("hits = %q, want %q", strings.Join(got, " "), tc.hits)
				}
			}
			checkPaths(t, body, tc.extra)
		})
	}
	// A group whose best hits are past the first fetch: many documents of
	// one kind outrank the other kinds.
	n.do("PUT", "/many", "application/json", `{"settings":{"number_of_shards":1},"mappings":{"properties":{"k":{"type":"keyword"},"r":{"type":"integer"}}}}`)
	var bulk strings.Builder
	for i := 0; i < 200; i++ {
		k := "a"
		if i >= 197 {
			k = fmt.Sprintf("z%d", i)
		}
		fmt.Fprintf(&bulk, "{\"index\":{\"_id\":\"%d\"}}\n{\"k\":%q,\"r\":%d}\n", i, k, i)
	}
	n.do("POST", "/many/_bulk?refresh=true", "application/x-ndjson", bulk.String())
	_, body := n.do("POST", "/many/_search", "application/json", `{"collapse":{"field":"k"},"sort":["r"],"size":4,"_source":false}`)
	if got := str(jsonPath(body, "hits.hits.3._id")); got != `"199"` || len(jsonPath(body, "hits.hits").([]any)) != 4 {
		t.Errorf("deep groups = %v", jsonPath(body, "hits.hits"))
	}
	errs := []searchErrCase{
		{"text field", "/pets/_search", `{"collapse":{"field":"title"}}`, "search_phase_execution_exception/illegal_argument_exception", "unknown type for collapse field `title`, only keywords and numbers are accepted"},
		{"unmapped field", "/pets/_search", `{"collapse":{"field":"nope"}}`, "search_phase_execution_exception/illegal_argument_exception", "no mapping found for `nope` in order to collapse on"},
		{"scroll", "/pets/_search?scroll=1m", `{"collapse":{"field":"kind"}}`, "search_phase_execution_exception/illegal_argument_exception", "cannot use `collapse` in a scroll context"},
		{"search_after", "/pets/_search", `{"collapse":{"field":"kind"},"sort":["age"],"search_after":[1]}`, "search_phase_execution_exception/illegal_argument_exception", "cannot use `collapse` in conjunction with `search_after`"},
		{"rescore", "/pets/_search", `{"collapse":{"field":"kind"},"rescore":{"query":{"rescore_query":{"match_all":{}}}}}`, "search_phase_execution_exception/illegal_argument_exception", "cannot use `collapse` in conjunction with `rescore`"},
		{"unknown key", "/pets/_search", `{"collapse":{"field":"kind","size":3}}`, "parsing_exception", "[collapse] unknown field [size]"},
		{"duplicate inner hits", "/pets/_search", `{"collapse":{"field":"kind","inner_hits":[{"name":"a"},{"name":"a"}]}}`, "illegal_argument_exception", "[inner_hits] already contains an entry for key [a]"},
	}
	runSearchErrors(t, n, errs)
}

func TestSearchTermSuggester(t *testing.T) {
	n := newTestNode(t)
	seedPets(t, n, "pets", 2)
	tests := []struct {
		name, body, want string
	}{
		{"misspelled tokens", `{"size":0,"suggest":{"s":{"text":"quik dgo","term":{"field":"title"}}}}`,
			`{"s":[{"text":"quik","offset":0,"length":4,"options":[{"text":"quick","score":0.75,"freq":2}]},` +
				`{"text":"dgo","offset":5,"length":3,"options":[]}]}`},
		{"min_word_length and global text", `{"size":0,"suggest":{"text":"dgo","s":{"term":{"field":"title","min_word_length":3}}}}`,
			`{"s":[{"text":"dgo","offset":0,"length":3,"options":[{"text":"dog","score":0.6666666,"freq":2}]}]}`},
		{"missing mode skips indexed terms", `{"size":0,"suggest":{"s":{"text":"brown","term":{"field":"title"}}}}`,
			`{"s":[{"text":"brown","offset":0,"length":5,"options":[]}]}`},
		{"always mode, max_edits and size", `{"size":0,"suggest":{"s":{"text":"lazy","term":{"field":"title","suggest_mode":"always","max_edits":2,"prefix_length":0,"min_word_length":1,"size":1}}}}`,
			`{"s":[{"text":"lazy","offset":0,"length":4,"options":[]}]}`},
		// dfox: fox is one edit away (any prefix); dog two edits, which
		// Lucene only looks for with max_edits-1 = 1 leading character fixed
		{"frequency sort", `{"size":0,"suggest":{"s":{"text":"dfox","term":{"field":"title","min_word_length":1,"prefix_length":0,"sort":"frequency","accuracy":0.1}}}}`,
			`{"s":[{"text":"dfox","offset":0,"length":4,"options":[{"text":"dog","score":0.3333333,"freq":2},{"text":"fox","score":0.6666666,"freq":1}]}]}`},
		{"score sort", `{"size":0,"suggest":{"s":{"text":"dfox","term":{"field":"title","min_word_length":1,"prefix_length":0,"accuracy":0.1}}}}`,
			`{"s":[{"text":"dfox","offset":0,"length":4,"options":[{"text":"fox","score":0.6666666,"freq":1},{"text":"dog","score":0.3333333,"freq":2}]}]}`},
		{"two edits keep max_edits-1 characters fixed", `{"size":0,"suggest":{"s":{"text":"foq","term":{"field":"title","min_word_length":1,"prefix_length":0,"accuracy":0.1}}}}`,
			`{"s":[{"text":"foq","offset":0,"length":3,"options":[{"text":"fox","score":0.6666666,"freq":1}]}]}`},
		{"string_distance damerau_levenshtein", `{"size":0,"suggest":{"s":{"text":"quik","term":{"field":"title","string_distance":"damerau_levenshtein"}}}}`,
			`{"s":[{"text":"quik","offset":0,"length":4,"options":[{"text":"quick","score":0.75,"freq":2}]}]}`},
		{"string_distance levenshtein", `{"size":0,"suggest":{"s":{"text":"quik","term":{"field":"title","string_distance":"levenshtein"}}}}`,
			`{"s":[{"text":"quik","offset":0,"length":4,"options":[{"text":"quick","score":0.8,"freq":2}]}]}`},
		{"string_distance jaro_winkler", `{"size":0,"suggest":{"s":{"text":"quik","term":{"field":"title","string_distance":"JARO_WINKLER"}}}}`,
			`{"s":[{"text":"quik","offset":0,"length":4,"options":[{"text":"quick","score":0.9533333,"freq":2}]}]}`},
		{"string_distance ngram", `{"size":0,"suggest":{"s":{"text":"quik","term":{"field":"title","string_distance":"ngram"}}}}`,
			`{"s":[{"text":"quik","offset":0,"length":4,"options":[{"text":"quick","score":0.7,"freq":2}]}]}`},
		{"min_doc_freq is exceeded, not reached", `{"size":0,"suggest":{"s":{"text":"quik","term":{"field":"title","min_doc_freq":2}}}}`,
			`{"s":[{"text":"quik","offset":0,"length":4,"options":[]}]}`},
		{"min_doc_freq below the frequency", `{"size":0,"suggest":{"s":{"text":"quik","term":{"field":"title","min_doc_freq":1}}}}`,
			`{"s":[{"text":"quik","offset":0,"length":4,"options":[{"text":"quick","score":0.75,"freq":2}]}]}`},
		{"accuracy drops weak candidates", `{"size":0,"suggest":{"s":{"text":"foq","term":{"field":"title","min_word_length":1,"prefix_length":0}}}}`,
			`{"s":[{"text":"foq","offset":0,"length":3,"options":[{"text":"fox","score":0.6666666,"freq":1}]}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, raw := n.raw("POST", "/pets/_search", "application/json", tc.body)
			if code != 200 {
				t.Fatalf("status %d: %s", code, raw)
			}
			if got := rawMember(raw, "suggest"); got != tc.want {
				t.Errorf("suggest = %s\nwant      %s", got, tc.want)
			}
		})
	}
	// The URL parameters build a term suggester named after the field.
	code, raw := n.raw("GET", "/pets/_search?size=0&suggest_field=title&suggest_text=quik+dgo&suggest_mode=always&suggest_size=1", "", "")
	if want := `{"title":[{"text":"quik","offset":0,"length":4,"options":[{"text":"quick","score":0.75,"freq":2}]},` +
		`{"text":"dgo","offset":5,"length":3,"options":[]}]}`; code != 200 || rawMember(raw, "suggest") != want {
		t.Errorf("URL suggester = %d %s\nwant %s", code, rawMember(raw, "suggest"), want)
	}
	errs := []searchErrCase{
		{"phrase", "/pets/_search", `{"suggest":{"s":{"text":"x","phrase":{"field":"title"}}}}`, "illegal_argument_exception", "the [phrase] suggester is not supported: only the [term] suggester is available"},
		{"completion", "/pets/_search", `{"suggest":{"s":{"prefix":"x","completion":{"field":"title"}}}}`, "illegal_argument_exception", "[prefix] is only supported by the completion suggester, which is not available"},
		{"no field", "/pets/_search", `{"suggest":{"s":{"text":"x","term":{}}}}`, "illegal_argument_exception", "The required field option is missing"},
		{"no text", "/pets/_search", `{"suggest":{"s":{"term":{"field":"title"}}}}`, "illegal_argument_exception", "The required text option is missing"},
		{"bad mode", "/pets/_search", `{"suggest":{"s":{"text":"x","term":{"field":"title","suggest_mode":"sometimes"}}}}`, "illegal_argument_exception", "Illegal suggest mode sometimes"},
		{"bad sort", "/pets/_search", `{"suggest":{"s":{"text":"x","term":{"field":"title","sort":"alpha"}}}}`, "illegal_argument_exception", "Illegal suggest sort alpha"},
		{"bad string_distance", "/pets/_search", `{"suggest":{"s":{"text":"x","term":{"field":"title","string_distance":"hamming"}}}}`, "illegal_argument_exception", "Illegal distance option hamming"},
		{"max_edits 3", "/pets/_search", `{"suggest":{"s":{"text":"x","term":{"field":"title","max_edits":3}}}}`, "illegal_argument_exception", "Illegal max_edits value 3"},
		{"unknown option", "/pets/_search", `{"suggest":{"s":{"text":"x","term":{"field":"title","bogus":1}}}}`, "parsing_exception", "suggester[term] doesn't support field [bogus]"},
	}
	runSearchErrors(t, n, errs)
}

func TestSearchDFSQueryThenFetch(t *testing.T) {
	n := newTestNode(t)
	seedPets(t, n, "one", 1)
	seedPets(t, n, "three", 3)
	scores := func(index, params, q string) string {
		code, body := n.do("POST", "/"+index+"/_search"+params, "application/json", `{"query":`+q+`,"_source":false}`)
		if code != 200 {
			t.Fatalf("status %d: %v", code, body)
		}
		var out []string
		for _, h := range jsonPath(body, "hits.hits").([]any) {
			out = append(out, jsonPath(h, "_id").(string)+"="+str(jsonPath(h, "_score")))
		}
		sort.Strings(out) // equal scores tie-break by shard
		return strings.Join(out, " ")
	}
	for _, q := range []string{
		`{"match":{"title":"quick dog"}}`,
		`{"match":{"title":"brown"}}`,
		`{"bool":{"should":[{"match":{"title":"lazy"}},{"term":{"title":"fox"}}]}}`,
	} {
		single := scores("one", "", q)
		dfs := scores("three", "?search_type=dfs_query_then_fetch", q)
		if single != dfs {
			t.Errorf("%s: dfs on 3 shards = %s, 1 shard = %s", q, dfs, single)
		}
		if plain := scores("three", "?search_type=query_then_fetch", q); plain == single && strings.Contains(q, "quick") {
			t.Errorf("%s: per-shard statistics gave the global scores (test has no signal): %s", q, plain)
		}
	}
	// msearch headers carry search_type too.
	code, body := n.do("POST", "/_msearch", "application/x-ndjson",
		`{"index":"three","search_type":"dfs_query_then_fetch"}`+"\n"+`{"query":{"match":{"title":"lazy"}}}`+"\n")
	if got, want := str(jsonPath(body, "responses.0.hits.hits.0._score")), strings.TrimPrefix(scores("one", "", `{"match":{"title":"lazy"}}`), "3="); code != 200 || got != want {
		t.Errorf("msearch dfs score = %s, want %s", got, want)
	}
	_, body = n.do("POST", "/_msearch", "application/x-ndjson", `{"index":"three"}`+"\n"+`{"query":{"match":{"title":"lazy"}}}`+"\n")
	if strings.TrimPrefix(scores("one", "", `{"match":{"title":"lazy"}}`), "3=") == str(jsonPath(body, "responses.0.hits.hits.0._score")) {
		t.Errorf("msearch without dfs already has the global score: the dfs check has no signal")
	}
	// The 1-shard scores are ES's: "brown" in 2 of 4 docs, length 3, avgdl 11/4.
	s, _, _, _ := bm25(1, 3, 2, 4, 11)
	if got, want := scores("one", "", `{"match":{"title":"brown"}}`), "1="+f32(float64(s))+" 4="+f32(float64(s)); got != want {
		t.Errorf("brown = %s, want %s", got, want)
	}
}

func TestSearchGeoDistanceSort(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/geo", "application/json", `{"mappings":{"properties":{"loc":{"type":"geo_point"}}}}`)
	n.do("POST", "/geo/_bulk?refresh=true", "application/x-ndjson", `{"index":{"_id":"paris"}}
{"loc":{"lat":48.8566,"lon":2.3522}}
{"index":{"_id":"london"}}
{"loc":"51.5074,-0.1278"}
{"index":{"_id":"both"}}
{"loc":[[2.3522,48.8566],[-0.1278,51.5074]]}
{"index":{"_id":"none"}}
{}
`)
	const r = 6371008.7714
	rad := math.Pi / 180
	arc := func(lat1, lon1, lat2, lon2 float64) float64 {
		h := (1 - math.Cos((lat1-lat2)*rad)) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*(1-math.Cos((lon1-lon2)*rad))
		return r * 2 * math.Asin(math.Min(1, math.Sqrt(h*0.5)))
	}
	plane := func(lat1, lon1, lat2, lon2 float64) float64 {
		x := (lon2 - lon1) * rad * math.Cos((lat2+lat1)/2*rad)
		y := (lat2 - lat1) * rad
		return math.Sqrt(x*x+y*y) * r
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	const olat, olon = 48.8, 2.3
	parisKm, londonKm := arc(olat, olon, 48.8566, 2.3522)/1000, arc(olat, olon, 51.5074, -0.1278)/1000
	tests := []struct{ name, sort, want string }{
		{"arc km ascending", `{"_geo_distance":{"loc":{"lat":48.8,"lon":2.3},"unit":"km"}}`,
			"both=" + num(parisKm) + " paris=" + num(parisKm) + " london=" + num(londonKm) + ` none="Infinity"`},
		{"descending uses max", `{"_geo_distance":{"loc":[2.3,48.8],"unit":"km","order":"desc"}}`,
			`none="Infinity" both=` + num(londonKm) + " london=" + num(londonKm) + " paris=" + num(parisKm)},
		{"plane meters, mode avg", `{"_geo_distance":{"loc":"48.8,2.3","distance_type":"plane","mode":"avg"}}`,
			"paris=" + num(plane(olat, olon, 48.8566, 2.3522)) + " both=" + num((plane(olat, olon, 48.8566, 2.3522)+plane(olat, olon, 51.5074, -0.1278))/2) +
				" london=" + num(plane(olat, olon, 51.5074, -0.1278)) + ` none="Infinity"`},
		{"several origins, miles", `{"_geo_distance":{"loc":[{"lat":48.8,"lon":2.3},[-0.1,51.5]],"unit":"mi"}}`,
			"both=" + num(math.Min(arc(olat, olon, 48.8566, 2.3522), arc(51.5, -0.1, 51.5074, -0.1278))/1609.344) +
				" london=" + num(arc(51.5, -0.1, 51.5074, -0.1278)/1609.344) + " paris=" + num(parisKm*1000/1609.344) + ` none="Infinity"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", "/geo/_search", "application/json", `{"sort":[`+tc.sort+`,"_id"],"_source":false}`)
			if code != 200 {
				t.Fatalf("status %d: %v", code, body)
			}
			// Points are stored quantized (as in Lucene): distances agree
			// to a micrometre per kilometre.
			want := strings.Split(tc.want, " ")
			hits := jsonPath(body, "hits.hits").([]any)
			if len(hits) != len(want) {
				t.Fatalf("hits = %v", hits)
			}
			for i, h := range hits {
				id, v, _ := strings.Cut(want[i], "=")
				if got := jsonPath(h, "_id").(string); got != id {
					t.Errorf("hit %d = %s, want %s", i, got, id)
				}
				gotV := jsonPath(h, "sort.0")
				if v == `"Infinity"` {
					if str(gotV) != v {
						t.Errorf("%s sort = %v, want Infinity", id, gotV)
					}
					continue
				}
				w, _ := strconv.ParseFloat(v, 64)
				if g := mustFloat(t, gotV); math.Abs(g-w) > 1e-6*w {
					t.Errorf("%s sort = %v, want %v", id, g, w)
				}
			}
		})
	}
	const iae = "illegal_argument_exception"
	runSearchErrors(t, n, []searchErrCase{
		{"sum mode", "/geo/_search", `{"sort":[{"_geo_distance":{"loc":[2.3,48.8],"mode":"sum"}}]}`, iae, "sort_mode [sum] isn't supported for sorting by geo distance"},
		{"bad unit", "/geo/_search", `{"sort":[{"_geo_distance":{"loc":[2.3,48.8],"unit":"parsec"}}]}`, iae, "No distance unit match [parsec]"},
		{"bad distance type", "/geo/_search", `{"sort":[{"_geo_distance":{"loc":[2.3,48.8],"distance_type":"sphere"}}]}`, iae, "No geo distance for [sphere]"},
		{"no points", "/geo/_search", `{"sort":[{"_geo_distance":{"unit":"km"}}]}`, iae, "No points provided for _geo_distance sort."},
	})
	code, body := n.do("POST", "/geo/_search", "application/json", `{"sort":[{"_geo_distance":{"nope":[2.3,48.8]}}]}`)
	if code != 400 || str(jsonPath(body, "error.root_cause.0.reason")) != `"failed to find mapper for [nope] for geo distance based sort"` {
		t.Errorf("unmapped = %d %v", code, jsonPath(body, "error"))
	}
}

func TestSearchShardLimits(t *testing.T) {
	n := newTestNode(t)
	seedPets(t, n, "pets", 1)
	tests := []struct {
		name, body string
		want       map[string]string
	}{
		{"terminate_after reached", `{"terminate_after":2,"_source":false}`,
			map[string]string{"terminated_early": "true", "hits.total.value": "2", "hits.hits.1._id": `"2"`}},
		{"terminate_after not reached", `{"terminate_after":10,"_source":false}`,
			map[string]string{"terminated_early": "false", "hits.total.value": "4"}},
		{"no terminate_after", `{"_source":false}`, map[string]string{"terminated_early": "null", "timed_out": "false"}},
		{"min_score filters hits and total", `{"query":{"match":{"title":"quick dog"}},"min_score":1,"_source":false}`,
			map[string]string{"hits.total.value": "1", "hits.hits.0._id": `"2"`}},
		{"min_score filters aggregations", `{"query":{"match":{"title":"dog"}},"min_score":0.5,"aggs":{"k":{"terms":{"field":"kind"}}},"size":0}`,
			map[string]string{"aggregations.k.buckets": `[{"doc_count":2,"key":"dog"}]`}},
		{"track_scores with a field sort", `{"query":{"match":{"title":"dog"}},"sort":["age"],"track_scores":true,"_source":false}`,
			map[string]string{"hits.hits.0._id": `"2"`}},
		{"field sort without track_scores", `{"query":{"match":{"title":"dog"}},"sort":["age"],"_source":false}`,
			map[string]string{"hits.hits.0._score": "null", "hits.max_score": "null"}},
		{"generous timeout", `{"timeout":"10s","_source":false}`, map[string]string{"timed_out": "false", "hits.total.value": "4"}},
		{"expired timeout", `{"timeout":"1nanos","_source":false}`, map[string]string{"timed_out": "true", "hits.total.value": "0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", "/pets/_search", "application/json", tc.body)
			if code != 200 {
				t.Fatalf("status %d: %v", code, body)
			}
			checkPaths(t, body, tc.want)
		})
	}
	// track_scores: field-sorted hits carry their scores and max_score.
	_, body := n.do("POST", "/pets/_search", "application/json", `{"query":{"match":{"title":"dog"}},"sort":["age"],"track_scores":true,"_source":false}`)
	s, _, _, _ := bm25(1, 3, 2, 4, 11)
	if got := str(jsonPath(body, "hits.hits.0._score")); got != f32(float64(s)) || str(jsonPath(body, "hits.max_score")) != f32(float64(s)) {
		t.Errorf("track_scores = %s, max %s, want %s", got, str(jsonPath(body, "hits.max_score")), f32(float64(s)))
	}
}

func TestSearchTemplateExplainProfile(t *testing.T) {
	n := newTestNode(t)
	seedPets(t, n, "pets", 1)
	n.do("PUT", "/_scripts/by_field", "application/json", `{"script":{"lang":"mustache","source":{"query":{"match":{"{{field}}":"{{value}}"}},"size":"{{size}}"}}}`)
	tests := []struct {
		name, body string
		want       map[string]string
		absent     []string
	}{
		{"explain", `{"id":"by_field","params":{"field":"title","value":"lazy","size":1},"explain":true}`,
			map[string]string{"hits.hits.0._id": `"3"`, "hits.hits.0._shard": `"[pets][0]"`,
				"hits.hits.0._explanation.description": `"weight(title:lazy in 2) [PerFieldSimilarity], result of:"`},
			[]string{"profile"}},
		{"profile", `{"source":{"query":{"match":{"{{f}}":"{{v}}"}}},"params":{"f":"kind","v":"dog"},"profile":true}`,
			map[string]string{"hits.total.value": "2", "profile.shards.0.searches.0.query.0.type": `"TermQuery"`,
				"profile.shards.0.searches.0.query.0.description": `"kind:dog"`},
			[]string{"hits.hits.0._explanation"}},
		{"explain false overrides the template", `{"source":{"query":{"match_all":{}},"explain":true},"explain":false}`,
			map[string]string{"hits.total.value": "4"}, []string{"hits.hits.0._explanation"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", "/pets/_search/template", "application/json", tc.body)
			if code != 200 {
				t.Fatalf("status %d: %v", code, body)
			}
			checkPaths(t, body, tc.want)
			for _, p := range tc.absent {
				if v := jsonPath(body, p); v != nil {
					t.Errorf("%s present: %v", p, v)
				}
			}
		})
	}
}
