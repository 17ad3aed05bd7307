package query

// NanosResolution reports whether the decoder renders a date_nanos field's
// values as nanoseconds since the epoch (the raw long Elasticsearch sorts
// a date_nanos field by, where a date field sorts by milliseconds).
func (d SortDecoder) NanosResolution() bool { return d.nanos }

// RawLong returns the long Elasticsearch merges shard hits by for a date
// or date_nanos clause (milliseconds or nanoseconds), whatever display
// format the clause has; ok is false for values that are not longs.
func (d SortDecoder) RawLong(raw []byte) (v int64, ok bool) {
	d.format = ""
	v, ok = d.Decode(raw).(int64)
	return v, ok
}
