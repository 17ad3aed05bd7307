package appsearch

import (
	"fmt"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Error types of App Search errors. The HTTP layer renders TypeErrors and
// TypeDecoding as {"errors":[...]} and TypeAuth/TypeRateLimit as
// {"error":"..."}. Following SPEC.md's error table, an endpoint-specific
// request error (TypeErrors with code eserr.Invalid: a missing or invalid
// parameter, a taken name, ...) is answered with status 200; a malformed
// request (TypeDecoding) with 400.
const (
	// TypeErrors is a request or resource error: {"errors": [...]}.
	TypeErrors = "app_search_errors"
	// TypeDecoding is a malformed body or malformed parameters: 400
	// {"errors":["decoding error, ensure request is valid"]}.
	TypeDecoding = "app_search_decoding"
	// TypeAuth is an authentication or authorisation error: {"error": "..."}.
	TypeAuth = "app_search_auth"
	// TypeRateLimit is a rate-limited request: 429 {"error": "..."}.
	TypeRateLimit = "app_search_rate_limit"
)

// Messages shared with the HTTP layer and the search side.
const (
	MsgEngineNotFound = "Could not find engine."
	MsgInvalidToken   = "invalid authentication token"
	MsgUnauthorized   = "Unauthorized action."
	MsgDecoding       = "decoding error, ensure request is valid"
	MsgRateLimited    = "rate limit exceeded"
	MsgEmptyJSON      = "JSON must not be empty"
)

// Errors builds an App Search error with one or more messages; code picks
// the HTTP status (eserr.Invalid: 200 with the errors, as an endpoint-specific
// request error; eserr.NotFound 404, eserr.TooLarge 413, ...).
func Errors(code eserr.Code, msgs ...string) *eserr.Error {
	e := &eserr.Error{Code: code, Type: TypeErrors}
	if len(msgs) > 0 {
		e.Reason = msgs[0]
	}
	return e.With("errors", msgs)
}

// Errorf is Errors with one formatted message.
func Errorf(code eserr.Code, format string, args ...any) *eserr.Error {
	return Errors(code, fmt.Sprintf(format, args...))
}

// DecodingError is the malformed-request error (400).
func DecodingError() *eserr.Error {
	return (&eserr.Error{Code: eserr.Invalid, Type: TypeDecoding, Reason: MsgDecoding}).With("errors", []string{MsgDecoding})
}

// RequestFailed reports whether an error is an endpoint-specific request
// error, which App Search answers with status 200 {"errors":[...]}.
func RequestFailed(e *eserr.Error) bool {
	return e.Type == TypeErrors && e.Code == eserr.Invalid
}

// EngineNotFound is 404 {"errors":["Could not find engine."]}.
func EngineNotFound() *eserr.Error { return Errors(eserr.NotFound, MsgEngineNotFound) }

// AuthError is a 400 {"error": msg} (SPEC.md: a wrong or malformed key is a
// 400, not the real product's 401).
func AuthError(msg string) *eserr.Error {
	return &eserr.Error{Code: eserr.Invalid, Type: TypeAuth, Reason: msg}
}

// ForbiddenError is a 403 {"error": msg}: a valid key lacking the right.
func ForbiddenError(msg string) *eserr.Error {
	return &eserr.Error{Code: eserr.Forbidden, Type: TypeAuth, Reason: msg}
}

// Messages returns the messages of an App Search error (its Reason when it
// carries no list).
func Messages(e *eserr.Error) []string {
	for _, kv := range e.Meta {
		if kv.Key == "errors" {
			if l, ok := kv.Value.([]string); ok {
				return l
			}
		}
	}
	return []string{e.Reason}
}
