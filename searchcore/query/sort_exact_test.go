package query

import (
	"math"
	"testing"

	"github.com/blugelabs/bluge/numeric"
)

// TestExactLongFallback: a long sort value read from the float64 doc
// values (a document without exact values) is the exact long encoding,
// saturated like the exact words at the long range.
func TestExactLongFallback(t *testing.T) {
	src := &fieldSortSource{numeric: true, integral: true, exactInt: true, mode: "min"}
	for _, c := range []struct {
		x    float64
		want int64
	}{{5, 5}, {-3, -3}, {1 << 53, 1 << 53}, {math.Ldexp(1, 63), math.MaxInt64}, {math.Ldexp(1, 70), math.MaxInt64}, {-math.Ldexp(1, 64), math.MinInt64}} {
		term := numeric.MustNewPrefixCodedInt64(numeric.Float64ToInt64(c.x), 0)
		got := src.valueOf([][]byte{term})
		if len(got) != exactLongLen || decodeExactLong(got) != c.want {
			t.Errorf("%g: %x, want the exact long %d", c.x, got, c.want)
		}
	}
}
