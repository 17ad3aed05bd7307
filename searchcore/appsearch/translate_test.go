package appsearch

import (
	"context"
	"testing"
	"time"

	"github.com/quarry-search/quarry/searchcore"
)

// captureCore records the core search bodies and returns no hits.
func captureCore(bodies *[]string) CoreSearch {
	return func(_ context.Context, body []byte) (*searchcore.SearchResult, error) {
		*bodies = append(*bodies, string(body))
		return &searchcore.SearchResult{}, nil
	}
}

// TestTranslate pins the core search each App Search request becomes.
func TestTranslate(t *testing.T) {
	schema := Schema{"title": Text, "tags": Text, "year": Number, "released": Date, "loc": Geolocation}
	mm := func(q, typ string) string {
		return `{"multi_match":{"query":"` + q + `","fields":["title^2"],"type":"` + typ + `"}}`
	}
	cases := []struct {
		name, rev, req string
		settings       *Settings
		synonyms       [][]string
		curations      []Curation
		want           []string
	}{
		{
			name: "empty query", req: `{"query":""}`,
			want: []string{`{"query":{"match_all":{}},"track_total_hits":true,"from":0,"size":10}`},
		},
		{
			name: "terms, phrase, required and excluded", req: `{"query":"heat \"the end\" +red -blue NOT green","search_fields":{"title":{"weight":2}},"page":{"size":5,"current":3}}`,
			want: []string{`{"query":{"bool":{"must":[` + mm("red", "best_fields") + `],"should":[` + mm("heat", "best_fields") + `,` + mm("the end", "phrase") + `],` +
				`"must_not":[` + mm("blue", "best_fields") + `,` + mm("green", "best_fields") + `]}},"track_total_hits":true,"from":10,"size":5}`},
		},
		{
			name: "AND, precision 11", req: `{"query":"a AND b c","search_fields":{"title":{"weight":2}},"precision":11}`,
			want: []string{`{"query":{"bool":{"must":[` + mm("a", "best_fields") + `,` + mm("b", "best_fields") + `],"should":[` + mm("c", "best_fields") + `]}},"track_total_hits":true,"from":0,"size":10}`},
		},
		{
			name: "earlier OR groups, precision share", rev: "earlier", req: `{"query":"a b c OR d","search_fields":{"title":{"weight":2}},"precision":8}`,
			want: []string{`{"query":{"bool":{"should":[{"bool":{"should":[` + mm("a", "best_fields") + `,` + mm("b", "best_fields") + `,` + mm("c", "best_fields") + `],"minimum_should_match":2}},` +
				`{"bool":{"should":[` + mm("d", "best_fields") + `],"minimum_should_match":1}}],"minimum_should_match":1}},"track_total_hits":true,"from":0,"size":10}`},
		},
		{
			name: "later OR is a term", req: `{"query":"a OR","search_fields":{"title":{"weight":2}}}`,
			want: []string{`{"query":{"bool":{"should":[` + mm("a", "best_fields") + `,` + mm("OR", "best_fields") + `],"minimum_should_match":1}},"track_total_hits":true,"from":0,"size":10}`},
		},
		{
			name: "synonyms", req: `{"query":"big apple","search_fields":{"title":{"weight":2}}}`, synonyms: [][]string{{"big apple", "nyc"}},
			want: []string{`{"query":{"bool":{"should":[{"bool":{"should":[` + mm("big apple", "phrase") + `,` + mm("nyc", "best_fields") + `],"minimum_should_match":1}}],"minimum_should_match":1}},"track_total_hits":true,"from":0,"size":10}`},
		},
		{
			name: "filters", req: `{"query":"","filters":{"tags":["a",1],"any":[{"year":{"from":1990,"to":"2000"}},{"released":{"to":"2020-01-01"}}],"none":{"loc":{"center":"1,2","unit":"km","from":5,"to":10}}}}`,
			want: []string{`{"query":{"bool":{"must":[{"match_all":{}}],"filter":[{"bool":{"filter":[{"terms":{"tags.enum":["a","1"]}},` +
				`{"bool":{"should":[{"range":{"year":{"gte":1990,"lt":2000}}},{"range":{"released":{"lt":"2020-01-01T00:00:00Z"}}}],"minimum_should_match":1}},` +
				`{"bool":{"must_not":[{"bool":{"filter":[{"geo_distance":{"distance":"10km","loc":"1,2"}}],"must_not":[{"geo_distance":{"distance":"4.999999999999999km","loc":"1,2"}}]}}]}}]}}]}},"track_total_hits":true,"from":0,"size":10}`},
		},
		{
			name: "boosts", req: `{"query":"","boosts":{"tags":{"type":"value","value":"x","factor":3},"year":[{"type":"functional","function":"logarithmic","operation":"multiply","factor":2},{"type":"proximity","function":"gaussian","center":2000}]}}`,
			want: []string{`{"query":{"function_score":{"query":{"function_score":{"query":{"match_all":{}},"functions":[{"weight":0},` +
				`{"filter":{"terms":{"tags.enum":["x"]}},"weight":3},` +
				`{"filter":{"exists":{"field":"year"}},"gauss":{"year":{"origin":2000,"scale":10}},"weight":1}],"score_mode":"sum","boost_mode":"sum"}},` +
				`"functions":[{"filter":{"exists":{"field":"year"}},"field_value_factor":{"field":"year","factor":1,"modifier":"ln1p","missing":0},"weight":2}],"score_mode":"multiply","boost_mode":"multiply"}},` +
				`"track_total_hits":true,"from":0,"size":10}`},
		},
		{
			name: "facets", req: `{"query":"","facets":{"tags":{"type":"value","size":3,"sort":{"value":"asc"}},"year":[{"type":"range","ranges":[{"to":10},{"from":10,"name":"big"}]}],"loc":{"type":"range","center":"1,2","unit":"mi","ranges":[{"from":0,"to":1}]}}}`,
			want: []string{`{"query":{"match_all":{}},"track_total_hits":true,"aggs":{"f0_0":{"terms":{"field":"tags.enum","size":3,"order":{"_key":"asc"}}},` +
				`"f1_0":{"filters":{"filters":{"r0":{"range":{"year":{"lt":10}}},"r1":{"range":{"year":{"gte":10}}}}}},` +
				`"f2_0":{"filters":{"filters":{"r0":{"bool":{"filter":[{"geo_distance":{"distance":"1mi","loc":"1,2"}}]}}}}}},"from":0,"size":10}`},
		},
		{
			name: "sorts", req: `{"query":"","sort":[{"loc":{"center":"POINT (2 1)","order":"asc"}},{"title":"desc"},{"_score":"asc"}]}`,
			want: []string{`{"query":{"match_all":{}},"track_total_hits":true,"sort":[` +
				`{"_geo_distance":{"loc":"1,2","order":"asc","mode":"min","ignore_unmapped":true}},` +
				`{"title.enum":{"order":"desc","unmapped_type":"keyword"}},{"_score":{"order":"asc"}}],"from":0,"size":10}`},
		},
		{
			name: "geo sort median desc", req: `{"query":"","sort":[{"loc":{"center":"1,2","order":"desc","mode":"median"}}]}`,
			want: []string{`{"query":{"match_all":{}},"track_total_hits":true,"sort":[` +
				`{"_geo_distance":{"loc":"1,2","order":"desc","mode":"median","ignore_unmapped":true}}],"from":0,"size":10}`},
		},
		{
			name: "curation", req: `{"query":" Heat ","page":{"size":1}}`, settings: &Settings{SearchFields: []SearchField{{Field: "title", Weight: 2}}},
			curations: []Curation{{ID: "cur-1", Queries: []string{"heat"}, Promoted: []string{"p1"}, Hidden: []string{"h1"}}},
			want: []string{
				`{"query":{"ids":{"values":["p1"]}},"size":1}`,
				`{"query":{"bool":{"must":[{"bool":{"should":[` + mm("Heat", "best_fields") + `],"minimum_should_match":1}}],"must_not":[{"ids":{"values":["h1","p1"]}}]}},"track_total_hits":true,"from":0,"size":1}`,
			},
		},
		{
			name: "group and window", req: `{"query":"","group":{"field":"year"},"page":{"size":1000,"current":100}}`,
			want: []string{`{"query":{"match_all":{}},"track_total_hits":true,"post_filter":{"exists":{"field":"year"}},` +
				`"collapse":{"field":"year","inner_hits":{"name":"group","size":10}},` +
				`"aggs":{"group_count":{"cardinality":{"field":"year","precision_threshold":40000}}},"from":10000,"size":0}`},
		},
		{
			name: "group sort then the request's sort", req: `{"query":"","sort":{"year":"desc"},"group":{"field":"title","size":3,"sort":{"year":"asc"}},"page":{"size":2,"current":2}}`,
			want: []string{`{"query":{"match_all":{}},"track_total_hits":true,"sort":[{"year":{"order":"desc","unmapped_type":"double"}}],` +
				`"post_filter":{"exists":{"field":"title.enum"}},"collapse":{"field":"title.enum","inner_hits":{"name":"group","size":3,` +
				`"sort":[{"year":{"order":"asc","unmapped_type":"double"}},{"year":{"order":"desc","unmapped_type":"double"}}]}},` +
				`"aggs":{"group_count":{"cardinality":{"field":"title.enum","precision_threshold":40000}}},"from":2,"size":2}`},
		},
		{
			name: "collapsed group sort on a scored search", req: `{"query":"","group":{"field":"year","collapse":true,"sort":{"year":"asc"}}}`,
			want: []string{`{"query":{"match_all":{}},"track_total_hits":true,"post_filter":{"exists":{"field":"year"}},` +
				`"collapse":{"field":"year","inner_hits":{"name":"group","size":1,"sort":[{"year":{"order":"asc","unmapped_type":"double"}},{"_score":{"order":"desc"}}]}},` +
				`"aggs":{"group_count":{"cardinality":{"field":"year","precision_threshold":40000}}},"from":0,"size":10}`},
		},
		{
			name: "beyond the 10,000 results", req: `{"query":"","page":{"size":1000,"current":11}}`,
			want: []string{`{"query":{"match_all":{}},"track_total_hits":true,"from":10000,"size":0}`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rev := Revision(tc.rev)
			if rev == "" {
				rev = RevisionLater
			}
			r, err := ParseSearchRequest([]byte(tc.req), rev)
			if err != nil {
				t.Fatal(err)
			}
			c := &Context{Engine: "e", EngineType: "default", Schema: schema, Revision: rev, Settings: tc.settings,
				Synonyms: tc.synonyms, Curations: tc.curations, Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			if err := r.Validate(c); err != nil {
				t.Fatal(err)
			}
			var bodies []string
			if _, err := RunSearch(context.Background(), captureCore(&bodies), r, c, "", nil); err != nil {
				t.Fatal(err)
			}
			if len(bodies) != len(tc.want) {
				t.Fatalf("bodies = %v", bodies)
			}
			for i := range bodies {
				if bodies[i] != tc.want[i] {
					t.Errorf("core body %d =\n%s\nwant\n%s", i, bodies[i], tc.want[i])
				}
			}
		})
	}
}
