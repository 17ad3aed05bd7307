package handlers_test

import (
	"strings"
	"testing"
)

func TestAdvExplore(t *testing.T) {
	n := newTestNode(t)
	seedBooks(t, n)
	for _, b := range []string{
		`{"query":{"match":{"title":"quick fox"}},"explain":true,"size":1}`,
		`{"query":{"bool":{"should":[{"match":{"title":{"query":"quick","_name":"q"}}},{"term":{"genre":{"value":"fable","_name":"g"}}}]}},"_source":false}`,
		`{"query":{"match":{"title":"fox"}},"profile":true,"_source":false}`,
		`{"query":{"match":{"title":"quick fox"}},"rescore":{"window_size":2,"query":{"rescore_query":{"term":{"genre":"essay"}},"rescore_query_weight":10}},"_source":false}`,
		`{"collapse":{"field":"genre","inner_hits":{"name":"top","size":1,"sort":[{"year":"desc"}]}},"sort":["year"],"_source":false}`,
		`{"size":0,"suggest":{"s":{"text":"quik foxx","term":{"field":"title"}}}}`,
		`{"query":{"match":{"title":"quick"}},"terminate_after":1,"_source":false}`,
		`{"query":{"match":{"title":"quick fox"}},"min_score":0.8,"_source":false}`,
	} {
		_, raw := n.raw("POST", "/books/_search", "application/json", b)
		t.Logf("%s\n=> %s", b, strings.ReplaceAll(string(raw), `"_type":"_doc",`, ""))
	}
}
