package appsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/quarry-search/quarry/searchcore/appsearch"
)

// movies is the test engine's data: LA (1, 5), London (2, 3), Boston (4).
var movies = []string{
	`{"id":"1","title":"Heat","genre":["crime","drama"],"studio":"Warner","year":1995,"rating":8.3,"released":"1995-12-15","loc":"34.05,-118.24","plot":"A group of professional bank robbers start to feel the heat from police."}`,
	`{"id":"2","title":"Alien","genre":["horror","sci-fi"],"studio":"Fox","year":1979,"rating":8.5,"released":"1979-05-25","loc":"51.5,-0.12","plot":"The crew of a commercial spacecraft encounters a deadly lifeform."}`,
	`{"id":"3","title":"Aliens","genre":["action","sci-fi"],"studio":"Fox","year":1986,"rating":8.4,"released":"1986-07-18","loc":"51.5,-0.12","plot":"Ripley returns to the planet where her crew encountered the hostile alien."}`,
	`{"id":"4","title":"The Heat","genre":["comedy","crime"],"studio":"Fox","year":2013,"rating":6.6,"released":"2013-06-28","loc":"42.36,-71.06","plot":"An uptight FBI agent is paired with a foul-mouthed Boston cop."}`,
	`{"id":"5","title":"Drive","genre":["crime","drama"],"studio":"FilmDistrict","year":2011,"rating":7.8,"released":"2011-09-16","loc":"34.05,-118.24","plot":"A mysterious Hollywood stuntman and mechanic moonlights as a getaway driver."}`,
}

// openMovies creates the "movies" engine of the given revision, typed and
// loaded, and its search side.
func openMovies(t *testing.T, rev string) (*appsearch.Service, *appsearch.Searches) {
	t.Helper()
	return openEngine(t, rev, map[string]string{
		"title": "text", "genre": "text", "studio": "text", "plot": "text",
		"year": "number", "rating": "number", "released": "date", "loc": "geolocation",
	}, movies...)
}

// openEngine creates the "movies" engine of the given revision with the
// schema, indexes docs, and returns it with its search side.
func openEngine(t *testing.T, rev string, schema map[string]string, docs ...string) (*appsearch.Service, *appsearch.Searches) {
	t.Helper()
	ctx := context.Background()
	svc := openService(t, t.TempDir(), appsearch.Config{})
	if _, err := svc.CreateEngine(ctx, appsearch.EngineSpec{Name: "movies", Revision: rev}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateSchema(ctx, "movies", schema); err != nil {
		t.Fatal(err)
	}
	res, err := svc.IndexDocuments(ctx, "movies", raws(docs...))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if len(r.Errors) > 0 {
			t.Fatalf("index: %v", r.Errors)
		}
	}
	return svc, appsearch.NewSearches(svc, func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) })
}

// searchJSON runs a search and decodes its response.
func searchJSON(t *testing.T, ss *appsearch.Searches, body string) map[string]any {
	t.Helper()
	out, err := ss.Search(context.Background(), "movies", []byte(body), "req-1")
	if err != nil {
		t.Fatalf("search %s: %v", body, err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// resultIDs lists results[]._meta.id.
func resultIDs(m map[string]any) []string {
	ids := []string{}
	for _, r := range m["results"].([]any) {
		ids = append(ids, r.(map[string]any)["_meta"].(map[string]any)["id"].(string))
	}
	return ids
}

func sortedCopy(l []string) []string {
	out := append([]string(nil), l...)
	sort.Strings(out)
	return out
}

func TestSearchFiltersAndQuerySyntax(t *testing.T) {
	_, ss := openMovies(t, "later")
	cases := []struct {
		name, body string
		want       []string
		ordered    bool
	}{
		{"empty query matches all", `{"query":""}`, []string{"1", "2", "3", "4", "5"}, false},
		{"one term", `{"query":"heat"}`, []string{"1", "4"}, false},
		{"phrase in any field", `{"query":"\"the heat\""}`, []string{"1", "4"}, false},
		{"phrase", `{"query":"\"the heat\"","search_fields":{"title":{}}}`, []string{"4"}, false},
		{"required term", `{"query":"+heat +the","search_fields":{"title":{}}}`, []string{"4"}, false},
		{"excluded term", `{"query":"heat -the","search_fields":{"title":{}}}`, []string{"1"}, false},
		{"NOT", `{"query":"heat NOT the","search_fields":{"title":{}}}`, []string{"1"}, false},
		{"AND", `{"query":"alien AND ripley"}`, []string{"3"}, false},
		{"OR is a term in the later revision", `{"query":"drive OR heat","precision":11}`, []string{}, false},
		{"value filter", `{"query":"","filters":{"genre":"crime"}}`, []string{"1", "4", "5"}, false},
		{"value filter is exact", `{"query":"","filters":{"genre":"Crime"}}`, []string{}, false},
		{"array filter is any", `{"query":"","filters":{"genre":["horror","comedy"]}}`, []string{"2", "4"}, false},
		{"number value filter", `{"query":"","filters":{"year":"1979"}}`, []string{"2"}, false},
		{"range filter", `{"query":"","filters":{"year":{"from":1980,"to":2011}}}`, []string{"1", "3"}, false},
		{"range to is exclusive, from inclusive", `{"query":"","filters":{"year":{"from":1995,"to":2013}}}`, []string{"1", "5"}, false},
		{"date range", `{"query":"","filters":{"released":{"from":"2000-01-01T00:00:00Z"}}}`, []string{"4", "5"}, false},
		{"all any none", `{"query":"","filters":{"all":[{"genre":"crime"},{"none":[{"genre":"drama"}]}]}}`, []string{"4"}, false},
		{"any of", `{"query":"","filters":{"any":[{"studio":"Warner"},{"year":{"from":2012}}]}}`, []string{"1", "4"}, false},
		{"mixed top level", `{"query":"","filters":{"genre":"crime","none":{"studio":"Fox"}}}`, []string{"1", "5"}, false},
		{"geo radius", `{"query":"","filters":{"loc":{"center":"34.05,-118.24","distance":10,"unit":"km"}}}`, []string{"1", "5"}, false},
		{"geo ring", `{"query":"","filters":{"loc":{"center":"34.05,-118.24","unit":"km","from":100,"to":6000}}}`, []string{"4"}, false},
		{"id filter", `{"query":"","filters":{"id":["2","5"]}}`, []string{"2", "5"}, false},
		{"empty filters", `{"query":"","filters":{}}`, []string{"1", "2", "3", "4", "5"}, false},
		{"empty all", `{"query":"","filters":{"all":[]}}`, []string{"1", "2", "3", "4", "5"}, false},
		{"array of ranges is any", `{"query":"","filters":{"year":[{"to":1980},{"from":2012}]}}`, []string{"2", "4"}, false},
		{"date value filter", `{"query":"","filters":{"released":"2011-09-16T00:00:00Z"}}`, []string{"5"}, false},
		{"number array filter", `{"query":"","filters":{"rating":[8.3,7.8]}}`, []string{"1", "5"}, false},
		{"none of any", `{"query":"","filters":{"none":[{"any":[{"studio":"Fox"},{"year":{"to":1990}}]}]}}`, []string{"1", "5"}, false},
		{"any of all", `{"query":"","filters":{"any":[{"all":[{"studio":"Fox"},{"genre":"horror"}]},{"all":[{"genre":"drama"},{"year":{"from":2000}}]}]}}`, []string{"2", "5"}, false},
		{"all, any and none together", `{"query":"","filters":{"all":[{"genre":"crime"}],"any":[{"studio":"Fox"},{"studio":"Warner"}],"none":[{"year":1995}]}}`, []string{"4"}, false},
		{"geo radius in miles", `{"query":"","filters":{"loc":{"center":"42.36,-71.06","distance":1,"unit":"mi"}}}`, []string{"4"}, false},
		{"geo radius with a [lon, lat] center", `{"query":"","filters":{"loc":{"center":[-0.12,51.5],"distance":100,"unit":"m"}}}`, []string{"2", "3"}, false},
		{"geo radius with a POINT center", `{"query":"","filters":{"loc":{"center":"POINT (-71.06 42.36)","distance":5,"unit":"km"}}}`, []string{"4"}, false},
		{"query with a filter", `{"query":"heat","filters":{"year":{"from":2000}}}`, []string{"4"}, false},
		{"sort by year", `{"query":"","sort":{"year":"asc"}}`, []string{"2", "3", "1", "5", "4"}, true},
		{"sort list", `{"query":"","sort":[{"studio":"asc"},{"year":"desc"}]}`, []string{"5", "4", "3", "2", "1"}, true},
		{"geo sort", `{"query":"","sort":[{"loc":{"center":"42.36,-71.06","order":"asc"}},{"year":"asc"}],"page":{"size":1}}`, []string{"4"}, true},
		{"geo sort then year", `{"query":"","sort":[{"loc":{"center":"42.36,-71.06","order":"asc"}},{"year":"asc"}]}`, []string{"4", "1", "5", "2", "3"}, true},
		{"geo sort desc then year desc", `{"query":"","sort":[{"loc":{"center":"42.36,-71.06","order":"desc"}},{"year":"desc"}]}`, []string{"3", "2", "5", "1", "4"}, true},
		{"studio then geo sort", `{"query":"","sort":[{"studio":"desc"},{"loc":{"center":"34.05,-118.24","order":"desc","mode":"median"}},{"year":"asc"}]}`, []string{"1", "2", "3", "4", "5"}, true},
		{"page 2", `{"query":"","sort":{"year":"asc"},"page":{"size":2,"current":2}}`, []string{"1", "5"}, true},
		{"page beyond", `{"query":"","page":{"size":2,"current":4}}`, []string{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := resultIDs(searchJSON(t, ss, tc.body))
			want := tc.want
			if !tc.ordered {
				got, want = sortedCopy(got), sortedCopy(want)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ids = %v, want %v", got, want)
			}
		})
	}
}

func TestSearchEarlierRevisionOR(t *testing.T) {
	_, ss := openMovies(t, "earlier")
	got := sortedCopy(resultIDs(searchJSON(t, ss, `{"query":"drive OR heat","precision":11}`)))
	if want := []string{"1", "4", "5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ids = %v, want %v", got, want)
	}
	// Geolocation sorting is a later-revision feature.
	_, err := ss.Search(context.Background(), "movies", []byte(`{"query":"","sort":{"loc":{"center":"1,1","order":"asc"}}}`), "")
	if msgs := appsearch.ErrorMessages(err); !reflect.DeepEqual(msgs, []string{"geolocation field loc does not support sorting"}) {
		t.Errorf("errors = %v", msgs)
	}
}

func TestSearchResponseShape(t *testing.T) {
	_, ss := openMovies(t, "later")
	m := searchJSON(t, ss, `{"query":"","filters":{"id":"2"},"sort":{"year":"asc"}}`)
	b, _ := json.Marshal(m)
	want := `{"meta":{"alerts":[],"engine":{"name":"movies","type":"default"},"page":{"current":1,"size":10,"total_pages":1,"total_results":1},"precision":2,"request_id":"req-1","warnings":[]},` +
		`"results":[{"_meta":{"engine":"movies","id":"2","score":null},"genre":{"raw":["horror","sci-fi"]},"id":{"raw":"2"},"loc":{"raw":"51.5,-0.12"},` +
		`"plot":{"raw":"The crew of a commercial spacecraft encounters a deadly lifeform."},"rating":{"raw":8.5},"released":{"raw":"1979-05-25T00:00:00+00:00"},` +
		`"studio":{"raw":"Fox"},"title":{"raw":"Alien"},"year":{"raw":1979}}]}`
	if string(b) != want {
		t.Errorf("response =\n%s\nwant\n%s", b, want)
	}
	out, err := ss.Search(context.Background(), "movies", []byte(`{"query":"","filters":{"id":"2"},"result_fields":{"year":{"raw":{}},"title":{"raw":{"size":20}}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := out.MarshalJSON()
	if !strings.Contains(string(raw), `"year":{"raw":1979.0}`) {
		t.Errorf("number raw not rendered as a float: %s", raw)
	}
}

func TestSearchFacets(t *testing.T) {
	_, ss := openMovies(t, "later")
	m := searchJSON(t, ss, `{"query":"","page":{"size":0},"facets":{
		"genre":{"type":"value","size":3},
		"year":[{"type":"range","name":"decades","ranges":[{"to":1990,"name":"old"},{"from":1990,"to":2010},{"from":2010,"name":"new"}]},{"type":"value","sort":{"value":"asc"},"size":2}],
		"loc":{"type":"range","center":"34.05,-118.24","unit":"km","ranges":[{"from":0,"to":100,"name":"near"},{"from":100,"name":"far"}]},
		"released":{"type":"range","ranges":[{"from":"2000-01-01T00:00:00+00:00"}]}}}`)
	b, _ := json.Marshal(m["facets"])
	want := `{"genre":[{"data":[{"count":3,"value":"crime"},{"count":2,"value":"drama"},{"count":2,"value":"sci-fi"}],"type":"value"}],` +
		`"loc":[{"data":[{"count":2,"from":0,"name":"near","to":100},{"count":3,"from":100,"name":"far"}],"type":"range"}],` +
		`"released":[{"data":[{"count":2,"from":"2000-01-01T00:00:00+00:00"}],"type":"range"}],` +
		`"year":[{"data":[{"count":2,"name":"old","to":1990},{"count":1,"from":1990,"to":2010},{"count":2,"from":2010,"name":"new"}],"name":"decades","type":"range"},` +
		`{"data":[{"count":1,"value":1979},{"count":1,"value":1986}],"type":"value"}]}`
	if string(b) != want {
		t.Errorf("facets =\n%s\nwant\n%s", b, want)
	}
	page := m["meta"].(map[string]any)["page"]
	if b, _ := json.Marshal(page); string(b) != `{"current":1,"size":0,"total_pages":1,"total_results":5}` {
		t.Errorf("page = %s", b)
	}
	// Facets count the filtered documents.
	m = searchJSON(t, ss, `{"query":"","filters":{"studio":"Fox"},"facets":{"genre":{"type":"value"}}}`)
	b, _ = json.Marshal(m["facets"])
	if want := `{"genre":[{"data":[{"count":2,"value":"sci-fi"},{"count":1,"value":"action"},{"count":1,"value":"comedy"},{"count":1,"value":"crime"},{"count":1,"value":"horror"}],"type":"value"}]}`; string(b) != want {
		t.Errorf("filtered facets = %s, want %s", b, want)
	}
}

func TestSearchBoosts(t *testing.T) {
	_, ss := openMovies(t, "later")
	cases := []struct {
		name, body string
		want       []string
	}{
		{"functional linear multiply ranks by rating", `{"query":"","boosts":{"rating":{"type":"functional","function":"linear","operation":"multiply"}}}`, []string{"2", "3", "1", "5", "4"}},
		{"functional logarithmic add ranks by rating", `{"query":"","boosts":{"rating":{"type":"functional","function":"logarithmic","factor":5}}}`, []string{"2", "3", "1", "5", "4"}},
		{"functional exponential add ranks by rating", `{"query":"","boosts":{"rating":{"type":"functional","function":"exponential"}}}`, []string{"2", "3", "1", "5", "4"}},
		{"value boost lifts comedy", `{"query":"heat","boosts":{"genre":{"type":"value","value":"comedy","factor":10}}}`, []string{"4", "1"}},
		{"value boost lifts drama", `{"query":"heat","boosts":{"genre":{"type":"value","value":["drama"],"factor":10}}}`, []string{"1", "4"}},
		{"proximity on year", `{"query":"","boosts":{"year":{"type":"proximity","function":"gaussian","center":2012,"factor":5}},"page":{"size":2}}`, []string{"4", "5"}},
		{"proximity on location", `{"query":"","boosts":{"loc":{"type":"proximity","function":"linear","center":"42.36,-71.06","factor":5}},"page":{"size":1}}`, []string{"4"}},
		{"recency", `{"query":"","boosts":{"released":{"type":"recency","function":"exponential","use_current_time":true,"factor":5}},"page":{"size":1}}`, []string{"4"}},
		// Every decay function ranks by closeness to the center: the nearer, the higher.
		{"proximity linear on year", `{"query":"","boosts":{"year":{"type":"proximity","function":"linear","center":1979,"factor":5}},"page":{"size":3}}`, []string{"2", "3", "1"}},
		{"proximity exponential on year", `{"query":"","boosts":{"year":{"type":"proximity","function":"exponential","center":2014,"factor":5}}}`, []string{"4", "5", "1", "3", "2"}},
		{"proximity gaussian on year", `{"query":"","boosts":{"year":{"type":"proximity","function":"gaussian","center":1990,"factor":5}}}`, []string{"3", "1", "2", "5", "4"}},
		{"proximity exponential on location", `{"query":"","boosts":{"loc":{"type":"proximity","function":"exponential","center":"42.36,-71.06","factor":5}},"page":{"size":1}}`, []string{"4"}},
		// Without the boost the year breaks the tie: 2, 3, 1, 5, 4.
		{"proximity gaussian on location", `{"query":"","boosts":{"loc":{"type":"proximity","function":"gaussian","center":"34.1,-118.2","factor":5}},"sort":[{"_score":"desc"},{"year":"asc"}],"page":{"size":2}}`, []string{"1", "5"}},
		{"recency gaussian around a date", `{"query":"","boosts":{"released":{"type":"recency","function":"gaussian","center":"1990-01-01T00:00:00Z","factor":5}},"page":{"size":3}}`, []string{"3", "1", "2"}},
		{"recency linear around a date", `{"query":"","boosts":{"released":{"type":"recency","function":"linear","center":"2012-06-01T00:00:00Z","factor":5}},"page":{"size":2}}`, []string{"5", "4"}},
		{"value boost multiply", `{"query":"heat","boosts":{"genre":{"type":"value","value":"comedy","operation":"multiply","factor":10}}}`, []string{"4", "1"}},
		{"value boost on a number", `{"query":"","boosts":{"year":{"type":"value","value":1986,"factor":10}},"page":{"size":1}}`, []string{"3"}},
		{"value boost on a date", `{"query":"","boosts":{"released":{"type":"value","value":"2011-09-16T00:00:00Z","factor":10}},"page":{"size":1}}`, []string{"5"}},
		{"value boost on a geolocation", `{"query":"","boosts":{"loc":{"type":"value","value":"42.36,-71.06","factor":10}},"page":{"size":1}}`, []string{"4"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := resultIDs(searchJSON(t, ss, tc.body)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ids = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSearchGroupingAndSnippets(t *testing.T) {
	_, ss := openMovies(t, "later")
	m := searchJSON(t, ss, `{"query":"","sort":{"year":"asc"},"group":{"field":"studio","size":2},"result_fields":{"title":{"raw":{}}}}`)
	b, _ := json.Marshal(m["results"])
	want := `[{"_group":[{"_meta":{"engine":"movies","id":"3","score":null},"id":{"raw":"3"},"title":{"raw":"Aliens"}}],"_group_key":"Fox","_meta":{"engine":"movies","id":"2","score":null},"id":{"raw":"2"},"title":{"raw":"Alien"}},` +
		`{"_group":[],"_group_key":"Warner","_meta":{"engine":"movies","id":"1","score":null},"id":{"raw":"1"},"title":{"raw":"Heat"}},` +
		`{"_group":[],"_group_key":"FilmDistrict","_meta":{"engine":"movies","id":"5","score":null},"id":{"raw":"5"},"title":{"raw":"Drive"}}]`
	if string(b) != want {
		t.Errorf("grouped =\n%s\nwant\n%s", b, want)
	}
	if total := m["meta"].(map[string]any)["page"].(map[string]any)["total_results"]; total != 3.0 {
		t.Errorf("total_results = %v, want 3 groups", total)
	}
	m = searchJSON(t, ss, `{"query":"","sort":{"year":"asc"},"group":{"field":"studio","collapse":true},"result_fields":{"title":{"raw":{}}},"page":{"size":1}}`)
	b, _ = json.Marshal(m["results"])
	if want := `[{"_group_key":"Fox","_meta":{"engine":"movies","id":"2","score":null},"id":{"raw":"2"},"title":{"raw":"Alien"}}]`; string(b) != want {
		t.Errorf("collapsed = %s, want %s", b, want)
	}

	m = searchJSON(t, ss, `{"query":"robbers","result_fields":{"plot":{"snippet":{"size":40}},"title":{"snippet":{"fallback":true},"raw":{}}}}`)
	b = marshalNoEscape(t, m["results"].([]any)[0])
	snip := `{"_meta":{"engine":"movies","id":"1","score":`
	if !strings.HasPrefix(string(b), snip) || !strings.Contains(string(b), `"plot":{"snippet":"bank <em>robbers</em> start to feel the heat from"}`) ||
		!strings.Contains(string(b), `"title":{"raw":"Heat","snippet":"Heat"}`) {
		t.Errorf("snippets = %s", b)
	}
	m = searchJSON(t, ss, `{"query":"heat","filters":{"id":"4"},"result_fields":{"plot":{"snippet":{}},"title":{"snippet":{}}}}`)
	b = marshalNoEscape(t, m["results"].([]any)[0])
	if !strings.Contains(string(b), `"plot":{"snippet":null}`) || !strings.Contains(string(b), `"title":{"snippet":"The <em>Heat</em>"}`) {
		t.Errorf("snippets = %s", b)
	}
}

// marshalNoEscape renders v as the server does (no HTML escaping).
func marshalNoEscape(t *testing.T, v any) []byte {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return []byte(strings.TrimSpace(b.String()))
}

// TestSearchConcurrent runs searches while settings, synonyms and
// curations change (run with -race).
func TestSearchConcurrent(t *testing.T) {
	_, ss := openMovies(t, "later")
	ctx := context.Background()
	done := make(chan error, 4)
	for w := 0; w < 3; w++ {
		go func() {
			for i := 0; i < 30; i++ {
				if _, err := ss.Search(ctx, "movies", []byte(`{"query":"heat","facets":{"genre":{"type":"value"}}}`), ""); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	go func() {
		for i := 0; i < 10; i++ {
			if _, err := ss.UpdateSearchSettings(ctx, "movies", []byte(`{"precision":3}`)); err != nil {
				done <- err
				return
			}
			if _, err := ss.PutSynonym(ctx, "movies", "", []byte(`{"synonyms":["a","b"]}`)); err != nil {
				done <- err
				return
			}
			if _, err := ss.PutCuration(ctx, "movies", "", []byte(`{"queries":["q`+string(rune('a'+i))+`"],"hidden":["1"]}`)); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i := 0; i < 4; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	out, err := ss.TopQueries(ctx, "movies", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(out); string(b) != `{"meta":{"page":{"current":1,"size":1}},"results":[{"term":"heat","queries":90,"clicks":0}]}` {
		t.Errorf("top queries = %s", b)
	}
}

// TestSearchGeoSortModes sorts multi-valued locations by each mode; a
// document without a location sorts last ascending.
func TestSearchGeoSortModes(t *testing.T) {
	_, ss := openEngine(t, "later", map[string]string{"loc": "geolocation", "n": "number"},
		`{"id":"a","n":1,"loc":["0,0","0,1","0,10"]}`,
		`{"id":"b","n":2,"loc":"0,3"}`,
		`{"id":"c","n":3}`,
	)
	cases := []struct {
		mode string
		want []string
	}{
		{"min", []string{"a", "b", "c"}},
		{"max", []string{"b", "a", "c"}},
		{"avg", []string{"b", "a", "c"}},
		{"median", []string{"a", "b", "c"}},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			body := `{"query":"","sort":[{"loc":{"center":"0,0","order":"asc","mode":"` + tc.mode + `"}},{"n":"desc"}]}`
			if got := resultIDs(searchJSON(t, ss, body)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ids = %v, want %v", got, tc.want)
			}
		})
	}
}

// groupSummary renders grouped results as "head[members]key".
func groupSummary(m map[string]any) []string {
	out := []string{}
	for _, r := range m["results"].([]any) {
		res := r.(map[string]any)
		s := res["_meta"].(map[string]any)["id"].(string)
		if g, ok := res["_group"].([]any); ok {
			var ids []string
			for _, e := range g {
				ids = append(ids, e.(map[string]any)["_meta"].(map[string]any)["id"].(string))
			}
			s += "[" + strings.Join(ids, ",") + "]"
		}
		out = append(out, s+fmt.Sprint(res["_group_key"]))
	}
	return out
}

func TestSearchGroupCases(t *testing.T) {
	_, ss := openMovies(t, "later")
	cases := []struct {
		name  string
		body  string
		want  []string
		total float64
	}{
		{"group sort orders the members", `{"query":"","sort":{"year":"asc"},"group":{"field":"studio","size":2,"sort":{"year":"desc"}},"page":{"size":1}}`,
			[]string{"4[3]Fox"}, 3},
		{"page of groups", `{"query":"","sort":{"year":"asc"},"group":{"field":"studio"},"page":{"size":1,"current":2}}`,
			[]string{"1[]Warner"}, 3},
		{"group members default to the request's order", `{"query":"","sort":{"year":"desc"},"group":{"field":"studio","size":3}}`,
			[]string{"4[3,2]Fox", "5[]FilmDistrict", "1[]Warner"}, 3},
		{"filtered groups", `{"query":"","filters":{"year":{"from":1980}},"sort":{"year":"asc"},"group":{"field":"studio"}}`,
			[]string{"3[4]Fox", "1[]Warner", "5[]FilmDistrict"}, 3},
		{"number group key", `{"query":"","filters":{"studio":"Fox"},"sort":{"rating":"desc"},"group":{"field":"year","collapse":true}}`,
			[]string{"21979.0", "31986.0", "42013.0"}, 3},
		{"multi-valued field groups by its first value", `{"query":"","sort":{"year":"asc"},"group":{"field":"genre"}}`,
			[]string{"2[]horror", "3[]action", "1[5]crime", "4[]comedy"}, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := searchJSON(t, ss, tc.body)
			if got := groupSummary(m); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("groups = %v, want %v", got, tc.want)
			}
			if total := m["meta"].(map[string]any)["page"].(map[string]any)["total_results"]; total != tc.total {
				t.Errorf("total_results = %v, want %v", total, tc.total)
			}
		})
	}
}

// TestSearchGroupMissingAndFacets leaves documents without the group field
// out of the groups while facets still count every matching document.
func TestSearchGroupMissingAndFacets(t *testing.T) {
	_, ss := openEngine(t, "later", map[string]string{"k": "text", "n": "number"},
		`{"id":"a","k":"x","n":1}`, `{"id":"b","k":"x","n":2}`, `{"id":"c","n":3}`, `{"id":"d","k":"y","n":4}`)
	m := searchJSON(t, ss, `{"query":"","sort":{"n":"asc"},"group":{"field":"k"},"facets":{"n":{"type":"range","ranges":[{"from":0,"to":10}]}}}`)
	if got, want := groupSummary(m), []string{"a[b]x", "d[]y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("groups = %v, want %v", got, want)
	}
	b, _ := json.Marshal(m["facets"])
	if want := `{"n":[{"data":[{"count":4,"from":0,"to":10}],"type":"range"}]}`; string(b) != want {
		t.Errorf("facets = %s, want %s", b, want)
	}
	if total := m["meta"].(map[string]any)["page"].(map[string]any)["total_results"]; total != 2.0 {
		t.Errorf("total_results = %v, want 2", total)
	}
}
