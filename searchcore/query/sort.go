package query

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/blugelabs/bluge/numeric"
	"github.com/blugelabs/bluge/search"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// SortField is one clause of an ES "sort": a field, "_score" or "_doc".
type SortField struct {
	// Field is the field path, "_score" or "_doc".
	Field string
	// Order is "asc", "desc" or "" for the default (_score: desc, else asc).
	Order string
	// Missing is nil (= "_last"), "_first", "_last" or a replacement value
	// (string, json.Number or bool).
	Missing any
	// UnmappedType is the field type to assume where Field is unmapped.
	UnmappedType string
	// Mode picks among the values of a multi-valued field: min, max, sum,
	// avg, median ("" = min ascending, max descending).
	Mode string
	// Format is the date format sort values of a date field render with.
	Format string
	// NumericType converts numeric sort values: long, double, date, date_nanos.
	NumericType string
	// Special holds the body of a _script sort (not supported).
	Special json.RawMessage
	// Geo is the parsed _geo_distance clause.
	Geo *GeoDistanceSort
	// Nested is the nested context of a field inside nested objects (nil
	// when absent; nested_path/nested_filter are read into it too).
	Nested *NestedSort
}

// Desc reports whether the clause sorts in descending order.
func (s SortField) Desc() bool {
	if s.Order == "" {
		return s.Field == "_score"
	}
	return s.Order == "desc"
}

// ParseSort parses an ES "sort" value: "field", {"field": "desc"},
// {"field": {"order", "missing", "unmapped_type", "mode", "format",
// "numeric_type"}}, "_score", "_doc", or an array of those.
func ParseSort(raw json.RawMessage) ([]SortField, error) {
	v, err := parseJSON(raw, &jdoc{})
	if err != nil {
		return nil, err
	}
	var out []SortField
	switch v.kind {
	case kArray:
		for _, e := range v.elems {
			switch e.kind {
			case kObject:
				if out, err = parseCompoundSort(e, out); err != nil {
					return nil, err
				}
			case kString:
				out = append(out, SortField{Field: e.s})
			default:
				return nil, searchcore.IllegalArgument("malformed sort format, within the sort array, an object, or an actual string are allowed")
			}
		}
	case kString:
		out = append(out, SortField{Field: v.s})
	case kObject:
		if out, err = parseCompoundSort(v, out); err != nil {
			return nil, err
		}
	default:
		return nil, searchcore.IllegalArgument("malformed sort format, either start with array, object, or an actual string")
	}
	return out, nil
}

// sortOrderFromString is SortOrder.fromString.
func sortOrderFromString(s string) (string, error) {
	switch u := strings.ToUpper(s); u {
	case "ASC", "DESC":
		return strings.ToLower(u), nil
	default:
		return "", searchcore.IllegalArgument("No enum constant org.elasticsearch.search.sort.SortOrder.%s", u)
	}
}

// parseCompoundSort is SortBuilder.parseCompoundSortField.
func parseCompoundSort(v *jval, out []SortField) ([]SortField, error) {
	for i, m := range v.members {
		val := m.val
		if val.kind == kString {
			order, err := sortOrderFromString(val.s)
			if err != nil {
				return nil, err
			}
			out = append(out, SortField{Field: m.key, Order: order})
			continue
		}
		switch m.key {
		case "_geo_distance", "_geoDistance":
			g, order, err := parseGeoDistanceSort(val)
			if err != nil {
				return nil, err
			}
			out = append(out, SortField{Field: "_geo_distance", Order: order, Geo: g})
			continue
		case "_script":
			raw := append(json.RawMessage(nil), val.doc.src[val.off:valueEnd(val)]...)
			out = append(out, SortField{Field: m.key, Special: raw})
			continue
		}
		parser := "field_sort"
		if m.key == "_score" {
			parser = "_score"
		}
		if val.kind != kObject {
			next := v.nextTokenAfter(i)
			if val.kind == kArray {
				next = "END_ARRAY"
				if len(val.elems) > 0 {
					next = val.elems[0].kind.token()
				}
			}
			return nil, val.doc.xcontentErr(val.off, "[%s] Expected START_OBJECT but was: %s", parser, next)
		}
		sf := SortField{Field: m.key}
		var legacyPath string // nested_path and nested_filter (deprecated)
		var legacyFilter Node
		op := objectParser{name: parser, body: val}
		op.str("order", func(s string) error {
			o, err := sortOrderFromString(s)
			sf.Order = o
			return err
		})
		if parser == "field_sort" {
			op.value("missing", func(x *jval) error {
				switch x.kind {
				case kString:
					sf.Missing = x.s
				case kNumber:
					sf.Missing = json.Number(x.s)
				case kBool:
					sf.Missing = x.s == "true"
				}
				return nil
			})
			op.str("nested_path", func(p string) error { legacyPath = p; return nil })
			op.str("unmapped_type", func(s string) error { sf.UnmappedType = s; return nil })
			op.str("mode", func(s string) error {
				switch l := strings.ToLower(s); l {
				case "min", "max", "sum", "avg", "median":
					sf.Mode = l
					return nil
				}
				return searchcore.IllegalArgument("Unknown SortMode [%s]", s)
			})
			op.declare("nested_filter", func(x *jval) error {
				var err error
				legacyFilter, err = parseSortFilter(x)
				return err
			}, kObject)
			op.declare("nested", func(x *jval) error {
				var err error
				sf.Nested, err = parseNestedSort(x)
				return err
			}, kObject)
			op.str("numeric_type", func(s string) error {
				switch l := strings.ToLower(s); l {
				case "long", "double", "date", "date_nanos":
					sf.NumericType = l
					return nil
				default:
					return searchcore.IllegalArgument("invalid value for [numeric_type], must be [long, double, date, date_nanos], got %s", l)
				}
			})
			op.str("format", func(s string) error { sf.Format = s; return nil })
		}
		if err := op.parse(); err != nil {
			return nil, err
		}
		if legacyPath != "" || legacyFilter != nil {
			if sf.Nested != nil {
				return nil, searchcore.IllegalArgument("Setting both nested_path/nested_filter and nested not allowed")
			}
			sf.Nested = &NestedSort{Path: legacyPath, Filter: legacyFilter}
		}
		out = append(out, sf)
	}
	return out, nil
}

// valueEnd returns the offset just past v in its document.
func valueEnd(v *jval) int {
	switch v.kind {
	case kObject, kArray:
		depth, inStr := 0, false
		src := v.doc.src
		for i := v.off; i < len(src); i++ {
			c := src[i]
			switch {
			case inStr:
				if c == '\\' {
					i++
				} else if c == '"' {
					inStr = false
				}
			case c == '"':
				inStr = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(src)
	case kString:
		src := v.doc.src
		for i := v.off + 1; i < len(src); i++ {
			if src[i] == '\\' {
				i++
			} else if src[i] == '"' {
				return i + 1
			}
		}
		return len(src)
	}
	return v.off + len(v.s)
}

// sortKind is how a sort clause's values are encoded and rendered.
type sortKind uint8

const (
	sortLong sortKind = iota + 1 // long-typed numbers: integer types, dates, booleans
	sortUnsignedLong
	sortDouble
	sortFloat // float32 sort values (float, half_float)
	sortString
	sortScore
	sortDoc
)

// Sort value encoding. Every value starts with a tag so that missing values
// sort before (tagLow) or after (tagHigh) every present value (tagValue),
// whatever the order.
const (
	tagLow   = 0x00
	tagValue = 0x01
	tagHigh  = 0x02
)

// SortDecoder turns the raw sort bytes of one clause back into the JSON sort
// value ES returns, and search_after values into raw sort bytes.
type SortDecoder struct {
	field     string
	kind      sortKind
	format    string // date format for date sort values
	dateNanos bool   // render dates as nanoseconds (numeric_type date_nanos)
	missing   []byte // encoding of a missing value (for search_after nulls)
	// parseFormat is the mapping's date format, which parses search_after
	// strings of a date sort without a format.
	parseFormat string
	// nanos renders a date_nanos field's values as nanoseconds (values are
	// stored as fractional milliseconds, microsecond precision).
	nanos bool
	// exact marks long sorts read from exact doc values (sort_exact.go).
	exact bool
	// src is the clause's source when it sorts on one field's doc values
	// alone (not nested, not geo, mapped): see DocValueSort.
	src *fieldSortSource
}

// Decode returns the ES sort value for raw: int64 (long types, dates,
// booleans, _doc), uint64 (unsigned_long), float64 (double, float, _score),
// string (keyword, formatted dates), nil (missing keyword) or the strings
// "Infinity"/"-Infinity" (missing double/float, as Jackson writes them).
func (d SortDecoder) Decode(raw []byte) any {
	if len(raw) == 0 {
		return nil
	}
	switch raw[0] {
	case tagLow, tagHigh:
		high := raw[0] == tagHigh
		switch d.kind {
		case sortLong, sortDoc:
			if high {
				return int64(math.MaxInt64)
			}
			return int64(math.MinInt64)
		case sortUnsignedLong:
			if high {
				return uint64(math.MaxUint64)
			}
			return uint64(0)
		case sortDouble, sortFloat, sortScore:
			if high {
				return "Infinity"
			}
			return "-Infinity"
		}
		return nil
	}
	if d.kind == sortString {
		return string(raw[1:])
	}
	if len(raw) == exactLongLen && d.kind == sortLong {
		return decodeExactLong(raw)
	}
	if len(raw) != 9 {
		return nil
	}
	x := decodeOrderedFloat(raw[1:])
	switch d.kind {
	case sortLong:
		ms := clampInt64(x)
		if d.format != "" && d.nanos {
			// keep the sub-millisecond digits the format prints
			ns := fracMillisToNanos(x)
			return mapping.FormatDateNanos(ns/1e9, ns%1e9, d.format)
		}
		if d.format != "" {
			return mapping.FormatDate(ms, d.format)
		}
		if d.nanos {
			return fracMillisToNanos(x)
		}
		if d.dateNanos {
			return ms * 1_000_000
		}
		return ms
	case sortUnsignedLong:
		if x <= 0 {
			return uint64(0)
		}
		if x >= math.MaxUint64 {
			return uint64(math.MaxUint64)
		}
		return uint64(x)
	case sortFloat, sortScore:
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(float32(x)), 'g', -1, 32), 64)
		return f
	case sortDoc:
		return int64(x)
	}
	return x
}

func clampInt64(x float64) int64 {
	switch {
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return int64(x)
}

// fracMillisToNanos converts a date_nanos sort value (fractional
// milliseconds, microsecond precision) to nanoseconds since the epoch.
func fracMillisToNanos(x float64) int64 {
	floor := math.Floor(x)
	return clampInt64(floor)*1_000_000 + int64(math.Round((x-floor)*1e3))*1e3
}

// Encode turns a search_after value for this clause into raw sort bytes.
// Values equal to the rendered missing values (Long.MAX/MIN, ±Infinity,
// null) map back to the missing encoding, so paging through missing
// values behaves like ES.
func (d SortDecoder) Encode(v any) ([]byte, error) {
	fail := func(cause error) error {
		e := searchcore.IllegalArgument("Failed to parse search_after value for field [%s].", d.field)
		if c, ok := searchcore.AsError(cause); ok {
			e.CausedBy = c
		}
		return e
	}
	if v == nil {
		return append([]byte(nil), d.missing...), nil
	}
	if d.kind == sortString {
		s, ok := scalarFromAny(v)
		if !ok {
			return nil, fail(numberFormatErr(""))
		}
		return append([]byte{tagValue}, s.String()...), nil
	}
	var s string
	switch t := v.(type) {
	case string:
		switch t {
		case "Infinity":
			return []byte{tagHigh}, nil
		case "-Infinity":
			return []byte{tagLow}, nil
		}
		s = t
	default:
		sc, ok := scalarFromAny(v)
		if !ok {
			return nil, fail(numberFormatErr(""))
		}
		s = sc.s
	}
	var x float64
	var err error
	switch d.kind {
	case sortLong, sortDoc, sortUnsignedLong:
		if _, isString := v.(string); isString && d.format != "" && d.kind == sortLong {
			// a formatted date sort parses string values with its format
			ms, perr := mapping.ParseDate(s, d.format)
			if perr != nil {
				return nil, fail(perr)
			}
			return encodeOrderedFloat(float64(ms)), nil
		}
		if _, isString := v.(string); isString && d.parseFormat != "" && d.kind == sortLong {
			if _, lerr := javaParseLong(s); lerr != nil {
				ms, perr := mapping.ParseDate(s, d.parseFormat)
				if perr != nil {
					return nil, fail(perr)
				}
				return encodeOrderedFloat(float64(ms)), nil
			}
		}
		n, perr := javaParseLong(s)
		if perr != nil {
			f, ferr := javaParseDouble(s)
			if ferr != nil {
				return nil, fail(perr)
			}
			n = clampInt64(f)
		}
		switch n {
		case math.MaxInt64:
			return []byte{tagHigh}, nil
		case math.MinInt64:
			return []byte{tagLow}, nil
		}
		if d.nanos {
			// the same arithmetic as indexing a date_nanos value
			return encodeOrderedFloat(float64(n/1_000_000) + float64(n%1_000_000)/1e6), nil
		}
		if d.dateNanos {
			n /= 1_000_000
		}
		if d.exact {
			return encodeExactLong(n), nil
		}
		x = float64(n)
	default:
		x, err = javaParseDouble(s)
		if err != nil {
			return nil, fail(err)
		}
		switch {
		case math.IsInf(x, 1):
			return []byte{tagHigh}, nil
		case math.IsInf(x, -1):
			return []byte{tagLow}, nil
		}
		if d.kind == sortFloat {
			x = float64(float32(x))
		}
	}
	return encodeOrderedFloat(x), nil
}

// EncodeSearchAfter converts search_after values for a compiled sort.
func EncodeSearchAfter(values []any, decoders []SortDecoder) ([][]byte, error) {
	if len(values) != len(decoders) {
		return nil, searchcore.IllegalArgument("search_after has %d value(s) but sort has %d.", len(values), len(decoders))
	}
	out := make([][]byte, len(values))
	for i, v := range values {
		b, err := decoders[i].Encode(v)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// encodeOrderedFloat encodes x so that byte order is numeric order.
func encodeOrderedFloat(x float64) []byte {
	return appendOrderedFloat(make([]byte, 0, 9), x)
}

// appendOrderedFloat appends the 9-byte ordered encoding of x to b.
func appendOrderedFloat(b []byte, x float64) []byte {
	if x == 0 {
		x = 0 // -0 sorts with +0
	}
	bits := math.Float64bits(x)
	if bits&(1<<63) != 0 {
		bits = ^bits
	} else {
		bits |= 1 << 63
	}
	b = append(b, tagValue)
	return binary.BigEndian.AppendUint64(b, bits)
}

// sortScratch returns an empty buffer for the sort value of m that bluge's
// SortOrder.Compute is computing (it copies every value it is given). The
// slot past m's current sort values still holds the copy made for the
// previous document this pooled match carried, dead since the pool reset
// it: reusing it saves an allocation per document and sort clause.
func sortScratch(m *search.DocumentMatch) []byte {
	if i := len(m.SortValue); i < cap(m.SortValue) {
		if b := m.SortValue[:i+1][i]; cap(b) >= 9 {
			return b[:0]
		}
	}
	return make([]byte, 0, 9)
}

func decodeOrderedFloat(b []byte) float64 {
	bits := binary.BigEndian.Uint64(b)
	if bits&(1<<63) != 0 {
		bits &^= 1 << 63
	} else {
		bits = ^bits
	}
	return math.Float64frombits(bits)
}

// scoreSource sorts by score.
type scoreSource struct{}

func (scoreSource) Fields() []string { return nil }
func (scoreSource) Value(m *search.DocumentMatch) []byte {
	return appendOrderedFloat(sortScratch(m), m.Score)
}

// docSource sorts by index order (ES "_doc").
type docSource struct{}

func (docSource) Fields() []string { return nil }
func (docSource) Value(m *search.DocumentMatch) []byte {
	return appendOrderedFloat(sortScratch(m), float64(m.Number))
}

// constSource gives every document the same value (unmapped fields).
type constSource []byte

func (constSource) Fields() []string                     { return nil }
func (c constSource) Value(*search.DocumentMatch) []byte { return c }

// fieldSortSource computes a document's sort value from its doc values,
// picking among multiple values with the sort mode as ES's MultiValueMode
// does (bluge's own field source always takes the smallest term). It holds
// no per-search state, so one compiled order may serve concurrent shards.
type fieldSortSource struct {
	field    string
	load     bool // whether this clause asks bluge to load the field
	numeric  bool
	integral bool // long arithmetic for avg/median
	mode     string
	missing  []byte
	// exactField is the exact doc-values field read first (sort_exact.go;
	// empty when the field has none); exactInt when its words are int64s.
	// Documents without an exact value (a single value the float64 doc
	// values hold exactly, or indexed before exact doc values existed)
	// fall back to field.
	exactField string
	exactInt   bool
}

func (f *fieldSortSource) Fields() []string {
	if !f.load {
		return nil
	}
	if f.exactField != "" {
		return []string{f.field, f.exactField}
	}
	return []string{f.field}
}

func (f *fieldSortSource) Value(m *search.DocumentMatch) []byte {
	if f.exactField != "" {
		if t := m.DocValues(f.exactField); len(t) > 0 {
			return f.exactValue(t[0])
		}
	}
	return f.valueOf(m.DocValues(f.field))
}

// valueOf is the sort value of a document with these doc-value terms.
func (f *fieldSortSource) valueOf(terms [][]byte) []byte {
	if !f.numeric {
		var best []byte
		for i, t := range terms {
			if i == 0 || (f.mode == "max" && bytes.Compare(t, best) > 0) || (f.mode != "max" && bytes.Compare(t, best) < 0) {
				best = t
			}
		}
		if len(terms) == 0 {
			return f.missing
		}
		return append([]byte{tagValue}, best...)
	}
	var stack [8]float64
	vals := stack[:0]
	for _, t := range terms {
		pc := numeric.PrefixCoded(t)
		if shift, err := pc.Shift(); err != nil || shift != 0 {
			continue
		}
		i64, err := pc.Int64()
		if err != nil {
			continue
		}
		vals = append(vals, numeric.Int64ToFloat64(i64))
	}
	if len(vals) == 0 {
		return f.missing
	}
	if f.exactInt {
		// The document has no exact value because its one value is a
		// float64 exactly (mapping.docParser.exactFields), or it was
		// indexed before exact values existed (its values then saturate
		// like the exact words did): encode it as exactValue would, so
		// that both kinds of documents compare.
		var ints [8]int64
		iv := ints[:0]
		for _, v := range vals {
			iv = append(iv, clampInt64(v))
		}
		return encodeExactLong(pickLongMode(iv, f.mode))
	}
	return encodeOrderedFloat(pickMode(vals, f.mode, f.integral))
}

// pickMode is MultiValueMode.pick over a document's values.
func pickMode(vals []float64, mode string, integral bool) float64 {
	switch mode {
	case "max":
		m := vals[0]
		for _, v := range vals[1:] {
			m = math.Max(m, v)
		}
		return m
	case "sum":
		s := 0.0
		for _, v := range vals {
			s += v
		}
		return s
	case "avg":
		s := 0.0
		for _, v := range vals {
			s += v
		}
		if len(vals) == 1 {
			return s
		}
		if integral {
			return roundHalfUp(s / float64(len(vals)))
		}
		return s / float64(len(vals))
	case "median":
		sorted := append([]float64(nil), vals...)
		sort.Float64s(sorted)
		n := len(sorted)
		if n%2 == 1 {
			return sorted[n/2]
		}
		mid := (sorted[n/2-1] + sorted[n/2]) / 2
		if integral {
			return roundHalfUp(mid)
		}
		return mid
	}
	m := vals[0]
	for _, v := range vals[1:] {
		m = math.Min(m, v)
	}
	return m
}

// CompileSort turns parsed sort clauses into a bluge sort order plus one
// decoder per clause. Each field is loaded once even when several clauses
// sort on it. Errors follow ES: text fields without fielddata, unmapped
// fields without unmapped_type, modes on non-numeric fields.
func CompileSort(fields []SortField, ctx *Context) (search.SortOrder, []SortDecoder, error) {
	order := make(search.SortOrder, 0, len(fields))
	decoders := make([]SortDecoder, 0, len(fields))
	loaded := map[string]bool{}
	for _, sf := range fields {
		desc := sf.Desc()
		if sf.Special != nil {
			return nil, nil, searchcore.IllegalArgument("sort [%s] is not supported", sf.Field)
		}
		var src search.TextValueSource
		dec := SortDecoder{field: sf.Field}
		switch {
		case sf.Geo != nil:
			var err error
			if src, dec, err = compileGeoDistanceSort(sf, ctx); err != nil {
				return nil, nil, err
			}
		case sf.Field == "_score":
			src, dec.kind = scoreSource{}, sortScore
		case sf.Field == "_doc":
			src, dec.kind = docSource{}, sortDoc
		default:
			var err error
			src, dec, err = fieldSort(sf, ctx, loaded)
			if err != nil {
				return nil, nil, err
			}
		}
		s := search.SortBy(src)
		if desc {
			s.Desc()
		}
		order = append(order, s)
		decoders = append(decoders, dec)
	}
	return order, decoders, nil
}

const textFielddataMsg = "Text fields are not optimised for operations that require per-document field data like " +
	"aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. " +
	"Alternatively, set fielddata=true on [%s] in order to load field data by uninverting the inverted index. " +
	"Note that this can use significant memory."

// knownTypes are the field types an unmapped_type may name.
var knownTypes = map[string]bool{
	mapping.TypeText: true, mapping.TypeKeyword: true, mapping.TypeLong: true, mapping.TypeInteger: true,
	mapping.TypeShort: true, mapping.TypeByte: true, mapping.TypeDouble: true, mapping.TypeFloat: true,
	mapping.TypeHalfFloat: true, mapping.TypeScaledFloat: true, mapping.TypeUnsignedLong: true,
	mapping.TypeBoolean: true, mapping.TypeDate: true, mapping.TypeDateNanos: true, mapping.TypeGeoPoint: true,
	mapping.TypeObject: true, mapping.TypeNested: true,
}

func fieldSort(sf SortField, ctx *Context, loaded map[string]bool) (search.TextValueSource, SortDecoder, error) {
	desc := sf.Desc()
	dec := SortDecoder{field: sf.Field}
	ft, _ := ctx.lookupField(sf.Field)
	unmapped := ft == nil
	if unmapped {
		if sf.UnmappedType == "" {
			return nil, dec, ctx.shardErr("No mapping found for [%s] in order to sort on", sf.Field)
		}
		if !knownTypes[sf.UnmappedType] {
			return nil, dec, searchcore.IllegalArgument("No mapper found for type [%s]", sf.UnmappedType)
		}
		ft = &fieldType{path: sf.Field, typ: sf.UnmappedType}
	}
	switch {
	case ft.isText():
		if unmapped || !fielddataEnabled(ft) {
			return nil, dec, searchcore.IllegalArgument(textFielddataMsg, sf.Field)
		}
	case ft.typ == mapping.TypeGeoPoint:
		return nil, dec, searchcore.IllegalArgument("can't sort on geo_point field without using specific sorting feature, like geo_distance")
	case ft.typ == mapping.TypeObject || ft.typ == mapping.TypeNested:
		return nil, dec, ctx.shardErr("No mapping found for [%s] in order to sort on", sf.Field)
	case !unmapped && ft.f != nil && ft.f.DocValues != nil && !*ft.f.DocValues:
		return nil, dec, searchcore.IllegalArgument("Can't load fielddata on [%s] because fielddata is unsupported on fields of type [%s]. Use doc values instead.", sf.Field, ft.typ)
	}
	numericField := ft.isNumber() || ft.isDate() || ft.typ == mapping.TypeBoolean
	if !numericField && (sf.Mode == "sum" || sf.Mode == "avg" || sf.Mode == "median") {
		return nil, dec, ctx.shardErr("we only support AVG, MEDIAN and SUM on number based fields")
	}
	if sf.NumericType != "" && !numericField {
		return nil, dec, ctx.shardErr("[numeric_type] option cannot be set on a non-numeric field, got %s", ft.typ)
	}
	// how values are rendered
	switch {
	case !numericField:
		dec.kind = sortString
	case ft.typ == mapping.TypeUnsignedLong:
		dec.kind = sortUnsignedLong
	case ft.isIntegral() || ft.isDate() || ft.typ == mapping.TypeBoolean:
		dec.kind = sortLong
	case ft.typ == mapping.TypeFloat || ft.typ == mapping.TypeHalfFloat:
		dec.kind = sortFloat
	default:
		dec.kind = sortDouble
	}
	switch sf.NumericType {
	case "long", "date":
		dec.kind = sortLong
	case "double":
		dec.kind = sortDouble
	case "date_nanos":
		dec.kind = sortLong
		dec.dateNanos = ft.isDate()
	}
	if ft.isDate() && sf.Format != "" && dec.kind == sortLong {
		dec.format = sf.Format
	}
	if ft.isDate() && dec.kind == sortLong && ft.typ == mapping.TypeDateNanos &&
		(sf.NumericType == "" || sf.NumericType == "date_nanos") {
		// raw nanosecond longs, with or without a display format
		dec.nanos, dec.dateNanos = true, false
	}
	if ft.isDate() && dec.kind == sortLong && dec.format == "" {
		dec.parseFormat = mapping.DefaultDateFormat
		if ft.typ == mapping.TypeDateNanos {
			dec.parseFormat = mapping.DefaultDateNanosFormat
		}
		if ft.f != nil && ft.f.Format != "" {
			dec.parseFormat = ft.f.Format
		}
	}
	exact := !unmapped && ft.f != nil && mapping.HasExactValues(ft.f) && sf.NumericType == ""
	if exact && mapping.IsIntegerType(ft.typ) {
		dec.exact = true
	}
	mode := sf.Mode
	if mode == "" {
		if desc {
			mode = "max"
		} else {
			mode = "min"
		}
	}
	// missing values
	missing, err := missingValue(sf, ft, dec, desc, numericField)
	if err != nil {
		return nil, dec, err
	}
	dec.missing = missing
	if unmapped {
		return constSource(missing), dec, nil
	}
	if sf.Nested != nil && sf.Nested.Path != "" {
		src := &fieldSortSource{field: ft.path, numeric: numericField,
			integral: dec.kind == sortLong || dec.kind == sortUnsignedLong, mode: mode, missing: missing}
		ns, err := compileNestedSort(ctx, sf.Nested, src, !loaded[idField])
		loaded[idField] = true
		return ns, dec, err
	}
	src := &fieldSortSource{
		field:    ft.path,
		load:     !loaded[ft.path],
		numeric:  numericField,
		integral: dec.kind == sortLong || dec.kind == sortUnsignedLong,
		mode:     mode,
		missing:  missing,
		exactInt: dec.exact,
	}
	if exact {
		src.exactField = mapping.ExactValuesField(ft.path)
	}
	loaded[ft.path] = true
	dec.src = src
	return src, dec, nil
}

func fielddataEnabled(ft *fieldType) bool {
	if ft.f == nil || ft.f.Extra == nil {
		return false
	}
	raw, ok := ft.f.Extra["fielddata"]
	if !ok {
		return false
	}
	var b bool
	return json.Unmarshal(raw, &b) == nil && b
}

// missingValue encodes the value documents without the field sort with:
// the low or high sentinel for _first/_last, or the encoded replacement.
func missingValue(sf SortField, ft *fieldType, dec SortDecoder, desc, numericField bool) ([]byte, error) {
	first := false
	switch m := sf.Missing.(type) {
	case nil:
	case string:
		switch m {
		case "_last":
		case "_first":
			first = true
		default:
			return encodeMissing(m, ft, dec, numericField)
		}
	case json.Number:
		return encodeMissing(string(m), ft, dec, numericField)
	case bool:
		return encodeMissing(strconv.FormatBool(m), ft, dec, numericField)
	}
	if first != desc {
		return []byte{tagLow}, nil
	}
	return []byte{tagHigh}, nil
}

// encodeMissing parses a replacement missing value like
// XFieldComparatorSource.missingObject.
func encodeMissing(s string, ft *fieldType, dec SortDecoder, numericField bool) ([]byte, error) {
	if !numericField {
		return append([]byte{tagValue}, s...), nil
	}
	switch dec.kind {
	case sortLong, sortUnsignedLong:
		n, err := javaParseLong(s)
		if err != nil {
			return nil, err
		}
		if dec.exact {
			return encodeExactLong(n), nil
		}
		return encodeOrderedFloat(float64(n)), nil
	case sortFloat:
		f, err := javaParseFloat(s)
		if err != nil {
			return nil, err
		}
		return encodeOrderedFloat(float64(f)), nil
	}
	f, err := javaParseDouble(s)
	if err != nil {
		return nil, err
	}
	return encodeOrderedFloat(f), nil
}

// ShardDocSource is the value source of Elasticsearch's _shard_doc sort for
// one shard: Base (the shard's global ordinal shifted left by 32) plus the
// document number in the shard's held reader snapshot. Values encode like
// _doc values, so the "_doc" decoder renders them and turns search_after
// longs back into sort bytes.
type ShardDocSource struct{ Base int64 }

// ShardDocBase is the Base of the shard with global ordinal ord.
func ShardDocBase(ord int) int64 { return int64(ord) << 32 }

// Fields implements search.TextValueSource.
func (ShardDocSource) Fields() []string { return nil }

// Value implements search.TextValueSource.
func (s ShardDocSource) Value(m *search.DocumentMatch) []byte {
	return encodeOrderedFloat(float64(s.Base + int64(m.Number)))
}
