package query

import (
	"encoding/json"
	"testing"

	"github.com/blugelabs/bluge"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// FuzzParse checks that parsing (and compiling, sorting and source
// filtering) arbitrary input never panics and only fails with
// *searchcore.Error values.
func FuzzParse(f *testing.F) {
	seeds := []string{
		`{"match_all":{}}`,
		`{"match":{"body":{"query":"quick brown","operator":"and","minimum_should_match":"2<-25% 9<-3","fuzziness":"AUTO:3,6"}}}`,
		`{"term":{"count":{"value":"10","boost":2,"case_insensitive":false}}}`,
		`{"terms":{"tag":["a","b"],"boost":1.5}}`,
		`{"terms":{"tag":{"index":"i","id":"1","path":"p"}}}`,
		`{"range":{"date":{"gte":"now-1d/d","lt":"2020-01-01||+1M/d","time_zone":"+01:00","format":"yyyy-MM-dd"}}}`,
		`{"exists":{"field":"user.*"}}`,
		`{"ids":{"values":["1","2"]}}`,
		`{"bool":{"must":[{"match":{"title":"x"}}],"filter":{"term":{"tag":"a"}},"should":[],"must_not":null,"minimum_should_match":"75%"}}`,
		`{"constant_score":{"filter":{"prefix":{"title":"qu"}},"boost":3}}`,
		`{"wildcard":{"title":{"value":"q*k?","case_insensitive":true}}}`,
		`{"regexp":{"tag":{"value":"<1-10>|a@|\"x\"","flags":"ALL"}}}`,
		`{"fuzzy":{"title":{"value":"quikc","fuzziness":2,"prefix_length":1,"max_expansions":10}}}`,
		`{"bool":{"mus":{}}}`, `{}`, `[]`, `{"term":{"a":1,"a":2}}`, `{"match":{"f":"\ud800"}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	ix := newTestIndex(f)
	check := func(t *testing.T, what string, err error) {
		if err == nil {
			return
		}
		if _, ok := err.(*searchcore.Error); !ok {
			t.Fatalf("%s returned %T %v; want *searchcore.Error", what, err, err)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := Parse(json.RawMessage(data))
		check(t, "Parse", err)
		if err == nil {
			q, err := n.Compile(ix.ctx)
			check(t, "Compile", err)
			if err == nil {
				// executing the compiled query must not panic
				if it, err := ix.reader.Search(t.Context(), bluge.NewTopNSearch(10, q)); err == nil {
					for m, err := it.Next(); m != nil && err == nil; m, err = it.Next() {
					}
				}
			}
		}
		fields, err := ParseSort(json.RawMessage(data))
		check(t, "ParseSort", err)
		if err == nil {
			_, dec, err := CompileSort(fields, ix.ctx)
			check(t, "CompileSort", err)
			for _, d := range dec {
				_ = d.Decode(data)
				_, err := d.Encode(string(data))
				check(t, "Encode", err)
			}
		}
		sf, err := ParseSourceFilter(json.RawMessage(data))
		check(t, "ParseSourceFilter", err)
		if err == nil {
			_, _, err = sf.Apply([]byte(testSource))
			check(t, "Apply", err)
		}
		_, _, err = NewSourceFilter([]string{"a*", "obj.*.b"}, []string{"*.c"}, nil).Apply(data)
		check(t, "Apply(data)", err)
	})
}
