package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/searchcore"
)

// javaExceptionTypes are causes that Elasticsearch does not count as root
// causes (they are not ElasticsearchExceptions).
var javaExceptionTypes = map[string]bool{
	"json_parse_exception":       true,
	"illegal_argument_exception": true,
	"number_format_exception":    true,
	"not_x_content_exception":    true,
	"illegal_state_exception":    true,
	"date_time_parse_exception":  true,
	"arithmetic_exception":       true,
}

// esErrorObject renders one error object with its extra members and cause.
func esErrorObject(e *searchcore.Error) orderedJSON {
	o := rootCauseObject(e)
	if e.CausedBy != nil {
		o = append(o, kvPair{"caused_by", esErrorObject(e.CausedBy)})
	}
	return o
}

// metaValue renders an error's metadata member. In the "header" member a
// header with one value is a string and one with several an array, as
// Elasticsearch renders them ("WWW-Authenticate": "Bearer ..." for an
// expired token, an array for the three challenges).
func metaValue(kv searchcore.KV) any {
	h, ok := kv.Value.(map[string][]string)
	if !ok || kv.Key != "header" {
		return kv.Value
	}
	out := make(map[string]any, len(h))
	for name, vals := range h {
		if len(vals) == 1 {
			out[name] = vals[0]
		} else {
			out[name] = vals
		}
	}
	return out
}

// rootCause returns the deepest cause that Elasticsearch would report.
func rootCause(e *searchcore.Error) *searchcore.Error {
	for e.CausedBy != nil && !javaExceptionTypes[e.CausedBy.Type] {
		e = e.CausedBy
	}
	return e
}

// rootCauseObject renders a root_cause entry: the error without its cause.
func rootCauseObject(rc *searchcore.Error) orderedJSON {
	o := orderedJSON{{"type", rc.Type}, {"reason", rc.Reason}}
	for _, kv := range rc.Meta {
		o = append(o, kvPair{kv.Key, metaValue(kv)})
	}
	return o
}

// esErrorBody renders the Elasticsearch error envelope.
func esErrorBody(e *searchcore.Error, status int) orderedJSON {
	if len(e.Shards) > 0 {
		return searchPhaseErrorBody(e, status)
	}
	return orderedJSON{
		{"error", append(orderedJSON{{"root_cause", []any{rootCauseObject(rootCause(e))}}}, esErrorObject(e)...)},
		{"status", status},
	}
}

// shardRootCause is ElasticsearchException.guessRootCauses of a shard's
// exception: its deepest Elasticsearch cause, or for a plain Java exception
// (illegal_argument_exception, ...) a wrapper named after it whose cause it
// is.
func shardRootCause(e *searchcore.Error) *searchcore.Error {
	if javaExceptionTypes[e.Type] {
		return &searchcore.Error{Code: e.Code, Type: e.Type, Reason: e.Reason, CausedBy: e}
	}
	return rootCause(e)
}

// searchPhaseErrorBody renders a search_phase_execution_exception (every
// shard failed) as SearchPhaseExecutionException does: a root cause and a
// failed_shards entry per group of equal failures, caused_by the first
// failure's root cause.
func searchPhaseErrorBody(e *searchcore.Error, status int) orderedJSON {
	grouped := searchcore.GroupShardFailures(e.Shards)
	roots := make([]any, 0, len(grouped))
	failed := make([]orderedJSON, 0, len(grouped))
	for _, f := range grouped {
		roots = append(roots, rootCauseObject(shardRootCause(f.Cause)))
		failed = append(failed, shardFailureJSON(f))
	}
	return orderedJSON{
		{"error", orderedJSON{
			{"root_cause", roots},
			{"type", e.Type},
			{"reason", e.Reason},
			{"phase", e.Phase},
			{"grouped", true},
			{"failed_shards", failed},
			{"caused_by", esErrorObject(shardRootCause(e.Shards[0].Cause))},
		}},
		{"status", status},
	}
}

// shardFailuresJSON renders shard failures grouped by index and exception
// (failed_shards, _shards.failures); nil when there are none.
func shardFailuresJSON(fs []searchcore.ShardFailure) []orderedJSON {
	var out []orderedJSON
	for _, f := range searchcore.GroupShardFailures(fs) {
		out = append(out, shardFailureJSON(f))
	}
	return out
}

// shardFailureJSON renders one (grouped) shard failure.
func shardFailureJSON(f searchcore.ShardFailure) orderedJSON {
	return orderedJSON{{"shard", f.Shard}, {"index", f.Index}, {"node", f.Node}, {"reason", esErrorObject(f.Cause)}}
}

// toDomainError converts any error that reaches the error handler into a
// domain error and its HTTP status.
func toDomainError(err error) (*searchcore.Error, int) {
	if e, ok := searchcore.AsError(err); ok {
		return e, searchcore.HTTPStatus(e.Code)
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		if inner, ok := searchcore.AsError(he.Internal); ok {
			return inner, searchcore.HTTPStatus(inner.Code)
		}
		msg := fmt.Sprint(he.Message)
		var reqErr *openapi3filter.RequestError
		if errors.As(he.Internal, &reqErr) {
			msg = requestErrorReason(reqErr)
		}
		switch he.Code {
		case http.StatusRequestEntityTooLarge:
			return searchcore.Errorf(searchcore.TooLarge, "content_too_long_exception", "%s", msg), he.Code
		case http.StatusUnsupportedMediaType:
			return searchcore.Errorf(searchcore.Invalid, "media_type_header_exception", "%s", msg), http.StatusNotAcceptable
		}
		if he.Code >= 500 {
			return searchcore.Internalf(err, "internal error"), he.Code
		}
		return searchcore.IllegalArgument("%s", msg), he.Code
	}
	return searchcore.Internalf(err, "internal error"), http.StatusInternalServerError
}

// requestErrorReason turns a kin-openapi validation error into one line.
func requestErrorReason(e *openapi3filter.RequestError) string {
	msg := e.Error()
	if i := strings.IndexByte(msg, '\n'); i > 0 {
		msg = msg[:i]
	}
	return msg
}

// errorHandler is the single exit for errors of the cluster API.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	if uh, ok := err.(*uriError); ok {
		s.writeURIError(c, uh)
		return
	}
	e, status := s.clientError(err, "request failed", "method", c.Request().Method, "uri", c.Request().RequestURI)
	setErrorHeaders(c, e)
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	if err := writeJSON(c, status, esErrorBody(e, status)); err != nil {
		s.log.Warn("writing error response", "err", err)
	}
}

// setErrorHeaders copies an error's "header" member (WWW-Authenticate
// challenges, Retry-After) onto the response, as Elasticsearch does.
func setErrorHeaders(c echo.Context, e *searchcore.Error) {
	for _, kv := range e.Meta {
		if h, ok := kv.Value.(map[string][]string); ok && kv.Key == "header" {
			for name, vals := range h {
				if name == "Retry-After" {
					c.Response().Header().Set(name, vals[0])
					continue
				}
				for _, v := range vals {
					c.Response().Header().Add(name, v)
				}
			}
		}
	}
}

// clientError turns any error into what a client may see, with its status:
// a 5xx is logged at Error level with its cause and shown without it (an
// unexpected one with a generic reason), a 4xx is logged at Debug level.
// Every error exit (the handler, multi search entries, bulk items) uses it.
func (s *Server) clientError(err error, msg string, attrs ...any) (*searchcore.Error, int) {
	e, status := toDomainError(err)
	if status < 500 {
		s.log.Debug(msg, append(attrs, "status", status, "err", err)...)
		return e, status
	}
	s.log.Error(msg, append(attrs, "err", err)...)
	return publicError(e), status
}

// publicError is a server error as a client sees it: without its causes and
// metadata, an unexpected one with a generic reason; the failures of a
// search_phase_execution_exception are kept, server errors among them
// shown the same way.
func publicError(e *searchcore.Error) *searchcore.Error {
	p := &searchcore.Error{Code: e.Code, Type: e.Type, Reason: e.Reason, Phase: e.Phase}
	if p.Type == "exception" {
		p.Reason = "internal error; see the server log for details"
	}
	for _, f := range e.Shards {
		if searchcore.HTTPStatus(f.Cause.Code) >= 500 {
			f.Cause = publicError(f.Cause)
		}
		p.Shards = append(p.Shards, f)
	}
	return p
}

// uriError is the routing failure Elasticsearch reports with a string error.
type uriError struct {
	status int
	msg    string
	allow  string
}

func (u *uriError) Error() string { return u.msg }

func (s *Server) writeURIError(c echo.Context, u *uriError) {
	if u.allow != "" {
		c.Response().Header().Set("Allow", u.allow)
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(u.status)
		return
	}
	_ = writeJSON(c, u.status, orderedJSON{{"error", u.msg}, {"status", u.status}})
}

// kvPair is one member of an orderedJSON object.
type kvPair struct {
	K string
	V any
}

// orderedJSON is a JSON object that keeps member order when encoded.
type orderedJSON []kvPair

// MarshalJSON implements json.Marshaler.
func (o orderedJSON) MarshalJSON() ([]byte, error) {
	buf := make([]byte, 0, 64*len(o)+2)
	buf = append(buf, '{')
	for i, kv := range o {
		if i > 0 {
			buf = append(buf, ',')
		}
		kb, err := json.Marshal(kv.K)
		if err != nil {
			return nil, err
		}
		buf = append(buf, kb...)
		buf = append(buf, ':')
		vb, err := json.Marshal(kv.V)
		if err != nil {
			return nil, err
		}
		buf = append(buf, vb...)
	}
	return append(buf, '}'), nil
}

// discardLogger returns a logger that drops everything.
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
