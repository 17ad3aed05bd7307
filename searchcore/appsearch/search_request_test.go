package appsearch

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/query"
)

// testSchema is the schema of the parser tests and fuzz targets.
var testSchema = Schema{"title": Text, "tags": Text, "year": Number, "released": Date, "loc": Geolocation}

func TestParseSearchRequestErrors(t *testing.T) {
	cases := []struct {
		name, body string
		rev        Revision
		want       []string
	}{
		{"not an object", `[]`, "", []string{"Search request must be a JSON object"}},
		{"malformed", `{"query":`, "", []string{MsgDecoding}},
		{"missing query", `{"page":{}}`, "", []string{"Missing required parameter: query"}},
		{"unknown keys", `{"query":"","a":1,"b":2}`, "", []string{"Options contains invalid key: a", "Options contains invalid key: b"}},
		{"query type", `{"query":{}}`, "", []string{"Query must be a string"}},
		{"page key", `{"query":"","page":{"from":1}}`, "", []string{"Page contains invalid key: from"}},
		{"page size string", `{"query":"","page":{"size":"ten"}}`, "", []string{"Page size must be an integer between 0 and 1000"}},
		{"analytics", `{"query":"","analytics":{"tags":["` + strings.Repeat("x", 65) + `"],"x":1}}`, "", []string{"Analytics tags must be 64 characters or fewer", "Analytics contains invalid key: x"}},
		{"too many tags", `{"query":"","analytics":{"tags":["1","2","3","4","5","6","7","8","9","10","11","12","13","14","15","16","17"]}}`, "", []string{"Analytics tags must contain 16 tags or fewer"}},
		{"record_analytics", `{"query":"","record_analytics":"maybe"}`, "", []string{"Record analytics must be a boolean"}},
		{"search field weight", `{"query":"","search_fields":{"title":{"weight":11}}}`, "", []string{"Search field title weight must be a number between 0 and 10"}},
		{"result field sizes", `{"query":"","result_fields":{"title":{"raw":{"size":10},"snippet":{"size":2000,"fallback":"x"}}}}`, "",
			[]string{"Result field title raw size must be an integer between 20 and 1000", "Result field title snippet size must be an integer between 20 and 1000", "Result field title snippet fallback must be a boolean"}},
		{"group", `{"query":"","group":{"size":11,"x":1}}`, "", []string{"Group size must be an integer between 1 and 10", "Group contains invalid key: x", "Group field is required"}},
		{"sort objects", `{"query":"","sort":[{"a":"asc","b":"desc"},{"c":"up"}]}`, "", []string{"Sort objects must contain exactly one field", "Sort direction for c must be asc or desc"}},
		{"too many sorts", `{"query":"","sort":[{"a":"asc"},{"a":"asc"},{"a":"asc"},{"a":"asc"},{"a":"asc"},{"a":"asc"},{"a":"asc"},{"a":"asc"},{"a":"asc"},{"a":"asc"},{"a":"asc"}]}`, "", []string{"Sort must contain 10 fields or fewer"}},
		{"filter shapes", `{"query":"","filters":{"a":[],"b":[1,{"from":1}],"c":{"from":1,"x":2},"d":{"center":"1,1"},"e":{}}}`, "", []string{
			"Filter a must contain at least one value", "Filter b must not mix values and ranges", "Filter c contains invalid key: x",
			"Filter d geo filter requires a center and a unit", "Filter e range must have a from or a to"}},
		{"filter array limit", `{"query":"","filters":{"a":[` + strings.TrimSuffix(strings.Repeat(`1,`, 1025), ",") + `]}}`, "", []string{"Filter a must contain 1024 values or fewer"}},
		{"geo formats per revision", `{"query":"","filters":{"loc":{"center":"u4pruydqqvj","distance":1,"unit":"km"}}}`, RevisionEarlier, []string{"Filter loc center is not a valid geolocation"}},
		{"geo unit", `{"query":"","filters":{"loc":{"center":"1,1","distance":1,"unit":"parsec"}}}`, "", []string{"Filter loc unit must be one of mm, cm, m, km, in, ft, yd, mi"}},
		{"facet shapes", `{"query":"","facets":{"a":{"type":"x"},"b":{"size":1},"c":{"type":"value","size":251,"sort":{"count":"up"}},"d":{"type":"range"}}}`, "", []string{
			"Facet a has an invalid type: x", "Facet b requires a type (value or range)", "Facet c size must be an integer between 1 and 250",
			`Facet c sort must be {"count"|"value": "asc"|"desc"}`, "Facet d range facets require ranges"}},
		{"boost shapes", `{"query":"","boosts":{"a":{"type":"bogus"},"b":{"type":"value"},"c":{"type":"functional","function":"cubic","factor":11},"d":{"type":"proximity","function":"linear"}}}`, "", []string{
			"Boost for a requires a type (value, functional, proximity or recency)", "Value boost for b requires a value",
			"functional boost function for c must be one of [exponential linear logarithmic]", "Boost factor for c must be a number between -10 and 10",
			"proximity boost for d requires a center"}},
		{"precision", `{"query":"","precision":0}`, "", []string{"Precision must be an integer between 1 and 11"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rev := tc.rev
			if rev == "" {
				rev = RevisionLater
			}
			_, err := ParseSearchRequest([]byte(tc.body), rev)
			if got := ErrorMessages(err); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidateErrors(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{"query":"","filters":{"nope":1}}`, "Filters contains invalid field: nope"},
		{`{"query":"","filters":{"year":"abc"}}`, `Filter year value "abc" is not a valid number`},
		{`{"query":"","filters":{"released":{"from":"yesterday"}}}`, `Filter released range bound "yesterday" is not a valid date`},
		{`{"query":"","facets":{"nope":{"type":"value"}}}`, "Facets contains invalid field: nope"},
		{`{"query":"","facets":{"loc":{"type":"range","ranges":[{"to":1}]}}}`, "Facet loc geolocation range facets require a center and a unit"},
		{`{"query":"","boosts":{"nope":{"type":"value","value":1}}}`, "Boosts contains invalid field: nope"},
		{`{"query":"","result_fields":{"nope":{}}}`, "Result fields contains invalid field: nope"},
		{`{"query":"","sort":{"nope":"asc"}}`, "Sort contains invalid field: nope"},
		{`{"query":"","sort":{"loc":"asc"}}`, "Sort for geolocation field loc requires {center, order}"},
		{`{"query":"","group":{"field":"nope"}}`, "Group contains invalid field: nope"},
	}
	for _, tc := range cases {
		r, err := ParseSearchRequest([]byte(tc.body), RevisionLater)
		if err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		err = r.Validate(&Context{Schema: testSchema, Revision: RevisionLater})
		if got := ErrorMessages(err); !reflect.DeepEqual(got, []string{tc.want}) {
			t.Errorf("%s: errors = %q, want [%q]", tc.body, got, tc.want)
		}
	}
}

// checkTranslation parses body; when it is a valid request, its core
// searches must be valid core search bodies with valid queries.
func checkTranslation(t *testing.T, body []byte) {
	for _, rev := range []Revision{RevisionEarlier, RevisionLater} {
		r, err := ParseSearchRequest(body, rev)
		if err != nil {
			if ErrorMessages(err) == nil {
				t.Fatalf("%q: error is not an App Search error: %v", body, err)
			}
			continue
		}
		c := &Context{Engine: "e", Schema: testSchema, Revision: rev, Synonyms: [][]string{{"a b", "c"}}}
		if err := r.Validate(c); err != nil {
			if ErrorMessages(err) == nil {
				t.Fatalf("%q: validation error is not an App Search error: %v", body, err)
			}
			continue
		}
		run := func(_ context.Context, b []byte) (*searchcore.SearchResult, error) {
			if !json.Valid(b) {
				t.Fatalf("%q: invalid core body %s", body, b)
			}
			req := searchcore.NewSearchRequest()
			if err := searchcore.ParseSearchBody(b, req); err != nil {
				t.Fatalf("%q: core rejects %s: %v", body, b, err)
			}
			if _, err := query.Parse(req.Query); err != nil {
				t.Fatalf("%q: core query rejected %s: %v", body, b, err)
			}
			return &searchcore.SearchResult{}, nil
		}
		if _, err := RunSearch(context.Background(), run, r, c, "", nil); err != nil {
			t.Fatalf("%q: %v", body, err)
		}
	}
}

func FuzzParseSearchRequest(f *testing.F) {
	for _, s := range []string{
		`{"query":"heat \"the end\" +a -b AND c OR d NOT e"}`,
		`{"query":"","page":{"size":"5","current":2},"precision":3,"analytics":{"tags":["x"]},"record_analytics":false}`,
		`{"query":"x","search_fields":{"title":{"weight":2}},"result_fields":{"title":{"raw":{"size":30},"snippet":{"size":50,"fallback":true}}}}`,
		`{"query":"","boosts":{"year":[{"type":"functional","function":"exponential","operation":"multiply"},{"type":"proximity","function":"linear","center":5}],"released":{"type":"recency","function":"gaussian","center":"2020-01-01"}}}`,
		`{"query":"","facets":{"tags":[{"type":"value","sort":{"count":"asc"}}],"loc":{"type":"range","center":"1, 2","unit":"km","ranges":[{"from":0,"to":5}]}}}`,
		`{"query":"","group":{"field":"tags","size":3,"collapse":true,"sort":{"year":"desc"}},"sort":[{"loc":{"center":[2,1],"order":"desc","mode":"max"}},{"_score":"asc"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkTranslation(t, body)
	})
}

func FuzzFilters(f *testing.F) {
	for _, s := range []string{
		`{"tags":"a"}`, `{"tags":["a","b"],"year":{"from":1,"to":"2"}}`,
		`{"all":[{"any":[{"tags":"x"},{"none":{"year":[{"from":1},{"to":3}]}}]}],"none":[{"released":{"from":"2020-01-01T00:00:00Z"}}]}`,
		`{"loc":{"center":"1,2","distance":3,"unit":"mi"}}`, `{"loc":{"center":"POINT (2 1)","unit":"m","from":1,"to":10}}`, `{"id":["1","2"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, filters []byte) {
		if !json.Valid(filters) {
			return
		}
		checkTranslation(t, []byte(`{"query":"a b","filters":`+string(filters)+`}`))
	})
}
