package handlers_test

import (
	"strings"
	"testing"
)

func TestIndicesBoost(t *testing.T) {
	n := newTestNode(t)
	for _, ix := range []string{"boost_a", "boost_b"} {
		if code, body := n.do("PUT", "/"+ix+"/_doc/1?refresh=true", "application/json", `{"foo":"bar"}`); code != 201 {
			t.Fatalf("index %s = %d %v", ix, code, body)
		}
	}
	n.do("POST", "/_aliases", "application/json", `{"actions":[{"add":{"index":"boost_b","alias":"alias_b"}}]}`)
	// Both documents score the same on their own; the boost decides.
	_, plain := n.do("POST", "/boost_a/_search", "application/json", `{"query":{"match":{"foo":"bar"}}}`)
	base := jsonPath(plain, "hits.hits.0._score").(interface{ Float64() (float64, error) })
	s, _ := base.Float64()
	tests := []struct {
		name, boost string
		order       string
		topScore    float64
	}{
		{"object form", `{"boost_a":3,"boost_b":1}`, "boost_a,boost_b", 3 * s},
		{"array form", `[{"boost_a":1},{"boost_b":2}]`, "boost_b,boost_a", 2 * s},
		{"alias", `[{"alias_b":4}]`, "boost_b,boost_a", 4 * s},
		{"wildcard", `[{"*_a":5}]`, "boost_a,boost_b", 5 * s},
		{"first match wins", `[{"*_a":0.5},{"boost_b":2},{"boost_a":9}]`, "boost_b,boost_a", 2 * s},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.do("POST", "/boost_*/_search", "application/json", `{"query":{"match":{"foo":"bar"}},"indices_boost":`+tc.boost+`}`)
			if code != 200 {
				t.Fatalf("status %d: %v", code, body)
			}
			var got []string
			for _, h := range jsonPath(body, "hits.hits").([]any) {
				got = append(got, jsonPath(h, "_index").(string))
			}
			if strings.Join(got, ",") != tc.order {
				t.Errorf("order = %v, want %s", got, tc.order)
			}
			top, _ := jsonPath(body, "hits.hits.0._score").(interface{ Float64() (float64, error) }).Float64()
			if diff := top - tc.topScore; diff > 1e-6 || diff < -1e-6 {
				t.Errorf("top score = %v, want %v", top, tc.topScore)
			}
		})
	}
	code, body := n.do("POST", "/boost_*/_search", "application/json", `{"indices_boost":[{"nope":2}]}`)
	if code != 404 || str(jsonPath(body, "error.type")) != `"index_not_found_exception"` || str(jsonPath(body, "error.reason")) != `"no such index [nope]"` {
		t.Errorf("unknown index: %d %v", code, body)
	}
	code, body = n.do("POST", "/boost_*/_search?ignore_unavailable=true", "application/json", `{"indices_boost":[{"nope":2},{"boost_b":2}]}`)
	if code != 200 || str(jsonPath(body, "hits.hits.0._index")) != `"boost_b"` {
		t.Errorf("ignore_unavailable: %d %v", code, body)
	}
	for _, bad := range []string{`[1]`, `"x"`, `[{"a":1,"b":2}]`, `{"a":"x"}`} {
		code, body = n.do("POST", "/boost_*/_search", "application/json", `{"indices_boost":`+bad+`}`)
		if code != 400 || str(jsonPath(body, "error.type")) != `"parsing_exception"` {
			t.Errorf("indices_boost %s: %d %v", bad, code, body)
		}
	}
}
