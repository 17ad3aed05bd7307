package query

import (
	"encoding/json"
	"testing"
)

// BenchmarkParseCompileCompound measures parsing and compiling a
// multi_match and a function_score query.
func BenchmarkParseCompileCompound(b *testing.B) {
	ix := newTestIndex(b)
	queries := map[string]json.RawMessage{
		"multi_match": json.RawMessage(`{"multi_match":{"query":"quick brown fox","fields":["title^3","body","ti*"],
			"type":"best_fields","tie_breaker":0.3,"operator":"or","minimum_should_match":"2","fuzziness":"AUTO"}}`),
		"function_score": json.RawMessage(`{"function_score":{"query":{"match":{"body":"quick brown"}},
			"functions":[{"filter":{"term":{"tag":"a"}},"weight":2},
				{"field_value_factor":{"field":"price","factor":1.2,"modifier":"log1p","missing":1}},
				{"gauss":{"date":{"origin":"now","scale":"10d","offset":"1d","decay":0.5}}},
				{"exp":{"loc":{"origin":{"lat":1,"lon":2},"scale":"100km"}}}],
			"score_mode":"sum","boost_mode":"multiply","max_boost":10}}`),
	}
	for name, raw := range queries {
		b.Run(name+"/parse+compile", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n, err := Parse(raw)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := n.Compile(ix.ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
