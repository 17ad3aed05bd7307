// Package eserr is the Elasticsearch-style error type returned by the
// analysis and mapping packages.
//
// Those packages are imported by package searchcore, so they cannot import
// searchcore's own Error type without an import cycle. Error mirrors
// searchcore.Error field for field (same Code values), and its As method lets
// errors.As(err, &target) fill a *searchcore.Error target, so callers that
// look for *searchcore.Error find these errors unchanged. If searchcore
// declares `type Error = eserr.Error` the bridge is simply not needed.
package eserr

import (
	"fmt"
	"reflect"
)

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

// As fills a target that points to a pointer to a struct shaped like Error
// (searchcore.Error): fields Code (an integer kind), Type, Reason (strings),
// CausedBy (pointer to the same struct), Meta (slice of {Key, Value}) and Err.
func (e *Error) As(target any) bool {
	tv := reflect.ValueOf(target)
	if tv.Kind() != reflect.Pointer || tv.IsNil() {
		return false
	}
	pt := tv.Elem().Type()
	if pt.Kind() != reflect.Pointer || pt.Elem().Kind() != reflect.Struct || pt == reflect.TypeOf(e) {
		return false
	}
	if !shapeMatches(pt.Elem()) {
		return false
	}
	tv.Elem().Set(convert(e, pt))
	return true
}

func shapeMatches(st reflect.Type) bool {
	want := map[string]reflect.Kind{"Code": reflect.Int, "Type": reflect.String, "Reason": reflect.String, "CausedBy": reflect.Pointer}
	for name, kind := range want {
		f, ok := st.FieldByName(name)
		if !ok || f.Type.Kind() != kind {
			return false
		}
	}
	f, _ := st.FieldByName("CausedBy")
	return f.Type.Elem() == st
}

func convert(e *Error, pt reflect.Type) reflect.Value {
	v := reflect.New(pt.Elem())
	s := v.Elem()
	s.FieldByName("Code").SetInt(int64(e.Code))
	s.FieldByName("Type").SetString(e.Type)
	s.FieldByName("Reason").SetString(e.Reason)
	if e.CausedBy != nil {
		s.FieldByName("CausedBy").Set(convert(e.CausedBy, pt))
	}
	if f := s.FieldByName("Err"); f.IsValid() && e.Err != nil && reflect.TypeOf(e.Err).AssignableTo(f.Type()) {
		f.Set(reflect.ValueOf(e.Err))
	}
	if f := s.FieldByName("Meta"); f.IsValid() && f.Kind() == reflect.Slice && len(e.Meta) > 0 {
		et := f.Type().Elem()
		if et.Kind() == reflect.Struct {
			sl := reflect.MakeSlice(f.Type(), 0, len(e.Meta))
			for _, kv := range e.Meta {
				item := reflect.New(et).Elem()
				if k := item.FieldByName("Key"); k.IsValid() && k.Kind() == reflect.String {
					k.SetString(kv.Key)
				}
				if val := item.FieldByName("Value"); val.IsValid() && kv.Value != nil && reflect.TypeOf(kv.Value).AssignableTo(val.Type()) {
					val.Set(reflect.ValueOf(kv.Value))
				}
				sl = reflect.Append(sl, item)
			}
			f.Set(sl)
		}
	}
	return v
}
