package handlers_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

func TestAppSearchTransport(t *testing.T) {
	n := newASNode(t, asOptions{})
	n.su("POST", "/engines", `{"name":"e"}`)
	n.su("POST", "/engines/e/documents", `[{"id":"1","t":"a"},{"id":"2","t":"b"},{"id":"3","t":"c"}]`)
	want := `{"meta":{"page":{"current":2,"total_pages":3,"total_results":3,"size":1}},"results":[{"t":"b","id":"2"}]}`
	for _, tc := range []struct{ name, method, path, ct, body string }{
		{"form", "GET", "/engines/e/documents/list?page[size]=1&page[current]=2", "", ""},
		{"encoded brackets", "GET", "/engines/e/documents/list?page%5Bsize%5D=1&page%5Bcurrent%5D=2", "", ""},
		{"GET with JSON body", "GET", "/engines/e/documents/list", "application/json", `{"page":{"size":1,"current":2}}`},
		{"numbers as strings", "POST", "/engines/e/documents/list", "application/json", `{"page":{"size":"1","current":"2"}}`},
		{"merged", "POST", "/engines/e/documents/list?page[size]=7", "application/json", `{"page":{"size":1,"current":2}}`},
		{".json suffix", "POST", "/engines/e/documents/list.json?page[size]=1&page[current]=2", "", ""},
		{"trailing slash", "GET", "/engines/e/documents/list/?page[size]=1&page[current]=2", "", ""},
		{"no content type", "POST", "/engines/e/documents/list", "", `{"page":{"size":1,"current":2}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := n.req(tc.method, tc.path, superuserBasic, tc.ct, tc.body)
			if code != 200 || body != want {
				t.Errorf("%s %s = %d %s, want %s", tc.method, tc.path, code, body, want)
			}
		})
	}
	// gzip on request.
	code, h, body := n.req("GET", "/engines/e/documents/list?page[size]=1&page[current]=2", superuserBasic, "", "", "Accept-Encoding", "gzip")
	if code != 200 || h.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip = %d %v", code, h)
	}
	zr, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	if string(plain) != want {
		t.Errorf("gunzipped = %s", plain)
	}
	if code, h, _ := n.req("GET", "/engines/e", superuserBasic, "", ""); code != 200 || h.Get("Content-Encoding") != "" {
		t.Errorf("no gzip asked = %v", h)
	}
	// CORS: the origin is echoed with credentials; preflights list the headers.
	code, h, _ = n.req("OPTIONS", "/engines/e/search.json", "", "", "",
		"Origin", "http://app.example", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "authorization,content-type,x-swiftype-client,x-swiftype-client-version,x-elastic-client-meta")
	if code != 204 || h.Get("Access-Control-Allow-Origin") != "http://app.example" || h.Get("Access-Control-Allow-Credentials") != "true" ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "X-Swiftype-Client-Version") || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "x-elastic-client-meta") ||
		!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("preflight = %d %v", code, h)
	}
	code, h, _ = n.req("GET", "/engines/e", superuserBasic, "", "", "Origin", "http://app.example")
	if code != 200 || h.Get("Access-Control-Allow-Origin") != "http://app.example" || h.Get("Access-Control-Allow-Credentials") != "true" || !strings.Contains(strings.Join(h.Values("Vary"), ","), "Origin") {
		t.Errorf("cors = %d %v", code, h)
	}
	// Errors carry CORS headers too (browsers read them).
	code, h, _ = n.req("GET", "/engines/nope", "Bearer bad", "", "", "Origin", "http://app.example")
	if code != 400 || h.Get("Access-Control-Allow-Origin") != "http://app.example" {
		t.Errorf("cors on error = %d %v", code, h)
	}
	// The spec is served without a key (and keeps its .json).
	code, _, body = n.req("GET", "/openapi.json", "", "", "")
	if code != 200 || !strings.HasPrefix(body, `{"components":`) || !strings.Contains(body, `"/engines/{engine_name}/documents"`) {
		t.Errorf("openapi.json = %d %.80s", code, body)
	}
	// The cluster API is untouched by the App Search rules.
	res, err := http.Get(n.URL + "/_cluster/health")
	if err != nil || res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("cluster = %v %v", err, res)
	}
	res.Body.Close()
}

func TestAppSearchRequestErrors(t *testing.T) {
	n := newASNode(t, asOptions{})
	n.su("POST", "/engines", `{"name":"e"}`)
	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		want                     string
	}{
		{"malformed JSON", "POST", "/engines", `{"name":`, 400, `{"errors":["decoding error, ensure request is valid"]}`},
		{"trailing garbage", "POST", "/engines", `{"name":"x"} {}`, 400, `{"errors":["decoding error, ensure request is valid"]}`},
		{"scalar body", "POST", "/engines", `"x"`, 400, `{"errors":["decoding error, ensure request is valid"]}`},
		{"malformed parameters", "GET", "/engines?page[size=1", ``, 400, `{"errors":["decoding error, ensure request is valid"]}`},
		{"bad percent encoding", "GET", "/engines?a=%zz", ``, 400, `{"errors":["decoding error, ensure request is valid"]}`},
		{"page not an object", "GET", "/engines?page=3", ``, 200, `{"errors":["Page must be an object"]}`},
		{"unknown page key", "GET", "/engines?page[bogus]=3", ``, 400, `{"errors":["decoding error, ensure request is valid"]}`},
		{"unknown page key in the body", "GET", "/engines", `{"page":{"bogus":3}}`, 200, `{"errors":["Page contains invalid key: bogus"]}`},
		{"unknown engine", "GET", "/engines/nope/schema", ``, 404, `{"errors":["Could not find engine."]}`},
		{"unknown route", "GET", "/engines/e/nothing/here", ``, 404, `{"errors":["Routing Error. The path you have requested is invalid."]}`},
		{"wrong method", "PUT", "/engines/e", `{}`, 404, `{"errors":["Routing Error. The path you have requested is invalid."]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := ""
			if tc.body != "" {
				ct = "application/json"
			}
			code, _, body := n.req(tc.method, tc.path, superuserBasic, ct, tc.body)
			if code != tc.code || body != tc.want {
				t.Errorf("%s %s = %d %s, want %d %s", tc.method, tc.path, code, body, tc.code, tc.want)
			}
		})
	}
	// Over http.max_content_length (32mb here): 413 in the App Search shape.
	big := bytes.Repeat([]byte("x"), 33<<20)
	req, _ := http.NewRequest("POST", n.URL+"/api/as/v1/engines/e/documents", bytes.NewReader(big))
	req.Header.Set("Authorization", superuserBasic)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 413 || string(b) != `{"errors":["Request body is too large"]}` {
		t.Errorf("oversize = %d %s", res.StatusCode, b)
	}
}

func TestAppSearchDurable(t *testing.T) {
	dir := t.TempDir()
	n := openASNode(t, dir, asOptions{Revision: "earlier"})
	key := n.key(`{"name":"k","type":"private","read":true,"write":true}`)
	n.su("POST", "/engines", `{"name":"e"}`)
	n.su("POST", "/engines", `{"name":"m","type":"meta","source_engines":["e"]}`)
	longID := strings.Repeat("l", 800) // past the core's 512 bytes (APPSEARCH.md §9)
	n.su("POST", "/engines/e/documents", `[{"id":"1","n":"5"},{"id":"`+longID+`","n":"6"}]`)
	n.su("POST", "/engines/e/schema", `{"n":"number"}`)
	n.close()
	n = openASNode(t, dir, asOptions{})
	for _, tc := range []struct{ path, want string }{
		{"/engines/e/documents?ids[]=1", `[{"n":"5","id":"1"}]`},
		{"/engines/e/schema", `{"n":"number"}`},
		{"/engines/e/documents?ids[]=" + longID, `[{"n":"6","id":"` + longID + `"}]`},
		{"/engines/m", `{"name":"m","type":"meta","language":null,"document_count":2,"index_create_settings_override":{},"source_engines":["e"]}`},
	} {
		if code, _, body := n.req("GET", tc.path, key, "", ""); code != 200 || body != tc.want {
			t.Errorf("after restart GET %s = %d %s, want %s", tc.path, code, body, tc.want)
		}
	}
	if e, _ := n.Svc.Engine("e"); e.Revision != "earlier" {
		t.Errorf("revision = %s", e.Revision)
	}
}

// TestAppSearchSearchEncodings sends one search (filters, facets, sort,
// boosts, result fields, page) as a JSON body, as bracketed parameters, as
// both merged, as GET with a body, with the .json suffix and a trailing
// slash, and with numbers as strings: the answers are identical but for
// the request id.
func TestAppSearchSearchEncodings(t *testing.T) {
	n := newASNode(t, asOptions{})
	n.su("POST", "/engines", `{"name":"e"}`)
	n.su("POST", "/engines/e/documents", `[{"id":"a","title":"hello world","n":5,"tags":["x","y"]},{"id":"b","title":"hello there","n":7,"tags":"x"},{"id":"c","title":"hello moon","n":10,"tags":"z"},{"id":"d","title":"bye","n":1,"tags":"x"}]`)
	n.su("POST", "/engines/e/schema", `{"n":"number"}`)
	requestID := regexp.MustCompile(`"request_id":"[0-9a-f-]{36}"`)
	strip := func(s string) string { return requestID.ReplaceAllString(s, `"request_id":""`) }

	const jsonBody = `{"query":"hello","filters":{"all":[{"tags":["x","z"]},{"n":{"from":2}}]},"facets":{"tags":{"type":"value","size":5}},` +
		`"sort":[{"n":"desc"}],"boosts":{"n":{"type":"functional","function":"linear","factor":2}},"result_fields":{"title":{"raw":{"size":20}},"n":{"raw":{}}},"search_fields":{"title":{}},"page":{"size":2,"current":1}}`
	// (Rack's rules start a new array element at a repeated key, so the
	// form spells the same filter as a top-level AND.)
	const form = `query=hello&filters[tags][]=x&filters[tags][]=z&filters[n][from]=2&facets[tags][type]=value&facets[tags][size]=5` +
		`&sort[][n]=desc&boosts[n][type]=functional&boosts[n][function]=linear&boosts[n][factor]=2&result_fields[title][raw][size]=20&result_fields[n][raw]=&search_fields[title]=&page[size]=2&page[current]=1`
	const want = `{"meta":{"alerts":[],"warnings":[],"precision":2,"page":{"current":1,"total_pages":2,"total_results":3,"size":2},"engine":{"name":"e","type":"default"},"request_id":""},` +
		`"results":[{"id":{"raw":"c"},"n":{"raw":10.0},"title":{"raw":"hello moon"},"_meta":{"id":"c","engine":"e","score":null}},{"id":{"raw":"b"},"n":{"raw":7.0},"title":{"raw":"hello there"},"_meta":{"id":"b","engine":"e","score":null}}],` +
		`"facets":{"tags":[{"type":"value","data":[{"value":"x","count":2},{"value":"y","count":1},{"value":"z","count":1}]}]}}`
	for _, tc := range []struct{ name, method, path, ct, body string }{
		{"JSON body", "POST", "/engines/e/search", "application/json", jsonBody},
		{"bracketed parameters", "POST", "/engines/e/search?" + form, "", ""},
		{"bracketed GET", "GET", "/engines/e/search?" + form, "", ""},
		{"merged", "POST", "/engines/e/search?query=hello&page[size]=2&sort[][n]=desc&search_fields[title]=", "application/json",
			`{"filters":{"all":[{"tags":["x","z"]},{"n":{"from":2}}]},"facets":{"tags":{"type":"value","size":5}},"boosts":{"n":{"type":"functional","function":"linear","factor":2}},"result_fields":{"title":{"raw":{"size":20}},"n":{"raw":{}}}}`},
		{"GET with a body", "GET", "/engines/e/search", "application/json", jsonBody},
		{".json suffix", "POST", "/engines/e/search.json", "application/json", jsonBody},
		{"trailing slash", "POST", "/engines/e/search/", "application/json", jsonBody},
		{"numbers as strings", "POST", "/engines/e/search", "application/json", strings.NewReplacer(`"size":5`, `"size":"5"`, `"factor":2`, `"factor":"2"`, `"size":20`, `"size":"20"`, `"size":2,"current":1`, `"size":"2","current":"1"`, `"from":2`, `"from":"2"`).Replace(jsonBody)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := n.req(tc.method, tc.path, superuserBasic, tc.ct, tc.body)
			if code != 200 || strip(body) != want {
				t.Errorf("%s %s = %d\n%s\nwant\n%s", tc.method, tc.path, code, body, want)
			}
		})
	}

	// Multi search and query suggestion take the same encodings.
	code, _, viaForm := n.req("GET", "/engines/e/multi_search.json?queries[][query]=moon&queries[][query]=bye&queries[][page][size]=1", superuserBasic, "", "")
	_, _, viaJSON := n.req("POST", "/engines/e/multi_search/", superuserBasic, "application/json", `{"queries":[{"query":"moon"},{"query":"bye","page":{"size":"1"}}]}`)
	if code != 200 || strip(viaForm) != strip(viaJSON) || !strings.Contains(viaForm, `"results":[{"id":{"raw":"d"}`) {
		t.Errorf("multi search form = %d %s\njson %s", code, viaForm, viaJSON)
	}
	code, _, viaForm = n.req("GET", "/engines/e/query_suggestion?query=hel&types[documents][fields][]=title&size=2", superuserBasic, "", "")
	_, _, viaJSON = n.req("POST", "/engines/e/query_suggestion", superuserBasic, "application/json", `{"query":"hel","types":{"documents":{"fields":["title"]}},"size":"2"}`)
	if code != 200 || strip(viaForm) != strip(viaJSON) || !strings.HasPrefix(viaForm, `{"results":{"documents":[{"suggestion":"hello`) {
		t.Errorf("suggestion form = %d %s\njson %s", code, viaForm, viaJSON)
	}
}
