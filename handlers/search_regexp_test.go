package handlers_test

import (
	"fmt"
	"strings"
	"testing"
)

// regexpCodes is the keyword fixture of the regexp tests, by _id.
var regexpCodes = []string{"abc", "abd", "ab", "az", "abz", "foo", "foobar", "bar", "42", "100", "101", "Ab~c", "a&z", "café"}

// seedRegexpCodes indexes regexpCodes as docs "01".."14" (keyword code, and
// the same text in a text field) with refresh.
func seedRegexpCodes(t *testing.T, n *testNode) {
	t.Helper()
	n.do("PUT", "/codes", "application/json", `{"settings":{"number_of_shards":2},"mappings":{"properties":{
		"code":{"type":"keyword"},"note":{"type":"text"}}}}`)
	var lines []string
	for i, c := range regexpCodes {
		lines = append(lines, fmt.Sprintf(`{"index":{"_id":"%02d"}}`, i+1), fmt.Sprintf(`{"code":%q,"note":%q}`, c, c))
	}
	code, body := n.do("POST", "/codes/_bulk?refresh=true", "application/x-ndjson", strings.Join(lines, "\n")+"\n")
	if code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("seed bulk = %d %v", code, body)
	}
}

// TestRegexpComplementIntersection runs Lucene regular expressions with
// complement, intersection, any string, intervals and the flags that turn
// them off, through the regexp query and query_string's /regex/.
func TestRegexpComplementIntersection(t *testing.T) {
	n := newTestNode(t)
	seedRegexpCodes(t, n)
	regexp := func(value, extra string) string {
		return `{"query":{"regexp":{"code":{"value":` + fmt.Sprintf("%q", value) + extra + `}}},"sort":["_id"],"size":20}`
	}
	tests := []struct {
		name, body, want string
	}{
		{"complement suffix", regexp("ab~(c)", ""), "02,03,05"},
		{"intersection", regexp("a.*&.*z", ""), "04,05,13"},
		{"any string minus a prefix", regexp("@&~(foo.*)", ""), "01,02,03,04,05,08,09,10,11,12,13,14"},
		{"numeric interval", regexp("<1-100>", ""), "09,10"},
		{"negated class", regexp("[^a-z].*", ""), "09,10,11,12"},
		{"one code point", regexp("caf[^e]", ""), "14"},
		{"flags ALL", regexp("ab~(c)", `,"flags":"ALL"`), "02,03,05"},
		{"flags COMPLEMENT", regexp("ab~(c)", `,"flags":"COMPLEMENT"`), "02,03,05"},
		{"flags NONE: & is literal", regexp("a&z", `,"flags":"NONE"`), "13"},
		{"flags INTERSECTION: ~ is literal", regexp("ab~(c)", `,"flags":"INTERSECTION","case_insensitive":true`), "12"},
		{"flags list", regexp("~(<1-100>|.*[a-z].*)", `,"flags":"COMPLEMENT|INTERVAL"`), "11"},
		{"flags_value", regexp("a&z", `,"flags_value":2`), "13"},
		{"no interval flag", regexp("<1-100>", `,"flags":"COMPLEMENT"`), ""},
		{"empty language flag", regexp("ab#|foo", `,"flags":"EMPTY"`), "06"},
		{"anystring flag off", regexp("foo@", `,"flags":"NONE"`), ""},
		{"query_string regex", `{"query":{"query_string":{"query":"code:/ab~(c)/"}},"sort":["_id"]}`, "02,03,05"},
		{"query_string default field", `{"query":{"query_string":{"query":"/a.*&.*z/ OR /<1-50>/","default_field":"code"}},"sort":["_id"]}`, "04,05,09,13"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", "/codes/_search", "application/json", tc.body)
			if code != 200 {
				t.Fatalf("status = %d: %v", code, str(body))
			}
			if got := strings.Join(hitIDs(body), ","); got != tc.want {
				t.Errorf("ids = %q, want %q", got, tc.want)
			}
			if got := str(jsonPath(body, "hits.total.value")); got != fmt.Sprint(len(hitIDs(body))) {
				t.Errorf("total = %s", got)
			}
		})
	}
}

// TestRegexpErrors checks the root cause of bad and explosive regular
// expressions.
func TestRegexpErrors(t *testing.T) {
	n := newTestNode(t)
	seedRegexpCodes(t, n)
	const complex = "Determinizing automaton with 44 states and 45 transitions would result in more than 1000 states."
	tests := []struct {
		name, body, rootType, reason string
	}{
		{"dangling complement", `{"query":{"regexp":{"code":"ab~"}}}`,
			"query_shard_exception", "failed to create query: unexpected end-of-string"},
		{"dangling intersection", `{"query":{"regexp":{"code":"ab&"}}}`,
			"query_shard_exception", "failed to create query: unexpected end-of-string"},
		{"bad range", `{"query":{"regexp":{"code":"[z-a]"}}}`,
			"query_shard_exception", "failed to create query: invalid range: from (122) cannot be > to (97)"},
		{"interval syntax", `{"query":{"regexp":{"code":{"value":"<1-x>"}}}}`,
			"query_shard_exception", "failed to create query: interval syntax error at position 4"},
		{"unknown flag", `{"query":{"regexp":{"code":{"value":"a","flags":"COMPLEMENT|FOO"}}}}`,
			"illegal_argument_exception", "Unknown regexp flag [FOO]"},
		{"complement too complex", `{"query":{"regexp":{"code":{"value":"~(.*a.{12})","max_determinized_states":1000}}}}`,
			"too_complex_to_determinize_exception", complex},
		{"query_string too complex", `{"query":{"query_string":{"query":"code:/~(.*a.{12})/","max_determinized_states":1000}}}`,
			"too_complex_to_determinize_exception", complex},
		{"default limit", `{"query":{"regexp":{"code":".*a.{20}"}}}`,
			"too_complex_to_determinize_exception", "Determinizing automaton with 68 states and 69 transitions would result in more than 10000 states."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantRootCause400(t, n, "/codes/_search", tc.body, tc.rootType, tc.reason)
		})
	}
}
