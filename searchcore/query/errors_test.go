package query

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseErrors checks the exact ES exception type and reason (with
// nested causes) of every parse failure.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		query string
		want  string
	}{
		// envelope
		{`{"foo":{}}`, `parsing_exception: unknown query [foo]`},
		{`{"mach":{}}`, `parsing_exception: unknown query [mach] did you mean [match]?`},
		{`{"term":"x"}`, `parsing_exception: [term] query malformed, no start_object after query name`},
		{`{}`, `illegal_argument_exception: query malformed, empty clause found at [1:2]`},
		{`[1]`, `parsing_exception: [_na] query malformed, must start with start_object`},
		{`{"match_all":{},"x":{}}`, `parsing_exception: [match_all] malformed query, expected [END_OBJECT] but found [FIELD_NAME]`},
		{`{"match_all":{`, `json_parse_exception: Unexpected end-of-input: expected close marker for Object`},
		{`{"term":{"a":1,"a":2}}`, `json_parse_exception: Duplicate field 'a'`},

		// match_all / match_none
		{`{"match_all":{"foo":1}}`, `x_content_parse_exception: [match_all] unknown field [foo]`},
		{`{"match_all":{"bost":1}}`, `x_content_parse_exception: [match_all] unknown field [bost] did you mean [boost]?`},
		{`{"match_all":{"boost":"x"}}`, `x_content_parse_exception: [match_all] failed to parse field [boost] [caused_by: number_format_exception: For input string: "x"]`},
		{`{"match_all":{"boost":true}}`, `x_content_parse_exception: [match_all] boost doesn't support values of type: VALUE_BOOLEAN`},
		{`{"match_all":{"boost":-1}}`, "x_content_parse_exception: [match_all] failed to parse field [boost] [caused_by: illegal_argument_exception: negative [boost] are not allowed in [{\n  \"boost\" : -1\n}], use a value between 0 and 1 to deboost]"},
		{`{"match_none":{"x":1}}`, `parsing_exception: [match_none] query does not support [x]`},
		{`{"match_none":{"x":[]}}`, `parsing_exception: [match_none] unknown token [START_ARRAY] after [x]`},

		// term
		{`{"term":{"a":"x","b":"y"}}`, `parsing_exception: [term] query doesn't support multiple fields, found [a] and [b]`},
		{`{"term":{"a":{"value":"x"},"b":{"value":"y"}}}`, `parsing_exception: [term] query doesn't support multiple fields, found [a] and [b]`},
		{`{"term":{"a":"x","boost":2}}`, `parsing_exception: [term] query doesn't support multiple fields, found [a] and [boost]`},
		{`{"term":{"f":{"value":1,"foo":2}}}`, `parsing_exception: [term] query does not support [foo]`},
		{`{"term":{"f":[1]}}`, `parsing_exception: [term] query does not support array of values`},
		{`{"term":{"f":null}}`, `illegal_argument_exception: field name is null or empty`},
		{`{"term":{}}`, `illegal_argument_exception: field name is null or empty`},
		{`{"term":{"f":{"boost":2}}}`, `illegal_argument_exception: value cannot be null`},
		{`{"term":{"f":{"value":"x","boost":"y"}}}`, `number_format_exception: For input string: "y"`},
		{`{"term":{"f":{"value":"x","boost":true}}}`, `json_parse_exception: Current token (VALUE_TRUE) not numeric, can not use numeric value accessors`},
		{`{"term":{"f":{"value":"x","case_insensitive":"yes"}}}`, `illegal_argument_exception: Failed to parse value [yes] as only [true] or [false] are allowed.`},
		{`{"term":{"f":{"value":"x","boost":-2}}}`, "illegal_argument_exception: negative [boost] are not allowed in [{\n  \"f\" : {\n    \"value\" : \"x\",\n    \"boost\" : -2\n  }\n}], use a value between 0 and 1 to deboost"},

		// terms
		{`{"terms":{"a":[1],"b":[2]}}`, `parsing_exception: [terms] query does not support multiple fields`},
		{`{"terms":{"a":[1],"b":{"index":"i"}}}`, `parsing_exception: [terms] query does not support more than one field. Already got: [a] but also found [b]`},
		{`{"terms":{"boost":1}}`, `parsing_exception: [terms] query requires a field name, followed by array of terms or a document lookup specification`},
		{`{"terms":{"a":[null]}}`, `parsing_exception: No value specified for terms query`},
		{`{"terms":{"a":[1],"foo":"x"}}`, `parsing_exception: [terms] query does not support [foo]`},
		{`{"terms":{"a":null}}`, `parsing_exception: [terms] unknown token [VALUE_NULL] after [a]`},
		{`{"terms":{"a":{"id":"1","path":"p"}}}`, `illegal_argument_exception: [terms] query lookup element requires specifying the index.`},
		{`{"terms":{"a":{"index":"i","path":"p"}}}`, `illegal_argument_exception: [terms] query lookup element requires specifying the id.`},
		{`{"terms":{"a":{"index":"i","id":"1"}}}`, `illegal_argument_exception: [terms] query lookup element requires specifying the path.`},
		{`{"terms":{"a":{"index":"i","id":"1","path":"p","x":1}}}`, `parsing_exception: [terms] query does not support [x] within lookup element`},
		{`{"terms":{"a":{"index":{}}}}`, `parsing_exception: [terms] unknown token [START_OBJECT] after [index]`},

		// match
		{`{"match":{"f":{"query":[1]}}}`, `parsing_exception: [match] unknown token [START_ARRAY] after [query]`},
		{`{"match":{"f":{"query":null}}}`, `parsing_exception: [match] unknown token [VALUE_NULL] after [query]`},
		{`{"match":{"f":{"query":"a","foo":1}}}`, `parsing_exception: [match] query does not support [foo]`},
		{`{"match":{"f":{}}}`, `parsing_exception: No text specified for text query`},
		{`{"match":{"f":null}}`, `parsing_exception: No text specified for text query`},
		{`{"match":{"f":[1,2]}}`, `parsing_exception: [match] unknown token [START_ARRAY] after [f]`},
		{`{"match":{"a":"x","b":"y"}}`, `parsing_exception: [match] query doesn't support multiple fields, found [a] and [b]`},
		{`{"match":{"f":{"query":"a","operator":"xor"}}}`, `illegal_argument_exception: No enum constant org.elasticsearch.index.query.Operator.XOR`},
		{`{"match":{"f":{"query":"a","zero_terms_query":"some"}}}`, `parsing_exception: Unsupported zero_terms_query value [some]`},
		{`{"match":{"f":{"query":"a","fuzziness":"abc"}}}`, `parse_exception: Invalid fuzziness value: abc`},
		{`{"match":{"f":{"query":"a","fuzziness":"AUTO:1"}}}`, `parse_exception: failed to find low and high distance values`},
		{`{"match":{"f":{"query":"a","fuzziness":"AUTO:a,b"}}}`, `parse_exception: failed to parse [AUTO:a,b] as a "auto:int,int" [caused_by: number_format_exception: For input string: "a"]`},
		{`{"match":{"f":{"query":"a","prefix_length":-1}}}`, `illegal_argument_exception: [match] requires prefix length to be non-negative.`},
		{`{"match":{"f":{"query":"a","max_expansions":0}}}`, `illegal_argument_exception: [match] requires maxExpansions to be positive.`},
		{`{"match":{"f":{"query":"a","max_expansions":"x"}}}`, `number_format_exception: For input string: "x"`},
		{`{"match":{"f":{"query":"a","lenient":"maybe"}}}`, `illegal_argument_exception: Failed to parse value [maybe] as only [true] or [false] are allowed.`},

		// range
		{`{"range":{"f":{"foo":1}}}`, `parsing_exception: [range] query does not support [foo]`},
		{`{"range":{"f":1}}`, `parsing_exception: [range] query does not support [f]`},
		{`{"range":{"a":{"gte":1},"b":{"gte":1}}}`, `parsing_exception: [range] query doesn't support multiple fields, found [a] and [b]`},
		{`{"range":{"f":{"gte":1,"time_zone":"Mars/Base"}}}`, `illegal_argument_exception: java.time.zone.ZoneRulesException: Unknown time-zone ID: Mars/Base`},
		{`{"range":{"f":{"gte":1,"time_zone":"+25:00"}}}`, `illegal_argument_exception: java.time.DateTimeException: Zone offset hours not in valid range: value 25 is not in the range -18 to 18`},
		{`{"range":{"f":{"gte":1,"relation":"disjoint"}}}`, `illegal_argument_exception: [range] query does not support relation [disjoint]`},
		{`{"range":{"f":{"gte":1,"relation":"foo"}}}`, `illegal_argument_exception: foo is not a valid relation`},
		{`{"range":{"f":{"gte":1,"include_lower":"x"}}}`, `illegal_argument_exception: Failed to parse value [x] as only [true] or [false] are allowed.`},
		{`{"range":{}}`, `illegal_argument_exception: field name is null or empty`},

		// exists / ids
		{`{"exists":{}}`, `parsing_exception: [exists] must be provided with a [field]`},
		{`{"exists":{"field":"a","x":1}}`, `parsing_exception: [exists] query does not support [x]`},
		{`{"exists":{"field":["a"]}}`, `parsing_exception: [exists] unknown token [START_ARRAY] after [field]`},
		{`{"ids":{"values":"1","x":1}}`, `x_content_parse_exception: [ids] unknown field [x]`},
		{`{"ids":{"value":["1"]}}`, `x_content_parse_exception: [ids] unknown field [value] did you mean [values]?`},
		{`{"ids":{"values":{}}}`, `x_content_parse_exception: [ids] values doesn't support values of type: START_OBJECT`},
		{`{"ids":{"values":[{}]}}`, `x_content_parse_exception: [ids] failed to parse field [values] [caused_by: illegal_state_exception: Can't get text on a START_OBJECT]`},

		// bool
		{`{"bool":{"x":1}}`, `x_content_parse_exception: [bool] unknown field [x]`},
		{`{"bool":{"mus":[]}}`, `x_content_parse_exception: [bool] unknown field [mus] did you mean [must]?`},
		{`{"bool":{"must":"x"}}`, `x_content_parse_exception: [bool] must doesn't support values of type: VALUE_STRING`},
		{`{"bool":{"must":{"foo":{}}}}`, `x_content_parse_exception: [bool] failed to parse field [must] [caused_by: parsing_exception: unknown query [foo]]`},
		{`{"bool":{"should":["x"]}}`, `x_content_parse_exception: [bool] failed to parse field [should] [caused_by: parsing_exception: [_na] query malformed, must start with start_object]`},
		{`{"bool":{"filter":[{}]}}`, `x_content_parse_exception: [bool] failed to parse field [filter] [caused_by: illegal_argument_exception: query malformed, empty clause found at [1:21]]`},
		{`{"bool":{"must":{"bool":{"should":{"term":{}}}}}}`, `x_content_parse_exception: [bool] failed to parse field [must] [caused_by: x_content_parse_exception: [bool] failed to parse field [should] [caused_by: illegal_argument_exception: field name is null or empty]]`},
		{`{"bool":{"boost":"x"}}`, `x_content_parse_exception: [bool] failed to parse field [boost] [caused_by: number_format_exception: For input string: "x"]`},
		{`{"bool":{"minimum_should_match":{}}}`, `x_content_parse_exception: [bool] minimum_should_match doesn't support values of type: START_OBJECT`},
		{`{"bool":{"_name":1}}`, `x_content_parse_exception: [bool] _name doesn't support values of type: VALUE_NUMBER`},
		{`{"bool":{"adjust_pure_negative":"x"}}`, `x_content_parse_exception: [bool] failed to parse field [adjust_pure_negative] [caused_by: illegal_argument_exception: Failed to parse value [x] as only [true] or [false] are allowed.]`},

		// constant_score
		{`{"constant_score":{}}`, `parsing_exception: [constant_score] requires a 'filter' element`},
		{`{"constant_score":{"filter":[]}}`, `parsing_exception: unexpected token [START_ARRAY]`},
		{`{"constant_score":{"query":{}}}`, `parsing_exception: [constant_score] query does not support [query]`},
		{`{"constant_score":{"filter":{"match_all":{}},"x":1}}`, `parsing_exception: [constant_score] query does not support [x]`},
		{`{"constant_score":{"filter":{"foo":{}}}}`, `parsing_exception: unknown query [foo]`},

		// prefix / wildcard / regexp / fuzzy
		{`{"prefix":{"f":{"foo":1}}}`, `parsing_exception: [prefix] query does not support [foo]`},
		{`{"prefix":{"f":{}}}`, `illegal_argument_exception: value cannot be null`},
		{`{"prefix":{"a":"x","b":"y"}}`, `parsing_exception: [prefix] query doesn't support multiple fields, found [a] and [b]`},
		{`{"prefix":{"f":["x"]}}`, `illegal_state_exception: Can't get text on a START_ARRAY`},
		{`{"wildcard":{"f":{"foo":1}}}`, `parsing_exception: [wildcard] query does not support [foo]`},
		{`{"wildcard":{"f":{}}}`, `illegal_argument_exception: value cannot be null`},
		{`{"regexp":{"f":{"foo":1}}}`, `parsing_exception: [regexp] query does not support [foo]`},
		{`{"regexp":{"f":{"value":"a","flags":"FOO|ALL"}}}`, `illegal_argument_exception: Unknown regexp flag [FOO]`},
		{`{"regexp":{"":"a"}}`, `illegal_argument_exception: field name is null or empty`},
		{`{"fuzzy":{"f":{"value":["a"]}}}`, `parsing_exception: [fuzzy] unexpected token [START_ARRAY] after [value]`},
		{`{"fuzzy":{"f":{"x":1}}}`, `parsing_exception: [fuzzy] query does not support [x]`},
		{`{"fuzzy":{"a":"x","b":"y"}}`, `parsing_exception: [fuzzy] query doesn't support multiple fields, found [a] and [b]`},
		{`{"fuzzy":{"f":{}}}`, `illegal_argument_exception: query value cannot be null`},
		{`{"fuzzy":{"f":{"value":"a","fuzziness":[]}}}`, `parsing_exception: [fuzzy] unexpected token [START_ARRAY] after [fuzziness]`},
	}
	for _, tt := range tests {
		_, err := Parse(json.RawMessage(tt.query))
		if got := errString(err); got != tt.want {
			t.Errorf("Parse(%s)\n got: %s\nwant: %s", tt.query, got, tt.want)
		}
	}
}

// TestCompileErrors checks failures that need the mapping.
func TestCompileErrors(t *testing.T) {
	ix := newTestIndex(t)
	dateErr := func(v, f string) string {
		msg := "failed to parse date field [" + v + "] with format [" + f + "]"
		return "query_shard_exception: failed to create query: " + msg + ": [" + msg + "] [caused_by: parse_exception: " +
			msg + ": [" + msg + "] [caused_by: illegal_argument_exception: " + msg + "]]"
	}
	tests := []struct {
		query string
		want  string
	}{
		{`{"term":{"count":"abc"}}`, `query_shard_exception: failed to create query: For input string: "abc" [caused_by: number_format_exception: For input string: "abc"]`},
		{`{"term":{"count":true}}`, `query_shard_exception: failed to create query: For input string: "true" [caused_by: number_format_exception: For input string: "true"]`},
		{`{"term":{"int":3000000000}}`, `query_shard_exception: failed to create query: Value [3000000000] is out of range for an integer [caused_by: illegal_argument_exception: Value [3000000000] is out of range for an integer]`},
		{`{"term":{"count":1e20}}`, `query_shard_exception: failed to create query: Value [1.0E20] is out of range for a long [caused_by: illegal_argument_exception: Value [1.0E20] is out of range for a long]`},
		{`{"term":{"price":"NaN"}}`, `query_shard_exception: failed to create query: [double] supports only finite values, but got [NaN] [caused_by: illegal_argument_exception: [double] supports only finite values, but got [NaN]]`},
		{`{"term":{"flag":"yes"}}`, `query_shard_exception: failed to create query: Can't parse boolean value [yes], expected [true] or [false] [caused_by: illegal_argument_exception: Can't parse boolean value [yes], expected [true] or [false]]`},
		{`{"term":{"date":"abc"}}`, dateErr("abc", "strict_date_optional_time||epoch_millis")},
		{`{"term":{"day":"2020/01/01"}}`, dateErr("2020/01/01", "yyyy-MM-dd")},
		{`{"term":{"loc":"x"}}`, `query_shard_exception: Geometry fields do not support exact searching, use dedicated geometry queries instead: [loc]`},
		{`{"term":{"count":{"value":1,"case_insensitive":true}}}`, `query_shard_exception: [count] field which is of type [long], does not support case insensitive term queries`},
		{`{"term":{"noindex":"x"}}`, `query_shard_exception: failed to create query: Cannot search on field [noindex] since it is not indexed. [caused_by: illegal_argument_exception: Cannot search on field [noindex] since it is not indexed.]`},
		{`{"terms":{"count":["x"]}}`, `query_shard_exception: failed to create query: For input string: "x" [caused_by: number_format_exception: For input string: "x"]`},
		{`{"terms":{"tag":{"index":"i","id":"1","path":"p"}}}`, `illegal_argument_exception: [terms] lookup is not available for [tag]`},
		{`{"match":{"count":"abc"}}`, `query_shard_exception: failed to create query: For input string: "abc" [caused_by: number_format_exception: For input string: "abc"]`},
		{`{"match":{"body":{"query":"a","analyzer":"nope"}}}`, `query_shard_exception: [match] analyzer [nope] not found`},
		{`{"match":{"loc":"x"}}`, `query_shard_exception: failed to create query: Field [loc] of type [geo_point] does not support match queries [caused_by: illegal_argument_exception: Field [loc] of type [geo_point] does not support match queries]`},
		{`{"match":{"count":{"query":"1","fuzziness":1}}}`, `query_shard_exception: Can only use fuzzy queries on keyword and text fields - not on [count] which is of type [long]`},
		{`{"match":{"body":{"query":"a b","minimum_should_match":"abc"}}}`, `query_shard_exception: failed to create query: For input string: "abc" [caused_by: number_format_exception: For input string: "abc"]`},
		{`{"match":{"body":{"query":"a b","minimum_should_match":"50"}}}`, `<nil>`},
		{`{"bool":{"should":[{"match_all":{}}],"minimum_should_match":"x%"}}`, `query_shard_exception: failed to create query: For input string: "x" [caused_by: number_format_exception: For input string: "x"]`},
		{`{"range":{"count":{"gte":"abc"}}}`, `query_shard_exception: failed to create query: For input string: "abc" [caused_by: number_format_exception: For input string: "abc"]`},
		{`{"range":{"date":{"gte":"now+1x"}}}`, `query_shard_exception: failed to create query: unit [x] not supported for date math [+1x] [caused_by: parse_exception: unit [x] not supported for date math [+1x]]`},
		{`{"range":{"date":{"gte":"now*1d"}}}`, `query_shard_exception: failed to create query: operator not supported for date math [*1d] [caused_by: parse_exception: operator not supported for date math [*1d]]`},
		{`{"range":{"date":{"gte":"now-"}}}`, `query_shard_exception: failed to create query: truncated date math [-] [caused_by: parse_exception: truncated date math [-]]`},
		{`{"range":{"date":{"gte":"now/2d"}}}`, "query_shard_exception: failed to create query: rounding `/` can only be used on single unit types [/2d] [caused_by: parse_exception: rounding `/` can only be used on single unit types [/2d]]"},
		{`{"range":{"date":{"gte":"||+1d"}}}`, `query_shard_exception: failed to create query: cannot parse empty date [caused_by: parse_exception: cannot parse empty date]`},
		{`{"range":{"loc":{"gte":1}}}`, `query_shard_exception: failed to create query: Field [loc] of type [geo_point] does not support range queries [caused_by: illegal_argument_exception: Field [loc] of type [geo_point] does not support range queries]`},
		{`{"prefix":{"count":"1"}}`, `query_shard_exception: Can only use prefix queries on keyword, text and wildcard fields - not on [count] which is of type [long]`},
		{`{"wildcard":{"count":"1*"}}`, `query_shard_exception: Can only use wildcard queries on keyword, text and wildcard fields - not on [count] which is of type [long]`},
		{`{"regexp":{"count":"1.*"}}`, `query_shard_exception: Can only use regexp queries on keyword and text fields - not on [count] which is of type [long]`},
		{`{"regexp":{"tag":"a(b"}}`, `query_shard_exception: failed to create query: expected ')' at position 3 [caused_by: illegal_argument_exception: expected ')' at position 3]`},
		{`{"regexp":{"tag":{"value":"<abc>","flags":"INTERVAL"}}}`, `query_shard_exception: failed to create query: interval syntax error at position 4 [caused_by: illegal_argument_exception: interval syntax error at position 4]`},
		{`{"regexp":{"tag":{"value":"~(.*a.{12})","max_determinized_states":1000}}}`, `query_shard_exception: failed to create query: Determinizing automaton with 44 states and 45 transitions would result in more than 1000 states. [caused_by: too_complex_to_determinize_exception: Determinizing automaton with 44 states and 45 transitions would result in more than 1000 states.]`},
		{`{"query_string":{"query":"tag:/~(.*a.{12})/","max_determinized_states":1000}}`, `query_shard_exception: failed to create query: Determinizing automaton with 44 states and 45 transitions would result in more than 1000 states. [caused_by: too_complex_to_determinize_exception: Determinizing automaton with 44 states and 45 transitions would result in more than 1000 states.]`},
		{`{"fuzzy":{"count":"1"}}`, `query_shard_exception: Can only use fuzzy queries on keyword and text fields - not on [count] which is of type [long]`},
		{`{"fuzzy":{"tag":{"value":"a","max_expansions":0}}}`, `query_shard_exception: failed to create query: maxExpansions must be positive. [caused_by: illegal_argument_exception: maxExpansions must be positive.]`},
	}
	for _, tt := range tests {
		n, err := Parse(json.RawMessage(tt.query))
		if err != nil {
			t.Errorf("Parse(%s): %v", tt.query, err)
			continue
		}
		_, err = n.Compile(ix.ctx)
		if got := errString(err); got != tt.want {
			t.Errorf("Compile(%s)\n got: %s\nwant: %s", tt.query, got, tt.want)
		}
	}

	// query_shard_exception carries the index
	n, _ := Parse(json.RawMessage(`{"prefix":{"count":"1"}}`))
	_, err := n.Compile(ix.ctx)
	if e, ok := asErr(err); !ok || len(e.Meta) != 2 || e.Meta[0].Key != "index_uuid" || e.Meta[0].Value != "uuid" ||
		e.Meta[1].Key != "index" || e.Meta[1].Value != "test" {
		t.Errorf("query_shard_exception meta = %#v", err)
	}
}

// TestLimits checks the clause, terms and regex length limits.
func TestLimits(t *testing.T) {
	ix := newTestIndex(t)
	tooMany := `query_shard_exception: failed to create query: maxClauseCount is set to 1024 [caused_by: too_many_clauses: maxClauseCount is set to 1024]`
	words := strings.Repeat("w ", 1025)
	compileErr := func(q string) string {
		n, err := Parse(json.RawMessage(q))
		if err != nil {
			return errString(err)
		}
		_, err = n.Compile(ix.ctx)
		return errString(err)
	}
	if got := compileErr(`{"match":{"body":"` + words + `"}}`); got != tooMany {
		t.Errorf("match with 1025 terms: %s", got)
	}
	if got := compileErr(`{"match":{"body":"` + strings.Repeat("w ", 1024) + `"}}`); got != "<nil>" {
		t.Errorf("match with 1024 terms: %s", got)
	}
	clauses := strings.Repeat(`{"match_all":{}},`, 1025)
	if got := compileErr(`{"bool":{"should":[` + clauses[:len(clauses)-1] + `]}}`); got != tooMany {
		t.Errorf("bool with 1025 clauses: %s", got)
	}
	ix.ctx.MaxClauseCount = 2
	if got := compileErr(`{"bool":{"must":{"match_all":{}},"should":{"match_all":{}},"filter":{"match_all":{}}}}`); !strings.Contains(got, "maxClauseCount is set to 2") {
		t.Errorf("bool with 3 clauses and limit 2: %s", got)
	}
	ix.ctx.MaxClauseCount = 0
	ix.ctx.MaxTermsCount = 2
	want := "query_shard_exception: failed to create query: The number of terms [3] used in the Terms Query request has exceeded the allowed maximum of [2]. " +
		"This maximum can be set by changing the [index.max_terms_count] index level setting. [caused_by: illegal_argument_exception: " +
		"The number of terms [3] used in the Terms Query request has exceeded the allowed maximum of [2]. This maximum can be set by changing the [index.max_terms_count] index level setting.]"
	if got := compileErr(`{"terms":{"tag":["a","b","c"]}}`); got != want {
		t.Errorf("terms over limit:\n got %s\nwant %s", got, want)
	}
	ix.ctx.MaxTermsCount = 0
	ix.ctx.MaxRegexLength = 5
	want = "query_shard_exception: failed to create query: The length of regex [6] used in the Regexp Query request has exceeded the allowed maximum of [5]. " +
		"This maximum can be set by changing the [index.max_regex_length] index level setting. [caused_by: illegal_argument_exception: " +
		"The length of regex [6] used in the Regexp Query request has exceeded the allowed maximum of [5]. This maximum can be set by changing the [index.max_regex_length] index level setting.]"
	for _, q := range []string{`{"regexp":{"tag":"abcdef"}}`, `{"query_string":{"query":"/abcdef/"}}`, `{"query_string":{"query":"/abcdef/","lenient":true}}`} {
		if got := compileErr(q); got != want {
			t.Errorf("%s over limit:\n got %s\nwant %s", q, got, want)
		}
	}
	if got := compileErr(`{"query_string":{"query":"/abcde/"}}`); got != "<nil>" {
		t.Errorf("query_string regex at the limit: %s", got)
	}
}
