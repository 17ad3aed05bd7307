// Package eserr holds the one domain error type of the search core: an
// Elasticsearch exception with a code that maps to an HTTP status.
//
// It is a leaf package so that every core sub-package (analysis, mapping,
// query, ...) can return it without importing package searchcore, which
// imports them; searchcore re-exports it as searchcore.Error.
package eserr

import "fmt"

// Code classifies an Error; the values equal searchcore's Code constants.
type Code int

// Error codes, equal to searchcore.Internal, searchcore.Invalid, ...
const (
	// Internal is an unexpected failure (500).
	Internal Code = iota
	// Invalid is a malformed or semantically wrong request (400).
	Invalid
)

// Error is an Elasticsearch exception: Type is the exception name
// (mapper_parsing_exception), Reason the message, CausedBy the nested cause.
type Error struct {
	Code     Code
	Type     string
	Reason   string
	Meta     []KV
	CausedBy *Error
	Err      error
	// Phase and Shards are the search phase and shard failures of a
	// search_phase_execution_exception (see AllShardsFailed).
	Phase  string
	Shards []ShardFailure
}

// KV is one extra member of a rendered error.
type KV struct {
	Key   string
	Value any
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Type, e.Reason, e.Err)
	}
	return e.Type + ": " + e.Reason
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an Error of the given code and exception type.
func Errorf(code Code, typ, format string, args ...any) *Error {
	return &Error{Code: code, Type: typ, Reason: fmt.Sprintf(format, args...)}
}

// New builds an Invalid (400) error with a fixed reason.
func New(typ, reason string) *Error {
	return &Error{Code: Invalid, Type: typ, Reason: reason}
}

// IllegalArgument is illegal_argument_exception (400).
func IllegalArgument(format string, args ...any) *Error {
	return Errorf(Invalid, "illegal_argument_exception", format, args...)
}

// MapperParsing is mapper_parsing_exception (400).
func MapperParsing(format string, args ...any) *Error {
	return Errorf(Invalid, "mapper_parsing_exception", format, args...)
}

// Caused sets the nested cause and returns e.
func (e *Error) Caused(cause *Error) *Error {
	e.CausedBy = cause
	return e
}
