package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/clients/clusterclient"
	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/handlers"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/appsearch"
	"github.com/quarry-search/quarry/searchcore/security"
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
	// Clock is the security clock of a secured node.
	Clock *fakeClock
	// Security is the security service of a secured node.
	Security *security.Service
	close    func()
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
	res, body, err := roundTripBuffered(v.base, req)
	if err != nil {
		return nil, err
	}
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
	validateResponse(v.t, router, req, vreq, res, body)
	return res, nil
}

// roundTripBuffered sends req and returns the response with its body read
// (and still readable by the caller).
func roundTripBuffered(rt http.RoundTripper, req *http.Request) (*http.Response, []byte, error) {
	res, err := rt.RoundTrip(req)
	if err != nil {
		return nil, nil, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	return res, body, nil
}

// validateResponse fails the test when the response to req does not match
// the spec operation vreq (req as the spec names it) routes to; unknown
// routes are answered like Elasticsearch / App Search, nothing to check.
func validateResponse(t testing.TB, router routers.Router, req, vreq *http.Request, res *http.Response, body []byte) {
	route, pathParams, err := router.FindRoute(vreq)
	if err != nil {
		return
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
		t.Errorf("%s %s: response %d does not match the spec: %v\nbody: %s", req.Method, req.URL.RequestURI(), res.StatusCode, err, truncate(body, 600))
	}
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

// nodeOptions opt a test node into features that are off by default.
type nodeOptions struct {
	// Security turns security on with the elastic user's password
	// elasticPassword, a fake clock and cheap bcrypt.
	Security bool
	// Clock is the security clock (a fresh fakeClock when nil).
	Clock *fakeClock
	// ServiceTokensFile, UsersFile, UsersRolesFile are the file stores.
	ServiceTokensFile, UsersFile, UsersRolesFile string
	// Production, HTTPTLS and Pprof are passed to the server options.
	Production, HTTPTLS, Pprof bool
	// BreakerMemory sizes the circuit breakers (0: the machine's memory).
	BreakerMemory int64
	// TokenTimeout is the access token lifetime (default 20m).
	TokenTimeout time.Duration
	// FailureBurst and FailureRefill configure the brute-force guard.
	FailureBurst  int
	FailureRefill time.Duration
	// Logger receives the server's log (nil discards it).
	Logger *slog.Logger
	// AppSearch also serves the App Search API (without rate limits), its
	// Basic auth checked by the security service.
	AppSearch bool
}

// elasticPassword is the elastic user's password on secured test nodes.
const elasticPassword = "test-elastic-pw"

// fakeClock is a settable clock for expiry tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)}
}

// Now returns the current fake time.
func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the clock forward.
func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

// newSecureTestNode starts a node with security on.
func newSecureTestNode(t testing.TB, o nodeOptions) *testNode {
	t.Helper()
	o.Security = true
	return openTestNodeWith(t, t.TempDir(), o)
}

// openTestNode starts a node on dir (reopening existing data).
func openTestNode(t testing.TB, dir string) *testNode {
	t.Helper()
	return openTestNodeWith(t, dir, nodeOptions{})
}

// openTestNodeWith starts a node on dir with options.
func openTestNodeWith(t testing.TB, dir string, o nodeOptions) *testNode {
	t.Helper()
	db, eng := openCore(t, dir)
	hopts := handlers.Options{MaxContentLength: 8 << 20, Production: o.Production, HTTPTLS: o.HTTPTLS, Pprof: o.Pprof, BreakerMemory: o.BreakerMemory, Logger: o.Logger}
	var clock *fakeClock
	if o.Security {
		clock = o.Clock
		if clock == nil {
			clock = newFakeClock()
		}
		sec, _, err := security.Open(context.Background(), security.Config{
			Store: db, Now: clock.Now, BootstrapPassword: elasticPassword, BcryptCost: bcrypt.MinCost,
			ServiceTokensFile: o.ServiceTokensFile, UsersFile: o.UsersFile, UsersRolesFile: o.UsersRolesFile,
			TokenTimeout: o.TokenTimeout, FailureBurst: o.FailureBurst, FailureRefill: o.FailureRefill,
		})
		if err != nil {
			eng.Close()
			db.Close()
			t.Fatalf("open security: %v", err)
		}
		hopts.Security = sec
		if o.AppSearch {
			svc, err := appsearch.New(context.Background(), appsearch.Config{Core: eng, Store: db, Now: clock.Now,
				RateLimits: appsearch.RateLimits{Default: -1, Endpoints: map[string]int{}}})
			if err != nil {
				t.Fatalf("app search: %v", err)
			}
			hopts.AppSearch, hopts.SuperuserAuth = svc, sec.AuthenticateSuperuser
		}
	}
	e, err := handlers.NewServer(eng, hopts)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	srv, closeAll := serveNode(t, e, eng, db)
	hc := &http.Client{Transport: &validatingTransport{t: t, base: http.DefaultTransport}}
	client, err := clusterclient.NewClientWithResponses(srv.URL, clusterclient.WithHTTPClient(hc))
	if err != nil {
		t.Fatalf("new client: %v", err)
	}
	return &testNode{t: t, URL: srv.URL, Client: client, HTTP: hc, Engine: eng, close: closeAll, Clock: clock, Security: hopts.Security}
}

// openCore opens the store and the search core of a node on dir.
func openCore(t testing.TB, dir string) (*store.DB, *searchcore.Engine) {
	t.Helper()
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
	return db, eng
}

// serveNode serves h over httptest and returns the server and the function
// that stops it and closes eng and db (also run at cleanup; both is fine).
func serveNode(t testing.TB, h http.Handler, eng *searchcore.Engine, db *store.DB) (*httptest.Server, func()) {
	srv := httptest.NewUnstartedServer(h)
	if e, ok := h.(*echo.Echo); ok {
		// Count connections for _nodes/stats like the binary does.
		srv.Config.ConnState = e.Server.ConnState
	}
	srv.Start()
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
	return srv, closeAll
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
	code, b, _ := n.rawAuth(method, path, "", contentType, body)
	return code, b
}

// rawAuth sends a request with an Authorization header (none when auth is
// empty) and returns the status, the body and the response headers.
func (n *testNode) rawAuth(method, path, auth, contentType, body string) (int, []byte, http.Header) {
	n.t.Helper()
	req, err := http.NewRequest(method, n.URL+path, strings.NewReader(body))
	if err != nil {
		n.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := n.HTTP.Do(req)
	if err != nil {
		n.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b, res.Header
}

// doAuth is do with an Authorization header; it also returns the headers.
func (n *testNode) doAuth(method, path, auth, body string) (int, map[string]any, http.Header) {
	n.t.Helper()
	ct := ""
	if body != "" {
		ct = "application/json"
	}
	code, b, h := n.rawAuth(method, path, auth, ct, body)
	if len(bytes.TrimSpace(b)) == 0 {
		return code, nil, h
	}
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		n.t.Fatalf("%s %s: invalid JSON %q: %v", method, path, b, err)
	}
	return code, out, h
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

// httpStep is one request of a scripted table test and its expected
// answer: the status, and the whole JSON body unless want is "".
type httpStep struct {
	name, method, path, body string
	status                   int
	want                     string
}

// runSteps sends each step in order (JSON bodies) and checks its answer;
// a wrong status stops the test.
func (n *testNode) runSteps(steps []httpStep) {
	n.t.Helper()
	for _, st := range steps {
		ct := ""
		if st.body != "" {
			ct = "application/json"
		}
		code, body := n.do(st.method, st.path, ct, st.body)
		if code != st.status {
			n.t.Fatalf("%s: %s %s status = %d, want %d: %s", st.name, st.method, st.path, code, st.status, str(body))
		}
		if st.want != "" {
			if got := str(body); got != st.want {
				n.t.Errorf("%s: %s %s\n got %s\nwant %s", st.name, st.method, st.path, got, st.want)
			}
		}
	}
}

// wantRootCause400 posts body to path and checks a 400 whose first root
// cause has type typ and reason reason (whether or not the error is
// wrapped as a shard failure).
func wantRootCause400(t *testing.T, n *testNode, path, body, typ, reason string) {
	t.Helper()
	code, out := n.do("POST", path, "application/json", body)
	if code != 400 {
		t.Fatalf("status = %d: %s", code, str(out))
	}
	if got := jsonPath(out, "error.root_cause.0.type"); got != typ {
		t.Errorf("root cause type = %v, want %s (%s)", got, typ, str(out))
	}
	if got := jsonPath(out, "error.root_cause.0.reason"); got != reason {
		t.Errorf("root cause reason = %v\nwant %s", got, reason)
	}
}
