package mapping

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/blugelabs/bluge"
)

// ExactValuesPrefix prefixes the hidden doc-values field that keeps the
// values of a numeric field exactly, in document order and with duplicates
// (bluge's numeric doc values are float64 terms, de-duplicated per
// document): one 64-bit word per value, an int64 for the integer types
// (long, integer, short, byte) and float64 bits for the floating types,
// each written as ten 7-bit bytes (bluge separates doc-value terms with
// 0xff, so no byte may reach it). Sorting reads it to pick values like
// Lucene's SortedNumericDocValues. A document whose field has one value
// that its float64 doc value holds exactly has no exact value: the doc
// value says the same, and every value of a unique-per-document number
// would otherwise be a term of its own (10% of an index of such numbers).
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

// exactLossy reports whether w, the exact word of a value indexed as n,
// says more than n: an integer the float64 rounds (beyond 2^53) or does
// not convert back to.
func exactLossy(f *Field, w uint64, n float64) bool {
	if !IsIntegerType(f.Type) {
		return w != math.Float64bits(n)
	}
	return !(n >= math.MinInt64 && n < math.MaxInt64 && int64(n) == int64(w))
}

// addExact records one exact value of path; lossy when the float64 doc
// value of the field does not hold it exactly.
func (p *docParser) addExact(path string, w uint64, lossy bool) {
	if p.exact == nil {
		p.exact = map[string][]byte{}
		p.exactOrder = nil
		p.exactLossy = nil
	}
	if lossy {
		p.markLossy(path)
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

// markLossy records that path has a value its doc values do not hold
// exactly.
func (p *docParser) markLossy(path string) {
	if !slices.Contains(p.exactLossy, path) {
		p.exactLossy = append(p.exactLossy, path)
	}
}

// needsExact reports whether path's exact words say more than its doc
// values: several values (doc values drop duplicates and order), or one
// the float64 doc value does not hold exactly.
func (p *docParser) needsExact(path string) bool {
	return len(p.exact[path]) > exactWordLen || slices.Contains(p.exactLossy, path)
}

// exactFields returns the exact doc-values fields of the parsed document
// (only the paths needsExact keeps).
func (p *docParser) exactFields() []bluge.Field {
	out := make([]bluge.Field, 0, len(p.exactOrder))
	for _, path := range p.exactOrder {
		if !p.needsExact(path) {
			continue
		}
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
