package searchcore

import (
	"bytes"

	"github.com/quarry-search/quarry/searchcore/query"
)

// mixedDateOrder compares hits from indices where a sorted field is a
// date_nanos field in some and a date field in others. Without a
// numeric_type Elasticsearch compares the raw longs of the shards, i.e.
// nanoseconds against milliseconds, so date_nanos hits sort as much later
// dates; this reproduces that merge order.
type mixedDateOrder struct {
	fields   []query.SortField
	mixed    []bool
	compiled map[*Index]*compiledIndex
}

// newMixedDateOrder returns nil unless some clause mixes resolutions.
func newMixedDateOrder(compiled map[*Index]*compiledIndex, fields []query.SortField) *mixedDateOrder {
	if len(compiled) < 2 {
		return nil
	}
	m := &mixedDateOrder{fields: fields, mixed: make([]bool, len(fields)), compiled: compiled}
	any := false
	for i := range fields {
		nanos, millis := false, false
		for _, ci := range compiled {
			if i >= len(ci.dec) {
				continue
			}
			if ci.dec[i].NanosResolution() {
				nanos = true
			} else {
				millis = true
			}
		}
		if nanos && millis {
			m.mixed[i], any = true, true
		}
	}
	if !any {
		return nil
	}
	return m
}

// compare orders a before b (<0), after (>0) or neither (0).
func (m *mixedDateOrder) compare(a, b shardHit) int {
	for i, f := range m.fields {
		if i >= len(a.dm.SortValue) || i >= len(b.dm.SortValue) {
			return 0
		}
		c := 0
		if m.mixed[i] {
			x, xok := m.compiled[a.idx].dec[i].RawLong(a.dm.SortValue[i])
			y, yok := m.compiled[b.idx].dec[i].RawLong(b.dm.SortValue[i])
			switch {
			case xok && yok && x < y:
				c = -1
			case xok && yok && x > y:
				c = 1
			case !xok || !yok:
				c = bytes.Compare(a.dm.SortValue[i], b.dm.SortValue[i])
			}
		} else {
			c = bytes.Compare(a.dm.SortValue[i], b.dm.SortValue[i])
		}
		if f.Desc() {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
