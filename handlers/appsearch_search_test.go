package handlers_test

import (
	"context"
	"encoding/json"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// movieDocs are the documents of the search tests.
const movieDocs = `[
 {"id":"1","title":"Heat","genre":["crime","drama"],"studio":"Warner","year":1995,"rating":8.3,"released":"1995-12-15","loc":"34.05,-118.24","plot":"A group of professional bank robbers start to feel the heat from police."},
 {"id":"2","title":"Alien","genre":["horror","sci-fi"],"studio":"Fox","year":1979,"rating":8.5,"released":"1979-05-25","loc":"51.5,-0.12","plot":"The crew of a commercial spacecraft encounters a deadly lifeform."},
 {"id":"3","title":"Aliens","genre":["action","sci-fi"],"studio":"Fox","year":1986,"rating":8.4,"released":"1986-07-18","loc":"51.5,-0.12","plot":"Ripley returns to the planet where her crew encountered the hostile alien."},
 {"id":"4","title":"The Heat","genre":["comedy","crime"],"studio":"Fox","year":2013,"rating":6.6,"released":"2013-06-28","loc":"42.36,-71.06","plot":"An uptight FBI agent is paired with a foul-mouthed Boston cop."},
 {"id":"5","title":"Drive","genre":["crime","drama"],"studio":"FilmDistrict","year":2011,"rating":7.8,"released":"2011-09-16","loc":"34.05,-118.24","plot":"A mysterious Hollywood stuntman and mechanic moonlights as a getaway driver."}]`

// movieNode is a node with the typed, loaded "movies" engine.
func movieNode(t *testing.T, revision string) *asNode {
	t.Helper()
	n := newASNode(t, asOptions{})
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/engines", `{"name":"movies","revision":"` + revision + `"}`},
		{"POST", "/engines/movies/schema", `{"title":"text","genre":"text","studio":"text","plot":"text","year":"number","rating":"number","released":"date","loc":"geolocation"}`},
		{"POST", "/engines/movies/documents", movieDocs},
	} {
		if code, body := n.su(r.method, r.path, r.body); code != 200 || strings.Contains(body, `"errors":["`) {
			t.Fatalf("%s %s: %d %s", r.method, r.path, code, body)
		}
	}
	return n
}

// ids returns results[]._meta.id of a search response body.
func ids(t *testing.T, body string) []string {
	t.Helper()
	var res struct {
		Results []struct {
			Meta struct{ ID string } `json:"_meta"`
		}
	}
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	out := []string{}
	for _, r := range res.Results {
		out = append(out, r.Meta.ID)
	}
	return out
}

func TestAppSearchSearchClient(t *testing.T) {
	n := movieNode(t, "later")
	c := n.client(superuserBasic)
	ctx := context.Background()
	body := `{"query":"","filters":{"all":[{"genre":"crime"},{"year":{"from":1990}}]},"facets":{"studio":{"type":"value"}},
		"sort":[{"year":"desc"}],"boosts":{"rating":{"type":"functional","function":"linear"}},
		"result_fields":{"title":{"raw":{}},"plot":{"snippet":{"size":30,"fallback":true}}},"page":{"size":2}}`
	res, err := c.SearchWithBodyWithResponse(ctx, "movies", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != 200 || res.JSON200 == nil {
		t.Fatalf("search: %d %s", res.StatusCode(), res.Body)
	}
	sr, err := res.JSON200.AsSearchResults()
	if err != nil {
		t.Fatal(err)
	}
	if sr.Meta.Page.TotalResults != 3 || sr.Meta.Page.TotalPages != 2 || sr.Meta.Page.Size != 2 || sr.Meta.Engine.Name != "movies" {
		t.Errorf("meta = %+v", sr.Meta)
	}
	if sr.Meta.RequestId == nil || *sr.Meta.RequestId != res.HTTPResponse.Header.Get("X-Request-Id") {
		t.Errorf("request_id = %v, header %q", sr.Meta.RequestId, res.HTTPResponse.Header.Get("X-Request-Id"))
	}
	got, _ := json.Marshal(sr.Results)
	want := `[{"_meta":{"engine":"movies","id":"4","score":null},"id":{"raw":"4"},"plot":{"snippet":"An uptight FBI agent is paired"},"title":{"raw":"The Heat"}},` +
		`{"_meta":{"engine":"movies","id":"5","score":null},"id":{"raw":"5"},"plot":{"snippet":"A mysterious Hollywood stuntma"},"title":{"raw":"Drive"}}]`
	if string(got) != want {
		t.Errorf("results =\n%s\nwant\n%s", got, want)
	}
	// Facets count the filtered documents (1, 4, 5), ties by value.
	facets, _ := json.Marshal(sr.Facets)
	if want := `{"studio":[{"data":[{"count":1,"value":"FilmDistrict"},{"count":1,"value":"Fox"},{"count":1,"value":"Warner"}],"type":"value"}]}`; string(facets) != want {
		t.Errorf("facets = %s, want %s", facets, want)
	}

	// The same search as bracketed parameters, as GET with a JSON body, and
	// with the .json suffix: identical results.
	form := url.Values{}
	form.Set("query", "heat")
	form.Set("page[size]", "1")
	form.Set("page[current]", "2")
	form.Set("sort[][year]", "asc")
	code, _, viaForm := n.req("POST", "/engines/movies/search?"+form.Encode(), superuserBasic, "", "")
	_, _, viaGet := n.req("GET", "/engines/movies/search", superuserBasic, "application/json", `{"query":"heat","page":{"size":"1","current":"2"},"sort":[{"year":"asc"}]}`)
	_, _, viaSuffix := n.req("POST", "/engines/movies/search.json", superuserBasic, "application/json", `{"query":"heat","page":{"size":1,"current":2},"sort":{"year":"asc"}}`)
	if code != 200 || !reflect.DeepEqual(ids(t, viaForm), []string{"4"}) || !reflect.DeepEqual(ids(t, viaGet), []string{"4"}) || !reflect.DeepEqual(ids(t, viaSuffix), []string{"4"}) {
		t.Errorf("form %d %s\nget %s\nsuffix %s", code, viaForm, viaGet, viaSuffix)
	}

	// Grouping through the client.
	res, err = c.SearchWithBodyWithResponse(ctx, "movies", "application/json", strings.NewReader(`{"query":"","group":{"field":"studio"},"sort":{"year":"asc"},"result_fields":{"title":{"raw":{}}},"page":{"size":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if sr, _ = res.JSON200.AsSearchResults(); sr.Meta.Page.TotalResults != 3 || len(sr.Results) != 1 || sr.Results[0]["_group_key"] != "Fox" || len(sr.Results[0]["_group"].([]any)) != 2 {
		t.Errorf("group: %s", res.Body)
	}
}

func TestAppSearchSearchErrors(t *testing.T) {
	n := movieNode(t, "later")
	searchKey := n.key(`{"name":"web","type":"search","access_all_engines":true}`)
	cases := []struct {
		name, method, path, auth, body string
		code                           int
		want                           string
	}{
		{"missing query", "POST", "/engines/movies/search", superuserBasic, `{}`, 200, `{"errors":["Missing required parameter: query"]}`},
		{"invalid option", "POST", "/engines/movies/search", superuserBasic, `{"query":"","bad":1}`, 200, `{"errors":["Options contains invalid key: bad"]}`},
		{"malformed JSON", "POST", "/engines/movies/search", superuserBasic, `{"query":`, 400, `{"errors":["decoding error, ensure request is valid"]}`},
		{"unknown engine", "POST", "/engines/nope/search", superuserBasic, `{"query":""}`, 404, `{"errors":["Could not find engine."]}`},
		{"page limits", "POST", "/engines/movies/search", superuserBasic, `{"query":"","page":{"size":1001,"current":101}}`, 200,
			`{"errors":["Page current must be an integer between 1 and 100","Page size must be an integer between 0 and 1000"]}`},
		{"query too long", "POST", "/engines/movies/search", superuserBasic, `{"query":"` + strings.Repeat("a", 129) + `"}`, 200, `{"errors":["Query must be 128 characters or less"]}`},
		{"invalid search field", "POST", "/engines/movies/search", superuserBasic, `{"query":"x","search_fields":{"taco":{}}}`, 200, `{"errors":["Search fields contains invalid field: taco"]}`},
		{"filter nesting", "POST", "/engines/movies/search", superuserBasic, `{"query":"","filters":{"all":[{"all":[{"all":[{"all":[{"all":[{"genre":"x"}]}]}]}]}]}}`, 200, `{"errors":["Filters must not be nested more than 5 levels deep"]}`},
		{"too many filters", "POST", "/engines/movies/search", superuserBasic, `{"query":"","filters":{"all":[` + strings.TrimSuffix(strings.Repeat(`{"genre":"x"},`, 33), ",") + `]}}`, 200, `{"errors":["Filters must contain 32 filters or fewer"]}`},
		{"precision", "POST", "/engines/movies/search", superuserBasic, `{"query":"","precision":12}`, 200, `{"errors":["Precision must be an integer between 1 and 11"]}`},
		{"multi search invalid query", "POST", "/engines/movies/multi_search", superuserBasic, `{"queries":[{"badField":"x","query":"cat"},{"query":"heat"}]}`, 200, `[{"errors":["Options contains invalid key: badField"]},{"errors":[]}]`},
		{"multi search too many", "POST", "/engines/movies/multi_search", superuserBasic, `{"queries":[` + strings.TrimSuffix(strings.Repeat(`{"query":""},`, 11), ",") + `]}`, 200, `{"errors":["Queries must contain 10 queries or fewer"]}`},
		{"multi search missing queries", "POST", "/engines/movies/multi_search", superuserBasic, `{}`, 200, `{"errors":["Missing required parameter: queries"]}`},
		{"suggestion invalid option", "POST", "/engines/movies/query_suggestion", superuserBasic, `{"query":"cat","bad":"option"}`, 200, `{"errors":["Options contains invalid key: bad"]}`},
		{"suggestion missing query", "POST", "/engines/movies/query_suggestion", superuserBasic, `{}`, 200, `{"errors":["Missing required parameter: query"]}`},
		{"click missing query", "POST", "/engines/movies/click", superuserBasic, `{"document_id":"1"}`, 200, `{"errors":["Missing required parameter: query"]}`},
		{"curation lacking content", "POST", "/engines/movies/curations", superuserBasic, `{"queries":["heat"]}`, 200, `{"errors":["A curation must contain promoted or hidden documents"]}`},
		{"curation not found", "GET", "/engines/movies/curations/cur-0000", superuserBasic, ``, 404, `{"errors":["Curation not found with id: cur-0000"]}`},
		{"synonym set not found", "DELETE", "/engines/movies/synonyms/syn-0000", superuserBasic, ``, 404, `{"errors":["Synonym set not found with id: syn-0000"]}`},
		{"synonym set too small", "POST", "/engines/movies/synonyms", superuserBasic, `{"synonyms":["one"]}`, 200, `{"errors":["Synonym set must contain at least 2 synonyms"]}`},
		{"settings invalid boost", "PUT", "/engines/movies/search_settings", superuserBasic, `{"boosts":{"title":{"type":"functional","function":"linear"}}}`, 200, `{"errors":["text field title does not support functional boosts"]}`},
		{"search key searches", "POST", "/engines/movies/search", searchKey, `{"query":"heat","page":{"size":0}}`, 200, ``},
		{"search key suggests", "POST", "/engines/movies/query_suggestion", searchKey, `{"query":"he"}`, 200, ``},
		{"search key clicks", "POST", "/engines/movies/click", searchKey, `{"query":"heat","document_id":"1"}`, 200, ``},
		{"search key refused on settings", "GET", "/engines/movies/search_settings", searchKey, ``, 403, ``},
		{"search key refused on synonyms", "GET", "/engines/movies/synonyms", searchKey, ``, 403, ``},
		{"search key refused on analytics", "GET", "/engines/movies/analytics/queries", searchKey, ``, 403, ``},
		{"wrong key", "POST", "/engines/movies/search", "Bearer search-nope", `{"query":""}`, 400, `{"error":"invalid authentication token"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct := ""
			if tc.body != "" {
				ct = "application/json"
			}
			code, _, body := n.req(tc.method, tc.path, tc.auth, ct, tc.body)
			if code != tc.code {
				t.Fatalf("status = %d, want %d (%s)", code, tc.code, body)
			}
			if tc.want != "" && canon(t, body) != canon(t, tc.want) {
				t.Errorf("body = %s, want %s", body, tc.want)
			}
		})
	}
}

func TestAppSearchSettingsSynonymsCurations(t *testing.T) {
	n := movieNode(t, "later")
	c := n.client(superuserBasic)
	ctx := context.Background()
	search := func(body string) []string {
		t.Helper()
		code, b := n.su("POST", "/engines/movies/search", body)
		if code != 200 {
			t.Fatalf("search %s: %d %s", body, code, b)
		}
		return ids(t, b)
	}

	// Settings: defaults, then weights and boosts that searches apply.
	gs, err := c.GetSearchSettingsWithResponse(ctx, "movies")
	if err != nil || gs.JSON200 == nil {
		t.Fatalf("get settings: %v %s", err, gs.Body)
	}
	if want := `{"boosts":{},"precision":2,"precision_enabled":true,"result_fields":{"genre":{"raw":{}},"id":{"raw":{}},"loc":{"raw":{}},"plot":{"raw":{}},"rating":{"raw":{}},"released":{"raw":{}},"studio":{"raw":{}},"title":{"raw":{}},"year":{"raw":{}}},` +
		`"search_fields":{"genre":{"weight":1},"id":{"weight":1},"plot":{"weight":1},"studio":{"weight":1},"title":{"weight":1}}}`; canon(t, string(gs.Body)) != want {
		t.Errorf("default settings = %s", gs.Body)
	}
	if got := search(`{"query":"heat"}`); !reflect.DeepEqual(sortedStrings(got), []string{"1", "4"}) {
		t.Fatalf("heat = %v", got)
	}
	ps, err := c.PutSearchSettingsWithBodyWithResponse(ctx, "movies", "application/json", strings.NewReader(
		`{"search_fields":{"title":{"weight":10}},"boosts":{"genre":[{"type":"value","value":"comedy","factor":10}]},"result_fields":{"title":{"raw":{}}}}`))
	if err != nil || ps.JSON200 == nil {
		t.Fatalf("put settings: %v %s", err, ps.Body)
	}
	if put, err := ps.JSON200.AsSearchSettings(); err != nil || put.Boosts["genre"] == nil || len(put.SearchFields) != 1 {
		t.Errorf("put settings = %s (%v)", ps.Body, err)
	}
	if got := search(`{"query":"heat"}`); !reflect.DeepEqual(got, []string{"4", "1"}) {
		t.Errorf("boosted by settings = %v, want [4 1]", got)
	}
	// "robbers" is only in plot, which the settings no longer search.
	if got := search(`{"query":"robbers"}`); len(got) != 0 {
		t.Errorf("plot searched despite settings: %v", got)
	}
	if _, b := n.su("POST", "/engines/movies/search", `{"query":"heat","page":{"size":1}}`); !strings.Contains(b, `"title":{"raw":"The Heat"}`) || strings.Contains(b, `"plot"`) {
		t.Errorf("result_fields not applied: %s", b)
	}
	rs, err := c.ResetSearchSettingsWithResponse(ctx, "movies")
	if err != nil || rs.JSON200 == nil {
		t.Fatalf("reset: %v", err)
	}
	if reset, err := rs.JSON200.AsSearchSettings(); err != nil || len(reset.SearchFields) != 5 {
		t.Fatalf("reset: %v %s", err, rs.Body)
	}
	if got := search(`{"query":"robbers"}`); !reflect.DeepEqual(got, []string{"1"}) {
		t.Errorf("after reset robbers = %v", got)
	}

	// Synonyms apply at query time.
	if got := search(`{"query":"thieves"}`); len(got) != 0 {
		t.Fatalf("thieves before synonyms = %v", got)
	}
	cs, err := c.CreateSynonymSetWithBodyWithResponse(ctx, "movies", "application/json", strings.NewReader(`{"synonyms":["thieves","robbers"]}`))
	if err != nil || cs.StatusCode() != 200 {
		t.Fatalf("create synonyms: %v %s", err, cs.Body)
	}
	syn, _ := cs.JSON200.AsSynonymSet()
	if !strings.HasPrefix(syn.Id, "syn-") || len(syn.Id) != 28 {
		t.Errorf("synonym id = %q", syn.Id)
	}
	if got := search(`{"query":"thieves"}`); !reflect.DeepEqual(got, []string{"1"}) {
		t.Errorf("thieves with synonyms = %v", got)
	}
	ls, err := c.ListSynonymSetsWithBodyWithResponse(ctx, "movies", nil, "application/json", nil)
	if err != nil || ls.JSON200 == nil {
		t.Fatalf("list synonyms: %v", err)
	}
	if list, err := ls.JSON200.AsSynonymSetList(); err != nil || list.Meta.Page.TotalResults != 1 || list.Meta.Page.Size != 25 {
		t.Fatalf("list synonyms: %v %s", err, ls.Body)
	}
	if code, b := n.su("PUT", "/engines/movies/synonyms/"+syn.Id, `{"synonyms":["thieves","crooks"]}`); code != 200 || canon(t, b) != canon(t, `{"id":"`+syn.Id+`","synonyms":["thieves","crooks"]}`) {
		t.Errorf("put synonyms: %d %s", code, b)
	}
	if code, b := n.su("DELETE", "/engines/movies/synonyms/"+syn.Id, ""); code != 200 || b != `{"deleted":true}` {
		t.Errorf("delete synonyms: %d %s", code, b)
	}

	// Curations: promoted first in their order, hidden removed.
	cc, err := c.CreateCurationWithBodyWithResponse(ctx, "movies", "application/json", strings.NewReader(`{"queries":["Heat"],"promoted":["5","2"],"hidden":["4"]}`))
	if err != nil || cc.StatusCode() != 200 {
		t.Fatalf("create curation: %v %s", err, cc.Body)
	}
	cid, _ := cc.JSON200.AsCurationID()
	if got := search(`{"query":"heat"}`); !reflect.DeepEqual(got, []string{"5", "2", "1"}) {
		t.Errorf("curated = %v, want [5 2 1]", got)
	}
	if got := search(`{"query":"heat","page":{"size":2,"current":2}}`); !reflect.DeepEqual(got, []string{"1"}) {
		t.Errorf("curated page 2 = %v, want [1]", got)
	}
	if got := search(`{"query":"heat","filters":{"studio":"Fox"}}`); !reflect.DeepEqual(got, []string{"2"}) {
		t.Errorf("curated and filtered = %v, want [2]", got)
	}
	gc, err := c.GetCurationWithResponse(ctx, "movies", cid.Id)
	if err != nil || gc.JSON200 == nil || canon(t, string(gc.Body)) != canon(t, `{"id":"`+cid.Id+`","queries":["Heat"],"promoted":["5","2"],"hidden":["4"]}`) {
		t.Fatalf("get curation: %v %s", err, gc.Body)
	}
	if code, b := n.su("DELETE", "/engines/movies/curations/"+cid.Id, ""); code != 200 || b != `{"deleted":true}` {
		t.Errorf("delete curation: %d %s", code, b)
	}
	if got := sortedStrings(search(`{"query":"heat"}`)); !reflect.DeepEqual(got, []string{"1", "4"}) {
		t.Errorf("after delete = %v", got)
	}
}

func TestAppSearchMultiSearchSuggestionAnalytics(t *testing.T) {
	n := movieNode(t, "earlier")
	c := n.client(superuserBasic)
	ctx := context.Background()
	ms, err := c.MultiSearchWithBodyWithResponse(ctx, "movies", "application/json", strings.NewReader(`{"queries":[{"query":"heat"},{"query":"alien OR drive","precision":11},{"query":"","page":{"size":0},"record_analytics":false}]}`))
	if err != nil || ms.StatusCode() != 200 {
		t.Fatalf("multi search: %v %s", err, ms.Body)
	}
	list, err := ms.JSON200.AsMultiSearchResults()
	if err != nil || len(list) != 3 {
		t.Fatalf("multi search results: %v %s", err, ms.Body)
	}
	// Earlier revision: OR joins "alien" (2, and 3 by its plot) and "drive".
	if list[0].Meta.Page.TotalResults != 2 || list[1].Meta.Page.TotalResults != 3 || list[2].Meta.Page.TotalResults != 5 || len(list[2].Results) != 0 {
		t.Errorf("multi search = %s", ms.Body)
	}

	qs, err := c.QuerySuggestionWithBodyWithResponse(ctx, "movies", "application/json", strings.NewReader(`{"query":"al","size":5,"types":{"documents":{"fields":["title"]}}}`))
	if err != nil || qs.StatusCode() != 200 {
		t.Fatalf("suggestion: %v %s", err, qs.Body)
	}
	sugg, _ := qs.JSON200.AsQuerySuggestions()
	got := []string{}
	for _, d := range sugg.Results.Documents {
		got = append(got, d.Suggestion)
	}
	if !reflect.DeepEqual(sortedStrings(got), []string{"alien", "aliens"}) {
		t.Errorf("suggestions = %v", got)
	}

	// Clicks and analytics: "heat" searched once (the multi search), "alien
	// or drive" once; the record_analytics:false search is not counted.
	for _, body := range []string{`{"query":"heat","document_id":"1","tags":["web"]}`, `{"query":"Heat","document_id":"1"}`, `{"query":"heat","document_id":"4"}`} {
		cl, err := c.LogClickthroughWithBodyWithResponse(ctx, "movies", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if cl.StatusCode() != 200 || len(cl.Body) != 0 {
			t.Fatalf("click: %d %q", cl.StatusCode(), cl.Body)
		}
	}
	tq, err := c.PostTopQueriesAnalyticsWithBodyWithResponse(ctx, "movies", "application/json", strings.NewReader(`{}`))
	if err != nil || tq.JSON200 == nil {
		t.Fatalf("top queries: %v %s", err, tq.Body)
	}
	if want := `{"meta":{"page":{"current":1,"size":2}},"results":[{"clicks":0,"queries":1,"term":"alien or drive"},{"clicks":3,"queries":1,"term":"heat"}]}`; canon(t, string(tq.Body)) != want {
		t.Errorf("top queries = %s", tq.Body)
	}
	tc, err := c.PostTopClicksAnalyticsWithBodyWithResponse(ctx, "movies", "application/json", strings.NewReader(`{"query":"heat","filters":{"tag":"web"}}`))
	if err != nil || tc.JSON200 == nil {
		t.Fatalf("top clicks: %v %s", err, tc.Body)
	}
	if want := `{"meta":{"page":{"current":1,"size":1}},"results":[{"clicks":1,"document_id":"1"}]}`; canon(t, string(tc.Body)) != want {
		t.Errorf("top clicks = %s", tc.Body)
	}
	pc, err := c.PostCountAnalyticsWithBodyWithResponse(ctx, "movies", "application/json", strings.NewReader(`{"filters":{"date":{"from":"2026-11-21T00:00:00+00:00","to":"2026-11-23T00:00:00+00:00"}}}`))
	if err != nil || pc.JSON200 == nil {
		t.Fatalf("counts: %v %s", err, pc.Body)
	}
	if want := `{"results":[{"clicks":0,"from":"2026-11-21T00:00:00+00:00","queries":0,"to":"2026-11-22T00:00:00+00:00"},{"clicks":3,"from":"2026-11-22T00:00:00+00:00","queries":2,"to":"2026-11-23T00:00:00+00:00"}]}`; canon(t, string(pc.Body)) != want {
		t.Errorf("counts = %s", pc.Body)
	}
}

func sortedStrings(l []string) []string {
	out := append([]string(nil), l...)
	sort.Strings(out)
	return out
}

func TestAppSearchMetaEngineAndEngineDeletion(t *testing.T) {
	n := movieNode(t, "later")
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/engines", `{"name":"shows"}`},
		{"POST", "/engines/shows/documents", `[{"id":"1","title":"Heat Wave","year":2020}]`},
		{"POST", "/engines/shows/schema", `{"year":"number"}`},
		{"POST", "/engines", `{"name":"all","type":"meta","source_engines":["movies","shows"]}`},
	} {
		if code, body := n.su(r.method, r.path, r.body); code != 200 {
			t.Fatalf("%s %s: %d %s", r.method, r.path, code, body)
		}
	}
	code, body := n.su("POST", "/engines/all/search", `{"query":"heat","sort":{"year":"desc"},"result_fields":{"title":{"raw":{}}},"facets":{"year":{"type":"range","ranges":[{"from":2000}]}}}`)
	want := `{"meta":{"alerts":[],"warnings":[],"precision":2,"page":{"current":1,"total_pages":1,"total_results":3,"size":10},"engine":{"name":"all","type":"meta"}},"results":[` +
		`{"id":{"raw":"shows|1"},"title":{"raw":"Heat Wave"},"_meta":{"id":"1","engine":"shows","score":null}},` +
		`{"id":{"raw":"movies|4"},"title":{"raw":"The Heat"},"_meta":{"id":"4","engine":"movies","score":null}},` +
		`{"id":{"raw":"movies|1"},"title":{"raw":"Heat"},"_meta":{"id":"1","engine":"movies","score":null}}],` +
		`"facets":{"year":[{"type":"range","data":[{"from":2000,"count":2}]}]}}`
	var got map[string]any
	_ = json.Unmarshal([]byte(body), &got)
	delete(got["meta"].(map[string]any), "request_id")
	b, _ := json.Marshal(got)
	if code != 200 || string(b) != canon(t, want) {
		t.Errorf("meta engine search: %d\n%s\nwant\n%s", code, b, canon(t, want))
	}

	// Grouping over source engines: on a field both map (the core's
	// collapse) and on one only movies has (grouped in memory).
	for _, tc := range []struct{ group, want string }{
		{"year", `[["shows|1","2020.0"],["movies|4","2013.0"],["movies|1","1995.0"]]`},
		{"studio", `[["movies|4","Fox"],["movies|1","Warner"]]`},
	} {
		code, body := n.su("POST", "/engines/all/search", `{"query":"heat","sort":{"year":"desc"},"group":{"field":"`+tc.group+`"},"result_fields":{"title":{"raw":{}}}}`)
		var res struct {
			Results []struct {
				ID       struct{ Raw string } `json:"id"`
				GroupKey any                  `json:"_group_key"`
			} `json:"results"`
		}
		_ = json.Unmarshal([]byte(body), &res)
		got := [][]any{}
		for _, r := range res.Results {
			got = append(got, []any{r.ID.Raw, r.GroupKey})
		}
		if b, _ := json.Marshal(got); code != 200 || string(b) != tc.want {
			t.Errorf("meta engine group by %s: %d %s\n%s", tc.group, code, b, body)
		}
	}

	// Deleting an engine drops its synonyms; a new engine of the same name
	// starts without them.
	if code, body := n.su("POST", "/engines/shows/synonyms", `{"synonyms":["a","b"]}`); code != 200 {
		t.Fatalf("synonyms: %d %s", code, body)
	}
	for _, r := range []struct{ method, path, body string }{
		{"DELETE", "/engines/all", ""}, {"DELETE", "/engines/shows", ""}, {"POST", "/engines", `{"name":"shows"}`},
	} {
		if code, body := n.su(r.method, r.path, r.body); code != 200 {
			t.Fatalf("%s %s: %d %s", r.method, r.path, code, body)
		}
	}
	if code, body := n.su("GET", "/engines/shows/synonyms", ""); code != 200 || !strings.Contains(body, `"total_results":0`) {
		t.Errorf("synonyms after re-creation: %d %s", code, body)
	}
}

func TestAppSearchRevisionNumbers(t *testing.T) {
	for _, tc := range []struct{ revision, want string }{
		{"earlier", `"n":{"raw":16777217.0}`},
		{"later", `"n":{"raw":16777216.0}`},
	} {
		n := newASNode(t, asOptions{})
		for _, r := range []struct{ method, path, body string }{
			{"POST", "/engines", `{"name":"nums","revision":"` + tc.revision + `"}`},
			{"POST", "/engines/nums/schema", `{"n":"number"}`},
			{"POST", "/engines/nums/documents", `[{"id":"1","n":16777217}]`},
		} {
			if code, body := n.su(r.method, r.path, r.body); code != 200 {
				t.Fatalf("%s %s: %d %s", r.method, r.path, code, body)
			}
		}
		if code, body := n.su("POST", "/engines/nums/search", `{"query":""}`); code != 200 || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want %s", tc.revision, code, body, tc.want)
		}
	}
}

func TestAppSearchSearchStateDurable(t *testing.T) {
	dir := t.TempDir()
	n := openASNode(t, dir, asOptions{})
	var curation string
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/engines", `{"name":"movies"}`},
		{"POST", "/engines/movies/documents", movieDocs},
		{"PUT", "/engines/movies/search_settings", `{"search_fields":{"title":{"weight":3}},"precision":4}`},
		{"POST", "/engines/movies/synonyms", `{"synonyms":["thieves","robbers"]}`},
		{"POST", "/engines/movies/curations", `{"queries":["drive"],"promoted":["2"]}`},
		{"POST", "/engines/movies/search", `{"query":"drive"}`},
		{"POST", "/engines/movies/click", `{"query":"drive","document_id":"2"}`},
	} {
		code, body := n.su(r.method, r.path, r.body)
		if code != 200 {
			t.Fatalf("%s %s: %d %s", r.method, r.path, code, body)
		}
		if strings.HasSuffix(r.path, "/curations") {
			curation = body
		}
	}
	n.close()
	n = openASNode(t, dir, asOptions{})
	checks := []struct{ method, path, body, want string }{
		{"GET", "/engines/movies/search_settings", "", `"search_fields":{"title":{"weight":3}}`},
		{"GET", "/engines/movies/search_settings", "", `"precision":4`},
		{"GET", "/engines/movies/synonyms", "", `"synonyms":["thieves","robbers"]`},
		{"GET", "/engines/movies/curations", "", strings.TrimSuffix(strings.TrimPrefix(curation, "{"), "}")},
		{"POST", "/engines/movies/analytics/queries", `{}`, `{"term":"drive","queries":1,"clicks":1}`},
	}
	for _, c := range checks {
		if code, body := n.su(c.method, c.path, c.body); code != 200 || !strings.Contains(body, c.want) {
			t.Errorf("%s %s after restart: %d %s, want %s", c.method, c.path, code, body, c.want)
		}
	}
	code, body := n.su("POST", "/engines/movies/search", `{"query":"drive"}`)
	if got := ids(t, body); code != 200 || !reflect.DeepEqual(got, []string{"2", "5"}) {
		t.Errorf("curated search after restart: %d %v", code, got)
	}
}
