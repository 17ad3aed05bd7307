// Package handlers is the HTTP adapter: it implements the generated server
// interfaces over the search core, validates requests against the OpenAPI
// documents and renders every error the way Elasticsearch does.
package handlers

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	asgen "github.com/quarry-search/quarry/gen/appsearch"
	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/appsearch"
	"github.com/quarry-search/quarry/searchcore/security"
)

// Version is the Elasticsearch version this node reports.
const Version = "7.17.0"

// Options configure the HTTP server.
type Options struct {
	// Logger receives request errors; nil discards.
	Logger *slog.Logger
	// MaxContentLength bounds request bodies (http.max_content_length);
	// 0 means 100mb.
	MaxContentLength int64
	// AppSearch serves the App Search API under /api/as/v1 (nil: not served).
	AppSearch *appsearch.Service
	// SuperuserAuth checks a Basic Authorization header for the cluster
	// superuser, who may call every App Search endpoint (nil: Basic auth is
	// refused there).
	SuperuserAuth SuperuserAuthFunc
	// AppSearchOnly serves only the App Search API (the appsearch.port
	// listener).
	AppSearchOnly bool
	// Security authenticates every request of the cluster API and enforces
	// the privileges each operation declares; nil turns security off
	// (ext.security.enabled: false) and every request is then the
	// anonymous superuser.
	Security *security.Service
	// HTTPTLS reports that HTTP is served over TLS; Production that the
	// node is bound to a non-loopback address. Production without TLS
	// blocks the service account APIs and tokens.
	HTTPTLS    bool
	Production bool
	// BreakerMemory is the memory the circuit breakers' limits are
	// fractions of (0: the machine's memory).
	BreakerMemory int64
	// Pprof serves GET /_quarry/pprof/{profile} (setting ext.pprof.enabled);
	// when false those requests answer 404.
	Pprof bool
	// Spec is the cluster OpenAPI document being loaded by LoadSpec; nil
	// loads it in NewServer. Loading it early, while the store and the
	// engine open, shortens start-up.
	Spec *Spec
}

// Spec is the parsed cluster and App Search OpenAPI documents (the
// request validators' source), loaded in the background by LoadSpec.
type Spec struct {
	cluster, appSearch *pendingDoc
}

// pendingDoc is a document being parsed in the background.
type pendingDoc struct {
	done chan struct{}
	doc  *openapi3.T
	err  error
}

// loadDoc starts parsing the embedded document raw returns.
func loadDoc(raw func() ([]byte, error)) *pendingDoc {
	p := &pendingDoc{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.doc, p.err = loadEmbedded(raw)
	}()
	return p
}

// wait returns the parsed document.
func (p *pendingDoc) wait() (*openapi3.T, error) {
	<-p.done
	return p.doc, p.err
}

// LoadSpec starts parsing the embedded cluster and App Search OpenAPI
// documents (in parallel) and returns at once; NewServer waits for them.
func LoadSpec() *Spec {
	return &Spec{cluster: loadDoc(cluster.GetSpecJSON), appSearch: loadDoc(asgen.GetSpecJSON)}
}

// Server implements the cluster API over the search core.
type Server struct {
	core *searchcore.Engine
	sec  *security.Service
	log  *slog.Logger
	opts Options
	// specJSON is the served document, encoded on first request.
	specJSON func() ([]byte, error)
	// stats measures connections, request classes and breakers.
	stats *requestStats
}

var _ cluster.ServerInterface = (*Server)(nil)

// NewServer builds the whole HTTP stack (middleware, validation, routes,
// error rendering) used by both the binary and the tests.
func NewServer(core *searchcore.Engine, opts Options) (*echo.Echo, error) {
	if opts.Logger == nil {
		opts.Logger = discardLogger()
	}
	if opts.MaxContentLength <= 0 {
		opts.MaxContentLength = 100 << 20
	}
	if opts.Spec == nil {
		opts.Spec = LoadSpec()
	}
	doc, err := opts.Spec.cluster.wait()
	if err != nil {
		return nil, fmt.Errorf("load cluster spec: %w", err)
	}
	doc.Servers = nil
	privileges, err := loadPrivileges(doc)
	if err != nil {
		return nil, err
	}
	s := &Server{core: core, sec: opts.Security, log: opts.Logger, opts: opts, stats: newRequestStats(opts.BreakerMemory)}
	s.specJSON = sync.OnceValues(func() ([]byte, error) { return json.Marshal(doc) })
	e := echo.New()
	// Whoever serves e (the binary, tests) installs this hook to count
	// HTTP connections for _nodes/stats.
	e.Server.ConnState = s.stats.connState
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.errorHandler
	e.Pre(middleware.RemoveTrailingSlash())
	e.Pre(productHeader)
	e.Pre(normalizeContentType)
	e.Use(bodyLimit(opts.MaxContentLength))
	e.Use(responseShaping)
	e.Use(s.stats.track)
	if s.sec != nil {
		e.Use((&authorizer{sec: s.sec, core: core, ops: privileges, srv: s}).middleware)
	}
	e.Use(newValidator(doc).middleware)
	if !opts.AppSearchOnly {
		cluster.RegisterHandlers(e, s)
	}
	if opts.AppSearch != nil {
		if err := registerAppSearch(e, opts, s.log); err != nil {
			return nil, err
		}
	}
	routingErrors(e)
	appSearchErrors(e, s.log)
	return e, nil
}

// routingErrors replaces echo's 404 and 405 routing errors with
// Elasticsearch's: "no handler found" (400) and "Incorrect HTTP method" (405).
func routingErrors(e *echo.Echo) {
	allowed := map[string][]string{}
	for _, r := range e.Routes() {
		allowed[r.Path] = append(allowed[r.Path], r.Method)
	}
	prev := e.HTTPErrorHandler
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		if he, ok := err.(*echo.HTTPError); ok && he.Code == http.StatusNotFound && he.Internal == nil {
			err = &uriError{status: http.StatusBadRequest, msg: fmt.Sprintf("no handler found for uri [%s] and method [%s]", c.Request().RequestURI, c.Request().Method)}
		}
		if he, ok := err.(*echo.HTTPError); ok && he.Code == http.StatusMethodNotAllowed {
			methods := allowed[c.Path()]
			err = &uriError{
				status: http.StatusMethodNotAllowed,
				msg: fmt.Sprintf("Incorrect HTTP method for uri [%s] and method [%s], allowed: [%s]",
					c.Request().RequestURI, c.Request().Method, strings.Join(methods, ", ")),
				allow: strings.Join(methods, ","),
			}
		}
		prev(err, c)
	}
}

// appSearchErrors renders the errors raised before the App Search routes
// (body limits, unknown paths) the App Search way on its paths.
func appSearchErrors(e *echo.Echo, log *slog.Logger) {
	prev := e.HTTPErrorHandler
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		if isAppSearchPath(c.Request().URL.Path) && !c.Response().Committed {
			writeAppSearchError(c, err, log)
			return
		}
		prev(err, c)
	}
}

// Info answers GET / with the node and version information.
func (s *Server) Info(c echo.Context, _ cluster.InfoParams) error {
	return writeJSON(c, http.StatusOK, s.infoBody())
}

// Ping answers HEAD /.
func (s *Server) Ping(c echo.Context, _ cluster.PingParams) error {
	return c.NoContent(http.StatusOK)
}

func (s *Server) infoBody() orderedJSON {
	return orderedJSON{
		{"name", s.core.NodeName()},
		{"cluster_name", s.core.ClusterName()},
		{"cluster_uuid", s.core.ClusterUUID()},
		{"version", orderedJSON{
			{"number", Version},
			{"build_flavor", "default"},
			{"build_type", "tar"},
			{"build_hash", "quarry"},
			{"build_date", "2026-11-01T00:00:00.000000000Z"},
			{"build_snapshot", false},
			{"lucene_version", "8.11.1"},
			{"minimum_wire_compatibility_version", "6.8.0"},
			{"minimum_index_compatibility_version", "6.0.0-beta1"},
		}},
		{"tagline", "You Know, for Search"},
	}
}

// QuarryOpenapiCluster serves the cluster OpenAPI document.
func (s *Server) QuarryOpenapiCluster(c echo.Context, _ cluster.QuarryOpenapiClusterParams) error {
	b, err := s.specJSON()
	if err != nil {
		return searchcore.Internalf(err, "failed to encode the cluster spec")
	}
	return writeRaw(c, http.StatusOK, b)
}

// boolParam reads an Elasticsearch boolean parameter ("" and "true" are true).
func boolParam(p *cluster.EsBoolean, def bool) bool {
	if p == nil {
		return def
	}
	return *p != cluster.EsBooleanFalse
}

// str dereferences an optional string-like parameter.
func str[T ~string](p *T) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

// resolveOptions builds index resolution options from the common parameters.
func resolveOptions(ignoreUnavailable, allowNoIndices *cluster.EsBoolean, expand *[]cluster.ExpandWildcards, defAllowNo bool) (searchcore.ResolveOptions, error) {
	o := searchcore.ResolveOptions{
		IgnoreUnavailable: boolParam(ignoreUnavailable, false),
		AllowNoIndices:    boolParam(allowNoIndices, defAllowNo),
		ExpandOpen:        true,
	}
	if expand != nil && len(*expand) > 0 {
		parts := make([]string, len(*expand))
		for i, x := range *expand {
			parts[i] = string(x)
		}
		if err := o.ParseExpandWildcards(strings.Join(parts, ",")); err != nil {
			return o, err
		}
	}
	return o, nil
}

// shardsHeader is the _shards member of many responses.
type shardsHeader struct {
	Total      int  `json:"total"`
	Successful int  `json:"successful"`
	Skipped    *int `json:"skipped,omitempty"`
	Failed     int  `json:"failed"`
	// Failures are the grouped shard failures of a search or count.
	Failures []orderedJSON `json:"failures,omitempty"`
}

// searchShards is the _shards member of a search or count over n shards of
// which the failed ones answered with an exception.
func searchShards(n int, failed []searchcore.ShardFailure) shardsHeader {
	zero := 0
	return shardsHeader{Total: n, Successful: n - len(failed), Skipped: &zero, Failed: len(failed), Failures: shardFailuresJSON(failed)}
}
