package handlers_test

import (
	"strings"
	"testing"
)

// TestDictionaryCountsAfterOneHitTerm checks the document frequencies the
// term suggester (freq) and significant_terms (bg_count) report next to a
// one-hit term. They are read from each term's postings, not from ice's
// dictionary counts, which go wrong in persisted segments after a one-hit
// term (a postings list read after it keeps its one-hit state); the
// cities significant_terms table (TestDatasets) is where that showed.
func TestDictionaryCountsAfterOneHitTerm(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/fruit", "application/json", `{"mappings":{"properties":{"w":{"type":"text"},"k":{"type":"keyword"},"g":{"type":"keyword"}}}}`)
	var b strings.Builder
	for _, d := range []string{
		`{"w":"apple","k":"apple","g":"x"}`,
		`{"w":"apply","k":"apply","g":"y"}`,
		`{"w":"apply","k":"apply","g":"y"}`,
		`{"w":"apply","k":"apply","g":"y"}`,
		`{"w":"zebra","k":"zebra","g":"x"}`,
		`{"w":"zebra","k":"zebra","g":"x"}`,
		`{"w":"zebra","k":"zebra","g":"x"}`,
		`{"w":"zebra","k":"zebra","g":"x"}`,
	} {
		b.WriteString("{\"index\":{}}\n" + d + "\n")
	}
	// One bulk request: one segment holding every term.
	if code, body := n.do("POST", "/fruit/_bulk?refresh=true", "application/x-ndjson", b.String()); code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("bulk = %d %v", code, body)
	}
	code, body := n.do("POST", "/fruit/_search", "application/json", `{"size":0,"suggest":{"s":{"text":"applz","term":{"field":"w","sort":"frequency"}}}}`)
	if want := `{"s":[{"length":5,"offset":0,"options":[{"freq":3,"score":0.8,"text":"apply"},{"freq":1,"score":0.8,"text":"apple"}],"text":"applz"}]}`; code != 200 || str(body["suggest"]) != want {
		t.Errorf("suggest = %d %s\nwant %s", code, str(body["suggest"]), want)
	}
	// Foreground g:y (3 of 8 documents): apply is in all 3 and 3 of the
	// background; JLH = (1 - 3/8) × (1 / (3/8)).
	code, body = n.do("POST", "/fruit/_search", "application/json", `{"size":0,"query":{"term":{"g":"y"}},"aggs":{"s":{"significant_terms":{"field":"k","min_doc_count":1}}}}`)
	if want := `{"bg_count":8,"buckets":[{"bg_count":3,"doc_count":3,"key":"apply","score":1.6666666666666665}],"doc_count":3}`; code != 200 || str(jsonPath(body, "aggregations.s")) != want {
		t.Errorf("significant_terms = %d %s\nwant %s", code, str(jsonPath(body, "aggregations.s")), want)
	}
}

// TestSignificantTermsNumericKeys renders numeric significant terms like
// terms buckets: a long key, and key_as_string when a format is given.
func TestSignificantTermsNumericKeys(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/nums", "application/json", `{"mappings":{"properties":{"n":{"type":"long"},"g":{"type":"keyword"}}}}`)
	var b strings.Builder
	for _, d := range []string{`{"n":7,"g":"y"}`, `{"n":7,"g":"y"}`, `{"n":7,"g":"y"}`, `{"n":1,"g":"x"}`, `{"n":1,"g":"x"}`, `{"n":1,"g":"x"}`, `{"n":1,"g":"x"}`, `{"n":1,"g":"x"}`} {
		b.WriteString("{\"index\":{}}\n" + d + "\n")
	}
	if code, body := n.do("POST", "/nums/_bulk?refresh=true", "application/x-ndjson", b.String()); code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("bulk = %d %v", code, body)
	}
	for _, tc := range []struct{ agg, want string }{
		{`{"field":"n"}`, `[{"bg_count":3,"doc_count":3,"key":7,"score":1.6666666666666665}]`},
		{`{"field":"n","format":"0.0"}`, `[{"bg_count":3,"doc_count":3,"key":7,"key_as_string":"7.0","score":1.6666666666666665}]`},
	} {
		code, body := n.do("POST", "/nums/_search", "application/json", `{"size":0,"query":{"term":{"g":"y"}},"aggs":{"s":{"significant_terms":`+tc.agg+`}}}`)
		if got := str(jsonPath(body, "aggregations.s.buckets")); code != 200 || got != tc.want {
			t.Errorf("%s: %d %s\nwant %s", tc.agg, code, got, tc.want)
		}
	}
}
