package mapping

// DecimalFormatter compiles a java.text.DecimalFormat pattern, the numeric
// "format" of Elasticsearch's DocValueFormat.Decimal (docvalue_fields,
// aggregations' *_as_string), into a function that renders a value.
func DecimalFormatter(pattern string) (func(float64) string, error) {
	df, err := compileDecimalFormat(pattern)
	if err != nil {
		return nil, err
	}
	return df.format, nil
}
