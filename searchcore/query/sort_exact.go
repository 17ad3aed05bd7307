package query

import (
	"encoding/binary"
	"math"
	"sort"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

// Exact long sort values are tagValue, the value's ordered float64 (so they
// order against every other numeric sort value) and then its ordered int64
// (so longs beyond 2^53 that share a float64 still order, and render,
// exactly): 17 bytes.
const exactLongLen = 17

// encodeExactLong encodes a long sort value exactly.
func encodeExactLong(n int64) []byte {
	b := encodeOrderedFloat(float64(n))
	return binary.BigEndian.AppendUint64(b, uint64(n)^(1<<63))
}

// decodeExactLong reads the int64 of an exactLongLen encoding.
func decodeExactLong(raw []byte) int64 {
	return int64(binary.BigEndian.Uint64(raw[9:]) ^ (1 << 63))
}

// exactValue computes the sort value of a document from the exact
// doc-values field (mapping.ExactValuesField): every value with duplicates,
// longs picked with Java long arithmetic as MultiValueMode does.
func (f *fieldSortSource) exactValue(term []byte) []byte {
	var stack [8]uint64
	words := mapping.DecodeExactValues(term, stack[:0])
	if len(words) == 0 {
		return f.missing
	}
	if !f.exactInt {
		var fs [8]float64
		vals := fs[:0]
		for _, w := range words {
			vals = append(vals, math.Float64frombits(w))
		}
		return encodeOrderedFloat(pickMode(vals, f.mode, false))
	}
	vals := make([]int64, len(words))
	for i, w := range words {
		vals[i] = int64(w)
	}
	return encodeExactLong(pickLongMode(vals, f.mode))
}

// pickLongMode is MultiValueMode.pick over SortedNumericDocValues of a long
// field: sums wrap like Java longs, avg and median of two round a double.
func pickLongMode(vals []int64, mode string) int64 {
	switch mode {
	case "max":
		m := vals[0]
		for _, v := range vals[1:] {
			m = max(m, v)
		}
		return m
	case "sum", "avg":
		var total int64
		for _, v := range vals {
			total += v
		}
		if mode == "sum" || len(vals) == 1 {
			return total
		}
		return javaRound(float64(total) / float64(len(vals)))
	case "median":
		sorted := append([]int64(nil), vals...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
		n := len(sorted)
		if n%2 == 1 {
			return sorted[n/2]
		}
		return javaRound((float64(sorted[n/2-1]) + float64(sorted[n/2])) / 2)
	}
	m := vals[0]
	for _, v := range vals[1:] {
		m = min(m, v)
	}
	return m
}

// javaRound is Math.round(double): floor(x + 0.5), saturating at the long
// range.
func javaRound(x float64) int64 {
	return clampInt64(roundHalfUp(x))
}
