package handlers_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/quarry-search/quarry/clients/appsearchclient"
	asgen "github.com/quarry-search/quarry/gen/appsearch"
	"github.com/quarry-search/quarry/handlers"
	"github.com/quarry-search/quarry/searchcore/appsearch"
)

var (
	asSpecOnce   sync.Once
	asSpecRouter routers.Router
	asSpecErr    error
)

func loadASSpec() (routers.Router, error) {
	asSpecOnce.Do(func() {
		var doc *openapi3.T
		doc, asSpecErr = asgen.GetSwagger()
		if asSpecErr != nil {
			return
		}
		doc.Servers = nil
		asSpecRouter, asSpecErr = gorillamux.NewRouter(doc)
	})
	return asSpecRouter, asSpecErr
}

// asValidatingTransport fails the test when an App Search response does not
// match openapi/appsearch.yaml (paths are matched without /api/as/v1).
type asValidatingTransport struct {
	t    testing.TB
	base http.RoundTripper
}

func (v *asValidatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, body, err := roundTripBuffered(v.base, req)
	if err != nil {
		return nil, err
	}
	if res.Header.Get("Content-Encoding") == "gzip" || req.Method == http.MethodOptions {
		return res, nil
	}
	router, err := loadASSpec()
	if err != nil {
		v.t.Fatalf("load spec: %v", err)
	}
	vreq := req.Clone(context.Background())
	vreq.URL.Path = strings.TrimPrefix(vreq.URL.Path, handlers.AppSearchBase)
	vreq.URL.Path = strings.TrimSuffix(strings.TrimSuffix(vreq.URL.Path, "/"), ".json")
	if strings.HasSuffix(req.URL.Path, "openapi.json") {
		vreq.URL.Path = "/openapi.json"
	}
	vreq.URL.RawPath = ""
	validateResponse(v.t, router, req, vreq, res, body)
	return res, nil
}

// asNode is a node serving the App Search API with a superuser
// (elastic:changeme through the fake SuperuserAuth hook).
type asNode struct {
	t     testing.TB
	URL   string // server root
	HTTP  *http.Client
	Svc   *appsearch.Service
	Clock *fakeClock
	dir   string
	close func()
}

// asOptions tune an asNode.
type asOptions struct {
	Revision   appsearch.Revision
	RateLimits appsearch.RateLimits
	Limits     appsearch.Limits
	NoHook     bool
}

const superuserBasic = "Basic ZWxhc3RpYzpjaGFuZ2VtZQ==" // elastic:changeme

func newASNode(t testing.TB, o asOptions) *asNode {
	t.Helper()
	return openASNode(t, t.TempDir(), o)
}

func openASNode(t testing.TB, dir string, o asOptions) *asNode {
	t.Helper()
	db, eng := openCore(t, dir)
	clock := newFakeClock()
	if o.RateLimits.Default == 0 {
		o.RateLimits.Default = -1
		o.RateLimits.Endpoints = map[string]int{}
	}
	svc, err := appsearch.New(context.Background(), appsearch.Config{Core: eng, Store: db, DefaultRevision: o.Revision, RateLimits: o.RateLimits, Limits: o.Limits, Now: clock.Now})
	if err != nil {
		t.Fatalf("app search: %v", err)
	}
	hook := func(_ context.Context, h, _ string) (bool, error) {
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "Basic "))
		return err == nil && string(raw) == "elastic:changeme", nil
	}
	opts := handlers.Options{MaxContentLength: 32 << 20, AppSearch: svc, SuperuserAuth: hook}
	if o.NoHook {
		opts.SuperuserAuth = nil
	}
	e, err := handlers.NewServer(eng, opts)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	srv, closeAll := serveNode(t, e, eng, db)
	hc := &http.Client{Transport: &asValidatingTransport{t: t, base: &http.Transport{DisableCompression: true}}}
	return &asNode{t: t, URL: srv.URL, HTTP: hc, Svc: svc, Clock: clock, dir: dir, close: closeAll}
}

// client returns the generated client authenticating with auth (a full
// Authorization header value; "" sends none).
func (n *asNode) client(auth string) *appsearchclient.ClientWithResponses {
	n.t.Helper()
	c, err := appsearchclient.NewClientWithResponses(n.URL+handlers.AppSearchBase, appsearchclient.WithHTTPClient(n.HTTP),
		appsearchclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			if auth != "" {
				r.Header.Set("Authorization", auth)
			}
			return nil
		}))
	if err != nil {
		n.t.Fatal(err)
	}
	return c
}

// req sends a raw request under /api/as/v1 and returns status, headers and body.
func (n *asNode) req(method, path, auth, contentType, body string, hdrs ...string) (int, http.Header, string) {
	n.t.Helper()
	r, err := http.NewRequest(method, n.URL+handlers.AppSearchBase+path, strings.NewReader(body))
	if err != nil {
		n.t.Fatal(err)
	}
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(hdrs); i += 2 {
		r.Header.Set(hdrs[i], hdrs[i+1])
	}
	res, err := n.HTTP.Do(r)
	if err != nil {
		n.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// su sends a JSON request as the superuser.
func (n *asNode) su(method, path, body string) (int, string) {
	n.t.Helper()
	ct := ""
	if body != "" {
		ct = "application/json"
	}
	code, _, b := n.req(method, path, superuserBasic, ct, body)
	return code, b
}

// key creates a key as the superuser and returns its Bearer header.
func (n *asNode) key(spec string) string {
	n.t.Helper()
	code, body := n.su("POST", "/credentials", spec)
	if code != 200 {
		n.t.Fatalf("create key %s: %d %s", spec, code, body)
	}
	var k struct{ Key string }
	if err := json.Unmarshal([]byte(body), &k); err != nil {
		n.t.Fatal(err)
	}
	return "Bearer " + k.Key
}

// canon re-encodes JSON compactly with sorted keys for exact comparisons.
func canon(t testing.TB, s string) string {
	t.Helper()
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("invalid JSON %q: %v", s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
