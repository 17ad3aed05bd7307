package eserr

import (
	"errors"
	"fmt"
)

// The remaining error codes (Internal and Invalid are declared beside Error).
const (
	// NotFound is a missing resource (404).
	NotFound Code = iota + 2
	// Conflict is a version or state conflict (409).
	Conflict
	// Unauthorized is a failed authentication (401).
	Unauthorized
	// Forbidden is an authenticated request lacking privileges (403).
	Forbidden
	// TooLarge is a request body over the configured limit (413).
	TooLarge
	// TooManyRequests is a rejected request because of a limit (429).
	TooManyRequests
	// MethodNotAllowed is a known path with an unsupported method (405).
	MethodNotAllowed
	// Unavailable is a temporarily unavailable service or timeout (503).
	Unavailable
	// RequestTimeout is a request that waited too long (408).
	RequestTimeout
)

// With returns e with an extra rendered member appended.
func (e *Error) With(key string, value any) *Error {
	e.Meta = append(e.Meta, KV{key, value})
	return e
}

// AsError finds an *Error in err's chain.
func AsError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// ParsingError is the parsing_exception used for malformed request bodies (400).
func ParsingError(format string, args ...any) *Error {
	return Errorf(Invalid, "parsing_exception", format, args...)
}

// ValidationError is the action_request_validation_exception (400); ES
// prefixes the reason with "Validation Failed: 1: " and ends each with ";".
func ValidationError(msgs ...string) *Error {
	reason := "Validation Failed: "
	for i, m := range msgs {
		reason += fmt.Sprintf("%d: %s;", i+1, m)
	}
	return Errorf(Invalid, "action_request_validation_exception", "%s", reason)
}

// IndexNotFound is the index_not_found_exception for the named index (404).
func IndexNotFound(name string) *Error {
	return Errorf(NotFound, "index_not_found_exception", "no such index [%s]", name).
		With("resource.type", "index_or_alias").With("resource.id", name).With("index_uuid", "_na_").With("index", name)
}

// IndexClosed is the index_closed_exception of a read or write on a closed
// index (400).
func IndexClosed(name, uuid string) *Error {
	return Errorf(Invalid, "index_closed_exception", "closed").With("index_uuid", uuid).With("index", name)
}

// IndexExists is the resource_already_exists_exception for an index (400).
func IndexExists(name, uuid string) *Error {
	return Errorf(Invalid, "resource_already_exists_exception", "index [%s/%s] already exists", name, uuid).
		With("index_uuid", uuid).With("index", name)
}

// InvalidIndexName is the invalid_index_name_exception (400).
func InvalidIndexName(name, why string) *Error {
	return Errorf(Invalid, "invalid_index_name_exception", "Invalid index name [%s], %s", name, why).
		With("index_uuid", "_na_").With("index", name)
}

// Internalf wraps an unexpected error.
func Internalf(err error, format string, args ...any) *Error {
	return &Error{Code: Internal, Type: "exception", Reason: fmt.Sprintf(format, args...), Err: err}
}
