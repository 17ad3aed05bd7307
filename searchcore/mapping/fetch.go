package mapping

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// FieldAndFormat is one entry of a search's docvalue_fields or fields list:
// a field name or "*" pattern, an optional format, and (fields only)
// whether unmapped source values are returned too.
type FieldAndFormat struct {
	Field           string
	Format          string
	IncludeUnmapped bool
}

// FetchField is a docvalue_fields or fields entry resolved against one
// mapping: a concrete field path with its format checked.
type FetchField struct {
	// Path is the field's full path ("title.keyword").
	Path   string
	Format string
	field  *Field
	num    *decimalFormat
	// nestedOnly marks a docvalue field whose values are in other
	// (nested) documents than the hit's: the hit has none.
	nestedOnly bool
}

// textFielddataError is the error Elasticsearch raises when per-document
// values of a text field without fielddata are requested.
func textFielddataError(path string) error {
	return eserr.IllegalArgument("Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [%s] in order to load field data by uninverting the inverted index. Note that this can use significant memory.", path)
}

// ResolveDocValueFields expands docvalue_fields entries to the mapped fields
// they name (unmapped names are skipped, as Elasticsearch does), enforces
// index.max_docvalue_fields_search (maxFields) on the expanded count, and
// checks each field has doc values and accepts the format. docPath is the
// nested path of the documents read ("" for top-level hits): fields whose
// values are in other documents have none.
func (m *Mapping) ResolveDocValueFields(list []FieldAndFormat, maxFields int, docPath string) ([]FetchField, error) {
	var out []FetchField
	for _, ff := range list {
		for _, path := range m.MatchFields(ff.Field) {
			out = append(out, FetchField{Path: path, Format: ff.Format, field: m.index().all[path],
				nestedOnly: !m.InNestedDocument(path, docPath)})
		}
	}
	if len(out) > maxFields {
		return nil, eserr.IllegalArgument("Trying to retrieve too many mapped docvalue_fields. Must be less than or equal to: [%d] but was [%d]. "+
			"This limit can be set by changing the [index.max_docvalue_fields_search] index level setting.", maxFields, len(out))
	}
	for i := range out {
		f := &out[i]
		if f.field.Type == TypeText {
			if fd, ok := parseBool(f.field.Extra["fielddata"]); !ok || !fd {
				return nil, textFielddataError(f.Path)
			}
		}
		if !boolOr(f.field.DocValues, true) && f.field.Type != TypeText {
			return nil, eserr.IllegalArgument("Can't load fielddata on [%s] because fielddata is unsupported on fields of type [%s]. Use doc values instead.", f.Path, f.field.Type)
		}
		if err := f.checkFormat(true); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ResolveFetchFields expands fields-API entries to the mapped leaf fields
// they match (multi-fields included). Entries with include_unmapped that
// match no mapped field are kept with a nil field: their source values are
// returned as they are.
func (m *Mapping) ResolveFetchFields(list []FieldAndFormat) ([]FetchField, error) {
	var out []FetchField
	for _, ff := range list {
		paths := m.MatchFields(ff.Field)
		for _, path := range paths {
			f := FetchField{Path: path, Format: ff.Format, field: m.index().all[path]}
			if err := f.checkFormat(false); err != nil {
				return nil, err
			}
			out = append(out, f)
		}
		if ff.IncludeUnmapped && m.Lookup(ff.Field) == nil {
			out = append(out, FetchField{Path: ff.Field, Format: ff.Format})
		}
	}
	return out, nil
}

// checkFormat validates the entry's format for its field type (docValues
// selects the docvalue_fields rules, which accept decimal patterns).
func (f *FetchField) checkFormat(docValues bool) error {
	if f.Format == "" || f.Format == "use_field_mapping" {
		f.Format = ""
		return nil
	}
	switch f.field.Type {
	case TypeDate, TypeDateNanos:
		_, err := compileDateFormat(f.Format)
		return err
	case TypeGeoPoint:
		if !docValues && (f.Format == "geojson" || f.Format == "wkt") {
			return nil
		}
	case TypeLong, TypeInteger, TypeShort, TypeByte, TypeDouble, TypeFloat, TypeHalfFloat, TypeScaledFloat, TypeUnsignedLong:
		if docValues {
			df, err := compileDecimalFormat(f.Format)
			if err != nil {
				return err
			}
			f.num = df
			return nil
		}
	}
	if docValues {
		return eserr.IllegalArgument("Field [%s] of type [%s] does not support custom formats", f.Path, f.field.Type)
	}
	return eserr.IllegalArgument("Field [%s] of type [%s] doesn't support formats.", f.Path, f.field.Type)
}

// DocValues appends, for each resolved docvalue_fields entry, the values
// the field's doc values hold for the document with this source, rendered
// as Elasticsearch renders doc values: sorted (keywords also de-duplicated),
// numbers at the precision of their type, dates with the requested or
// mapped format, geo points as "lat, lon" at index precision.
func (m *Mapping) DocValues(source []byte, fields []FetchField, reg *analysis.Registry, out map[string][]any) error {
	if len(fields) == 0 {
		return nil
	}
	root, err := parseSourceObject(source)
	if err != nil {
		return err
	}
	idx := m.index()
	for _, ff := range fields {
		if ff.nestedOnly {
			continue
		}
		nodes := m.sourceValues(idx, root, ff.Path)
		vals := docValuesOf(ff, nodes, reg)
		if len(vals) > 0 {
			out[ff.Path] = append(out[ff.Path], vals...)
		}
	}
	return nil
}

// FetchValues appends the fields-API values of the document with this
// source: source values normalised by the mapping, in source order. Values
// of fields inside nested objects are grouped as Elasticsearch does: under
// the outermost nested path, one object per nested object (keys relative
// to that path), nested objects without a requested value left out.
func (m *Mapping) FetchValues(source []byte, fields []FetchField, reg *analysis.Registry, out map[string][]any) error {
	if len(fields) == 0 {
		return nil
	}
	root, err := parseSourceObject(source)
	if err != nil {
		return err
	}
	idx := m.index()
	seen := map[string]bool{}
	var mapped []FetchField
	for _, ff := range fields {
		if seen[ff.Path] {
			continue
		}
		seen[ff.Path] = true
		if ff.field == nil {
			unmappedValues(root, "", ff.Path, idx, out)
			continue
		}
		mapped = append(mapped, ff)
	}
	m.fetchScope(idx, root, "", mapped, reg, out)
	return nil
}

// fetchScope adds the values of fields (all below scope, "" for the root
// document) found in obj, the source object of scope, keyed by their path
// relative to scope.
func (m *Mapping) fetchScope(idx *fieldIndex, obj *jnode, scope string, fields []FetchField, reg *analysis.Registry, out map[string][]any) {
	var groups []string
	byNested := map[string][]FetchField{}
	for _, ff := range fields {
		if np := outerNested(idx, scope, ff.Path); np != "" {
			if _, ok := byNested[np]; !ok {
				groups = append(groups, np)
			}
			byNested[np] = append(byNested[np], ff)
			continue
		}
		var vals []any
		for _, n := range m.scopedSourceValues(idx, obj, scope, ff.Path) {
			if v, ok := fetchValue(ff, n, reg); ok {
				vals = append(vals, v)
			}
		}
		if len(vals) > 0 {
			out[relPath(scope, ff.Path)] = vals
		}
	}
	for _, np := range groups {
		var objs []any
		for _, o := range valuesAt(obj, relPath(scope, np)) {
			if o.kind != jObject {
				continue
			}
			sub := map[string][]any{}
			m.fetchScope(idx, o, np, byNested[np], reg, sub)
			if len(sub) > 0 {
				objs = append(objs, sub)
			}
		}
		if len(objs) > 0 {
			out[relPath(scope, np)] = objs
		}
	}
}

// outerNested returns the outermost nested path strictly between scope and
// path ("" when path is not inside a nested object below scope).
func outerNested(idx *fieldIndex, scope, path string) string {
	start := 0
	if scope != "" {
		start = len(scope) + 1
	}
	for i := start; i < len(path); i++ {
		if path[i] != '.' {
			continue
		}
		if _, ok := idx.nested[path[:i]]; ok {
			return path[:i]
		}
	}
	return ""
}

// relPath is path relative to scope ("" for the root).
func relPath(scope, path string) string {
	if scope == "" {
		return path
	}
	return strings.TrimPrefix(path, scope+".")
}

// sourceValues returns the source values indexed into path (the parent's
// values for a multi-field), null values replaced by null_value.
func (m *Mapping) sourceValues(idx *fieldIndex, root *jnode, path string) []*jnode {
	return m.scopedSourceValues(idx, root, "", path)
}

// scopedSourceValues is sourceValues in obj, the source object of scope.
func (m *Mapping) scopedSourceValues(idx *fieldIndex, obj *jnode, scope, path string) []*jnode {
	f := idx.all[path]
	var out []*jnode
	for _, n := range valuesAt(obj, relPath(scope, sourcePathOf(idx, path))) {
		if n.kind == jNull {
			if f == nil || len(f.NullValue) == 0 {
				continue
			}
			nv, err := parseJSON(string(f.NullValue))
			if err != nil {
				continue
			}
			n = nv
		}
		out = append(out, n)
	}
	return out
}

// rawValue turns a source node into a JSON value (numbers keep their text).
func rawValue(n *jnode) any {
	switch n.kind {
	case jString:
		return n.str
	case jNumber:
		return json.Number(n.str)
	case jTrue:
		return true
	case jFalse:
		return false
	}
	b := &strings.Builder{}
	n.writePreview(b)
	return json.RawMessage(b.String())
}

// keywordValue is a keyword's indexed form: normalised, nil when dropped by
// ignore_above.
func keywordValue(f *Field, n *jnode, reg *analysis.Registry) (string, bool) {
	s, cause := scalarText(n)
	if cause != nil {
		return "", false
	}
	if f.IgnoreAbove != nil && utf16Len(s) > *f.IgnoreAbove {
		return "", false
	}
	if f.Normalizer != "" && reg != nil {
		if nz, err := reg.Normalizer(f.Normalizer); err == nil {
			s = nz.Normalize(s)
		}
	}
	return s, true
}

// dateInstant parses a date source value to seconds and nanoseconds; date
// fields keep millisecond resolution.
func dateInstant(f *Field, n *jnode) (int64, int64, bool) {
	s, cause := scalarText(n)
	if cause != nil {
		return 0, 0, false
	}
	sec, nsec, err := parseDateNanos(s, dateFormatOf(f))
	if err != nil {
		return 0, 0, false
	}
	if f.Type == TypeDate {
		nsec -= nsec % 1e6
	}
	return sec, nsec, true
}

// FormatDateNanos renders an instant with the first alternative of a date
// format in UTC, keeping sub-millisecond digits where the format prints them.
func FormatDateNanos(sec, nsec int64, format string) string {
	if format == "" {
		format = DefaultDateFormat
	}
	df, err := compileDateFormat(format)
	if err != nil {
		df, _ = compileDateFormat(DefaultDateFormat)
	}
	return df.alts[0].print(time.Unix(sec, nsec).UTC())
}

// numberValue parses a numeric source value at its type's precision:
// int64 (or uint64) for integer types, float32 for float and half_float,
// float64 otherwise.
func numberValue(f *Field, n *jnode) (any, float64, bool) {
	v, isNull, cause := parseNumeric(f, n)
	if cause != nil || isNull {
		return nil, 0, false
	}
	switch f.Type {
	case TypeLong, TypeInteger, TypeShort, TypeByte:
		if n.isInt() {
			if i, err := strconv.ParseInt(strings.TrimPrefix(n.str, "+"), 10, 64); err == nil {
				return i, float64(i), true
			}
		}
		return int64(v), v, true
	case TypeUnsignedLong:
		if n.isInt() {
			if u, err := strconv.ParseUint(strings.TrimPrefix(n.str, "+"), 10, 64); err == nil {
				return u, float64(u), true
			}
		}
		return uint64(v), v, true
	case TypeFloat:
		return float32(v), float64(float32(v)), true
	case TypeHalfFloat:
		h := halfFloat(v)
		return float32(h), h, true
	case TypeScaledFloat:
		factor := 1.0
		if f.ScalingFactor != nil {
			factor = *f.ScalingFactor
		}
		r := math.Round(v*factor) / factor
		return r, r, true
	}
	return v, v, true
}

// halfFloat rounds to the nearest IEEE half-precision value.
func halfFloat(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	if math.Abs(v) >= 65520 {
		return math.Copysign(math.Inf(1), v)
	}
	exp := math.Floor(math.Log2(math.Abs(v)))
	if exp < -14 {
		exp = -14
	}
	ulp := math.Pow(2, exp-10)
	return math.RoundToEven(v/ulp) * ulp
}

// fetchValue converts a source value for the fields API.
func fetchValue(ff FetchField, n *jnode, reg *analysis.Registry) (any, bool) {
	f := ff.field
	switch f.Type {
	case TypeText:
		s, cause := scalarText(n)
		return s, cause == nil
	case TypeKeyword:
		return keywordValue(f, n, reg)
	case TypeBoolean:
		b, cause := parseBoolean(n)
		return b, cause == nil
	case TypeDate, TypeDateNanos:
		sec, nsec, ok := dateInstant(f, n)
		if !ok {
			return nil, false
		}
		format := ff.Format
		if format == "" {
			format = dateFormatOf(f)
		}
		return FormatDateNanos(sec, nsec, format), true
	case TypeGeoPoint:
		lat, lon, cause := parseGeoPoint(f, "", n)
		if cause != nil {
			return nil, false
		}
		if ff.Format == "wkt" {
			return "POINT (" + javaDouble(lon) + " " + javaDouble(lat) + ")", true
		}
		return map[string]any{"type": "Point", "coordinates": []float64{lon, lat}}, true
	}
	v, _, ok := numberValue(f, n)
	if ok && f.Type == TypeHalfFloat {
		// the fields API returns the parsed float, not the indexed half
		if x, err := strconv.ParseFloat(strings.TrimSpace(n.str), 32); err == nil {
			v = float32(x)
		}
	}
	return v, ok
}

// dvItem is one doc value with its sort key.
type dvItem struct {
	num  float64
	num2 float64
	str  string
	val  any
}

// docValuesOf renders the doc values of one field from its source values.
func docValuesOf(ff FetchField, nodes []*jnode, reg *analysis.Registry) []any {
	f := ff.field
	var items []dvItem
	byString := false
	switch f.Type {
	case TypeKeyword:
		byString = true
		for _, n := range nodes {
			if s, ok := keywordValue(f, n, reg); ok {
				items = append(items, dvItem{str: s, val: s})
			}
		}
	case TypeText:
		byString = true
		a, err := reg.Analyzer(f.Analyzer)
		if err != nil {
			return nil
		}
		for _, n := range nodes {
			s, cause := scalarText(n)
			if cause != nil {
				continue
			}
			for _, tok := range a.Analyze([]byte(s)) {
				items = append(items, dvItem{str: string(tok.Term), val: string(tok.Term)})
			}
		}
	case TypeBoolean:
		for _, n := range nodes {
			if b, cause := parseBoolean(n); cause == nil {
				it := dvItem{val: b}
				if b {
					it.num = 1
				}
				items = append(items, it)
			}
		}
	case TypeDate, TypeDateNanos:
		format := ff.Format
		if format == "" {
			format = dateFormatOf(f)
		}
		for _, n := range nodes {
			if sec, nsec, ok := dateInstant(f, n); ok {
				items = append(items, dvItem{num: float64(sec), num2: float64(nsec), val: FormatDateNanos(sec, nsec, format)})
			}
		}
	case TypeGeoPoint:
		for _, n := range nodes {
			lat, lon, cause := parseGeoPoint(f, "", n)
			if cause != nil {
				continue
			}
			qlat, qlon := quantizeLat(lat), quantizeLon(lon)
			items = append(items, dvItem{num: qlat, num2: qlon, val: javaDouble(qlat) + ", " + javaDouble(qlon)})
		}
	default:
		for _, n := range nodes {
			v, num, ok := numberValue(f, n)
			if !ok {
				continue
			}
			if ff.num != nil {
				v = ff.num.format(num)
			} else if x, ok := v.(float32); ok {
				v = float64(x)
			}
			items = append(items, dvItem{num: num, val: v})
		}
	}
	if byString {
		sort.SliceStable(items, func(i, j int) bool { return items[i].str < items[j].str })
	} else {
		sort.SliceStable(items, func(i, j int) bool {
			if items[i].num != items[j].num {
				return items[i].num < items[j].num
			}
			return items[i].num2 < items[j].num2
		})
	}
	out := make([]any, 0, len(items))
	for i, it := range items {
		if byString && i > 0 && it.str == items[i-1].str {
			continue // sorted-set doc values hold each term once
		}
		out = append(out, it.val)
	}
	return out
}

// quantizeLat and quantizeLon round a coordinate to the 32-bit encoding of
// Lucene's LatLonPoint doc values (GeoEncodingUtils).
func quantizeLat(lat float64) float64 {
	const dec = 180.0 / (1 << 32)
	if lat == 90 {
		return float64(math.MaxInt32) * dec
	}
	return math.Floor(lat/dec) * dec
}

func quantizeLon(lon float64) float64 {
	const dec = 360.0 / (1 << 32)
	if lon == 180 {
		return float64(math.MaxInt32) * dec
	}
	return math.Floor(lon/dec) * dec
}

// decimalFormat is the subset of java.text.DecimalFormat that docvalue_fields
// formats use: literal prefix and suffix, '#'/'0' integer digits with ','
// grouping, '0'/'#' fraction digits, and '%'.
type decimalFormat struct {
	prefix, suffix     string
	minInt             int
	grouping           int
	minFrac, maxFrac   int
	percent, hasDigits bool
}

// compileDecimalFormat parses a DecimalFormat pattern (the positive part).
func compileDecimalFormat(pattern string) (*decimalFormat, error) {
	pat := pattern
	if i := strings.IndexByte(pat, ';'); i >= 0 {
		pat = pat[:i]
	}
	df := &decimalFormat{}
	i := 0
	for i < len(pat) && !strings.ContainsRune("#0,.", rune(pat[i])) {
		if pat[i] == '%' {
			df.percent = true
		}
		if pat[i] != '\'' {
			df.prefix += string(pat[i])
		}
		i++
	}
	lastGroup := -1
	intDigits := 0
	inFrac := false
	for ; i < len(pat) && strings.ContainsRune("#0,.", rune(pat[i])); i++ {
		c := pat[i]
		switch {
		case c == '.':
			if inFrac {
				return nil, eserr.IllegalArgument("Multiple decimal separators in pattern \"%s\"", pattern)
			}
			inFrac = true
		case c == ',':
			if inFrac {
				return nil, eserr.IllegalArgument("Malformed pattern \"%s\"", pattern)
			}
			lastGroup = intDigits
		case inFrac:
			df.maxFrac++
			if c == '0' {
				if df.maxFrac != df.minFrac+1 {
					return nil, eserr.IllegalArgument("Unexpected '0' in pattern \"%s\"", pattern)
				}
				df.minFrac++
			}
			df.hasDigits = true
		default:
			intDigits++
			if c == '0' {
				df.minInt++
			} else if df.minInt > 0 {
				return nil, eserr.IllegalArgument("Unexpected '0' in pattern \"%s\"", pattern)
			}
			df.hasDigits = true
		}
	}
	if lastGroup >= 0 {
		df.grouping = intDigits - lastGroup
	}
	for ; i < len(pat); i++ {
		if pat[i] == '%' {
			df.percent = true
		}
		if pat[i] != '\'' {
			df.suffix += string(pat[i])
		}
	}
	if !df.hasDigits {
		return nil, eserr.IllegalArgument("Malformed pattern \"%s\"", pattern)
	}
	return df, nil
}

// format renders v (rounding half-even on the exact binary value).
func (df *decimalFormat) format(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	if math.IsInf(v, 0) {
		// java.text.DecimalFormat: the affixes around the infinity symbol
		sign := ""
		if v < 0 {
			sign = "-"
		}
		return sign + df.prefix + "∞" + df.suffix
	}
	if df.percent {
		v *= 100
	}
	neg := v < 0 || (v == 0 && math.Signbit(v))
	s := strconv.FormatFloat(math.Abs(v), 'f', df.maxFrac, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	frac = strings.TrimRight(frac, "0")
	for len(frac) < df.minFrac {
		frac += "0"
	}
	intPart = strings.TrimLeft(intPart, "0")
	for len(intPart) < df.minInt {
		intPart = "0" + intPart
	}
	if intPart == "" && frac == "" {
		intPart = "0"
	}
	if df.grouping > 0 && len(intPart) > df.grouping {
		var b bytes.Buffer
		lead := len(intPart) % df.grouping
		if lead > 0 {
			b.WriteString(intPart[:lead])
		}
		for j := lead; j < len(intPart); j += df.grouping {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(intPart[j : j+df.grouping])
		}
		intPart = b.String()
	}
	var b strings.Builder
	if neg && (strings.Trim(intPart, "0,") != "" || strings.Trim(frac, "0") != "") {
		b.WriteByte('-')
	}
	b.WriteString(df.prefix)
	b.WriteString(intPart)
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	b.WriteString(df.suffix)
	return b.String()
}

// SourceStrings returns the text of the source values indexed into path
// (the parent's values for a multi-field), arrays flattened, nulls
// replaced by null_value or dropped; the highlighter re-analyses them.
func (m *Mapping) SourceStrings(source []byte, path string) ([]string, error) {
	root, err := parseSourceObject(source)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range m.sourceValues(m.index(), root, path) {
		if s, cause := scalarText(n); cause == nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// parseSourceObject parses a document source (an object).
func parseSourceObject(source []byte) (*jnode, error) {
	root, jerr := parseJSON(string(source))
	if jerr != nil || root.kind != jObject {
		return nil, eserr.MapperParsing("failed to parse")
	}
	return root, nil
}

// unmappedValues adds the values of the unmapped source leaves whose dotted
// paths match pattern (include_unmapped), arrays flattened, nulls dropped.
func unmappedValues(n *jnode, path, pattern string, idx *fieldIndex, out map[string][]any) {
	switch n.kind {
	case jObject:
		for i, k := range n.keys {
			unmappedValues(n.vals[i], joinPath(path, k), pattern, idx, out)
		}
	case jArray:
		for _, v := range n.vals {
			unmappedValues(v, path, pattern, idx, out)
		}
	case jNull:
	default:
		if _, mapped := idx.all[path]; mapped || path == "" || !wildcardMatch(pattern, path) {
			return
		}
		out[path] = append(out[path], rawValue(n))
	}
}
