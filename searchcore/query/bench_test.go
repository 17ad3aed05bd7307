package query

import (
	"encoding/json"
	"testing"
)

// BenchmarkParseCompile measures parsing and compiling a typical search
// query (bool with match, term, range and terms clauses).
func BenchmarkParseCompile(b *testing.B) {
	ix := newTestIndex(b)
	raw := json.RawMessage(`{"bool":{
		"must":[{"match":{"body":{"query":"quick brown fox","operator":"or","minimum_should_match":"2"}}}],
		"filter":[{"term":{"tag":"a"}},{"range":{"date":{"gte":"now-1M/d","lt":"now/d"}}},{"terms":{"count":[1,5,10]}}],
		"should":[{"match":{"title":{"query":"quick","boost":2}}}],
		"must_not":[{"exists":{"field":"noindex"}}]}}`)
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Parse(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse+compile", func(b *testing.B) {
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
	src := []byte(testSource)
	filter := NewSourceFilter([]string{"obj.*", "include.field1"}, []string{"obj.arr.y"}, nil)
	b.Run("source-filter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := filter.Apply(src); err != nil {
				b.Fatal(err)
			}
		}
	})
}
