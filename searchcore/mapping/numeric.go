package mapping

import (
	"github.com/blugelabs/bluge"
	blugeanalysis "github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/numeric"
)

// Numeric and date values are indexed as float64 prefix-coded terms: the
// exact value (shift 0) plus one coarser term per precision step, which
// range queries combine to cover a range with few terms. Every term also
// goes into the field's doc values, so the step sets both the postings and
// the doc-values size of a number.
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

// NumericField is bluge.NewNumericField with the given precision step
// (0 means LegacyNumericStep, which is exactly bluge.NewNumericField).
// The shift-0 term, the stored value and the options are the same for
// every step; only the coarser terms differ.
func NumericField(name string, n float64, step uint) *bluge.TermField {
	if step == 0 || step == LegacyNumericStep {
		return bluge.NewNumericField(name, n)
	}
	f := bluge.NewKeywordFieldBytes(name, numeric.MustNewPrefixCodedInt64(numeric.Float64ToInt64(n), 0)).
		WithAnalyzer(shiftAnalyzer{step: step})
	f.FieldOptions = bluge.Index | bluge.Sortable | bluge.Aggregatable
	return f
}

// shiftAnalyzer turns a prefix-coded shift-0 term into it and its coarser
// terms every step bits (bluge's numeric analyzer with another step).
type shiftAnalyzer struct{ step uint }

// Analyze implements bluge.Analyzer.
func (a shiftAnalyzer) Analyze(input []byte) blugeanalysis.TokenStream {
	ts := make(blugeanalysis.TokenStream, 1, 64/a.step)
	ts[0] = &blugeanalysis.Token{Term: input, End: len(input), PositionIncr: 1, Type: blugeanalysis.Numeric}
	v, err := numeric.PrefixCoded(input).Int64()
	if err != nil {
		return ts
	}
	for shift := a.step; shift < 64; shift += a.step {
		t := numeric.MustNewPrefixCodedInt64(v, shift)
		ts = append(ts, &blugeanalysis.Token{Term: t, End: len(t), Type: blugeanalysis.Numeric})
	}
	return ts
}
