package handlers

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/searchcore"
)

// opRoute is a spec operation precomputed for validation.
type opRoute struct {
	route *routers.Route
	// params are the declared query parameter names.
	params map[string]bool
}

// validator checks requests against an OpenAPI document, keyed on echo's
// matched route (no linear scan of the spec's paths per request).
type validator struct {
	routes map[string]*opRoute // METHOD + " " + echo path
	opts   *openapi3filter.Options
}

// echoPath turns /{index}/_doc/{id} into /:index/_doc/:id.
func echoPath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			parts[i] = ":" + s[1:len(s)-1]
		}
	}
	return strings.Join(parts, "/")
}

func newValidator(doc *openapi3.T) *validator {
	v := &validator{
		routes: map[string]*opRoute{},
		opts: &openapi3filter.Options{
			// Bodies are Elasticsearch DSL or documents: the core parses them
			// and answers with Elasticsearch's exact errors; parameters are
			// validated here.
			ExcludeRequestBody:  true,
			SkipSettingDefaults: true,
			AuthenticationFunc:  openapi3filter.NoopAuthenticationFunc,
			MultiError:          false,
		},
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			params := map[string]bool{}
			collect := func(ps openapi3.Parameters) {
				for _, p := range ps {
					if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
						params[p.Value.Name] = true
					}
				}
			}
			collect(item.Parameters)
			collect(op.Parameters)
			v.routes[method+" "+echoPath(path)] = &opRoute{
				route: &routers.Route{
					Spec:      doc,
					Path:      path,
					PathItem:  item,
					Method:    method,
					Operation: op,
				},
				params: params,
			}
		}
	}
	return v
}

// routeEntry returns m's entry for the request's method and matched route
// ("METHOD /path"); a HEAD request without one of its own uses its GET's.
func routeEntry[T any](m map[string]T, c echo.Context) (T, bool) {
	method := c.Request().Method
	e, ok := m[method+" "+c.Path()]
	if !ok && method == http.MethodHead {
		e, ok = m[http.MethodGet+" "+c.Path()]
	}
	return e, ok
}

// middleware validates the matched request.
func (v *validator) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		or, ok := routeEntry(v.routes, c)
		if !ok {
			return next(c)
		}
		// Unknown query parameters are an error in Elasticsearch.
		var unknown []string
		for name := range r.URL.Query() {
			if !or.params[name] && !commonParams[name] {
				unknown = append(unknown, name)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return unrecognizedParams(r.URL.Path, unknown)
		}
		pathParams := map[string]string{}
		for i, n := range c.ParamNames() {
			pathParams[n] = c.ParamValues()[i]
		}
		in := &openapi3filter.RequestValidationInput{
			Request:    r,
			PathParams: pathParams,
			Route:      or.route,
			Options:    v.opts,
		}
		if err := openapi3filter.ValidateRequest(r.Context(), in); err != nil {
			return searchcore.IllegalArgument("%s", validationReason(err))
		}
		return next(c)
	}
}

// unrecognizedParams is Elasticsearch's error for unknown URL parameters.
func unrecognizedParams(path string, names []string) error {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "[" + n + "]"
	}
	noun := "parameter"
	if len(names) > 1 {
		noun = "parameters"
	}
	return searchcore.IllegalArgument("request [%s] contains unrecognized %s: %s", path, noun, strings.Join(quoted, ", "))
}

// validationReason renders a kin-openapi error as one Elasticsearch-style line.
func validationReason(err error) string {
	if re, ok := err.(*openapi3filter.RequestError); ok {
		if re.Parameter != nil {
			reason := re.Err
			msg := ""
			if reason != nil {
				msg = reason.Error()
				if i := strings.IndexByte(msg, '\n'); i > 0 {
					msg = msg[:i]
				}
			}
			return fmt.Sprintf("Failed to parse value of parameter [%s]: %s", re.Parameter.Name, msg)
		}
		return requestErrorReason(re)
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i > 0 {
		msg = msg[:i]
	}
	return msg
}
