package searchcore

import (
	"encoding/json"
	"testing"
)

// FuzzParseSearchOptions feeds arbitrary JSON to the rescore, collapse and
// suggest parsers: they must answer an *Error or a value, never panic.
func FuzzParseSearchOptions(f *testing.F) {
	for _, s := range []string{
		`{"window_size":5,"query":{"rescore_query":{"match_all":{}},"query_weight":0.5,"rescore_query_weight":2,"score_mode":"max"}}`,
		`[{"query":{"rescore_query":{"term":{"a":"b"}}}},{"window_size":"3","query":{"rescore_query":{"match_all":{}}}}]`,
		`{"field":"k","inner_hits":[{"name":"a","size":2,"sort":["x"],"_source":false},{"name":"b"}],"max_concurrent_group_searches":4}`,
		`{"text":"t","s":{"term":{"field":"f","size":3,"sort":"frequency","suggest_mode":"always","max_edits":1}}}`,
		`{"s":{"text":"x","phrase":{}}}`, `{"rescore":null}`, `[]`, `null`, `"x"`, `{"query":1}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw := json.RawMessage(s)
		check := func(err error) {
			if err != nil {
				if _, ok := AsError(err); !ok {
					t.Fatalf("non-ES error for %q: %v", s, err)
				}
			}
		}
		_, err := ParseRescore(raw)
		check(err)
		_, err = ParseCollapse(raw)
		check(err)
		_, err = ParseSuggest(raw)
		check(err)
	})
}
