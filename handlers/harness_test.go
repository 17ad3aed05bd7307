package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/quarry-search/quarry/clients/clusterclient"
	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/handlers"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/store"
)

// testNode is a real server (badger + bluge in a temp folder) over httptest
// with the generated client, whose transport validates every response.
type testNode struct {
	t      testing.TB
	URL    string
	Client *clusterclient.ClientWithResponses
	// HTTP is a plain client with the same validating transport.
	HTTP   *http.Client
	Engine *searchcore.Engine
	close  func()
}

// Close stops the server and closes the engine and the store (cleanup
// does it too; calling both is fine).
func (n *testNode) Close() { n.close() }

var (
	specOnce   sync.Once
	specDoc    *openapi3.T
	specRouter routers.Router
	specErr    error
)

func loadSpec() (*openapi3.T, routers.Router, error) {
	specOnce.Do(func() {
		specDoc, specErr = cluster.GetSwagger()
		if specErr != nil {
			return
		}
		specDoc.Servers = nil
		specRouter, specErr = gorillamux.NewRouter(specDoc)
	})
	return specDoc, specRouter, specErr
}

// validatingTransport fails the test when a response does not match the
// OpenAPI document.
type validatingTransport struct {
	t    testing.TB
	base http.RoundTripper
}

func (v *validatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	res, err := v.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	if res.Header.Get("X-Elastic-Product") != "Elasticsearch" {
		v.t.Errorf("%s %s: missing X-Elastic-Product header", req.Method, req.URL.Path)
	}
	if req.URL.Query().Has("filter_path") {
		// filter_path removes members by design: the spec describes the
		// unfiltered responses, so there is nothing to validate against.
		return res, nil
	}
	_, router, err := loadSpec()
	if err != nil {
		v.t.Fatalf("load spec: %v", err)
	}
	vreq := req.Clone(context.Background())
	vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, pathParams, err := router.FindRoute(vreq)
	if err != nil {
		// Unknown routes are answered like Elasticsearch; nothing to check.
		return res, nil
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: vreq, PathParams: pathParams, Route: route,
			Options: &openapi3filter.Options{ExcludeRequestBody: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status:  res.StatusCode,
		Header:  res.Header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		v.t.Errorf("%s %s: response %d does not match the spec: %v\nbody: %s", req.Method, req.URL.RequestURI(), res.StatusCode, err, truncate(body, 600))
	}
	return res, nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// newTestNode starts a node on a fresh data folder.
func newTestNode(t testing.TB) *testNode {
	t.Helper()
	dir := t.TempDir()
	return openTestNode(t, dir)
}

// openTestNode starts a node on dir (reopening existing data).
func openTestNode(t testing.TB, dir string) *testNode {
	t.Helper()
	return openTestNodeWith(t, dir, handlers.Options{})
}

// openTestNodeWith starts a node on dir with server options (the body
// limit defaults to 8 MiB).
func openTestNodeWith(t testing.TB, dir string, opts handlers.Options) *testNode {
	t.Helper()
	if opts.MaxContentLength == 0 {
		opts.MaxContentLength = 8 << 20
	}
	db, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	eng, err := searchcore.Open(context.Background(), searchcore.Config{
		DataPath: dir, Storage: db, ClusterName: "test-cluster", NodeName: "node-1", AutoCreateIndex: true,
	})
	if err != nil {
		db.Close()
		t.Fatalf("open engine: %v", err)
	}
	e, err := handlers.NewServer(eng, opts)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	srv := httptest.NewServer(e)
	hc := &http.Client{Transport: &validatingTransport{t: t, base: http.DefaultTransport}}
	client, err := clusterclient.NewClientWithResponses(srv.URL, clusterclient.WithHTTPClient(hc))
	if err != nil {
		t.Fatalf("new client: %v", err)
	}
	var once sync.Once
	closeAll := func() {
		once.Do(func() {
			srv.Close()
			if err := eng.Close(); err != nil {
				t.Errorf("close engine: %v", err)
			}
			if err := db.Close(); err != nil {
				t.Errorf("close store: %v", err)
			}
		})
	}
	t.Cleanup(closeAll)
	return &testNode{t: t, URL: srv.URL, Client: client, HTTP: hc, Engine: eng, close: closeAll}
}

// do sends a raw request through the validating transport and decodes the
// JSON answer (nil for empty bodies).
func (n *testNode) do(method, path, contentType, body string) (int, map[string]any) {
	n.t.Helper()
	code, b := n.raw(method, path, contentType, body)
	if len(bytes.TrimSpace(b)) == 0 {
		return code, nil
	}
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		n.t.Fatalf("%s %s: invalid JSON %q: %v", method, path, b, err)
	}
	return code, out
}

// raw sends a request and returns the status and the body bytes.
func (n *testNode) raw(method, path, contentType, body string) (int, []byte) {
	n.t.Helper()
	req, err := http.NewRequest(method, n.URL+path, strings.NewReader(body))
	if err != nil {
		n.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := n.HTTP.Do(req)
	if err != nil {
		n.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// rawMember extracts the raw JSON of a dotted object path (member order kept).
func rawMember(body []byte, path string) string {
	cur := json.RawMessage(body)
	for _, p := range strings.Split(path, ".") {
		var m map[string]json.RawMessage
		if json.Unmarshal(cur, &m) != nil {
			return ""
		}
		cur = m[p]
	}
	return string(cur)
}

// jsonPath reads a dotted path (numbers index arrays) from decoded JSON.
func jsonPath(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		switch t := v.(type) {
		case map[string]any:
			v = t[p]
		case []any:
			i := 0
			for _, c := range p {
				i = i*10 + int(c-'0')
			}
			if i >= len(t) {
				return nil
			}
			v = t[i]
		default:
			return nil
		}
	}
	return v
}

// str renders a decoded JSON value for exact comparisons.
func str(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
