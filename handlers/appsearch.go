package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	asgen "github.com/quarry-search/quarry/gen/appsearch"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/appsearch"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// AppSearchBase is the path prefix of the App Search API.
const AppSearchBase = "/api/as/v1"

// SuperuserAuthFunc reports whether an Authorization header (Basic) names
// the cluster superuser. Failures count against the client address source
// in the brute-force guard; an error is the guard's 429 (too many failures
// from source) or an internal failure.
type SuperuserAuthFunc func(ctx context.Context, authorizationHeader, source string) (bool, error)

// appSearchServer implements the App Search API over appsearch.Service.
type appSearchServer struct {
	svc       *appsearch.Service
	search    *appsearch.Searches
	superuser SuperuserAuthFunc
	log       *slog.Logger
	spec      func() ([]byte, error)
	// privileges are the operations' x-quarry-privileges by method and
	// route.
	privileges map[string]*asPrivileges
}

var _ asgen.ServerInterface = (*appSearchServer)(nil)

// asPrincipalKey is the echo context key of the authenticated caller.
const asPrincipalKey = "appsearch.principal"

// asPrincipal returns the caller authenticated by the App Search middleware.
func asPrincipal(c echo.Context) *appsearch.Principal {
	p, _ := c.Get(asPrincipalKey).(*appsearch.Principal)
	return p
}

// registerAppSearch adds the App Search API under /api/as/v1: CORS and the
// .json suffix (Pre), then gzip, App Search error rendering, authentication
// and rate limiting around the generated routes.
func registerAppSearch(e *echo.Echo, opts Options, log *slog.Logger) error {
	doc, err := opts.Spec.appSearch.wait()
	if err != nil {
		return fmt.Errorf("load app search spec: %w", err)
	}
	privileges, err := loadAppSearchPrivileges(doc)
	if err != nil {
		return err
	}
	// The served document is encoded on first request (start-up time).
	specJSON := sync.OnceValues(func() ([]byte, error) { return json.Marshal(doc) })
	h := &appSearchServer{
		svc: opts.AppSearch, search: appsearch.NewSearches(opts.AppSearch, nil),
		superuser: opts.SuperuserAuth, log: log, spec: specJSON, privileges: privileges,
	}
	e.Pre(appSearchPre)
	g := e.Group(AppSearchBase, middleware.GzipWithConfig(middleware.GzipConfig{MinLength: 0}), h.renderErrors, h.authenticate)
	asgen.RegisterHandlers(g, h)
	return nil
}

// isAppSearchPath reports whether a request path is under /api/as/v1.
func isAppSearchPath(p string) bool {
	return p == AppSearchBase || strings.HasPrefix(p, AppSearchBase+"/")
}

// corsAllowHeaders are the request headers browser clients send.
const corsAllowHeaders = "Authorization, Content-Type, X-Swiftype-Client, X-Swiftype-Client-Version, X-Swiftype-Integration, X-Swiftype-Integration-Version, x-elastic-client-meta"

// appSearchPre strips the .json suffix the browser clients add, answers
// CORS preflights and adds the CORS headers (the origin is echoed and
// credentials are allowed, as fetch(..., {credentials: "include"}) needs).
func appSearchPre(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if !isAppSearchPath(strings.TrimSuffix(r.URL.Path, ".json")) {
			return next(c)
		}
		if p := strings.TrimSuffix(r.URL.Path, "/"); strings.HasSuffix(p, ".json") && p != AppSearchBase+"/openapi.json" {
			r.URL.Path = strings.TrimSuffix(p, ".json")
			r.URL.RawPath = ""
		}
		h := c.Response().Header()
		h.Add(echo.HeaderVary, "Origin")
		if origin := r.Header.Get(echo.HeaderOrigin); origin != "" {
			h.Set(echo.HeaderAccessControlAllowOrigin, origin)
			h.Set(echo.HeaderAccessControlAllowCredentials, "true")
			h.Set(echo.HeaderAccessControlExposeHeaders, "X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After")
		}
		if r.Method == http.MethodOptions && r.Header.Get(echo.HeaderAccessControlRequestMethod) != "" {
			h.Set(echo.HeaderAccessControlAllowMethods, "GET, POST, PUT, PATCH, DELETE, OPTIONS")
			h.Set(echo.HeaderAccessControlAllowHeaders, corsAllowHeaders)
			h.Set(echo.HeaderAccessControlMaxAge, "86400")
			return c.NoContent(http.StatusNoContent)
		}
		return next(c)
	}
}

// asPrivileges is one App Search operation's x-quarry-privileges: the key
// access it needs (none, search, read, write, admin) and the rate-limit
// class its requests count against. Search endpoints accept search keys;
// credentials need an admin key; other reads need a private key with read,
// other changes one with write.
//
// Every operation of openapi/appsearch.yaml declares it (the server does not
// start otherwise), so new handlers on appSearchServer are authenticated,
// scoped to their engine and rate limited without further code; they read
// the caller with asPrincipal(c), merged parameters with readASRequest and
// return appsearch errors (appsearch.Errors, appsearch.EngineNotFound, ...).
type asPrivileges struct {
	Access string `json:"access"`
	Class  string `json:"class"`
	// public marks operations open without a key (access none).
	public bool
	level  appsearch.Access
}

// check validates one declaration and resolves its access level.
func (p *asPrivileges) check() string {
	switch p.Access {
	case "none":
		p.public = true
	case "search":
		p.level = appsearch.AccessSearch
	case "read":
		p.level = appsearch.AccessRead
	case "write":
		p.level = appsearch.AccessWrite
	case "admin":
		p.level = appsearch.AccessAdmin
	default:
		return fmt.Sprintf("unknown access [%s]: one of none, search, read, write, admin", p.Access)
	}
	if p.Class == "" {
		return "no rate-limit class"
	}
	return ""
}

// loadAppSearchPrivileges reads every App Search operation's declaration,
// keyed by method and echo route (under AppSearchBase).
func loadAppSearchPrivileges(doc *openapi3.T) (map[string]*asPrivileges, error) {
	return loadDeclarations(doc, "app search", AppSearchBase, (*asPrivileges).check)
}

// authenticate resolves the caller (Bearer key, or the superuser with
// Basic auth), checks the endpoint's access and engine scope, and counts
// the request against the caller's hourly budget.
func (h *appSearchServer) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		op, ok := routeEntry(h.privileges, c)
		if ok && op.public {
			return next(c)
		}
		p, err := h.principal(c)
		if err != nil {
			return err
		}
		if !ok {
			// Every route of the spec declares its privileges: this is an
			// unknown path or method, whose routing error follows.
			return next(c)
		}
		if err := p.Authorize(op.level, c.Param("engine_name")); err != nil {
			return err
		}
		d := h.svc.RateLimiter().Allow(p.ID(), op.Class)
		if d.Limited {
			hdr := c.Response().Header()
			hdr.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
			hdr.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
			if !d.Allowed {
				hdr.Set("Retry-After", strconv.Itoa(d.RetryAfterSeconds()))
				return &eserr.Error{Code: eserr.TooManyRequests, Type: appsearch.TypeRateLimit, Reason: appsearch.MsgRateLimited}
			}
		}
		c.Set(asPrincipalKey, p)
		return next(c)
	}
}

// principal authenticates the Authorization header.
func (h *appSearchServer) principal(c echo.Context) (*appsearch.Principal, error) {
	auth := c.Request().Header.Get(echo.HeaderAuthorization)
	scheme, cred, _ := strings.Cut(auth, " ")
	switch {
	case auth == "":
		return nil, &eserr.Error{Code: eserr.Unauthorized, Type: appsearch.TypeAuth, Reason: "You need to sign in or sign up before continuing."}
	case strings.EqualFold(scheme, "Bearer"):
		return h.svc.Authenticate(strings.TrimSpace(cred))
	case strings.EqualFold(scheme, "Basic") && h.superuser != nil:
		ok, err := h.superuser(c.Request().Context(), auth, sourceAddress(c.Request()))
		if e, limited := eserr.AsError(err); limited && e.Code == eserr.TooManyRequests {
			// The brute-force guard: App Search's 429, with Retry-After.
			setErrorHeaders(c, e)
			return nil, &eserr.Error{Code: eserr.TooManyRequests, Type: appsearch.TypeRateLimit, Reason: e.Reason}
		}
		if err != nil {
			return nil, err
		}
		if ok {
			return appsearch.SuperuserPrincipal(), nil
		}
	}
	return nil, appsearch.AuthError(appsearch.MsgInvalidToken)
}

// renderErrors renders every error of the App Search routes.
func (h *appSearchServer) renderErrors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		if err == nil || c.Response().Committed {
			return err
		}
		writeAppSearchError(c, err, h.log)
		return nil
	}
}

// writeAppSearchError renders an error the App Search way: {"error": "..."}
// for authentication and rate limiting, {"errors": [...]} otherwise.
func writeAppSearchError(c echo.Context, err error, log *slog.Logger) {
	status, body := appSearchErrorBody(err)
	if status >= 500 {
		log.Error("app search request failed", "method", c.Request().Method, "uri", c.Request().RequestURI, "err", err)
	} else {
		log.Debug("app search request failed", "status", status, "err", err)
	}
	if werr := writeJSON(c, status, body); werr != nil {
		log.Warn("writing error response", "err", werr)
	}
}

// appSearchErrorBody maps an error to its status and body.
func appSearchErrorBody(err error) (int, any) {
	var he *echo.HTTPError
	if errors.As(err, &he) && !isDomain(he.Internal) {
		switch he.Code {
		case http.StatusNotFound, http.StatusMethodNotAllowed:
			return http.StatusNotFound, map[string]any{"errors": []string{"Routing Error. The path you have requested is invalid."}}
		case http.StatusRequestEntityTooLarge:
			return he.Code, map[string]any{"errors": []string{"Request body is too large"}}
		case http.StatusBadRequest:
			return he.Code, map[string]any{"errors": []string{appsearch.MsgDecoding}}
		}
	}
	e, status := toDomainError(err)
	switch e.Type {
	case appsearch.TypeAuth, appsearch.TypeRateLimit:
		return status, map[string]any{"error": e.Reason}
	case appsearch.TypeErrors, appsearch.TypeDecoding:
		if appsearch.RequestFailed(e) {
			// SPEC.md: the request failed although the status is 200.
			status = http.StatusOK
		}
		return status, map[string]any{"errors": appsearch.Messages(e)}
	}
	if status >= 500 {
		return status, map[string]any{"errors": []string{"Internal server error"}}
	}
	return status, map[string]any{"errors": []string{e.Reason}}
}

func isDomain(err error) bool {
	_, ok := searchcore.AsError(err)
	return ok
}

// AppsearchOpenapi serves the App Search OpenAPI document.
func (h *appSearchServer) AppsearchOpenapi(c echo.Context) error {
	b, err := h.spec()
	if err != nil {
		return fmt.Errorf("encode app search spec: %w", err)
	}
	return writeRaw(c, http.StatusOK, b)
}
