package query

// NanosResolution reports whether the decoder renders a date_nanos field's
// values as nanoseconds since the epoch (the raw long Elasticsearch sorts
// a date_nanos field by, where a date field sorts by milliseconds).
func (d SortDecoder) NanosResolution() bool { return d.nanos }
