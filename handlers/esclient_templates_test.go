package handlers_test

// The official Go client (go-elasticsearch v7) with multi search, stored
// scripts and search templates: what an application sends, checked against
// values computed from the documents indexed here.

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/elastic/go-elasticsearch/v7"
)

func TestOfficialGoClientTemplates(t *testing.T) {
	n := newTestNode(t)
	hc := &headerCheck{base: n.HTTP.Transport}
	es, err := elasticsearch.NewClient(elasticsearch.Config{Addresses: []string{n.URL}, Transport: hc})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// 30 books: genre g<i%3>, year 2000+i; title "book <i>".
	var lines []string
	for i := 0; i < 30; i++ {
		lines = append(lines, `{"index":{"_index":"books","_id":"b`+pad2(i)+`"}}`,
			`{"title":"book `+pad2(i)+`","genre":"g`+string(rune('0'+i%3))+`","year":`+strconv.Itoa(2000+i)+`}`)
	}
	code, body, _ := ecDecode(t, "bulk")(es.Bulk(strings.NewReader(ndjson(lines...)), es.Bulk.WithRefresh("true"), es.Bulk.WithContext(ctx)))
	if code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("bulk = %d %v", code, body)
	}
	countGenre := func(g string) string {
		c := 0
		for i := 0; i < 30; i++ {
			if "g"+string(rune('0'+i%3)) == g {
				c++
			}
		}
		return strconv.Itoa(c)
	}

	t.Run("msearch with one failing entry", func(t *testing.T) {
		code, body, _ := ecDecode(t, "msearch")(es.Msearch(strings.NewReader(ndjson(
			`{"index":"books"}`, `{"query":{"term":{"genre":"g1"}},"size":0}`,
			`{"index":"missing-index"}`, `{"query":{"match_all":{}}}`,
			`{}`, `{"query":{"range":{"year":{"gte":2025}}},"sort":[{"year":"desc"}],"size":2}`,
		)), es.Msearch.WithIndex("books"), es.Msearch.WithMaxConcurrentSearches(2), es.Msearch.WithContext(ctx)))
		if code != 200 {
			t.Fatalf("msearch = %d %v", code, body)
		}
		if got := str(jsonPath(body, "responses.0.hits.total.value")); got != countGenre("g1") {
			t.Errorf("genre count = %s, want %s", got, countGenre("g1"))
		}
		if got := str(jsonPath(body, "responses.1.status")); got != "404" {
			t.Errorf("failing entry status = %s, want 404", got)
		}
		if got := jsonPath(body, "responses.1.error.type"); got != "index_not_found_exception" {
			t.Errorf("failing entry type = %v", got)
		}
		if got := strings.Join(hitIDsOf(jsonPath(body, "responses.2").(map[string]any)), ","); got != "b29,b28" {
			t.Errorf("range ids = %s, want b29,b28", got)
		}
		if got := str(jsonPath(body, "responses.2.status")); got != "200" {
			t.Errorf("status = %s, want 200", got)
		}
	})

	t.Run("put script", func(t *testing.T) {
		code, body, _ := ecDecode(t, "put script")(es.PutScript("by_genre", strings.NewReader(
			`{"script":{"lang":"mustache","source":{"query":{"term":{"genre":"{{genre}}"}},"size":"{{size}}{{^size}}10{{/size}}","sort":[{"year":"asc"}]}}}`),
			es.PutScript.WithContext(ctx)))
		if code != 200 || str(body) != `{"acknowledged":true}` {
			t.Fatalf("put = %d %v", code, body)
		}
		code, body, _ = ecDecode(t, "put script with context")(es.PutScript("range_tpl", strings.NewReader(
			`{"script":{"lang":"mustache","source":"{\"query\":{\"range\":{\"year\":{\"gte\":{{from}}}}}}"}}`),
			es.PutScript.WithScriptContext("template"), es.PutScript.WithContext(ctx)))
		if code != 200 {
			t.Fatalf("put with context = %d %v", code, body)
		}
		code, body, _ = ecDecode(t, "get script")(es.GetScript("by_genre", es.GetScript.WithContext(ctx)))
		if code != 200 || str(body["found"]) != "true" || str(jsonPath(body, "script.lang")) != `"mustache"` {
			t.Errorf("get = %d %v", code, body)
		}
	})

	t.Run("search template by id", func(t *testing.T) {
		code, body, _ := ecDecode(t, "search template")(es.SearchTemplate(strings.NewReader(`{"id":"by_genre","params":{"genre":"g2","size":3}}`),
			es.SearchTemplate.WithIndex("books"), es.SearchTemplate.WithRestTotalHitsAsInt(true), es.SearchTemplate.WithContext(ctx)))
		if code != 200 {
			t.Fatalf("search template = %d %v", code, body)
		}
		if got := str(jsonPath(body, "hits.total")); got != countGenre("g2") {
			t.Errorf("total = %s, want %s", got, countGenre("g2"))
		}
		if got := strings.Join(hitIDsOf(body), ","); got != "b02,b05,b08" {
			t.Errorf("ids = %s, want b02,b05,b08", got)
		}
	})

	t.Run("search template inline", func(t *testing.T) {
		code, body, _ := ecDecode(t, "inline")(es.SearchTemplate(strings.NewReader(
			`{"source":"{\"query\":{\"terms\":{\"genre\":{{#toJson}}genres{{/toJson}}}},\"size\":{{size}}}","params":{"genres":["g0","g1"],"size":0}}`),
			es.SearchTemplate.WithIndex("books"), es.SearchTemplate.WithContext(ctx)))
		if code != 200 {
			t.Fatalf("inline = %d %v", code, body)
		}
		g0, _ := strconv.Atoi(countGenre("g0"))
		g1, _ := strconv.Atoi(countGenre("g1"))
		want := strconv.Itoa(g0 + g1)
		if got := str(jsonPath(body, "hits.total.value")); got != want {
			t.Errorf("total = %s, want %s", got, want)
		}
		code, body, _ = ecDecode(t, "missing template")(es.SearchTemplate(strings.NewReader(`{"id":"nope"}`), es.SearchTemplate.WithContext(ctx)))
		if code != 404 || jsonPath(body, "error.type") != "resource_not_found_exception" {
			t.Errorf("missing template = %d %v", code, body)
		}
	})

	t.Run("render search template", func(t *testing.T) {
		code, _, raw := ecDecode(t, "render by id")(es.RenderSearchTemplate(es.RenderSearchTemplate.WithTemplateID("range_tpl"),
			es.RenderSearchTemplate.WithBody(strings.NewReader(`{"params":{"from":2020}}`)), es.RenderSearchTemplate.WithContext(ctx)))
		if code != 200 || string(raw) != `{"template_output":{"query":{"range":{"year":{"gte":2020}}}}}` {
			t.Errorf("render by id = %d %s", code, raw)
		}
		code, _, raw = ecDecode(t, "render inline")(es.RenderSearchTemplate(es.RenderSearchTemplate.WithBody(strings.NewReader(
			`{"source":{"query":{"match":{"title":"{{q}}"}}},"params":{"q":"say \"hi\""}}`)), es.RenderSearchTemplate.WithContext(ctx)))
		if code != 200 || string(raw) != `{"template_output":{"query":{"match":{"title":"say \"hi\""}}}}` {
			t.Errorf("render inline = %d %s", code, raw)
		}
	})

	t.Run("msearch template", func(t *testing.T) {
		code, body, _ := ecDecode(t, "msearch template")(es.MsearchTemplate(strings.NewReader(ndjson(
			`{"index":"books"}`, `{"id":"by_genre","params":{"genre":"g0","size":1}}`,
			`{"index":"books"}`, `{"id":"nope"}`,
			`{"index":"books"}`, `{"source":{"query":{"range":{"year":{"lt":"{{y}}"}}}},"params":{"y":2003}}`,
		)), es.MsearchTemplate.WithRestTotalHitsAsInt(true), es.MsearchTemplate.WithContext(ctx)))
		if code != 200 {
			t.Fatalf("msearch template = %d %v", code, body)
		}
		if got := str(jsonPath(body, "responses.0.hits.total")); got != countGenre("g0") {
			t.Errorf("responses.0 total = %s", got)
		}
		if got := str(jsonPath(body, "responses.1.status")); got != "404" {
			t.Errorf("responses.1 status = %s", got)
		}
		if got := str(jsonPath(body, "responses.2.hits.total")); got != "3" {
			t.Errorf("responses.2 total = %s, want 3", got)
		}
	})

	t.Run("delete script", func(t *testing.T) {
		code, body, _ := ecDecode(t, "delete")(es.DeleteScript("by_genre", es.DeleteScript.WithContext(ctx)))
		if code != 200 {
			t.Fatalf("delete = %d %v", code, body)
		}
		code, body, _ = ecDecode(t, "get deleted")(es.GetScript("by_genre", es.GetScript.WithContext(ctx)))
		if code != 404 || str(body["found"]) != "false" {
			t.Errorf("get deleted = %d %v", code, body)
		}
	})

	if len(hc.missing) > 0 {
		t.Errorf("responses without X-Elastic-Product: %v", hc.missing)
	}
}

func pad2(i int) string {
	if i < 10 {
		return "0" + strconv.Itoa(i)
	}
	return strconv.Itoa(i)
}
