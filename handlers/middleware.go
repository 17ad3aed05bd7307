package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// commonParams are accepted on every operation (Elasticsearch's global
// parameters), handled here rather than by each handler.
var commonParams = map[string]bool{
	"pretty": true, "human": true, "error_trace": true, "filter_path": true,
	"source": true, "source_content_type": true,
}

// normalizeContentType maps the compatibility media types the official
// clients send onto the plain ones, and forces NDJSON on the NDJSON APIs
// (curl users post _bulk as application/json).
func normalizeContentType(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		ct := r.Header.Get(echo.HeaderContentType)
		if ct != "" {
			mt, params, err := mime.ParseMediaType(ct)
			if err != nil {
				return &uriError{status: http.StatusNotAcceptable, msg: fmt.Sprintf("Content-Type header [%s] is not supported", ct)}
			}
			switch mt {
			case "application/vnd.elasticsearch+json":
				mt = echo.MIMEApplicationJSON
			case "application/vnd.elasticsearch+x-ndjson":
				mt = "application/x-ndjson"
			}
			if v, ok := params["compatible-with"]; ok && v != "7" && v != "8" {
				return &uriError{status: http.StatusBadRequest, msg: fmt.Sprintf("A compatible version is required on both Content-Type and Accept headers if either one has requested a compatible version. Accept=%s, Content-Type=%s", r.Header.Get("Accept"), ct)}
			}
			r.Header.Set(echo.HeaderContentType, mt)
		}
		p := strings.TrimSuffix(r.URL.Path, "/")
		if strings.HasSuffix(p, "/_bulk") || p == "/_bulk" || strings.HasSuffix(p, "/_msearch") ||
			strings.HasSuffix(p, "/_msearch/template") {
			r.Header.Set(echo.HeaderContentType, "application/x-ndjson")
		} else if r.ContentLength != 0 && r.Header.Get(echo.HeaderContentType) == "" {
			// ES sniffs JSON bodies without a content type only when they
			// look like JSON; the generated wrappers need a type.
			r.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
		}
		// ?source=<body>&source_content_type=... carries a body in the URL.
		if src := r.URL.Query().Get("source"); src != "" && (r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody) {
			r.Body = io.NopCloser(strings.NewReader(src))
			r.ContentLength = int64(len(src))
			if ct := r.URL.Query().Get("source_content_type"); ct != "" {
				r.Header.Set(echo.HeaderContentType, ct)
			} else {
				r.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
			}
		}
		return next(c)
	}
}

// productHeader marks every response as coming from Elasticsearch so the
// official 7.14+ clients accept the server.
func productHeader(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set("X-Elastic-Product", "Elasticsearch")
		return next(c)
	}
}

// bodyLimit rejects bodies over http.max_content_length with 413.
func bodyLimit(max int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if r.ContentLength > max {
				return echo.NewHTTPError(http.StatusRequestEntityTooLarge,
					fmt.Sprintf("request body is too large: [%d] bytes > http.max_content_length [%d]", r.ContentLength, max))
			}
			if r.Body != nil {
				r.Body = &limitedBody{rc: r.Body, left: max, max: max}
			}
			return next(c)
		}
	}
}

// limitedBody fails reads past the limit with a 413 error.
type limitedBody struct {
	rc   io.ReadCloser
	left int64
	max  int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := l.rc.Read(one[:]); n > 0 {
			return 0, echo.NewHTTPError(http.StatusRequestEntityTooLarge,
				fmt.Sprintf("request body is too large: over http.max_content_length [%d] bytes", l.max))
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.rc.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *limitedBody) Close() error { return l.rc.Close() }

// readBody reads the whole request body (bounded by bodyLimit).
func readBody(c echo.Context) ([]byte, error) {
	r := c.Request()
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		if he, ok := err.(*echo.HTTPError); ok {
			return nil, he
		}
		return nil, err
	}
	// Put it back for anything reading after us.
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, nil
}

// responseShaping applies ?pretty and ?filter_path to JSON responses.
func responseShaping(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		q := c.Request().URL.Query()
		_, pretty := q["pretty"]
		if pretty && q.Get("pretty") == "false" {
			pretty = false
		}
		filter := q.Get("filter_path")
		if !pretty && filter == "" {
			return next(c)
		}
		res := c.Response()
		orig := res.Writer
		buf := &captureWriter{header: orig.Header(), status: 200}
		res.Writer = buf
		if err := next(c); err != nil {
			// Render the error now, into the buffer, so it is shaped too.
			c.Error(err)
		}
		res.Writer = orig
		body := buf.body.Bytes()
		if len(body) > 0 && strings.Contains(orig.Header().Get(echo.HeaderContentType), "json") {
			if filter != "" {
				if out, ferr := filterPath(body, filter); ferr == nil {
					body = out
				}
			}
			if pretty {
				var ind bytes.Buffer
				if json.Indent(&ind, body, "", "  ") == nil {
					ind.WriteByte('\n')
					body = ind.Bytes()
				}
			}
		}
		orig.Header().Set(echo.HeaderContentLength, strconv.Itoa(len(body)))
		orig.WriteHeader(buf.status)
		_, _ = orig.Write(body)
		return nil
	}
}

// captureWriter buffers a response so it can be rewritten.
type captureWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *captureWriter) Header() http.Header         { return w.header }
func (w *captureWriter) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *captureWriter) WriteHeader(code int)        { w.status = code }

// writeJSON writes v as JSON without HTML escaping (like Elasticsearch).
func writeJSON(c echo.Context, status int, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b := buf.Bytes()
	b = b[:len(b)-1]
	return c.Blob(status, "application/json; charset=UTF-8", b)
}

// writeRaw writes pre-encoded JSON.
func writeRaw(c echo.Context, status int, b []byte) error {
	return c.Blob(status, "application/json; charset=UTF-8", b)
}

// filterPath keeps only the members of a JSON document selected by
// Elasticsearch filter_path expressions (with * and ** wildcards and
// - exclusions).
func filterPath(body []byte, expr string) ([]byte, error) {
	var includes, excludes [][]string
	for _, p := range strings.Split(expr, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if strings.HasPrefix(p, "-") {
			excludes = append(excludes, strings.Split(p[1:], "."))
		} else {
			includes = append(includes, strings.Split(p, "."))
		}
	}
	v, err := decodeOrdered(body)
	if err != nil {
		return nil, err
	}
	if len(includes) > 0 {
		v, _ = filterValue(v, includes, true)
	}
	if len(excludes) > 0 {
		v, _ = filterValue(v, excludes, false)
	}
	if v == nil {
		v = orderedJSON{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// filterValue filters v by the patterns (each a list of path segments).
// With include true it keeps what matches; otherwise it drops what matches.
// The boolean reports whether anything is left.
func filterValue(v any, patterns [][]string, include bool) (any, bool) {
	switch t := v.(type) {
	case orderedJSON:
		var out orderedJSON
		for _, kv := range t {
			var next [][]string
			matchedFull := false
			for _, p := range patterns {
				for _, rest := range advance(p, kv.K) {
					if len(rest) == 0 {
						matchedFull = true
					} else {
						next = append(next, rest)
					}
				}
			}
			switch {
			case include && matchedFull:
				out = append(out, kv)
			case include && len(next) > 0:
				if sub, ok := filterValue(kv.V, next, true); ok {
					out = append(out, kvPair{kv.K, sub})
				}
			case !include && matchedFull:
				// dropped
			case !include && len(next) > 0:
				if sub, ok := filterValue(kv.V, next, false); ok {
					out = append(out, kvPair{kv.K, sub})
				}
			case !include:
				out = append(out, kv)
			}
		}
		if include && len(out) == 0 {
			return nil, false
		}
		return out, true
	case []any:
		var out []any
		for _, x := range t {
			if sub, ok := filterValue(x, patterns, include); ok {
				out = append(out, sub)
			}
		}
		if include && len(out) == 0 {
			return nil, false
		}
		if out == nil {
			out = []any{}
		}
		return out, true
	default:
		return v, !include
	}
}

// advance returns the remaining pattern segments after matching key.
func advance(p []string, key string) [][]string {
	if len(p) == 0 {
		return nil
	}
	if p[0] == "**" {
		out := [][]string{p} // ** keeps matching deeper
		out = append(out, advance(p[1:], key)...)
		if len(p) == 1 {
			out = append(out, []string{})
		}
		return out
	}
	if ok, _ := path.Match(p[0], key); ok || p[0] == key {
		return [][]string{p[1:]}
	}
	return nil
}

// decodeOrdered decodes JSON keeping object member order (orderedJSON).
func decodeOrdered(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return decodeOrderedValue(dec)
}

func decodeOrderedValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := orderedJSON{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrderedValue(dec)
				if err != nil {
					return nil, err
				}
				o = append(o, kvPair{kt.(string), v})
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeOrderedValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
	}
	return tok, nil
}
