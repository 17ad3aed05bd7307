package query

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestFullTextQueries checks the exact matches of the phrase family,
// multi_match, dis_max and boosting on the test index.
func TestFullTextQueries(t *testing.T) {
	ix := newTestIndex(t)
	all := []string{"1", "2", "3", "4", "5"}
	tests := []struct {
		name  string
		query string
		want  []string
	}{
		// match_phrase
		{"phrase", `{"match_phrase":{"body":"quick brown"}}`, []string{"1"}},
		{"phrase order matters", `{"match_phrase":{"body":"brown quick"}}`, nil},
		{"phrase two docs", `{"match_phrase":{"body":{"query":"Lazy DOG"}}}`, []string{"1", "2"}},
		{"phrase gap needs slop", `{"match_phrase":{"body":"quick fox"}}`, nil},
		{"phrase slop 1", `{"match_phrase":{"body":{"query":"quick fox","slop":1}}}`, []string{"1"}},
		// Lucene sloppy phrase distances: reversed terms cost two moves
		{"phrase reversed slop 1", `{"match_phrase":{"body":{"query":"dog lazy","slop":1}}}`, nil},
		{"phrase reversed slop 2", `{"match_phrase":{"body":{"query":"dog lazy","slop":2}}}`, []string{"1", "2"}},
		{"phrase reversed gap slop 2", `{"match_phrase":{"body":{"query":"fox quick","slop":2}}}`, nil},
		{"phrase reversed gap slop 3", `{"match_phrase":{"body":{"query":"fox quick","slop":3}}}`, []string{"1"}},
		{"phrase gap slop 2", `{"match_phrase":{"body":{"query":"quick jumps","slop":2}}}`, []string{"1"}},
		{"phrase single term", `{"match_phrase":{"body":"QUICK"}}`, []string{"1", "3", "5"}},
		{"phrase keyword exact", `{"match_phrase":{"title.keyword":"Lazy Dog"}}`, []string{"2"}},
		{"phrase keyword partial", `{"match_phrase":{"title.keyword":"Lazy"}}`, nil},
		{"phrase analyzer keyword", `{"match_phrase":{"body":{"query":"lazy dog","analyzer":"keyword"}}}`, nil},
		{"phrase stop words none", `{"match_phrase":{"stopped":"the"}}`, nil},
		{"phrase stop words all", `{"match_phrase":{"stopped":{"query":"the","zero_terms_query":"all"}}}`, all},
		{"phrase stop word removed", `{"match_phrase":{"stopped":"the quick fox"}}`, []string{"1"}},
		{"phrase unmapped", `{"match_phrase":{"nope":"quick"}}`, nil},
		{"phrase synonyms", `{"match_phrase":{"synonym":"quick car"}}`, []string{"1"}},
		{"phrase long", `{"match_phrase":{"count":10}}`, []string{"2"}},

		// match_phrase_prefix
		{"phrase_prefix", `{"match_phrase_prefix":{"body":"quick br"}}`, []string{"1"}},
		{"phrase_prefix two", `{"match_phrase_prefix":{"body":"lazy d"}}`, []string{"1", "2"}},
		{"phrase_prefix one term", `{"match_phrase_prefix":{"body":"qui"}}`, []string{"1", "3", "5"}},
		{"phrase_prefix max_expansions", `{"match_phrase_prefix":{"body":{"query":"lazy d","max_expansions":1}}}`, nil},
		{"phrase_prefix max_expansions 2", `{"match_phrase_prefix":{"body":{"query":"lazy d","max_expansions":2}}}`, []string{"1", "2"}},
		{"phrase_prefix no expansion", `{"match_phrase_prefix":{"body":"lazy zz"}}`, nil},
		{"phrase_prefix slop", `{"match_phrase_prefix":{"body":{"query":"quick fo","slop":1}}}`, []string{"1"}},
		{"phrase_prefix no slop", `{"match_phrase_prefix":{"body":"quick fo"}}`, nil},
		{"phrase_prefix keyword", `{"match_phrase_prefix":{"tag":"a"}}`, []string{"1", "4"}},
		{"phrase_prefix stop words all", `{"match_phrase_prefix":{"stopped":{"query":"the","zero_terms_query":"all"}}}`, all},

		// match_bool_prefix
		{"bool_prefix or", `{"match_bool_prefix":{"body":"quick br"}}`, []string{"1", "3", "4", "5"}},
		{"bool_prefix and", `{"match_bool_prefix":{"body":{"query":"quick br","operator":"and"}}}`, []string{"1"}},
		{"bool_prefix single", `{"match_bool_prefix":{"body":"la"}}`, []string{"1", "2"}},
		{"bool_prefix any order", `{"match_bool_prefix":{"body":{"query":"dog la","operator":"and"}}}`, []string{"1", "2"}},
		{"bool_prefix msm", `{"match_bool_prefix":{"body":{"query":"quick brown ho","minimum_should_match":2}}}`, []string{"1", "4"}},
		{"bool_prefix fuzziness", `{"match_bool_prefix":{"body":{"query":"quikc ra","fuzziness":1,"operator":"and"}}}`, []string{"3"}},
		{"bool_prefix keyword", `{"match_bool_prefix":{"tag":"z"}}`, []string{"4"}},

		// multi_match
		{"multi_match", `{"multi_match":{"query":"rabbit","fields":["title","body"]}}`, []string{"3"}},
		{"multi_match single field string", `{"multi_match":{"query":"rabbit","fields":"body"}}`, []string{"3"}},
		{"multi_match boosts", `{"multi_match":{"query":"bear","fields":["title^3","body"]}}`, []string{"4"}},
		{"multi_match and per field", `{"multi_match":{"query":"bear honey","fields":["title","body"],"operator":"and"}}`, nil},
		{"multi_match cross_fields and", `{"multi_match":{"query":"bear honey","fields":["title","body"],"type":"cross_fields","operator":"and"}}`, []string{"4"}},
		{"multi_match cross_fields msm", `{"multi_match":{"query":"bear honey dog","fields":["title","body"],"type":"cross_fields","minimum_should_match":2}}`, []string{"4"}},
		{"multi_match cross_fields analyzer groups", `{"multi_match":{"query":"the quick","fields":["title","stopped"],"type":"cross_fields","operator":"and"}}`, []string{"1"}},
		{"multi_match most_fields", `{"multi_match":{"query":"lazy","fields":["title","body"],"type":"most_fields"}}`, []string{"1", "2"}},
		{"multi_match phrase", `{"multi_match":{"query":"lazy dog","fields":["title","body"],"type":"phrase"}}`, []string{"1", "2"}},
		{"multi_match phrase slop", `{"multi_match":{"query":"quick fox","fields":["title","body"],"type":"phrase","slop":1}}`, []string{"1"}},
		{"multi_match phrase no slop", `{"multi_match":{"query":"quick fox","fields":["title","body"],"type":"phrase"}}`, nil},
		{"multi_match phrase_prefix", `{"multi_match":{"query":"brown be","fields":["title","body"],"type":"phrase_prefix"}}`, []string{"4"}},
		{"multi_match bool_prefix", `{"multi_match":{"query":"rab","fields":["title","body"],"type":"bool_prefix"}}`, []string{"3"}},
		{"multi_match wildcard fields", `{"multi_match":{"query":"rabbit","fields":["ti*"]}}`, []string{"3"}},
		{"multi_match wildcard keyword sub-field", `{"multi_match":{"query":"Lazy Dog","fields":["title.*"]}}`, []string{"2"}},
		{"multi_match all fields", `{"multi_match":{"query":"a"}}`, []string{"1", "3", "4"}},
		{"multi_match all fields numbers", `{"multi_match":{"query":"10"}}`, []string{"1", "2", "3"}},
		{"multi_match star lenient", `{"multi_match":{"query":"abc","fields":["*"]}}`, nil},
		{"multi_match fuzziness", `{"multi_match":{"query":"rabit","fields":["title","body"],"fuzziness":"AUTO"}}`, []string{"3"}},
		{"multi_match msm", `{"multi_match":{"query":"quick brown fox","fields":["body"],"minimum_should_match":"100%"}}`, []string{"1"}},
		{"multi_match unmapped", `{"multi_match":{"query":"quick","fields":["nope"]}}`, nil},
		{"multi_match numeric lenient", `{"multi_match":{"query":"quick","fields":["body","count"],"lenient":true}}`, []string{"1", "3", "5"}},

		// combined_fields
		{"combined_fields and", `{"combined_fields":{"query":"bear honey","fields":["title","body"],"operator":"and"}}`, []string{"4"}},
		{"combined_fields or", `{"combined_fields":{"query":"rabbit honey","fields":["title^2","body"]}}`, []string{"3", "4"}},
		{"combined_fields msm", `{"combined_fields":{"query":"bear honey dog","fields":["title","body"],"minimum_should_match":"2"}}`, []string{"4"}},
		{"combined_fields wildcard", `{"combined_fields":{"query":"rabbit","fields":["bo*","title"]}}`, []string{"3"}},
		{"combined_fields stop words all", `{"combined_fields":{"query":"the","fields":["stopped"],"zero_terms_query":"all"}}`, all},

		// dis_max
		{"dis_max", `{"dis_max":{"queries":[{"term":{"title":"rabbit"}},{"term":{"body":"honey"}}]}}`, []string{"3", "4"}},
		{"dis_max single object", `{"dis_max":{"queries":{"term":{"title":"rabbit"}}}}`, []string{"3"}},
		{"dis_max empty", `{"dis_max":{"queries":[]}}`, nil},

		// terms_set (count: 1:5, 2:10, 3:-3, 4:[1,100])
		{"terms_set", `{"terms_set":{"tag":{"terms":["a","b","z"],"minimum_should_match_field":"count"}}}`, []string{"4"}},
		{"terms_set negative minimum", `{"terms_set":{"tag":{"terms":["c","q"],"minimum_should_match_field":"count"}}}`, []string{"3"}},
		{"terms_set int", `{"terms_set":{"tag":{"terms":["a","b"],"minimum_should_match_field":"int"}}}`, nil},
		{"terms_set long terms", `{"terms_set":{"count":{"terms":[1,100,5],"minimum_should_match_field":"count"}}}`, []string{"4"}},
		{"terms_set unmapped msm", `{"terms_set":{"tag":{"terms":["a"],"minimum_should_match_field":"nope"}}}`, nil},
		{"terms_set empty", `{"terms_set":{"tag":{"terms":[],"minimum_should_match_field":"count"}}}`, nil},

		// boosting
		{"boosting", `{"boosting":{"positive":{"match":{"body":"quick"}},"negative":{"term":{"title":"quick"}},"negative_boost":0.5}}`, []string{"1", "3", "5"}},
		{"boosting positive none", `{"boosting":{"positive":{"match_none":{}},"negative":{"match_all":{}},"negative_boost":0.5}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ix.ids(t, tt.query)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s\n got %v\nwant %v", tt.query, got, tt.want)
			}
		})
	}
}

// scores runs a query and returns id -> score.
func (ix *testIndex) scores(tb testing.TB, query string) map[string]float64 {
	tb.Helper()
	out := map[string]float64{}
	for _, h := range ix.ranked(tb, query) {
		out[h.id] = h.score
	}
	return out
}

func TestTermsSetCompile(t *testing.T) {
	ix := newTestIndex(t)
	for _, tt := range []struct{ query, want string }{
		{`{"terms_set":{"tag":{"terms":["a"],"minimum_should_match_script":{"source":"params.x"}}}}`,
			`query_shard_exception: failed to create query: [terms_set] minimum_should_match_script is not supported: scripts are not available, use minimum_should_match_field [caused_by: illegal_argument_exception: [terms_set] minimum_should_match_script is not supported: scripts are not available, use minimum_should_match_field]`},
		{`{"terms_set":{"tag":{"terms":["a"]}}}`,
			`query_shard_exception: failed to create query: No minimum should match has been specified [caused_by: illegal_state_exception: No minimum should match has been specified]`},
	} {
		n, err := Parse([]byte(tt.query))
		if err == nil {
			_, err = n.Compile(&Context{Mapping: ix.ctx.Mapping, Analyzers: ix.ctx.Analyzers})
		}
		if got := errString(err); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.query, got, tt.want)
		}
	}
	for _, tt := range []struct{ query, want string }{
		{`{"combined_fields":{"query":"x","fields":["title","tag"]}}`,
			`query_shard_exception: failed to create query: Field [tag] of type [keyword] does not support [combined_fields] queries [caused_by: illegal_argument_exception: Field [tag] of type [keyword] does not support [combined_fields] queries]`},
		{`{"combined_fields":{"query":"x","fields":["title","stopped"]}}`,
			`query_shard_exception: failed to create query: All fields in [combined_fields] query must have the same search analyzer [caused_by: illegal_argument_exception: All fields in [combined_fields] query must have the same search analyzer]`},
		{`{"combined_fields":{"query":"x","fields":["title^0.5"]}}`,
			`query_shard_exception: failed to create query: [combined_fields] requires field boosts to be >= 1.0 [caused_by: illegal_argument_exception: [combined_fields] requires field boosts to be >= 1.0]`},
	} {
		n, err := Parse([]byte(tt.query))
		if err == nil {
			_, err = n.Compile(&Context{Mapping: ix.ctx.Mapping, Analyzers: ix.ctx.Analyzers})
		}
		if got := errString(err); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.query, got, tt.want)
		}
	}
	// the score is the sum of the matching terms' scores
	a := ix.scores(t, `{"term":{"tag":"a"}}`)
	z := ix.scores(t, `{"term":{"tag":"z"}}`)
	got := ix.scores(t, `{"terms_set":{"tag":{"terms":["a","z"],"minimum_should_match_field":"count","boost":2}}}`)
	if len(got) != 1 || !near(got["4"], 2*(a["4"]+z["4"])) {
		t.Errorf("terms_set scores %v, want doc 4 = %v", got, 2*(a["4"]+z["4"]))
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// TestFullTextScoring checks the combination rules of the compound
// full-text queries against the scores of their parts run on their own.
func TestFullTextScoring(t *testing.T) {
	ix := newTestIndex(t)
	title := ix.scores(t, `{"match":{"title":"quick"}}`)
	body := ix.scores(t, `{"match":{"body":"quick"}}`)
	check := func(name, query string, want func(id string) float64, ids []string) {
		t.Helper()
		got := ix.scores(t, query)
		if len(got) != len(ids) {
			t.Errorf("%s: got %v, want ids %v", name, got, ids)
		}
		for _, id := range ids {
			if !near(got[id], want(id)) {
				t.Errorf("%s: doc %s score %v, want %v", name, id, got[id], want(id))
			}
		}
	}
	ids := []string{"1", "3", "5"}
	maxOf := func(tie float64) func(string) float64 {
		return func(id string) float64 {
			a, b := title[id], body[id]
			return math.Max(a, b) + tie*math.Min(a, b)
		}
	}
	check("dis_max", `{"dis_max":{"queries":[{"match":{"title":"quick"}},{"match":{"body":"quick"}}]}}`, maxOf(0), ids)
	check("dis_max tie", `{"dis_max":{"tie_breaker":0.3,"queries":[{"match":{"title":"quick"}},{"match":{"body":"quick"}}]}}`, maxOf(0.3), ids)
	check("dis_max boost", `{"dis_max":{"boost":2,"queries":[{"match":{"title":"quick"}},{"match":{"body":"quick"}}]}}`,
		func(id string) float64 { return 2 * maxOf(0)(id) }, ids)
	check("best_fields", `{"multi_match":{"query":"quick","fields":["title","body"]}}`, maxOf(0), ids)
	check("best_fields tie", `{"multi_match":{"query":"quick","fields":["title","body"],"tie_breaker":0.3}}`, maxOf(0.3), ids)
	check("most_fields", `{"multi_match":{"query":"quick","fields":["title","body"],"type":"most_fields"}}`, maxOf(1), ids)
	check("field boost", `{"multi_match":{"query":"quick","fields":["title^3","body"]}}`,
		func(id string) float64 { return math.Max(3*title[id], body[id]) }, ids)
	check("query_string fields", `{"query_string":{"query":"quick","fields":["title","body"]}}`, maxOf(0), ids)
	check("query_string tie_breaker", `{"query_string":{"query":"quick","fields":["title","body"],"tie_breaker":0.3}}`, maxOf(0.3), ids)
	check("simple_query_string sums fields", `{"simple_query_string":{"query":"quick","fields":["title","body"]}}`, maxOf(1), ids)
	check("combined_fields sums fields", `{"combined_fields":{"query":"quick","fields":["title","body"]}}`, maxOf(1), ids)
	check("boosting", `{"boosting":{"positive":{"match":{"body":"quick"}},"negative":{"term":{"title":"quick"}},"negative_boost":0.25}}`,
		func(id string) float64 {
			if _, neg := title[id]; neg {
				return body[id] * 0.25
			}
			return body[id]
		}, ids)

	// a phrase match outranks documents that only contain the words:
	// alone, "quick" ranks the long body of doc 1 last
	plain := ix.ranked(t, `{"match":{"body":"quick"}}`)
	if len(plain) != 3 || plain[2].id != "1" {
		t.Fatalf("plain match order: %v", plain)
	}
	phrase := ix.ranked(t, `{"bool":{"should":[{"match":{"body":"quick"}},{"match_phrase":{"body":"quick brown"}}]}}`)
	if len(phrase) != 3 || phrase[0].id != "1" {
		t.Errorf("phrase should: %v", phrase)
	}
	// multi_match phrase prefers the field where the phrase occurs
	got := ix.ranked(t, `{"multi_match":{"query":"brown bear","fields":["title","body"],"type":"phrase"}}`)
	if len(got) != 1 || got[0].id != "4" {
		t.Errorf("multi_match phrase: %v", got)
	}
}

// TestFullTextParseErrors checks the ES errors of the new query parsers.
func TestFullTextParseErrors(t *testing.T) {
	tests := []struct {
		query string
		want  string
	}{
		{`{"match_phrase":{"a":"x","b":"y"}}`, `parsing_exception: [match_phrase] query doesn't support multiple fields, found [a] and [b]`},
		{`{"match_phrase":{"a":{"query":"x","foo":1}}}`, `parsing_exception: [match_phrase] query does not support [foo]`},
		{`{"match_phrase":{"a":{"query":"x","operator":"and"}}}`, `parsing_exception: [match_phrase] query does not support [operator]`},
		{`{"match_phrase":{"a":{"query":[1]}}}`, `parsing_exception: [match_phrase] unknown token [START_ARRAY] after [query]`},
		{`{"match_phrase":{"a":{"slop":1}}}`, `illegal_argument_exception: [match_phrase] requires query value`},
		{`{"match_phrase":{"a":null}}`, `illegal_argument_exception: [match_phrase] requires query value`},
		{`{"match_phrase":{}}`, `illegal_argument_exception: [match_phrase] requires fieldName`},
		{`{"match_phrase":{"a":{"query":"x","slop":-1}}}`, `illegal_argument_exception: No negative slop allowed.`},
		{`{"match_phrase":{"a":{"query":"x","slop":"x"}}}`, `number_format_exception: For input string: "x"`},
		{`{"match_phrase":{"a":{"query":"x","zero_terms_query":"some"}}}`, `parsing_exception: Unsupported zero_terms_query value [some]`},
		{`{"match_phrase_prefix":{"a":{"query":"x","max_expansions":-1}}}`, `illegal_argument_exception: No negative maxExpansions allowed.`},
		{`{"match_phrase_prefix":{"a":{"query":"x","fuzziness":1}}}`, `parsing_exception: [match_phrase_prefix] query does not support [fuzziness]`},
		{`{"match_bool_prefix":{"a":{"query":"x","slop":1}}}`, `parsing_exception: [match_bool_prefix] query does not support [slop]`},
		{`{"match_bool_prefix":{"a":{"query":"x","operator":"xor"}}}`, `illegal_argument_exception: No enum constant org.elasticsearch.index.query.Operator.XOR`},
		{`{"match_bool_prefix":{"a":{"query":"x","prefix_length":-1}}}`, `illegal_argument_exception: [match_bool_prefix] requires prefix length to be non-negative.`},
		{`{"match_bool_prefix":{"a":{"query":"x","max_expansions":0}}}`, `illegal_argument_exception: [match_bool_prefix] requires maxExpansions to be positive.`},

		{`{"multi_match":{"fields":["a"]}}`, `parsing_exception: No text specified for multi_match query`},
		{`{"multi_match":{"query":"x","foo":1}}`, `parsing_exception: [multi_match] query does not support [foo]`},
		{`{"multi_match":{"query":"x","foo":{}}}`, `parsing_exception: [multi_match] unknown token [START_OBJECT] after [foo]`},
		{`{"multi_match":{"query":"x","type":"best"}}`, `parse_exception: failed to parse [multi_match] query type [best]. unknown type.`},
		{`{"multi_match":{"query":"x","type":"phrase","fuzziness":1}}`, `parsing_exception: Fuzziness not allowed for type [phrase]`},
		{`{"multi_match":{"query":"x","type":"cross_fields","fuzziness":1}}`, `parsing_exception: Fuzziness not allowed for type [cross_fields]`},
		{`{"multi_match":{"query":"x","type":"bool_prefix","slop":1}}`, `parsing_exception: [slop] not allowed for type [bool_prefix]`},
		{`{"multi_match":{"query":"x","type":"bool_prefix","cutoff_frequency":0.01}}`, `parsing_exception: [cutoff_frequency] not allowed for type [bool_prefix]`},
		{`{"multi_match":{"query":"x","fields":["a^x"]}}`, `number_format_exception: For input string: "x"`},
		{`{"multi_match":{"query":"x","operator":"xor"}}`, `illegal_argument_exception: No enum constant org.elasticsearch.index.query.Operator.XOR`},

		{`{"dis_max":{}}`, `parsing_exception: [dis_max] requires 'queries' field with at least one clause`},
		{`{"dis_max":{"foo":{}}}`, `parsing_exception: [dis_max] query does not support [foo]`},
		{`{"dis_max":{"queries":[],"foo":1}}`, `parsing_exception: [dis_max] query does not support [foo]`},
		{`{"dis_max":{"queries":[{"foo":{}}]}}`, `parsing_exception: unknown query [foo]`},
		{`{"dis_max":{"queries":[],"tie_breaker":"x"}}`, `number_format_exception: For input string: "x"`},

		{`{"boosting":{"negative":{"match_all":{}},"negative_boost":1}}`, `parsing_exception: [boosting] query requires 'positive' query to be set'`},
		{`{"boosting":{"positive":{"match_all":{}},"negative_boost":1}}`, `parsing_exception: [boosting] query requires 'negative' query to be set'`},
		{`{"boosting":{"positive":{"match_all":{}},"negative":{"match_all":{}}}}`, `parsing_exception: [boosting] query requires 'negative_boost' to be set to be a positive value'`},
		{`{"boosting":{"positive":{"match_all":{}},"negative":{"match_all":{}},"negative_boost":-1}}`, `illegal_argument_exception: [boosting] negativeBoost must be a non-negative float`},
		{`{"boosting":{"positive":{"match_all":{}},"foo":{}}}`, `parsing_exception: [boosting] query does not support [foo]`},
		{`{"terms_set":{"f":{"terms":["a"],"foo":1}}}`, `parsing_exception: [terms_set] query does not support [foo]`},
		{`{"terms_set":{"f":{"terms":["a"],"foo":[]}}}`, `parsing_exception: [terms_set] query does not support [foo]`},
		{`{"terms_set":{"f":["a"]}}`, `parsing_exception: [terms_set] unknown token [START_ARRAY] after [f]`},
		{`{"terms_set":{"f":{"terms":["a"],"minimum_should_match_script":{"source":"1"},"minimum_should_match_field":"x"}}}`, `illegal_argument_exception: A script has already been specified. Cannot specify both a field and script`},
		{`{"combined_fields":{"fields":["a"]}}`, `illegal_argument_exception: Required [query]`},
		{`{"combined_fields":{"query":"x","foo":1}}`, `x_content_parse_exception: [combined_fields] unknown field [foo]`},
		{`{"combined_fields":{"query":"x","operator":"xor"}}`, `x_content_parse_exception: [combined_fields] failed to parse field [operator] [caused_by: illegal_argument_exception: No enum constant org.elasticsearch.index.query.Operator.XOR]`},
		{`{"boosting":{"foo":1}}`, `parsing_exception: [boosting] query does not support [foo]`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.query))
		if got := errString(err); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.query, got, tt.want)
		}
	}
}

// TestNewQueryNamesAndBoosts checks _name and boost on every new query.
func TestNewQueryNamesAndBoosts(t *testing.T) {
	ix := newTestIndex(t)
	queries := []string{
		`{"match_phrase":{"body":{"query":"quick brown","_name":"n","boost":BOOST}}}`,
		`{"match_phrase_prefix":{"body":{"query":"quick br","_name":"n","boost":BOOST}}}`,
		`{"match_bool_prefix":{"body":{"query":"quick br","_name":"n","boost":BOOST}}}`,
		`{"multi_match":{"query":"quick","fields":["body"],"_name":"n","boost":BOOST}}`,
		`{"combined_fields":{"query":"quick","fields":["body"],"_name":"n","boost":BOOST}}`,
		`{"dis_max":{"queries":[{"match":{"body":"quick"}}],"_name":"n","boost":BOOST}}`,
		`{"boosting":{"positive":{"match":{"body":"quick"}},"negative":{"match_none":{}},"negative_boost":0.5,"_name":"n","boost":BOOST}}`,
		`{"terms_set":{"tag":{"terms":["a"],"minimum_should_match_field":"count","_name":"n","boost":BOOST}}}`,
		`{"query_string":{"query":"quick","default_field":"body","_name":"n","boost":BOOST}}`,
		`{"simple_query_string":{"query":"quick","fields":["body"],"_name":"n","boost":BOOST}}`,
		`{"geo_distance":{"distance":"10km","loc":[2,1],"_name":"n","boost":BOOST}}`,
		`{"geo_bounding_box":{"loc":{"top":2,"left":1,"bottom":0,"right":3},"_name":"n","boost":BOOST}}`,
		`{"geo_polygon":{"loc":{"points":[[1,0],[3,0],[3,2],[1,2]]},"_name":"n","boost":BOOST}}`,
		`{"function_score":{"query":{"match":{"body":"quick"}},"weight":2,"_name":"n","boost":BOOST}}`,
	}
	for _, q := range queries {
		n, err := Parse([]byte(strings.ReplaceAll(q, "BOOST", "1")))
		if err != nil {
			t.Errorf("Parse(%s): %v", q, err)
			continue
		}
		if n.Name() != "n" {
			t.Errorf("Parse(%s).Name() = %q; want n", q, n.Name())
		}
		one := ix.scores(t, strings.ReplaceAll(q, "BOOST", "1"))
		three := ix.scores(t, strings.ReplaceAll(q, "BOOST", "3"))
		if len(one) == 0 || len(one) != len(three) {
			t.Errorf("%s: hits %v vs %v", q, one, three)
		}
		for id, s := range one {
			if !near(three[id], 3*s) {
				t.Errorf("%s: doc %s boost 3 gives %v, want %v", q, id, three[id], 3*s)
			}
		}
		if _, err := Parse([]byte(strings.ReplaceAll(q, "BOOST", "-1"))); err == nil {
			t.Errorf("%s: negative boost accepted", q)
		}
	}
}
