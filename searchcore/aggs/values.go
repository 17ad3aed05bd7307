package aggs

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/blugelabs/bluge/numeric"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
	"github.com/quarry-search/quarry/searchcore/query"
)

// valueKind is how a field's doc values are decoded.
type valueKind int

const (
	kindNone    valueKind = iota // unmapped field: no values
	kindNumeric                  // prefix-coded float64 (numbers, dates, booleans)
	kindKeyword                  // raw bytes (keyword)
)

// source reads one field's doc values from a DocumentMatch.
type source struct {
	field    string
	kind     valueKind
	date     bool
	boolean  bool
	integral bool
	format   string // date format for *_as_string
	// decimal renders a number with the aggregation's DecimalFormat
	// "format" (nil: no format, no *_as_string for numbers).
	decimal func(float64) string
	// missing is the replacement value for documents without values.
	hasMissing bool
	missingNum float64
	missingStr []byte
}

// newSource resolves field against the mapping for aggregation agg of type typ.
// numericOnly refuses keyword fields (numeric metrics and histograms).
func newSource(ctx *ctxMapping, p *params, numericOnly bool) (*source, error) {
	field, err := p.str("field", "")
	if err != nil {
		return nil, err
	}
	if field == "" {
		if p.has("script") {
			return nil, eserr.IllegalArgument("scripts are not supported: aggregation [%s] must use a field", p.agg)
		}
		return nil, eserr.IllegalArgument("Required one of fields [field, script], but none were specified.")
	}
	s := &source{field: field}
	f := ctx.lookup(field)
	if f != nil {
		switch f.Type {
		case mapping.TypeText:
			return nil, eserr.IllegalArgument("Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [%s] in order to load field data by uninverting the inverted index. Note that this can use significant memory.", field)
		case mapping.TypeKeyword:
			if numericOnly {
				return nil, eserr.IllegalArgument("Field [%s] of type [keyword] is not supported for aggregation [%s]", field, p.typ)
			}
			s.kind = kindKeyword
		case mapping.TypeDate, mapping.TypeDateNanos:
			s.kind, s.date, s.integral = kindNumeric, true, true
			s.format = f.Format
		case mapping.TypeBoolean:
			s.kind, s.boolean, s.integral = kindNumeric, true, true
		case mapping.TypeLong, mapping.TypeInteger, mapping.TypeShort, mapping.TypeByte, mapping.TypeUnsignedLong:
			s.kind, s.integral = kindNumeric, true
		case mapping.TypeDouble, mapping.TypeFloat, mapping.TypeHalfFloat, mapping.TypeScaledFloat:
			s.kind = kindNumeric
		default:
			return nil, eserr.IllegalArgument("Field [%s] of type [%s] is not supported for aggregation [%s]", field, f.Type, p.typ)
		}
		if f.DocValues != nil && !*f.DocValues {
			return nil, eserr.IllegalArgument("Can't load fielddata on [%s] because fielddata is unsupported on fields of type [%s]. Use doc values instead.", field, f.Type)
		}
	}
	if fm, err := p.str("format", ""); err != nil {
		return nil, err
	} else if fm != "" && s.date {
		s.format = fm
	} else if fm != "" && s.kind == kindNumeric && !s.boolean {
		if s.decimal, err = mapping.DecimalFormatter(fm); err != nil {
			return nil, err
		}
	}
	if r := p.raw("missing"); r != nil && string(r) != "null" {
		s.hasMissing = true
		if err := s.parseMissing(r); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// parseMissing converts the "missing" parameter to the field's value space.
func (s *source) parseMissing(r json.RawMessage) error {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(r)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return eserr.ParsingError("[missing] failed to parse")
	}
	str := ""
	switch x := v.(type) {
	case string:
		str = x
	case json.Number:
		str = x.String()
	case bool:
		str = strconv.FormatBool(x)
	default:
		return eserr.ParsingError("[missing] must be a value")
	}
	switch {
	case s.kind == kindKeyword || s.kind == kindNone:
		s.missingStr = []byte(str)
		if f, err := strconv.ParseFloat(str, 64); err == nil {
			s.missingNum = f
		}
	case s.date:
		ms, err := mapping.ParseDate(str, s.format)
		if err != nil {
			return err
		}
		s.missingNum = float64(ms)
	case s.boolean:
		switch str {
		case "true":
			s.missingNum = 1
		case "false":
			s.missingNum = 0
		default:
			return eserr.IllegalArgument("Failed to parse value [%s] as only [true] or [false] are allowed.", str)
		}
	default:
		f, err := parseJavaDouble(str)
		if err != nil {
			return eserr.Errorf(eserr.Invalid, "number_format_exception", "For input string: \"%s\"", str)
		}
		s.missingNum = f
	}
	return nil
}

func (s *source) fields() []string {
	if s == nil || s.kind == kindNone {
		return nil
	}
	return []string{s.field}
}

// numbers appends the document's numeric values to buf.
func (s *source) numbers(d *search.DocumentMatch, buf []float64) []float64 {
	return s.numbersOf(d.DocValues(s.field), buf)
}

// numbersOf decodes the field's doc values vals (full-precision prefix-coded
// terms) into buf, or the missing value when there is none.
func (s *source) numbersOf(vals [][]byte, buf []float64) []float64 {
	buf = buf[:0]
	if s.kind == kindNumeric {
		buf = decodeNumbers(vals, buf)
	}
	if len(buf) == 0 && s.hasMissing {
		buf = append(buf, s.missingNum)
	}
	return buf
}

// decodeNumbers appends the values of the full-precision prefix-coded terms
// among vals (the lower-precision terms are skipped) to buf.
func decodeNumbers(vals [][]byte, buf []float64) []float64 {
	for _, t := range vals {
		pc := numeric.PrefixCoded(t)
		if shift, err := pc.Shift(); err != nil || shift != 0 {
			continue
		}
		i64, err := pc.Int64()
		if err != nil {
			continue
		}
		buf = append(buf, numeric.Int64ToFloat64(i64))
	}
	return buf
}

// terms returns the document's keyword values.
func (s *source) terms(d *search.DocumentMatch) [][]byte {
	return s.termsOf(d.DocValues(s.field))
}

// termsOf returns the keyword values among the field's doc values vals, or
// the missing value when there is none.
func (s *source) termsOf(vals [][]byte) [][]byte {
	if s.kind != kindKeyword {
		vals = nil
	}
	if len(vals) == 0 && s.hasMissing {
		return [][]byte{s.missingStr}
	}
	return vals
}

// has reports whether the document has a value (ignoring "missing").
func (s *source) has(d *search.DocumentMatch) bool {
	return s.kind != kindNone && len(d.DocValues(s.field)) > 0
}

// decimalParam compiles the DecimalFormat "format" parameter of p (nil when
// absent), for aggregations whose format is not a field's.
func decimalParam(p *params) (func(float64) string, error) {
	fm, err := p.str("format", "")
	if err != nil || fm == "" {
		return nil, err
	}
	return mapping.DecimalFormatter(fm)
}

// formatted reports a field rendered with *_as_string members: dates,
// and numbers given a DecimalFormat "format".
func (s *source) formatted() bool { return s.date || s.decimal != nil }

// formatValue renders a numeric value of the field as ES's *_as_string.
func (s *source) formatValue(v float64) string {
	switch {
	case s.decimal != nil:
		return s.decimal(v)
	case s.date:
		return mapping.FormatDate(int64(math.Floor(v)), s.format)
	case s.boolean:
		if v != 0 {
			return "true"
		}
		return "false"
	}
	return javaDouble(v)
}

// ctxMapping wraps a possibly nil mapping and the request time.
type ctxMapping struct {
	m       *mapping.Mapping
	nowTime time.Time
	qctx    *query.Context
	// nestedPath is the path of the enclosing nested aggregation ("" at
	// the root or below a reverse_nested to the root).
	nestedPath string
}

func (c *ctxMapping) now() time.Time {
	if c.nowTime.IsZero() {
		c.nowTime = time.Now()
	}
	return c.nowTime
}

func (c *ctxMapping) lookup(field string) *mapping.Field {
	if c.m == nil {
		return nil
	}
	return c.m.Lookup(field)
}
