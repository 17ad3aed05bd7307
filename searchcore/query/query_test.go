package query

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestQueries runs every query type against the test index and checks the
// exact set of matching documents.
func TestQueries(t *testing.T) {
	ix := newTestIndex(t)
	all := []string{"1", "2", "3", "4", "5"}
	tests := []struct {
		name  string
		query string
		want  []string
	}{
		// match_all / match_none
		{"match_all", `{"match_all":{}}`, all},
		{"match_all boost", `{"match_all":{"boost":2,"_name":"x"}}`, all},
		{"match_none", `{"match_none":{}}`, nil},

		// match
		{"match one term", `{"match":{"body":"quick"}}`, []string{"1", "3", "5"}},
		{"match short form is analyzed", `{"match":{"body":"QUICK!"}}`, []string{"1", "3", "5"}},
		{"match or", `{"match":{"body":"quick fox"}}`, []string{"1", "3", "5"}},
		{"match and", `{"match":{"body":{"query":"quick fox","operator":"and"}}}`, []string{"1"}},
		{"match AND upper case", `{"match":{"body":{"query":"quick fox","operator":"AND"}}}`, []string{"1"}},
		{"match msm 2", `{"match":{"body":{"query":"quick brown fox","minimum_should_match":2}}}`, []string{"1"}},
		{"match msm -1", `{"match":{"body":{"query":"quick brown fox","minimum_should_match":"-1"}}}`, []string{"1"}},
		{"match msm 75%", `{"match":{"body":{"query":"quick brown fox","minimum_should_match":"75%"}}}`, []string{"1"}},
		{"match msm 25%", `{"match":{"body":{"query":"quick brown fox honey","minimum_should_match":"25%"}}}`, []string{"1", "3", "4", "5"}},
		{"match msm 50%", `{"match":{"body":{"query":"quick brown fox honey","minimum_should_match":"50%"}}}`, []string{"1", "4"}},
		{"match msm -25%", `{"match":{"body":{"query":"quick brown fox honey","minimum_should_match":"-25%"}}}`, []string{"1"}},
		{"match msm 3<90%", `{"match":{"body":{"query":"quick brown fox honey","minimum_should_match":"3<90%"}}}`, []string{"1"}},
		{"match msm 5<90% all required", `{"match":{"body":{"query":"quick brown fox honey","minimum_should_match":"5<90%"}}}`, nil},
		{"match msm combo", `{"match":{"body":{"query":"quick brown fox honey","minimum_should_match":"1<-1 3<50%"}}}`, []string{"1", "4"}},
		{"match msm ignored for one term", `{"match":{"body":{"query":"quick","minimum_should_match":2}}}`, []string{"1", "3", "5"}},
		{"match and with msm matches nothing", `{"match":{"body":{"query":"quick fox","operator":"and","minimum_should_match":2}}}`, nil},
		{"match unmapped", `{"match":{"nope":"quick"}}`, nil},
		{"match object field", `{"match":{"user":"alice"}}`, nil},
		{"match keyword exact", `{"match":{"tag":"a"}}`, []string{"1", "4"}},
		{"match keyword not analyzed", `{"match":{"tag":"A"}}`, nil},
		{"match keyword normalizer", `{"match":{"ntag":"HELLO"}}`, []string{"1"}},
		{"match multi-field keyword", `{"match":{"title.keyword":"Lazy Dog"}}`, []string{"2"}},
		{"match long", `{"match":{"count":"10"}}`, []string{"2"}},
		{"match long number", `{"match":{"count":{"query":10}}}`, []string{"2"}},
		{"match long lenient", `{"match":{"count":{"query":"abc","lenient":true}}}`, nil},
		{"match date whole day", `{"match":{"date":"2020-01-01"}}`, []string{"1"}},
		{"match boolean", `{"match":{"flag":"true"}}`, []string{"1"}},
		{"match geo lenient", `{"match":{"loc":{"query":"x","lenient":true}}}`, nil},
		{"match stop words none", `{"match":{"stopped":"the"}}`, nil},
		{"match stop words all", `{"match":{"stopped":{"query":"the","zero_terms_query":"all"}}}`, all},
		{"match stop words ALL", `{"match":{"stopped":{"query":"the","zero_terms_query":"ALL"}}}`, all},
		{"match empty string", `{"match":{"body":""}}`, nil},
		{"match synonyms", `{"match":{"synonym":"fast"}}`, []string{"1", "3"}},
		{"match synonyms and", `{"match":{"synonym":{"query":"quick thinking","operator":"and"}}}`, []string{"3"}},
		{"match analyzer param", `{"match":{"body":{"query":"THE","analyzer":"stop"}}}`, nil},
		{"match analyzer keyword", `{"match":{"body":{"query":"lazy dog","analyzer":"keyword"}}}`, nil},
		{"match fuzziness 1", `{"match":{"body":{"query":"quik","fuzziness":1}}}`, []string{"1", "3", "5"}},
		{"match fuzziness AUTO", `{"match":{"body":{"query":"quik","fuzziness":"AUTO"}}}`, []string{"1", "3", "5"}},
		{"match fuzziness AUTO:5,8", `{"match":{"body":{"query":"quik","fuzziness":"AUTO:5,8"}}}`, nil},
		{"match fuzziness 0", `{"match":{"body":{"query":"quik","fuzziness":"0"}}}`, nil},
		{"match fuzziness transposition", `{"match":{"body":{"query":"qiuck","fuzziness":1}}}`, []string{"1", "3", "5"}},
		{"match fuzziness no transpositions", `{"match":{"body":{"query":"qiuck","fuzziness":1,"fuzzy_transpositions":false}}}`, nil},
		{"match fuzziness 2 no transpositions", `{"match":{"body":{"query":"qiuck","fuzziness":2,"fuzzy_transpositions":false}}}`, []string{"1", "3", "5"}},
		{"match prefix_length", `{"match":{"body":{"query":"qiuck","fuzziness":2,"prefix_length":2}}}`, nil},
		{"match prefix_length ok", `{"match":{"body":{"query":"quikc","fuzziness":1,"prefix_length":3}}}`, []string{"1", "3", "5"}},
		{"match max_expansions", `{"match":{"tag":{"query":"d","fuzziness":1,"max_expansions":2}}}`, []string{"1", "2", "4"}},
		{"match fuzzy keyword", `{"match":{"tag":{"query":"d","fuzziness":1}}}`, []string{"1", "2", "3", "4"}},

		// term
		{"term text not analyzed", `{"term":{"title":"quick"}}`, []string{"1", "3"}},
		{"term text case sensitive", `{"term":{"title":"Quick"}}`, nil},
		{"term text case_insensitive", `{"term":{"title":{"value":"QUICK","case_insensitive":true}}}`, []string{"1", "3"}},
		{"term multi-field", `{"term":{"title.keyword":{"value":"Lazy Dog"}}}`, []string{"2"}},
		{"term keyword", `{"term":{"tag":"a"}}`, []string{"1", "4"}},
		{"term keyword term param", `{"term":{"tag":{"term":"a","boost":2}}}`, []string{"1", "4"}},
		{"term keyword case_insensitive", `{"term":{"tag":{"value":"A","case_insensitive":true}}}`, []string{"1", "4"}},
		{"term keyword normalizer", `{"term":{"ntag":"HELLO"}}`, []string{"1"}},
		{"term long", `{"term":{"count":10}}`, []string{"2"}},
		{"term long string", `{"term":{"count":"10"}}`, []string{"2"}},
		{"term long multi-valued", `{"term":{"count":1}}`, []string{"4"}},
		{"term long negative", `{"term":{"count":-3}}`, []string{"3"}},
		{"term long decimal", `{"term":{"count":1.5}}`, nil},
		{"term long 10.0", `{"term":{"count":10.0}}`, []string{"2"}},
		{"term integer", `{"term":{"int":20}}`, []string{"2"}},
		{"term double", `{"term":{"price":1.5}}`, []string{"1"}},
		{"term double exponent", `{"term":{"price":"1e2"}}`, []string{"5"}},
		{"term float", `{"term":{"ratio":0.1}}`, []string{"1"}},
		{"term half_float", `{"term":{"half":1.5}}`, []string{"1"}},
		{"term scaled_float", `{"term":{"scaled":1.23}}`, []string{"1"}},
		{"term scaled_float rounds", `{"term":{"scaled":1.234}}`, []string{"1"}},
		{"term boolean", `{"term":{"flag":true}}`, []string{"1"}},
		{"term boolean string", `{"term":{"flag":"false"}}`, []string{"2"}},
		{"term date exact", `{"term":{"date":"2020-01-01T10:00:00Z"}}`, []string{"1"}},
		{"term date day", `{"term":{"date":"2020-01-01"}}`, []string{"1"}},
		{"term date epoch", `{"term":{"date":1577872800000}}`, []string{"1"}},
		{"term date format", `{"term":{"day":"2020-01-02"}}`, []string{"2"}},
		{"term date math", `{"term":{"date":"now-3M/d"}}`, nil},
		{"term object sub-field", `{"term":{"user.name":"bob"}}`, []string{"2"}},
		{"term object", `{"term":{"user":"bob"}}`, nil},
		{"term unmapped", `{"term":{"nope":"x"}}`, nil},
		{"term _id", `{"term":{"_id":"3"}}`, []string{"3"}},
		{"term _index", `{"term":{"_index":"test"}}`, all},
		{"term _index other", `{"term":{"_index":"other"}}`, nil},

		// terms
		{"terms keyword", `{"terms":{"tag":["a","c"]}}`, []string{"1", "3", "4"}},
		{"terms normalizer", `{"terms":{"ntag":["HELLO","world"]}}`, []string{"1", "2"}},
		{"terms long", `{"terms":{"count":[5,-3,1.5]}}`, []string{"1", "3"}},
		{"terms long strings", `{"terms":{"count":["5","100"]}}`, []string{"1", "4"}},
		{"terms double", `{"terms":{"price":[2.5,7]}}`, []string{"2", "4"}},
		{"terms boolean", `{"terms":{"flag":[true]}}`, []string{"1"}},
		{"terms date", `{"terms":{"date":["2020-01-01","2020-01-02"]}}`, []string{"1", "2"}},
		{"terms empty", `{"terms":{"tag":[]}}`, nil},
		{"terms unmapped", `{"terms":{"nope":["a"]}}`, nil},
		{"terms _id", `{"terms":{"_id":["1","5","9"],"boost":2}}`, []string{"1", "5"}},

		// range
		{"range long gte", `{"range":{"count":{"gte":5}}}`, []string{"1", "2", "4"}},
		{"range long gt", `{"range":{"count":{"gt":5}}}`, []string{"2", "4"}},
		{"range long lt", `{"range":{"count":{"lt":1}}}`, []string{"3"}},
		{"range long lte", `{"range":{"count":{"lte":1}}}`, []string{"3", "4"}},
		{"range long gt decimal", `{"range":{"count":{"gt":4.5}}}`, []string{"1", "2", "4"}},
		{"range long gte decimal", `{"range":{"count":{"gte":4.5}}}`, []string{"1", "2", "4"}},
		{"range long lt decimal", `{"range":{"count":{"lt":1.5}}}`, []string{"3", "4"}},
		{"range long gte negative decimal", `{"range":{"count":{"gte":-3.5}}}`, []string{"1", "2", "3", "4"}},
		{"range long lte negative decimal", `{"range":{"count":{"lte":-2.5}}}`, []string{"3"}},
		{"range from/to include_lower", `{"range":{"count":{"from":1,"to":10,"include_lower":false}}}`, []string{"1", "2"}},
		{"range from/to include_upper", `{"range":{"count":{"from":1,"to":10,"include_upper":false}}}`, []string{"1", "4"}},
		{"range string bounds", `{"range":{"count":{"gte":"5","lte":"10"}}}`, []string{"1", "2"}},
		{"range null bound", `{"range":{"count":{"gte":null,"lt":0}}}`, []string{"3"}},
		{"range double", `{"range":{"price":{"gt":2.5}}}`, []string{"3", "4", "5"}},
		{"range double window", `{"range":{"price":{"gte":2.5,"lt":10}}}`, []string{"2", "4"}},
		{"range float", `{"range":{"ratio":{"gte":0.1}}}`, []string{"1", "2"}},
		{"range float gt", `{"range":{"ratio":{"gt":0.1}}}`, []string{"2"}},
		{"range half_float", `{"range":{"half":{"gt":1.4}}}`, []string{"1"}},
		{"range half_float exclusive", `{"range":{"half":{"gt":1.5}}}`, nil},
		{"range scaled_float", `{"range":{"scaled":{"gte":1.23}}}`, []string{"1"}},
		{"range scaled_float exclusive", `{"range":{"scaled":{"gt":1.23}}}`, nil},
		{"range keyword", `{"range":{"tag":{"gte":"b"}}}`, []string{"1", "2", "3", "4"}},
		{"range keyword exclusive", `{"range":{"tag":{"gt":"b","lt":"z"}}}`, []string{"3"}},
		{"range keyword normalizer", `{"range":{"ntag":{"gte":"HELLO","lte":"HELLO"}}}`, []string{"1"}},
		{"range text terms", `{"range":{"title":{"gte":"r"}}}`, []string{"1", "3"}},
		{"range date day", `{"range":{"date":{"gte":"2020-01-01","lt":"2020-01-02"}}}`, []string{"1"}},
		{"range date gte", `{"range":{"date":{"gte":"2020-01-02"}}}`, []string{"2", "3"}},
		{"range date lte rounds up", `{"range":{"date":{"lte":"2020-01-01"}}}`, []string{"1", "4"}},
		{"range date lt", `{"range":{"date":{"lt":"2020-01-01"}}}`, []string{"4"}},
		{"range date gt rounds up", `{"range":{"date":{"gt":"2020-01-01"}}}`, []string{"2", "3"}},
		{"range date lte hour", `{"range":{"date":{"lte":"2020-01-01T09"}}}`, []string{"4"}},
		{"range date lte hour 10", `{"range":{"date":{"lte":"2020-01-01T10"}}}`, []string{"1", "4"}},
		{"range date now-1M/M", `{"range":{"date":{"gte":"now-1M/M"}}}`, []string{"3"}},
		{"range date now/y", `{"range":{"date":{"lt":"now/y"}}}`, []string{"4"}},
		{"range date anchor math", `{"range":{"date":{"gte":"2020-01-01||+1d"}}}`, []string{"2", "3"}},
		{"range date anchor lte /d", `{"range":{"date":{"lte":"2020-01-01||/d"}}}`, []string{"1", "4"}},
		{"range date anchor gt /d", `{"range":{"date":{"gt":"2020-01-01||/d"}}}`, []string{"2", "3"}},
		{"range date anchor gte /d", `{"range":{"date":{"gte":"2020-01-01||/d"}}}`, []string{"1", "2", "3"}},
		{"range date anchor lt /d", `{"range":{"date":{"lt":"2020-01-02||/d"}}}`, []string{"1", "4"}},
		{"range date month math", `{"range":{"date":{"gte":"2019-12-15||+1M","lte":"2020-01-31||+15d/d"}}}`, []string{"3"}},
		{"range date month math exclusive", `{"range":{"date":{"gte":"2019-12-15||+1M","lte":"2020-01-31||+15d"}}}`, nil},
		{"range time_zone offset", `{"range":{"date":{"gte":"2020-01-01T11:00:00","time_zone":"+02:00"}}}`, []string{"1", "2", "3"}},
		{"range explicit zone wins", `{"range":{"date":{"gte":"2020-01-01T11:00:00Z","time_zone":"+02:00"}}}`, []string{"2", "3"}},
		{"range time_zone region", `{"range":{"date":{"gte":"2020-01-01T10:30:00","time_zone":"Europe/Paris"}}}`, []string{"1", "2", "3"}},
		{"range time_zone region later", `{"range":{"date":{"gte":"2020-01-01T11:30:00","time_zone":"Europe/Paris"}}}`, []string{"2", "3"}},
		{"range time_zone rounding", `{"range":{"date":{"gte":"2020-01-02||/d","time_zone":"-05:00"}}}`, []string{"3"}},
		{"range time_zone day", `{"range":{"date":{"gte":"2020-01-02","time_zone":"+01:00"}}}`, []string{"2", "3"}},
		{"range format", `{"range":{"date":{"gte":"01/02/2020","format":"dd/MM/yyyy"}}}`, []string{"3"}},
		{"range format lte rounds up", `{"range":{"date":{"lte":"01/01/2020","format":"dd/MM/yyyy"}}}`, []string{"1", "4"}},
		{"range field format", `{"range":{"day":{"gte":"2020-01-02"}}}`, []string{"2", "3"}},
		{"range epoch", `{"range":{"date":{"gte":1577872800000}}}`, []string{"1", "2", "3"}},
		{"range epoch gt", `{"range":{"date":{"gt":1577872800000}}}`, []string{"2", "3"}},
		{"range boolean", `{"range":{"flag":{"gte":true}}}`, []string{"1"}},
		{"range boolean lt", `{"range":{"flag":{"lt":true}}}`, []string{"2"}},
		{"range open is exists", `{"range":{"count":{}}}`, []string{"1", "2", "3", "4"}},
		{"range unmapped", `{"range":{"nope":{"gte":1}}}`, nil},
		{"range relation accepted", `{"range":{"count":{"gte":5,"relation":"WITHIN"}}}`, []string{"1", "2", "4"}},

		// exists
		{"exists keyword", `{"exists":{"field":"tag"}}`, []string{"1", "2", "3", "4"}},
		{"exists object", `{"exists":{"field":"user"}}`, []string{"1", "2"}},
		{"exists object leaf", `{"exists":{"field":"user.age"}}`, []string{"1"}},
		{"exists pattern", `{"exists":{"field":"user.*"}}`, []string{"1", "2"}},
		{"exists multi-field", `{"exists":{"field":"title.keyword"}}`, []string{"1", "2", "3", "4"}},
		{"exists geo", `{"exists":{"field":"loc"}}`, []string{"4"}},
		{"exists unmapped", `{"exists":{"field":"nope"}}`, nil},
		{"exists _id", `{"exists":{"field":"_id"}}`, all},

		// ids
		{"ids", `{"ids":{"values":["1","3","9"]}}`, []string{"1", "3"}},
		{"ids single string", `{"ids":{"values":"2","types":["_doc"]}}`, []string{"2"}},
		{"ids empty", `{"ids":{"values":[]}}`, nil},

		// bool
		{"bool must must_not", `{"bool":{"must":{"term":{"tag":"a"}},"must_not":[{"term":{"count":1}}]}}`, []string{"1"}},
		{"bool filter", `{"bool":{"filter":[{"term":{"tag":"b"}}]}}`, []string{"1", "2"}},
		{"bool should", `{"bool":{"should":[{"term":{"tag":"a"}},{"term":{"tag":"c"}}]}}`, []string{"1", "3", "4"}},
		{"bool should optional with must", `{"bool":{"must":{"match":{"body":"quick"}},"should":{"term":{"tag":"z"}}}}`, []string{"1", "3", "5"}},
		{"bool should optional with filter", `{"bool":{"filter":{"term":{"tag":"b"}},"should":{"term":{"tag":"a"}}}}`, []string{"1", "2"}},
		{"bool should required with must_not only", `{"bool":{"should":{"term":{"tag":"a"}},"must_not":{"term":{"count":1}}}}`, []string{"1"}},
		{"bool msm 2", `{"bool":{"should":[{"term":{"tag":"a"}},{"term":{"tag":"z"}},{"term":{"count":1}}],"minimum_should_match":2}}`, []string{"4"}},
		{"bool msm 100%", `{"bool":{"should":[{"term":{"tag":"a"}},{"term":{"tag":"b"}}],"minimum_should_match":"100%"}}`, []string{"1"}},
		{"bool msm with filter", `{"bool":{"filter":{"exists":{"field":"tag"}},"should":[{"term":{"tag":"c"}}],"minimum_should_match":1}}`, []string{"3"}},
		{"bool msm more than shoulds", `{"bool":{"must":{"match_all":{}},"should":[{"term":{"tag":"c"}}],"minimum_should_match":2}}`, nil},
		{"bool msm 0 without must", `{"bool":{"should":[{"term":{"tag":"c"}}],"minimum_should_match":0}}`, []string{"3"}},
		{"bool should all unmapped", `{"bool":{"should":[{"term":{"nope":"x"}}]}}`, nil},
		{"bool should unmapped optional", `{"bool":{"must":{"match_all":{}},"should":[{"term":{"nope":"x"}}]}}`, all},
		{"bool must match_none", `{"bool":{"must":[{"match_all":{}},{"match_none":{}}]}}`, nil},
		{"bool must_not only", `{"bool":{"must_not":{"terms":{"tag":["a","b"]}}}}`, []string{"3", "5"}},
		{"bool mustNot deprecated", `{"bool":{"mustNot":{"terms":{"tag":["a","b"]}}}}`, []string{"3", "5"}},
		{"bool pure negative not adjusted", `{"bool":{"must_not":{"term":{"tag":"a"}},"adjust_pure_negative":false}}`, nil},
		{"bool empty", `{"bool":{}}`, all},
		{"bool null clause", `{"bool":{"must":null}}`, all},
		{"bool nested", `{"bool":{"should":[{"bool":{"must":[{"term":{"tag":"a"}},{"term":{"tag":"z"}}]}},{"term":{"tag":"c"}}]}}`, []string{"3", "4"}},
		{"bool filter and must_not", `{"bool":{"filter":{"range":{"count":{"gte":1}}},"must_not":{"term":{"flag":true}}}}`, []string{"2", "4"}},

		// constant_score
		{"constant_score", `{"constant_score":{"filter":{"term":{"tag":"a"}},"boost":2}}`, []string{"1", "4"}},

		// prefix
		{"prefix text", `{"prefix":{"title":"qu"}}`, []string{"1", "3"}},
		{"prefix long form", `{"prefix":{"title":{"value":"bro","rewrite":"constant_score"}}}`, []string{"1", "4"}},
		{"prefix param name", `{"prefix":{"title":{"prefix":"bro"}}}`, []string{"1", "4"}},
		{"prefix keyword", `{"prefix":{"title.keyword":"The"}}`, []string{"1"}},
		{"prefix case_insensitive", `{"prefix":{"title.keyword":{"value":"the q","case_insensitive":true}}}`, []string{"1"}},
		{"prefix normalizer", `{"prefix":{"ntag":"HEL"}}`, []string{"1"}},
		{"prefix empty", `{"prefix":{"tag":""}}`, []string{"1", "2", "3", "4"}},
		{"prefix unmapped", `{"prefix":{"nope":"x"}}`, nil},

		// wildcard
		{"wildcard", `{"wildcard":{"title":"qu*k"}}`, []string{"1", "3"}},
		{"wildcard text lowercases", `{"wildcard":{"title":{"value":"Q*"}}}`, []string{"1", "3"}},
		{"wildcard single char", `{"wildcard":{"tag":"?"}}`, []string{"1", "2", "3", "4"}},
		{"wildcard keyword", `{"wildcard":{"title.keyword":{"wildcard":"*Dog"}}}`, []string{"2"}},
		{"wildcard keyword case", `{"wildcard":{"title.keyword":"*dog"}}`, nil},
		{"wildcard case_insensitive", `{"wildcard":{"title.keyword":{"value":"*dog","case_insensitive":true}}}`, []string{"2"}},
		{"wildcard escaped", `{"wildcard":{"tag":"\\*"}}`, nil},
		{"wildcard regexp chars literal", `{"wildcard":{"title.keyword":"Lazy.Dog"}}`, nil},

		// regexp
		{"regexp", `{"regexp":{"title":"qu.*"}}`, []string{"1", "3"}},
		{"regexp repeat", `{"regexp":{"title":{"value":"b[a-z]{4}"}}}`, []string{"1", "4"}},
		{"regexp anchored", `{"regexp":{"title":"ui"}}`, nil},
		{"regexp alternation", `{"regexp":{"tag":"a|c"}}`, []string{"1", "3", "4"}},
		{"regexp anystring", `{"regexp":{"title":"bro@"}}`, []string{"1", "4"}},
		{"regexp flags none", `{"regexp":{"title":{"value":"bro@","flags":"NONE"}}}`, nil},
		{"regexp quoted", `{"regexp":{"title.keyword":"\"Lazy Dog\""}}`, []string{"2"}},
		{"regexp escaped dot", `{"regexp":{"title.keyword":"Lazy\\.Dog"}}`, nil},
		{"regexp case_insensitive", `{"regexp":{"title.keyword":{"value":"lazy.*","case_insensitive":true}}}`, []string{"2"}},
		{"regexp char class", `{"regexp":{"tag":"[^ab]"}}`, []string{"3", "4"}},

		// fuzzy
		{"fuzzy auto transposition", `{"fuzzy":{"title":"quikc"}}`, []string{"1", "3"}},
		{"fuzzy no transpositions", `{"fuzzy":{"title":{"value":"quikc","transpositions":false}}}`, nil},
		{"fuzzy fuzziness 2", `{"fuzzy":{"title":{"value":"quikc","fuzziness":2,"transpositions":false}}}`, []string{"1", "3"}},
		{"fuzzy max_expansions", `{"fuzzy":{"tag":{"value":"d","fuzziness":1,"max_expansions":2}}}`, []string{"1", "2", "4"}},
		{"fuzzy prefix_length", `{"fuzzy":{"title":{"value":"bxown","prefix_length":2}}}`, nil},
		{"fuzzy prefix_length ok", `{"fuzzy":{"title":{"value":"brxwn","prefix_length":2}}}`, []string{"1", "4"}},
		{"fuzzy normalizer", `{"fuzzy":{"ntag":{"value":"HELLX"}}}`, []string{"1"}},
		{"fuzzy unmapped", `{"fuzzy":{"nope":"x"}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ix.ids(t, tt.query)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s matched %v; want %v", tt.query, got, tt.want)
			}
		})
	}
}

// TestTermsLookup checks the terms lookup plumbing.
func TestTermsLookup(t *testing.T) {
	ix := newTestIndex(t)
	var gotIndex, gotID, gotPath, gotRouting string
	ix.ctx.TermsLookup = func(index, id, path, routing string) ([]any, error) {
		gotIndex, gotID, gotPath, gotRouting = index, id, path, routing
		return []any{"b", "c", json.Number("7"), true}, nil
	}
	got := ix.ids(t, `{"terms":{"tag":{"index":"other","id":"42","path":"user.tags","routing":"r"}}}`)
	if want := []string{"1", "2", "3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("lookup matched %v; want %v", got, want)
	}
	if gotIndex != "other" || gotID != "42" || gotPath != "user.tags" || gotRouting != "r" {
		t.Errorf("lookup called with %q %q %q %q", gotIndex, gotID, gotPath, gotRouting)
	}
	ix.ctx.TermsLookup = func(string, string, string, string) ([]any, error) { return []any{float64(100), 5}, nil }
	if got, want := ix.ids(t, `{"terms":{"count":{"index":"i","id":"1","path":"p"}}}`), []string{"1", "4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("numeric lookup matched %v; want %v", got, want)
	}
}

// TestScoring checks the scores ES semantics fix exactly (constant scores,
// filters, boosts) and orderings that depend on scoring.
func TestScoring(t *testing.T) {
	ix := newTestIndex(t)
	scores := func(q string) map[string]float64 {
		out := map[string]float64{}
		for _, h := range ix.ranked(t, q) {
			out[h.id] = h.score
		}
		return out
	}
	constant := []struct {
		query string
		want  float64
	}{
		{`{"match_all":{}}`, 1},
		{`{"match_all":{"boost":2.5}}`, 2.5},
		{`{"constant_score":{"filter":{"match":{"body":"quick"}},"boost":3}}`, 3},
		{`{"constant_score":{"filter":{"match":{"body":"quick"}}}}`, 1},
		{`{"bool":{"filter":{"match":{"body":"quick"}}}}`, 0},
		{`{"bool":{"filter":{"match":{"body":"quick"}},"boost":4}}`, 0},
		{`{"bool":{"must_not":{"term":{"tag":"a"}}}}`, 0},
		{`{"bool":{"boost":3}}`, 3},
		{`{"terms":{"tag":["a","b"],"boost":2}}`, 2},
		{`{"ids":{"values":["1","2"],"boost":1.5}}`, 1.5},
		{`{"exists":{"field":"tag","boost":2}}`, 2},
		{`{"range":{"count":{"gte":0,"boost":2}}}`, 2},
		{`{"range":{"date":{"gte":"2020-01-01"}}}`, 1},
		{`{"range":{"tag":{"gte":"a","boost":3}}}`, 3},
		{`{"term":{"count":{"value":10,"boost":2}}}`, 2},
		{`{"term":{"date":"2020-01-01"}}`, 1},
		{`{"prefix":{"title":{"value":"qu","boost":2}}}`, 2},
		{`{"wildcard":{"title":{"value":"q*","boost":2}}}`, 2},
		{`{"regexp":{"title":{"value":"q.*","boost":2}}}`, 2},
		{`{"term":{"tag":{"value":"A","case_insensitive":true,"boost":2}}}`, 2},
		{`{"match":{"stopped":{"query":"the","zero_terms_query":"all","boost":2}}}`, 2},
	}
	for _, tt := range constant {
		got := scores(tt.query)
		if len(got) == 0 {
			t.Errorf("%s matched nothing", tt.query)
		}
		for id, s := range got {
			if math.Abs(s-tt.want) > 1e-9 {
				t.Errorf("%s: doc %s score %v; want %v", tt.query, id, s, tt.want)
			}
		}
	}

	// more occurrences of the term score higher
	if got := ids(ix.ranked(t, `{"match":{"title":"quick"}}`)); !reflect.DeepEqual(got, []string{"3", "1"}) {
		t.Errorf("match title quick ranked %v; want [3 1]", got)
	}
	// boosts order should clauses
	q := `{"bool":{"should":[{"term":{"tag":{"value":"a","boost":5}}},{"term":{"tag":"b"}}]}}`
	if got := ids(ix.ranked(t, q)); !reflect.DeepEqual(got, []string{"1", "4", "2"}) {
		t.Errorf("%s ranked %v; want [1 4 2]", q, got)
	}
	// a filter clause does not change the score of the must clause
	plain := scores(`{"match":{"title":"quick"}}`)
	filtered := scores(`{"bool":{"must":{"match":{"title":"quick"}},"filter":{"term":{"tag":"c"}}}}`)
	if len(filtered) != 1 || math.Abs(filtered["3"]-plain["3"]) > 1e-9 {
		t.Errorf("filtered scores %v; want doc 3 with %v", filtered, plain["3"])
	}
	// query boost multiplies the score
	boostedScores := scores(`{"match":{"title":{"query":"quick","boost":3}}}`)
	for id, s := range plain {
		if math.Abs(boostedScores[id]-3*s) > 1e-9 {
			t.Errorf("boosted score of %s = %v; want %v", id, boostedScores[id], 3*s)
		}
	}
	bb := scores(`{"bool":{"must":{"match":{"title":"quick"}},"boost":2}}`)
	for id, s := range plain {
		if math.Abs(bb[id]-2*s) > 1e-9 {
			t.Errorf("bool boosted score of %s = %v; want %v", id, bb[id], 2*s)
		}
	}
	// should clauses add to the score of the must clauses
	withShould := scores(`{"bool":{"must":{"match":{"title":"quick"}},"should":{"constant_score":{"filter":{"term":{"tag":"c"}},"boost":10}}}}`)
	if math.Abs(withShould["3"]-(plain["3"]+10)) > 1e-9 || math.Abs(withShould["1"]-plain["1"]) > 1e-9 {
		t.Errorf("should scores %v; want must score + 10 for doc 3 only (%v)", withShould, plain)
	}
	// exact term matches outrank fuzzy ones
	if got := ids(ix.ranked(t, `{"fuzzy":{"title":{"value":"bear","fuzziness":2}}}`)); len(got) == 0 || got[0] != "4" {
		t.Errorf("fuzzy bear ranked %v; want doc 4 first", got)
	}
}

func ids(hits []hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.id)
	}
	return out
}

// TestNames checks _name is kept on every query type.
func TestNames(t *testing.T) {
	queries := []string{
		`{"match_all":{"_name":"n"}}`,
		`{"match_none":{"_name":"n"}}`,
		`{"match":{"f":{"query":"x","_name":"n"}}}`,
		`{"term":{"f":{"value":"x","_name":"n"}}}`,
		`{"terms":{"f":["x"],"_name":"n"}}`,
		`{"range":{"f":{"gte":1,"_name":"n"}}}`,
		`{"exists":{"field":"f","_name":"n"}}`,
		`{"ids":{"values":["1"],"_name":"n"}}`,
		`{"bool":{"_name":"n"}}`,
		`{"constant_score":{"filter":{"match_all":{}},"_name":"n"}}`,
		`{"prefix":{"f":{"value":"x","_name":"n"}}}`,
		`{"wildcard":{"f":{"value":"x","_name":"n"}}}`,
		`{"regexp":{"f":{"value":"x","_name":"n"}}}`,
		`{"fuzzy":{"f":{"value":"x","_name":"n"}}}`,
	}
	for _, q := range queries {
		n, err := Parse(json.RawMessage(q))
		if err != nil {
			t.Errorf("Parse(%s): %v", q, err)
			continue
		}
		if n.Name() != "n" {
			t.Errorf("Parse(%s).Name() = %q; want n", q, n.Name())
		}
	}
}

// TestParseAt checks that located parsing renders ES positions.
func TestParseAt(t *testing.T) {
	p := NewParser()
	_, err := p.ParseAt(json.RawMessage("{\n  \"foo\": {}\n}"), 1, 11)
	e, _ := asErr(err)
	if e == nil || e.Reason != "unknown query [foo]" || len(e.Meta) != 2 || e.Meta[0].Value != 2 || e.Meta[1].Value != 10 {
		t.Errorf("ParseAt unknown query = %#v", e)
	}
	_, err = p.ParseAt(json.RawMessage(`{"bool":{"mus":[]}}`), 1, 11)
	if e, _ := asErr(err); e == nil || e.Reason != "[1:20] [bool] unknown field [mus] did you mean [must]?" {
		t.Errorf("ParseAt bool unknown field = %v", err)
	}
	_, err = p.ParseAt(json.RawMessage(`{}`), 3, 5)
	if got := errString(err); got != "illegal_argument_exception: query malformed, empty clause found at [3:6]" {
		t.Errorf("ParseAt empty = %s", got)
	}
	if !strings.Contains(errString(err), "3:6") {
		t.Errorf("position not rendered: %s", errString(err))
	}
}
