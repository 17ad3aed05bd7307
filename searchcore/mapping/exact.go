package mapping

import (
	"math"
	"strconv"
	"strings"

	"github.com/blugelabs/bluge"
)

// ExactValuesPrefix prefixes the hidden doc-values field that keeps every
// value of a numeric field exactly, in document order and with duplicates
// (bluge's numeric doc values are float64 terms, de-duplicated per
// document): one 64-bit word per value, an int64 for the integer types
// (long, integer, short, byte) and float64 bits for the floating types,
// each written as ten 7-bit bytes (bluge separates doc-value terms with
// 0xff, so no byte may reach it). Sorting reads it to pick values like
// Lucene's SortedNumericDocValues.
const ExactValuesPrefix = "_exact."

// ExactValuesField is the exact doc-values field of a numeric path.
func ExactValuesField(path string) string { return ExactValuesPrefix + path }

// HasExactValues reports whether documents carry the exact doc-values field
// for f (numeric types with doc values).
func HasExactValues(f *Field) bool {
	if f == nil || !boolOr(f.DocValues, true) {
		return false
	}
	switch f.Type {
	case TypeLong, TypeInteger, TypeShort, TypeByte, TypeDouble, TypeFloat, TypeHalfFloat, TypeScaledFloat:
		return true
	}
	return false
}

// IsIntegerType reports whether t is one of the signed integer types.
func IsIntegerType(t string) bool {
	switch t {
	case TypeLong, TypeInteger, TypeShort, TypeByte:
		return true
	}
	return false
}

// exactWord is the 8-byte word of a value already parsed as n (the float64
// that is indexed); integer types re-read the literal for precision.
func exactWord(f *Field, v *jnode, n float64) uint64 {
	if IsIntegerType(f.Type) {
		text := strings.TrimPrefix(strings.TrimSpace(v.str), "+")
		if (v.kind == jNumber || v.kind == jString) && isIntLiteral(text) {
			if i, err := strconv.ParseInt(text, 10, 64); err == nil {
				return uint64(i)
			}
		}
		switch {
		case n >= math.MaxInt64:
			return uint64(math.MaxInt64)
		case n <= math.MinInt64:
			return 1 << 63
		}
		return uint64(int64(n))
	}
	return math.Float64bits(n)
}

// addExact records one exact value of path.
func (p *docParser) addExact(path string, w uint64) {
	if p.exact == nil {
		p.exact = map[string][]byte{}
		p.exactOrder = nil
	}
	b, ok := p.exact[path]
	if !ok {
		p.exactOrder = append(p.exactOrder, path)
	}
	for i := exactWordLen - 1; i >= 0; i-- {
		b = append(b, byte(w>>(7*uint(i))&0x7f))
	}
	p.exact[path] = b
}

// exactFields returns the exact doc-values fields of the parsed document.
func (p *docParser) exactFields() []bluge.Field {
	out := make([]bluge.Field, 0, len(p.exactOrder))
	for _, path := range p.exactOrder {
		f := bluge.NewKeywordFieldBytes(ExactValuesField(path), p.exact[path])
		f.FieldOptions = bluge.Index | bluge.Sortable // bluge builds doc values from analysed terms only
		out = append(out, f)
	}
	return out
}

// exactWordLen is the encoded length of one word.
const exactWordLen = 10

// DecodeExactValues splits an exact doc-values term into its words.
func DecodeExactValues(term []byte, into []uint64) []uint64 {
	for len(term) >= exactWordLen {
		var w uint64
		for _, c := range term[:exactWordLen] {
			w = w<<7 | uint64(c&0x7f)
		}
		into = append(into, w)
		term = term[exactWordLen:]
	}
	return into
}
