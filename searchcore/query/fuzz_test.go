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
		`{"match_phrase":{"body":{"query":"quick brown","slop":2,"analyzer":"standard","zero_terms_query":"all"}}}`,
		`{"match_phrase_prefix":{"body":{"query":"quick br","max_expansions":3,"slop":1}}}`,
		`{"match_bool_prefix":{"body":{"query":"quick br","operator":"and","fuzziness":1,"minimum_should_match":1}}}`,
		`{"multi_match":{"query":"quick","fields":["title^3","b*"],"type":"cross_fields","tie_breaker":0.3,"operator":"and"}}`,
		`{"multi_match":{"query":"quick br","type":"phrase_prefix","slop":1}}`,
		`{"dis_max":{"queries":[{"term":{"tag":"a"}},{"match":{"body":"x"}}],"tie_breaker":0.5}}`,
		`{"boosting":{"positive":{"match_all":{}},"negative":{"term":{"tag":"a"}},"negative_boost":0.2}}`,
		`{"geo_distance":{"distance":"12km","distance_type":"plane","loc":"u09tvw0f6szy"}}`,
		`{"geo_bounding_box":{"loc":{"wkt":"BBOX (-5, 3, 53, 40)"}}}`,
		`{"geo_polygon":{"loc":{"points":["55,-2","55,15",[0,45]]}}}`,
		`{"function_score":{"query":{"match":{"body":"quick"}},"functions":[{"filter":{"term":{"tag":"a"}},"weight":2},{"field_value_factor":{"field":"price","modifier":"ln2p","missing":1}},{"gauss":{"date":{"origin":"now","scale":"10d","offset":"1d","decay":0.3}}},{"random_score":{"seed":1,"field":"_id"}},{"exp":{"loc":{"origin":[0,0],"scale":"100km"}}}],"score_mode":"avg","boost_mode":"sum","max_boost":10,"min_score":0.1}}`,
		`{"terms_set":{"tag":{"terms":["a","b"],"minimum_should_match_field":"count","boost":2}}}`,
		`{"combined_fields":{"query":"quick fox","fields":["title^2","body"],"operator":"and","minimum_should_match":"1"}}`,
		`{"query_string":{"query":"title:(quick OR \"brown fox\"~2)^2 AND -tag:a* +count:[1 TO 5} date:>=now-1d body:qu?ck~1 /re.x/ _exists_:loc","default_operator":"AND","fields":["title^2","body"]}}`,
		`{"simple_query_string":{"query":"quick + (fox | \"lazy dog\"~1) -cat* brwn~1","fields":["*"],"flags":"AND|OR|NOT|PHRASE|PRECEDENCE|PREFIX|FUZZY|NEAR|WHITESPACE|ESCAPE"}}`,
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
