package query

import (
	"reflect"
	"testing"
)

func TestQueryString(t *testing.T) {
	ix := newTestIndex(t)
	all := []string{"1", "2", "3", "4", "5"}
	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{"default field all", `{"query_string":{"query":"rabbit"}}`, []string{"3"}},
		{"field", `{"query_string":{"query":"body:quick"}}`, []string{"1", "3", "5"}},
		{"default_field", `{"query_string":{"query":"quick","default_field":"title"}}`, []string{"1", "3"}},
		{"fields list", `{"query_string":{"query":"bear","fields":["title","body"]}}`, []string{"4"}},
		{"or", `{"query_string":{"query":"body:rabbit OR body:honey"}}`, []string{"3", "4"}},
		{"and", `{"query_string":{"query":"body:quick AND body:fox"}}`, []string{"1"}},
		{"&& and ||", `{"query_string":{"query":"body:quick && (body:fox || body:rabbit)"}}`, []string{"1", "3"}},
		{"not", `{"query_string":{"query":"body:quick NOT body:fox"}}`, []string{"3", "5"}},
		{"pure negative", `{"query_string":{"query":"-body:quick"}}`, []string{"2", "4"}},
		{"plus minus", `{"query_string":{"query":"+body:quick -title:quick"}}`, []string{"5"}},
		{"default_operator and", `{"query_string":{"query":"quick fox","default_field":"body","default_operator":"AND"}}`, []string{"1"}},
		{"default_operator or", `{"query_string":{"query":"quick fox","default_field":"body"}}`, []string{"1", "3", "5"}},
		{"and binds", `{"query_string":{"query":"body:honey OR body:quick AND body:fox"}}`, []string{"1"}},
		{"phrase", `{"query_string":{"query":"\"lazy dog\"","default_field":"body"}}`, []string{"1", "2"}},
		{"phrase slop", `{"query_string":{"query":"\"quick fox\"~1","default_field":"body"}}`, []string{"1"}},
		{"phrase no slop", `{"query_string":{"query":"\"quick fox\"","default_field":"body"}}`, nil},
		{"phrase_slop param", `{"query_string":{"query":"\"quick fox\"","default_field":"body","phrase_slop":1}}`, []string{"1"}},
		{"wildcard", `{"query_string":{"query":"body:qu?ck"}}`, []string{"1", "3", "5"}},
		{"wildcard lowercased", `{"query_string":{"query":"body:QU*K"}}`, []string{"1", "3", "5"}},
		{"prefix", `{"query_string":{"query":"body:hon*"}}`, []string{"4"}},
		{"prefix keyword", `{"query_string":{"query":"title.keyword:Lazy*"}}`, []string{"2"}},
		{"fuzzy", `{"query_string":{"query":"body:rabit~"}}`, []string{"3"}},
		{"fuzzy edits", `{"query_string":{"query":"body:rbbit~1"}}`, []string{"3"}},
		{"fuzzy too far", `{"query_string":{"query":"body:rbit~1"}}`, nil},
		{"regex", `{"query_string":{"query":"body:/ra.*t/"}}`, []string{"3"}},
		{"range inclusive", `{"query_string":{"query":"count:[5 TO 10]"}}`, []string{"1", "2"}},
		{"range exclusive", `{"query_string":{"query":"count:{5 TO 10]"}}`, []string{"2"}},
		{"range open", `{"query_string":{"query":"count:[* TO 1]"}}`, []string{"3", "4"}},
		{"range gte", `{"query_string":{"query":"count:>=10"}}`, []string{"2", "4"}},
		{"range lt", `{"query_string":{"query":"count:<1"}}`, []string{"3"}},
		{"one-sided ranges in a field group", `{"query_string":{"query":"count:(>=5 AND <100)"}}`, []string{"1", "2", "4"}},
		{"required one-sided ranges in a group", `{"query_string":{"query":"count:(+>1 +<=5)"}}`, []string{"1", "4"}},
		{"one-sided range alone in a group", `{"query_string":{"query":"count:(<0)"}}`, []string{"3"}},
		{"one-sided range on the default_field", `{"query_string":{"query":">=10","default_field":"count"}}`, []string{"2", "4"}},
		{"one-sided range text on fields is a term", `{"query_string":{"query":">=10","fields":["count"],"lenient":true}}`, nil},
		{"range date", `{"query_string":{"query":"date:[2020-01-01 TO 2020-01-31]"}}`, []string{"1", "2"}},
		{"range date day", `{"query_string":{"query":"date:[2020-01-01 TO 2020-01-01]"}}`, []string{"1"}},
		{"range date time_zone", `{"query_string":{"query":"date:[2020-01-01 TO 2020-01-01]","time_zone":"+10:00"}}`, []string{"1", "4"}},
		{"type most_fields", `{"query_string":{"query":"quick","fields":["title","body"],"type":"most_fields"}}`, []string{"1", "3", "5"}},
		{"group field", `{"query_string":{"query":"body:(rabbit honey)"}}`, []string{"3", "4"}},
		{"group field and", `{"query_string":{"query":"body:(quick AND brown)"}}`, []string{"1"}},
		{"boosts parse", `{"query_string":{"query":"body:rabbit^2 OR (body:honey)^0.5"}}`, []string{"3", "4"}},
		{"exists", `{"query_string":{"query":"_exists_:loc"}}`, []string{"4"}},
		{"field star exists", `{"query_string":{"query":"loc:*"}}`, []string{"4"}},
		{"star", `{"query_string":{"query":"*"}}`, all},
		{"keyword term", `{"query_string":{"query":"tag:a"}}`, []string{"1", "4"}},
		{"escaped", `{"query_string":{"query":"title.keyword:Lazy\\ Dog"}}`, []string{"2"}},
		{"wildcard field name", `{"query_string":{"query":"rabbit","fields":["ti*"]}}`, []string{"3"}},
		{"all fields include numbers", `{"query_string":{"query":"10"}}`, []string{"1", "2", "3"}},
		{"lenient star", `{"query_string":{"query":"abc","default_field":"*"}}`, nil},
		{"msm", `{"query_string":{"query":"quick brown fox","default_field":"body","minimum_should_match":"100%"}}`, []string{"1"}},
		{"analyzed multi-token term", `{"query_string":{"query":"body:brown-bears"}}`, []string{"1", "4"}},

		{"simple", `{"simple_query_string":{"query":"rabbit","fields":["body"]}}`, []string{"3"}},
		{"simple default all fields", `{"simple_query_string":{"query":"rabbit"}}`, []string{"3"}},
		{"simple and", `{"simple_query_string":{"query":"quick + fox","fields":["body"]}}`, []string{"1"}},
		{"simple or", `{"simple_query_string":{"query":"rabbit | honey","fields":["body"]}}`, []string{"3", "4"}},
		{"simple not with or matches the rest", `{"simple_query_string":{"query":"quick -fox","fields":["body"]}}`, all},
		{"simple not with and", `{"simple_query_string":{"query":"quick -fox","fields":["body"],"default_operator":"and"}}`, []string{"3", "5"}},
		{"simple phrase", `{"simple_query_string":{"query":"\"lazy dog\"","fields":["body"]}}`, []string{"1", "2"}},
		{"simple phrase slop", `{"simple_query_string":{"query":"\"quick fox\"~1","fields":["body"]}}`, []string{"1"}},
		{"simple prefix", `{"simple_query_string":{"query":"hon*","fields":["body"]}}`, []string{"4"}},
		{"simple fuzzy", `{"simple_query_string":{"query":"rabit~1","fields":["body"]}}`, []string{"3"}},
		{"simple precedence", `{"simple_query_string":{"query":"quick + (fox | rabbit)","fields":["body"]}}`, []string{"1", "3"}},
		{"simple field boosts", `{"simple_query_string":{"query":"bear","fields":["title^5","body"]}}`, []string{"4"}},
		{"simple flags none keeps operators as text", `{"simple_query_string":{"query":"rabbit | honey","fields":["body"],"flags":"NONE","default_operator":"and"}}`, nil},
		{"simple explicit or beats default and", `{"simple_query_string":{"query":"rabbit | honey","fields":["body"],"default_operator":"and"}}`, []string{"3", "4"}},
		{"simple flags or only", `{"simple_query_string":{"query":"rabbit | honey","fields":["body"],"flags":"OR|WHITESPACE"}}`, []string{"3", "4"}},
		{"simple unbalanced quote", `{"simple_query_string":{"query":"\"rabbit","fields":["body"]}}`, []string{"3"}},
		{"simple empty", `{"simple_query_string":{"query":"","fields":["body"]}}`, nil},
		{"simple msm", `{"simple_query_string":{"query":"quick brown fox","fields":["body"],"minimum_should_match":"3"}}`, []string{"1"}},
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

func TestQueryStringErrors(t *testing.T) {
	ix := newTestIndex(t)
	tests := []struct {
		query string
		want  string
	}{
		{`{"query_string":{}}`, `parsing_exception: [query_string] must be provided with a [query]`},
		{`{"query_string":{"query":"x","foo":1}}`, `parsing_exception: [query_string] query does not support [foo]`},
		{`{"query_string":{"query":"x","foo":{}}}`, `parsing_exception: [query_string] unknown token [START_OBJECT] after [foo]`},
		{`{"query_string":{"query":"x","default_field":"a","fields":["b"]}}`, `parsing_exception: [query_string] cannot use [fields] parameter in conjunction with [default_field]`},
		{`{"query_string":{"query":"x","default_operator":"xor"}}`, `illegal_argument_exception: No enum constant org.elasticsearch.index.query.Operator.XOR`},
		{`{"simple_query_string":{}}`, `parsing_exception: [simple_query_string] query text missing`},
		{`{"simple_query_string":{"query":"x","foo":1}}`, `parsing_exception: [simple_query_string] unsupported field [foo]`},
		{`{"simple_query_string":{"query":"x","flags":"AND|BOGUS"}}`, `illegal_argument_exception: Unknown simple_query_string flag [BOGUS]`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.query))
		if got := errString(err); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.query, got, tt.want)
		}
	}
	for _, q := range []string{"body:quick AND", "(body:quick", "body:\"quick", "count:[1 TO", "AND quick", "body:quick^"} {
		n, err := Parse([]byte(`{"query_string":{"query":` + quoteJSON(q) + `}}`))
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		_, err = n.Compile(ix.ctx)
		e, ok := asErr(err)
		if !ok || e.Type != "query_shard_exception" || e.Reason != "Failed to parse query ["+q+"]" ||
			e.CausedBy == nil || e.CausedBy.Type != "parse_exception" {
			t.Errorf("%s: %s", q, errString(err))
		}
	}
}

func quoteJSON(s string) string {
	b := []byte{'"'}
	for _, r := range s {
		if r == '"' || r == '\\' {
			b = append(b, '\\')
		}
		b = append(b, string(r)...)
	}
	return string(append(b, '"'))
}
