package mapping_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/numeric"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

// TestNumericFieldSteps: every step keeps bluge's value, options and
// shift-0 term; the legacy step is bluge's field itself, and the current
// one writes the shift-0 term alone in the field and a term every
// NumericStep bits above it in the shift-terms field, without doc values.
func TestNumericFieldSteps(t *testing.T) {
	for _, x := range []float64{0, -1.5, 42, 1e300, -7e-300} {
		want := bluge.NewNumericField("f", x)
		want.Analyze(0)
		for _, step := range []uint{0, mapping.LegacyNumericStep, mapping.NumericStep} {
			f := mapping.NumericField("f", x, step)
			f.Analyze(0)
			if !bytes.Equal(f.Value(), want.Value()) || f.FieldOptions != want.FieldOptions || f.Name() != "f" {
				t.Fatalf("step %d, %g: value %x options %v, want %x %v", step, x, f.Value(), f.FieldOptions, want.Value(), want.FieldOptions)
			}
			sf := mapping.ShiftField("f", x, step)
			if step != mapping.NumericStep {
				if sf != nil || !reflect.DeepEqual(f.AnalyzedTokenFrequencies(), want.AnalyzedTokenFrequencies()) {
					t.Fatalf("legacy step %d differs from bluge's field", step)
				}
				continue
			}
			v := numeric.Float64ToInt64(x)
			freqs := f.AnalyzedTokenFrequencies()
			if _, ok := freqs[string(numeric.MustNewPrefixCodedInt64(v, 0))]; len(freqs) != 1 || !ok {
				t.Fatalf("%g: field terms %v, want the shift-0 term alone", x, freqs)
			}
			if sf == nil || sf.Name() != mapping.ShiftTermsField("f") || sf.FieldOptions != bluge.Index {
				t.Fatalf("%g: shift field %+v", x, sf)
			}
			sf.Analyze(0)
			sfreqs := sf.AnalyzedTokenFrequencies()
			if len(sfreqs) != int(64/step)-1 {
				t.Fatalf("%g: %d shift terms, want %d", x, len(sfreqs), 64/step-1)
			}
			for shift := step; shift < 64; shift += step {
				if _, ok := sfreqs[string(numeric.MustNewPrefixCodedInt64(v, shift))]; !ok {
					t.Fatalf("%g: no shift-%d term", x, shift)
				}
			}
		}
	}
}
