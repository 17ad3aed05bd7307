package handlers_test

import (
	"encoding/json"
	"regexp"
	"testing"
)

// seedInnerHitsFetch indexes three posts with nested comments; post 1 is
// indexed twice (version 2, seq_no 1), posts 2 and 3 once (version 1,
// seq_no 2 and 3).
func seedInnerHitsFetch(t *testing.T, n *testNode) {
	t.Helper()
	if code, body := n.do("PUT", "/ihf", "application/json", `{"settings":{"number_of_shards":1},"mappings":{"properties":{
		"group":{"type":"keyword"},"rank":{"type":"integer"},"label":{"type":"keyword","store":true},
		"comments":{"type":"nested","properties":{"author":{"type":"keyword"},"stars":{"type":"integer"},
			"note":{"type":"keyword","store":true}}}}}}`); code != 200 {
		t.Fatalf("create = %d %v", code, body)
	}
	docs := []struct{ id, body string }{
		{"1", `{"group":"g1","rank":10,"label":"L1","comments":[{"author":"ann","stars":5,"note":"n1"}]}`},
		{"1", `{"group":"g1","rank":10,"label":"L1","comments":[{"author":"ann","stars":5,"note":"n1"},{"author":"bob","stars":1,"note":"n2"}]}`},
		{"2", `{"group":"g1","rank":20,"label":"L2","comments":[{"author":"bob","stars":4,"note":"n3"},{"author":"bob","stars":2}]}`},
		{"3", `{"group":"g2","rank":30,"label":"L3","comments":[{"author":"cy","stars":3}]}`},
	}
	for _, d := range docs {
		if code, body := n.do("PUT", "/ihf/_doc/"+d.id+"?refresh=true", "application/json", d.body); code != 200 && code != 201 {
			t.Fatalf("index %s = %d %v", d.id, code, body)
		}
	}
}

// innerHitsOf returns the raw inner_hits member of each hit.
func innerHitsOf(t *testing.T, raw []byte) []string {
	t.Helper()
	var hits []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(rawMember(raw, "hits.hits")), &hits); err != nil {
		t.Fatalf("hits: %v %s", err, raw)
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = string(h["inner_hits"])
	}
	return out
}

// TestNestedInnerHitsFetchOptions checks version, seq_no_primary_term,
// docvalue_fields, fields, stored_fields and explain inside a nested
// query's inner_hits: each inner hit renders them like a top-level hit,
// with its root document's _version, _seq_no and _primary_term.
func TestNestedInnerHitsFetchOptions(t *testing.T) {
	n := newTestNode(t)
	seedInnerHitsFetch(t, n)
	bob := `"query":{"constant_score":{"filter":{"term":{"comments.author":"bob"}}}}`
	tests := []struct {
		name, innerHits string
		want            []string // inner_hits of hits 1 and 2
	}{
		{"version and seq_no_primary_term", `{"version":true,"seq_no_primary_term":true,"size":1}`, []string{
			`{"comments":{"hits":{"total":{"value":1,"relation":"eq"},"max_score":1,"hits":[` +
				`{"_index":"ihf","_type":"_doc","_id":"1","_nested":{"field":"comments","offset":1},"_version":2,"_seq_no":1,"_primary_term":1,"_score":1,` +
				`"_source":{"author":"bob","stars":1,"note":"n2"}}]}}}`,
			`{"comments":{"hits":{"total":{"value":2,"relation":"eq"},"max_score":1,"hits":[` +
				`{"_index":"ihf","_type":"_doc","_id":"2","_nested":{"field":"comments","offset":0},"_version":1,"_seq_no":2,"_primary_term":1,"_score":1,` +
				`"_source":{"author":"bob","stars":4,"note":"n3"}}]}}}`,
		}},
		{"docvalue_fields and fields", `{"_source":false,"docvalue_fields":["comments.stars",{"field":"comments.author","format":"use_field_mapping"}],"fields":["comments.note"],"size":1}`, []string{
			`{"comments":{"hits":{"total":{"value":1,"relation":"eq"},"max_score":1,"hits":[` +
				`{"_index":"ihf","_type":"_doc","_id":"1","_nested":{"field":"comments","offset":1},"_score":1,` +
				`"fields":{"comments":[{"note":["n2"]}],"comments.author":["bob"],"comments.stars":[1]}}]}}}`,
			`{"comments":{"hits":{"total":{"value":2,"relation":"eq"},"max_score":1,"hits":[` +
				`{"_index":"ihf","_type":"_doc","_id":"2","_nested":{"field":"comments","offset":0},"_score":1,` +
				`"fields":{"comments":[{"note":["n3"]}],"comments.author":["bob"],"comments.stars":[4]}}]}}}`,
		}},
		{"stored_fields", `{"stored_fields":["comments.note"],"sort":[{"comments.stars":"asc"}]}`, []string{
			`{"comments":{"hits":{"total":{"value":1,"relation":"eq"},"max_score":null,"hits":[` +
				`{"_index":"ihf","_type":"_doc","_id":"1","_nested":{"field":"comments","offset":1},"_score":null,"fields":{"comments.note":["n2"]},"sort":[1]}]}}}`,
			`{"comments":{"hits":{"total":{"value":2,"relation":"eq"},"max_score":null,"hits":[` +
				`{"_index":"ihf","_type":"_doc","_id":"2","_nested":{"field":"comments","offset":1},"_score":null,"sort":[2]},` +
				`{"_index":"ihf","_type":"_doc","_id":"2","_nested":{"field":"comments","offset":0},"_score":null,"fields":{"comments.note":["n3"]},"sort":[4]}]}}}`,
		}},
		{"stored_fields with _source", `{"stored_fields":["_source"],"_source":["comments.stars"],"size":1}`, []string{
			`{"comments":{"hits":{"total":{"value":1,"relation":"eq"},"max_score":1,"hits":[` +
				`{"_index":"ihf","_type":"_doc","_id":"1","_nested":{"field":"comments","offset":1},"_score":1,"_source":{"stars":1}}]}}}`,
			`{"comments":{"hits":{"total":{"value":2,"relation":"eq"},"max_score":1,"hits":[` +
				`{"_index":"ihf","_type":"_doc","_id":"2","_nested":{"field":"comments","offset":0},"_score":1,"_source":{"stars":4}}]}}}`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, raw := n.raw("POST", "/ihf/_search", "application/json", `{"_source":false,"sort":["_id"],"query":{"nested":{"path":"comments",`+
				bob+`,"inner_hits":`+tc.innerHits+`}}}`)
			if code != 200 {
				t.Fatalf("status %d: %s", code, raw)
			}
			got := innerHitsOf(t, raw)
			if len(got) != len(tc.want) {
				t.Fatalf("hits = %d, want %d: %s", len(got), len(tc.want), raw)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("hit %d inner_hits:\n got %s\nwant %s", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestNestedInnerHitsExplain checks explain inside a nested query's
// inner_hits: each inner hit explains its score against the nested
// query's inner query, and names its shard and node.
func TestNestedInnerHitsExplain(t *testing.T) {
	n := newTestNode(t)
	seedInnerHitsFetch(t, n)
	code, raw := n.raw("POST", "/ihf/_search", "application/json", `{"_source":false,"sort":["_id"],"size":1,"query":{"nested":{"path":"comments",
		"query":{"constant_score":{"filter":{"term":{"comments.author":"bob"}},"boost":2}},"inner_hits":{"explain":true,"_source":false}}}}`)
	if code != 200 {
		t.Fatalf("status %d: %s", code, raw)
	}
	got := innerHitsOf(t, raw)
	node := str(jsonPath(mustDecode(t, raw), "hits.hits.0.inner_hits.comments.hits.hits.0._node"))
	if !regexp.MustCompile(`^"[A-Za-z0-9_-]{22}"$`).MatchString(node) {
		t.Fatalf("_node = %s", node)
	}
	want := `{"comments":{"hits":{"total":{"value":1,"relation":"eq"},"max_score":2,"hits":[` +
		`{"_index":"ihf","_type":"_doc","_id":"1","_nested":{"field":"comments","offset":1},"_score":2,"_shard":"[ihf][0]","_node":` + node + `,` +
		`"_explanation":{"value":2,"description":"ConstantScore(comments.author:bob)^2.0","details":[]}}]}}}`
	if len(got) != 1 || got[0] != want {
		t.Errorf("inner_hits:\n got %v\nwant %s", got, want)
	}
}

// TestCollapseInnerHitsFetchOptions checks version, seq_no_primary_term,
// docvalue_fields, fields and stored_fields inside collapse inner_hits:
// each group hit renders them like a top-level hit (nested stored fields
// are in the nested documents, so a top-level hit has none).
func TestCollapseInnerHitsFetchOptions(t *testing.T) {
	n := newTestNode(t)
	seedInnerHitsFetch(t, n)
	code, raw := n.raw("POST", "/ihf/_search", "application/json", `{"_source":false,"sort":["rank"],"collapse":{"field":"group",
		"inner_hits":[{"name":"more","size":2,"sort":[{"rank":"desc"}],"version":true,"seq_no_primary_term":true,"_source":false,
			"docvalue_fields":["rank"],"fields":["comments.author"],"stored_fields":["label","comments.note"]},
			{"name":"src","size":1,"stored_fields":["_source"],"_source":["label"]}]}}`)
	if code != 200 {
		t.Fatalf("status %d: %s", code, raw)
	}
	want := `[{"_index":"ihf","_type":"_doc","_id":"1","_score":null,"fields":{"group":["g1"]},"sort":[10],"inner_hits":{` +
		`"more":{"hits":{"total":{"value":2,"relation":"eq"},"max_score":null,"hits":[` +
		`{"_index":"ihf","_type":"_doc","_id":"2","_version":1,"_seq_no":2,"_primary_term":1,"_score":null,` +
		`"fields":{"comments":[{"author":["bob"]},{"author":["bob"]}],"label":["L2"],"rank":[20]},"sort":[20]},` +
		`{"_index":"ihf","_type":"_doc","_id":"1","_version":2,"_seq_no":1,"_primary_term":1,"_score":null,` +
		`"fields":{"comments":[{"author":["ann"]},{"author":["bob"]}],"label":["L1"],"rank":[10]},"sort":[10]}]}},` +
		`"src":{"hits":{"total":{"value":2,"relation":"eq"},"max_score":1,"hits":[` +
		`{"_index":"ihf","_type":"_doc","_id":"1","_score":1,"_source":{"label":"L1"}}]}}}},` +
		`{"_index":"ihf","_type":"_doc","_id":"3","_score":null,"fields":{"group":["g2"]},"sort":[30],"inner_hits":{` +
		`"more":{"hits":{"total":{"value":1,"relation":"eq"},"max_score":null,"hits":[` +
		`{"_index":"ihf","_type":"_doc","_id":"3","_version":1,"_seq_no":3,"_primary_term":1,"_score":null,` +
		`"fields":{"comments":[{"author":["cy"]}],"label":["L3"],"rank":[30]},"sort":[30]}]}},` +
		`"src":{"hits":{"total":{"value":1,"relation":"eq"},"max_score":1,"hits":[` +
		`{"_index":"ihf","_type":"_doc","_id":"3","_score":1,"_source":{"label":"L3"}}]}}}}]`
	if got := rawMember(raw, "hits.hits"); got != want {
		t.Errorf("hits:\n got %s\nwant %s", got, want)
	}
}

// TestInnerHitsFetchOptionErrors checks bad fetch options inside
// inner_hits answer the search body's errors.
func TestInnerHitsFetchOptionErrors(t *testing.T) {
	n := newTestNode(t)
	seedInnerHitsFetch(t, n)
	nested := func(ih string) string {
		return `{"query":{"nested":{"path":"comments","query":{"match_all":{}},"inner_hits":` + ih + `}}}`
	}
	collapse := func(ih string) string { return `{"collapse":{"field":"group","inner_hits":` + ih + `}}` }
	tests := []struct{ name, body, rootType, reason string }{
		{"nested unknown member", nested(`{"foo":1}`), "x_content_parse_exception", "[inner_hits] unknown field [foo]"},
		{"collapse unknown member", collapse(`{"foo":1}`), "parsing_exception", "[inner_hits] unknown field [foo]"},
		{"nested docvalue_fields string", nested(`{"docvalue_fields":"x"}`), "parsing_exception", "Unknown key for a VALUE_STRING in [docvalue_fields]."},
		{"collapse fields object", collapse(`{"fields":{"a":1}}`), "parsing_exception", "Unknown key for a START_OBJECT in [fields]."},
		{"collapse stored_fields number", collapse(`{"stored_fields":1}`), "parsing_exception", "[stored_fields] must be a string or an array of strings"},
		{"nested version string", nested(`{"version":"yes"}`), "parsing_exception", "[version] failed to parse field [version]"},
		{"collapse explain string", collapse(`{"explain":"yes"}`), "parsing_exception", "[explain] failed to parse field [explain]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantRootCause400(t, n, "/ihf/_search", tc.body, tc.rootType, tc.reason)
		})
	}
}

func mustDecode(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
