package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/quarry-search/quarry/clients/appsearchclient"
	"github.com/quarry-search/quarry/searchcore"
)

func TestAppSearchEngines(t *testing.T) {
	n := newASNode(t, asOptions{})
	ctx := context.Background()
	c := n.client(superuserBasic)

	// Create through the generated client.
	lang := appsearchclient.EngineLanguage("en")
	res, err := c.CreateEngineWithResponse(ctx, nil, appsearchclient.EngineCreateRequest{Name: ptr("movies"), Language: &lang})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != 200 || canon(t, string(res.Body)) != `{"document_count":0,"index_create_settings_override":{},"language":"en","name":"movies","type":"default"}` {
		t.Fatalf("create = %d %s", res.StatusCode(), res.Body)
	}
	// The ?name= form of older clients.
	if code, body := n.su("POST", "/engines?name=books", "{}"); code != 200 || canon(t, body) != `{"document_count":0,"index_create_settings_override":{},"language":null,"name":"books","type":"default"}` {
		t.Fatalf("create by query = %d %s", code, body)
	}
	for _, tc := range []struct {
		name, body string
		code       int
		want       string
	}{
		{"taken", `{"name":"movies"}`, 200, `{"errors":["Name is already taken"]}`},
		{"missing name", `{}`, 200, `{"errors":["Name is required"]}`},
		{"bad name", `{"name":"Bad Name"}`, 200, `{"errors":["Name can only contain lowercase letters, numbers, and hyphens"]}`},
		{"bad language", `{"name":"x","language":"xx"}`, 200, `{"errors":["Language 'xx' is not supported"]}`},
		{"meta without sources", `{"name":"m","type":"meta"}`, 200, `{"errors":["Source engines are required for meta engines"]}`},
		{"meta unknown source", `{"name":"m","type":"meta","source_engines":["nope"]}`, 200, `{"errors":["Source engine does not exist: nope"]}`},
		{"unknown option", `{"name":"x","colour":"red"}`, 200, `{"errors":["Options contains invalid key: colour"]}`},
		{"bad revision", `{"name":"x","revision":"middle"}`, 200, `{"errors":["Revision must be one of: earlier, later"]}`},
		{"meta", `{"name":"all","type":"meta","source_engines":["movies","books"]}`, 200, `{"document_count":0,"index_create_settings_override":{},"language":null,"name":"all","source_engines":["movies","books"],"type":"meta"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.su("POST", "/engines", tc.body)
			if code != tc.code || canon(t, body) != canon(t, tc.want) {
				t.Errorf("POST /engines %s = %d %s, want %d %s", tc.body, code, body, tc.code, tc.want)
			}
		})
	}

	// List: paging with page[size] in the query and as a JSON body agree.
	_, q := n.su("GET", "/engines?page[size]=2&page[current]=2", "")
	_, b := n.su("GET", "/engines", `{"page":{"size":"2","current":2}}`)
	if q != b || canon(t, q) != `{"meta":{"page":{"current":2,"size":2,"total_pages":2,"total_results":3}},"results":[{"document_count":0,"index_create_settings_override":{},"language":"en","name":"movies","type":"default"}]}` {
		t.Errorf("list page 2 = %s / %s", q, b)
	}
	lres, err := c.ListEnginesWithResponse(ctx, &appsearchclient.ListEnginesParams{Page: &appsearchclient.PageRequest{Size: ptr(100)}}, appsearchclient.PagedRequest{})
	if err != nil || lres.JSON200 == nil {
		t.Fatalf("list = %v %s", err, lres.Body)
	}
	if l, err := lres.JSON200.AsEngineList(); err != nil || l.Meta.Page.Size != 25 || len(l.Results) != 3 {
		t.Errorf("list = %v %s", err, lres.Body)
	}

	// Meta engine sources: add, remove, errors.
	if code, body := n.su("POST", "/engines", `{"name":"music"}`); code != 200 {
		t.Fatal(body)
	}
	// The request errors of the client's typed answer.
	cres, err := c.CreateEngineWithResponse(ctx, nil, appsearchclient.EngineCreateRequest{Name: ptr("music")})
	if err != nil || cres.JSON200 == nil {
		t.Fatalf("create taken = %v %s", err, cres.Body)
	}
	if e, err := cres.JSON200.AsErrorsResponse(); err != nil || len(e.Errors) != 1 || e.Errors[0] != "Name is already taken" {
		t.Errorf("create taken = %v %s", err, cres.Body)
	}
	for _, tc := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"POST", "/engines/all/source_engines", `["music"]`, 200, `{"document_count":0,"index_create_settings_override":{},"language":null,"name":"all","source_engines":["movies","books","music"],"type":"meta"}`},
		{"DELETE", "/engines/all/source_engines", `["books","movies"]`, 200, `{"document_count":0,"index_create_settings_override":{},"language":null,"name":"all","source_engines":["music"],"type":"meta"}`},
		{"DELETE", "/engines/all/source_engines", `["music"]`, 200, `{"errors":["Source engines are required for meta engines"]}`},
		{"POST", "/engines/all/source_engines", `["all"]`, 200, `{"errors":["Source engine cannot be a meta engine: all"]}`},
		{"POST", "/engines/movies/source_engines", `["music"]`, 200, `{"errors":["Source engines can only be changed on meta engines"]}`},
		{"POST", "/engines/nope/source_engines", `["music"]`, 404, `{"errors":["Could not find engine."]}`},
		{"GET", "/engines/nope", ``, 404, `{"errors":["Could not find engine."]}`},
		{"DELETE", "/engines/nope", ``, 404, `{"errors":["Could not find engine."]}`},
		{"DELETE", "/engines/music", ``, 200, `{"deleted":true}`},
		{"GET", "/engines/all", ``, 200, `{"document_count":0,"index_create_settings_override":{},"language":null,"name":"all","source_engines":[],"type":"meta"}`},
	} {
		code, body := n.su(tc.method, tc.path, tc.body)
		if code != tc.code || canon(t, body) != canon(t, tc.want) {
			t.Errorf("%s %s %s = %d %s, want %d %s", tc.method, tc.path, tc.body, code, body, tc.code, tc.want)
		}
	}
	// The engine's hidden index is gone with it.
	if _, ok := n.Svc.Core().Index(".as-engine-music"); ok {
		t.Error("index of deleted engine still exists")
	}
	// The engine language picks the analyzer of its text fields (en stems).
	n.su("POST", "/engines/movies/documents", `[{"id":"1","title":"Running parks"}]`)
	e, _ := n.Svc.Engine("movies")
	idx, _ := n.Svc.CoreIndex(e)
	if got, err := n.Svc.Core().Count(ctx, []*searchcore.Index{idx}, json.RawMessage(`{"match":{"title":"park run"}}`), 0); err != nil || got.Count != 1 {
		t.Errorf("english analysis = %+v, %v", got, err)
	}
	gres, err := c.GetEngineWithResponse(ctx, "movies")
	if err != nil || gres.StatusCode() != http.StatusOK || gres.JSON200.Name != "movies" {
		t.Errorf("get = %v %s", err, gres.Body)
	}
}
