package handlers

import (
	"bytes"
	"strings"
	"testing"

	"github.com/quarry-search/quarry/searchcore"
)

func TestParseNDJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // header|body per pair
		err  string
	}{
		{"two searches", "{\"index\":\"a\"}\n{\"query\":{}}\n{}\n{}\n", []string{`{"index":"a"}|{"query":{}}`, `{}|{}`}, ""},
		{"crlf", "{}\r\n{\"size\":1}\r\n", []string{`{}|{"size":1}`}, ""},
		{"empty header line", "\n{}\n", []string{}, ""},
		{"empty header after the first", "{}\n{}\n\n{\"size\":2}\n", []string{`{}|{}`, `|{"size":2}`}, ""},
		{"leading empty line skipped", "\n{}\n{}\n", []string{`{}|{}`}, ""},
		{"header without body ignored", "{}\n{}\n{\"index\":\"x\"}\n", []string{`{}|{}`}, ""},
		{"empty body", "", []string{}, ""},
		{"missing final newline", "{}\n{}", nil, "The msearch request must be terminated by a newline [\\n]"},
		{"missing final newline after header", "{}\n{}\n{}", nil, "must be terminated by a newline"},
		{"only spaces after last newline", "{}\n{}\n  ", nil, "must be terminated by a newline"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pairs, err := parseNDJSON([]byte(tc.in), "msearch")
			if tc.err != "" {
				e, ok := searchcore.AsError(err)
				if !ok || e.Type != "illegal_argument_exception" || !strings.Contains(e.Reason, tc.err) {
					t.Fatalf("err = %v, want illegal_argument_exception containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			got := []string{}
			for _, p := range pairs {
				got = append(got, string(p.header)+"|"+string(p.body))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("pairs = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseHeader(t *testing.T) {
	tests := []struct {
		name, line, index, err string
	}{
		{"empty", ``, "<nil>", ""},
		{"object", `{}`, "<nil>", ""},
		{"index string", `{"index":"a,b"}`, "a,b", ""},
		{"index array", `{"index":["a","b*"]}`, "a,b*", ""},
		{"indices alias", `{"indices":"x"}`, "x", ""},
		{"all options", `{"index":"a","search_type":"dfs_query_then_fetch","preference":"_local","routing":"r","request_cache":true,
			"expand_wildcards":["open","hidden"],"ignore_unavailable":"true","allow_no_indices":false,"ignore_throttled":true,
			"ccs_minimize_roundtrips":false,"allow_partial_search_results":true}`, "a", ""},
		{"camel case names", `{"searchType":"query_then_fetch","ignoreUnavailable":true,"allowNoIndices":true,"expandWildcards":"all"}`, "<nil>", ""},
		{"unknown key", `{"index":"a","size":10}`, "", "key [size] is not supported in the metadata section"},
		{"bad search type", `{"search_type":"scan"}`, "", "No search type for [scan]"},
		{"bad boolean", `{"ignore_unavailable":"yes"}`, "", "Failed to parse value [yes] as only [true] or [false] are allowed."},
		{"index object", `{"index":{"a":1}}`, "", "[index] must be a string or an array of strings"},
		{"not an object", `["a"]`, "", "expected [START_OBJECT] but found [START_ARRAY]"},
		{"not JSON", `{"index":`, "", "Failed to parse the multi search header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := parseHeader([]byte(tc.line))
			if tc.err != "" {
				e, ok := searchcore.AsError(err)
				if !ok || !strings.Contains(e.Reason, tc.err) || searchcore.HTTPStatus(e.Code) != 400 {
					t.Fatalf("err = %v, want a 400 containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			got := "<nil>"
			if h.index != nil {
				got = *h.index
			}
			if got != tc.index {
				t.Errorf("index = %q, want %q", got, tc.index)
			}
		})
	}
}

// FuzzParseMsearch feeds arbitrary bodies to the NDJSON splitter and the
// header parser: no panic, pairs never contain a newline, and a body that
// ends with a newline always splits.
func FuzzParseMsearch(f *testing.F) {
	seeds := []string{
		"{\"index\":\"a\"}\n{\"query\":{\"match_all\":{}}}\n",
		"\n{}\n{}\r\n\r\n{}\n",
		"{}\n{}",
		"{\"index\":[\"a\",\"b\"],\"ignore_unavailable\":\"true\"}\n{}\n{\"x\":1}\n",
		"{\"expand_wildcards\":\"open,hidden\",\"search_type\":\"query_then_fetch\"}\n{}\n",
		"[1]\n{}\n\"x\"\n{}\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pairs, err := parseNDJSON(data, "msearch")
		if err != nil {
			if len(data) > 0 && data[len(data)-1] == '\n' {
				t.Fatalf("body ending in a newline failed: %v", err)
			}
			return
		}
		for _, p := range pairs {
			if bytes.IndexByte(p.header, '\n') >= 0 || bytes.IndexByte(p.body, '\n') >= 0 {
				t.Fatalf("pair spans lines: %q / %q", p.header, p.body)
			}
			h, err := parseHeader(p.header)
			if err != nil {
				if _, ok := searchcore.AsError(err); !ok {
					t.Fatalf("header %q: error %v is not an Elasticsearch error", p.header, err)
				}
				continue
			}
			if h == nil {
				t.Fatalf("header %q: nil header without error", p.header)
			}
		}
	})
}
