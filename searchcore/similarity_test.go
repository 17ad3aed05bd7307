package searchcore

import (
	"math"
	"reflect"
	"testing"
)

func TestNormLength(t *testing.T) {
	// Lucene's SmallFloat.byte4ToInt(intToByte4(n)), worked by hand: exact
	// up to 39 (24 free values + 4 significant bits of n-24), then rounded
	// down; bytes above 39 decode as approximate lengths.
	tests := []struct {
		n      uint32
		want   float32
		approx bool
	}{
		{0, 0, false}, {1, 1, false}, {23, 23, false}, {24, 24, false}, {31, 31, false}, {32, 32, false},
		{33, 33, false}, {39, 39, false}, {40, 40, true}, {41, 40, true}, {100, 96, true}, {1000, 984, true},
	}
	for _, tc := range tests {
		got, approx := normLength(tc.n)
		if got != tc.want || approx != tc.approx {
			t.Errorf("normLength(%d) = %v %v, want %v %v", tc.n, got, approx, tc.want, tc.approx)
		}
	}
}

func TestJavaHashOrder(t *testing.T) {
	// java.util.HashMap iteration order (hashes computed by String.hashCode:
	// "fast" 3135580 -> bucket 3, "dogs" 3089079 -> 8, "cs" 3184 -> 0).
	tests := []struct{ in, want []string }{
		{[]string{"dogs", "fast"}, []string{"fast", "dogs"}},
		{[]string{"fs", "cs"}, []string{"cs", "fs"}},
		{[]string{"b", "a"}, []string{"a", "b"}},
	}
	for _, tc := range tests {
		if got := javaHashOrder(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("javaHashOrder(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if got := javaStringHash("fast"); got != 3135580 {
		t.Errorf(`"fast".hashCode() = %d`, got)
	}
}

func TestDamerauDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{{"quick", "quick", 0}, {"quik", "quick", 1}, {"dgo", "dog", 1}, {"foq", "dog", 2}, {"", "abc", 3}, {"ab", "ba", 1}}
	for _, tc := range tests {
		if got := damerauDistance([]rune(tc.a), []rune(tc.b)); got != tc.want {
			t.Errorf("damerau(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestScoreNormCache: scores read through the cached inverse of each norm
// byte equal those computed from the decoded length, for lengths up to
// and beyond what a norm byte holds.
func TestScoreNormCache(t *testing.T) {
	for _, avgdl := range []float32{1, 3.7, 250} {
		s := &bm25Scorer{weight: 2.2 * 1.7, avgdl: avgdl}
		ns := []uint32{0, 1, 23, 24, 39, 40, 41, 1000, 65535, 1 << 24, 1 << 28, 1<<31 - 1, 1<<32 - 1}
		for n := uint32(0); n < 5000; n += 7 {
			ns = append(ns, n)
		}
		for _, n := range ns {
			for _, freq := range []int{1, 2, 17} {
				norm := float64(math.Float32frombits(n))
				ni, _, _ := s.normInverse(norm)
				want := float64(s.weight - s.weight/(1+float32(freq)*ni))
				if got := s.Score(freq, norm); got != want {
					t.Fatalf("avgdl %v, length %d, freq %d: score %v, want %v", avgdl, n, freq, got, want)
				}
			}
		}
		if s.inverses == nil {
			t.Fatal("no cache filled")
		}
	}
}
