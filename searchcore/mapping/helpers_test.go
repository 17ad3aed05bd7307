package mapping_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// testRegistry has one custom analyzer and one normalizer.
func testRegistry(t testing.TB) *analysis.Registry {
	t.Helper()
	reg, err := analysis.NewRegistry(json.RawMessage(`{
		"analyzer": {"my_an": {"type": "custom", "tokenizer": "whitespace", "filter": ["lowercase"]}},
		"normalizer": {"lower": {"type": "custom", "filter": ["lowercase", "asciifolding"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func mustParse(t testing.TB, body string) *mapping.Mapping {
	t.Helper()
	m, err := mapping.Parse(json.RawMessage(body), testRegistry(t))
	if err != nil {
		t.Fatalf("Parse(%s): %v", body, err)
	}
	return m
}

func marshal(t testing.TB, m *mapping.Mapping) string {
	t.Helper()
	b, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkErr asserts err is an *eserr.Error with the given type and reason,
// and (if causeType is set) a cause of that type and reason.
func checkErr(t *testing.T, err error, typ, reason string, cause ...string) {
	t.Helper()
	var e *eserr.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want %s: %s", err, err, typ, reason)
	}
	if e.Type != typ || e.Reason != reason {
		t.Errorf("error = %s: %q\nwant    %s: %q", e.Type, e.Reason, typ, reason)
	}
	if len(cause) == 2 {
		if e.CausedBy == nil {
			t.Errorf("no caused_by, want %s: %q", cause[0], cause[1])
			return
		}
		if e.CausedBy.Type != cause[0] || e.CausedBy.Reason != cause[1] {
			t.Errorf("caused_by = %s: %q\nwant        %s: %q", e.CausedBy.Type, e.CausedBy.Reason, cause[0], cause[1])
		}
	}
}
