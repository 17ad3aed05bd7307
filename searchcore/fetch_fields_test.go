package searchcore

import (
	"encoding/json"
	"testing"
)

func TestParseFetchMembers(t *testing.T) {
	req := NewSearchRequest()
	err := ParseSearchBody([]byte(`{"docvalue_fields":["a",{"field":"b","format":"epoch_millis"}],
		"fields":[{"field":"c*","include_unmapped":true}],"script_fields":{"x":{"script":"1"},"y":{"script":"2"}},
		"highlight":{"fields":{"t":{}}},"stored_fields":[]}`), req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal([]any{req.DocValueFields, req.FetchFields, req.ScriptFields, req.StoredFieldsSet, len(req.Highlight.Fields)})
	want := `[[{"Field":"a","Format":"","IncludeUnmapped":false},{"Field":"b","Format":"epoch_millis","IncludeUnmapped":false}],` +
		`[{"Field":"c*","Format":"","IncludeUnmapped":true}],2,true,1]`
	if string(got) != want {
		t.Errorf("parsed = %s\nwant     %s", got, want)
	}
	if req.fetchesSource() {
		t.Error("stored_fields: [] fetches _source")
	}
	for body, reason := range map[string]string{
		`{"fields":{"a":1}}`:                                "Unknown key for a START_OBJECT in [fields].",
		`{"docvalue_fields":[1]}`:                           "Expected [VALUE_STRING] or [START_OBJECT] in [docvalue_fields] but found [VALUE_NUMBER]",
		`{"docvalue_fields":[{"format":"x"}]}`:              "[docvalue_fields] Required [field]",
		`{"script_fields":{"a":1}}`:                         "Expected [START_OBJECT] in [script_fields] but found [VALUE_NUMBER]",
		`{"fields":[{"field":"a","include_unmapped":"x"}]}`: "[fields] include_unmapped doesn't support values of type: VALUE_STRING",
	} {
		err := ParseSearchBody([]byte(body), NewSearchRequest())
		if e, ok := AsError(err); !ok || e.Type != "parsing_exception" || e.Reason != reason {
			t.Errorf("%s: %v, want parsing_exception %q", body, err, reason)
		}
	}
}

// FuzzParseFetchMembers feeds arbitrary values to the fetch-phase members
// of a search body: they parse or fail with an Elasticsearch error.
func FuzzParseFetchMembers(f *testing.F) {
	for _, s := range []string{`["a",{"field":"b","format":"x"}]`, `{"a":{"script":"1"}}`, `{"fields":{"a":{}}}`, `[{"field":"a","include_unmapped":true}]`, `1`, `[`} {
		f.Add("docvalue_fields", s)
		f.Add("fields", s)
		f.Add("script_fields", s)
		f.Add("highlight", s)
	}
	f.Fuzz(func(t *testing.T, key, value string) {
		if !fetchBodyKeys[key] {
			return
		}
		err := ParseSearchBody([]byte(`{"`+key+`":`+value+`}`), NewSearchRequest())
		if err != nil {
			if _, ok := AsError(err); !ok {
				t.Fatalf("%s=%s: %v is not an Elasticsearch error", key, value, err)
			}
		}
	})
}
