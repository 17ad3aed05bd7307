package query

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestCheckDeterminize(t *testing.T) {
	tests := []struct {
		re       string
		max      int
		explodes bool
	}{
		{`abc`, 10000, false},
		{`(?:san|santa) .*`, 10000, false},
		{`[a-z]+[0-9]{2,4}`, 10000, false},
		{`.*a.{3}`, 10000, false},  // 2^4 subsets
		{`.*a.{20}`, 10000, true},  // 2^21 subsets
		{`.*a.{12}`, 1000, true},   // 2^13 over a lower limit
		{`.*a.{12}`, 10000, false}, // ... and under the default
		{`(?:.*a){12}(?:.*b){12}`, 10000, false},
	}
	for _, tc := range tests {
		start := time.Now()
		err := checkDeterminize(tc.re, tc.max)
		if (err != nil) != tc.explodes {
			t.Errorf("%s (max %d): err = %v, want explodes %v", tc.re, tc.max, err, tc.explodes)
		}
		if err != nil && (!strings.HasPrefix(err.Error(), "too_complex_to_determinize_exception: Determinizing automaton with ") ||
			!strings.HasSuffix(err.Error(), "would result in more than "+strconv.Itoa(tc.max)+" states.")) {
			t.Errorf("%s: error text %q", tc.re, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s took %v", tc.re, d)
		}
	}
}
