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
// shift-0 term; the legacy step is bluge's field itself and the current
// one writes a term every NumericStep bits.
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
			freqs := f.AnalyzedTokenFrequencies()
			s := step
			if s == 0 {
				s = mapping.LegacyNumericStep
			}
			if len(freqs) != int(64/s) || f.AnalyzedLength() != int(64/s) {
				t.Fatalf("step %d: %d terms, want %d", step, len(freqs), 64/s)
			}
			for shift := uint(0); shift < 64; shift += s {
				term := numeric.MustNewPrefixCodedInt64(numeric.Float64ToInt64(x), shift)
				if _, ok := freqs[string(term)]; !ok {
					t.Fatalf("step %d, %g: no shift-%d term", step, x, shift)
				}
			}
			if step != mapping.NumericStep && !reflect.DeepEqual(freqs, want.AnalyzedTokenFrequencies()) {
				t.Fatalf("legacy step %d differs from bluge's field", step)
			}
		}
	}
}
