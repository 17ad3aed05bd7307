package mapping

import (
	"github.com/blugelabs/bluge"
	blugeanalysis "github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/numeric"
)

// Numeric and date values are indexed as float64 prefix-coded terms: the
// exact value (shift 0) plus one coarser term per precision step, which
// range queries combine to cover a range with few terms. With
// LegacyNumericStep every term is a term of the field and of its doc
// values, as bluge writes them. With NumericStep the field holds the
// shift-0 term alone (its doc values are the value) and the coarser terms
// go to a hidden field of their own (ShiftTermsField), which has no doc
// values: on the cities data set that makes the index 7% smaller, and
// loads and aggregation columns read a quarter of the doc-value terms.
const (
	// LegacyNumericStep is bluge's step (16 terms per value), used by
	// indices created before the step was recorded in their metadata;
	// bluge's own numeric range searcher assumes it.
	LegacyNumericStep uint = 4
	// NumericStep is the step of new indices: 4 terms per value (the
	// Lucene default for 64-bit numbers). On the cities data set it makes
	// the index 45% smaller than LegacyNumericStep.
	NumericStep uint = 16
)

// ShiftTermsPrefix prefixes the hidden field that holds the coarser
// terms of a numeric path indexed with NumericStep. Segments written
// before it existed hold those terms in the field itself; range queries
// read both.
const ShiftTermsPrefix = "_shift."

// ShiftTermsField is the field of path's coarser terms.
func ShiftTermsField(path string) string { return ShiftTermsPrefix + path }

// NumericField is bluge.NewNumericField with the given precision step
// (0 means LegacyNumericStep, which is exactly bluge.NewNumericField).
// The shift-0 term, the stored value and the options are the same for
// every step; with NumericStep the field has no other term (see
// ShiftField).
func NumericField(name string, n float64, step uint) *bluge.TermField {
	if step == 0 || step == LegacyNumericStep {
		return bluge.NewNumericField(name, n)
	}
	f := bluge.NewKeywordFieldBytes(name, numeric.MustNewPrefixCodedInt64(numeric.Float64ToInt64(n), 0))
	f.FieldOptions = bluge.Index | bluge.Sortable | bluge.Aggregatable
	return f
}

// ShiftField is the field of n's coarser terms (every step bits) under
// ShiftTermsField(name), indexed without doc values; nil for
// LegacyNumericStep, whose coarser terms are terms of the field itself.
func ShiftField(name string, n float64, step uint) *bluge.TermField {
	if step == 0 || step == LegacyNumericStep {
		return nil
	}
	f := bluge.NewKeywordFieldBytes(ShiftTermsField(name), numeric.MustNewPrefixCodedInt64(numeric.Float64ToInt64(n), 0)).
		WithAnalyzer(shiftAnalyzer{step: step})
	f.FieldOptions = bluge.Index
	return f
}

// shiftAnalyzer turns a prefix-coded shift-0 term into its coarser terms
// every step bits (bluge's numeric analyzer with another step, without
// the shift-0 term).
type shiftAnalyzer struct{ step uint }

// Analyze implements bluge.Analyzer.
func (a shiftAnalyzer) Analyze(input []byte) blugeanalysis.TokenStream {
	v, err := numeric.PrefixCoded(input).Int64()
	if err != nil {
		return nil
	}
	ts := make(blugeanalysis.TokenStream, 0, 64/a.step)
	for shift := a.step; shift < 64; shift += a.step {
		t := numeric.MustNewPrefixCodedInt64(v, shift)
		ts = append(ts, &blugeanalysis.Token{Term: t, End: len(t), PositionIncr: 1, Type: blugeanalysis.Numeric})
	}
	return ts
}
