package handlers_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
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
