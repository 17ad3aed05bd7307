package searchcore

import (
	"errors"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Error is the one domain error type (declared in the leaf package eserr so
// every core sub-package can return it without import cycles). Type carries
// the Elasticsearch exception name, Reason the message, Meta extra rendered
// members, CausedBy a nested cause and Err an underlying error that is
// logged but never shown.
type Error = eserr.Error

// Code classifies an Error; the handlers map each code to one HTTP status.
type Code = eserr.Code

// KV is one extra member of a rendered error.
type KV = eserr.KV

// Error codes.
const (
	Internal         = eserr.Internal
	Invalid          = eserr.Invalid
	NotFound         = eserr.NotFound
	Conflict         = eserr.Conflict
	Unauthorized     = eserr.Unauthorized
	Forbidden        = eserr.Forbidden
	TooLarge         = eserr.TooLarge
	TooManyRequests  = eserr.TooManyRequests
	MethodNotAllowed = eserr.MethodNotAllowed
	Unavailable      = eserr.Unavailable
	RequestTimeout   = eserr.RequestTimeout
)

// Constructors, re-exported from eserr.
var (
	Errorf           = eserr.Errorf
	AsError          = eserr.AsError
	IllegalArgument  = eserr.IllegalArgument
	ParsingError     = eserr.ParsingError
	MapperParsing    = eserr.MapperParsing
	ValidationError  = eserr.ValidationError
	IndexNotFound    = eserr.IndexNotFound
	IndexExists      = eserr.IndexExists
	IndexClosed      = eserr.IndexClosed
	InvalidIndexName = eserr.InvalidIndexName
	Internalf        = eserr.Internalf
)

// ErrNotFound is returned by store implementations when a key does not exist.
var ErrNotFound = errors.New("searchcore: not found")
