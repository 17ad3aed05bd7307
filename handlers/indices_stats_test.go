package handlers_test

import (
	"testing"
)

func TestIndicesStats(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/st_a", "application/json", `{"settings":{"number_of_shards":2,"number_of_replicas":0}}`)
	n.do("PUT", "/st_a/_doc/1?refresh=true", "application/json", `{"x":1}`)
	n.do("PUT", "/st_a/_doc/2?refresh=true", "application/json", `{"x":2}`)
	n.do("PUT", "/st_b/_doc/1?refresh=true", "application/json", `{"x":3}`)
	n.do("GET", "/st_a/_doc/1", "", "")
	n.do("GET", "/st_a/_doc/9", "", "")
	code, body := n.do("GET", "/st_*/_stats/docs,get,indexing", "", "")
	if code != 200 {
		t.Fatalf("stats = %d %v", code, body)
	}
	checks := map[string]string{
		"_shards":                           `{"failed":0,"successful":3,"total":4}`,
		"_all.primaries.docs.count":         "3",
		"_all.total.get.total":              "2",
		"_all.total.indexing.index_total":   "3",
		"indices.st_a.primaries.docs.count": "2",
		"indices.st_a.total.get.total":      "2",
		"indices.st_b.total.get.total":      "0",
		"indices.st_a.total.store":          "null",
	}
	for path, want := range checks {
		if got := str(jsonPath(body, path)); got != want {
			t.Errorf("%s = %s, want %s", path, got, want)
		}
	}
	if code, body = n.do("GET", "/_stats/bogus", "", ""); code != 400 || str(jsonPath(body, "error.reason")) != `"request [/_stats/bogus] contains unrecognized metric: [bogus]"` {
		t.Errorf("bogus metric: %d %v", code, body)
	}
	if code, _ = n.do("GET", "/nope/_stats", "", ""); code != 404 {
		t.Errorf("missing index: %d", code)
	}
	if code, body = n.do("GET", "/_stats", "", ""); code != 200 || str(jsonPath(body, "_all.primaries.docs.count")) != "3" || str(jsonPath(body, "_all.primaries.search")) == "null" {
		t.Errorf("all stats: %d %v", code, body)
	}
}
