package query

import (
	"math"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/blugelabs/bluge"
	blugeanalysis "github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/analysis/analyzer"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// Meta fields the engine indexes itself (see the mapping package comment).
const (
	idField         = "_id"
	fieldNamesField = "_field_names"
	// seqNoField is the _seq_no meta field random_score may name.
	seqNoField = "_seq_no"
)

// fieldType is a mapped leaf field as queries see it.
type fieldType struct {
	path string
	typ  string
	f    *mapping.Field // nil for meta fields
}

// lookupField resolves path. It returns nil for unmapped paths; object
// reports whether path is an object (or nested) field instead of a leaf.
func (c *Context) lookupField(path string) (ft *fieldType, object bool) {
	if ft := metaFieldType(path); ft != nil {
		return ft, false
	}
	if c.Mapping == nil {
		return nil, false
	}
	f := c.Mapping.Lookup(path)
	switch {
	case f == nil:
		return nil, false
	case f.IsObject():
		return nil, true
	case f.Type == "":
		return nil, false
	}
	return &fieldType{path: path, typ: f.Type, f: f}, false
}

func (ft *fieldType) isText() bool    { return ft.typ == mapping.TypeText }
func (ft *fieldType) isKeyword() bool { return ft.typ == mapping.TypeKeyword }
func (ft *fieldType) isString() bool  { return ft.isText() || ft.isKeyword() }
func (ft *fieldType) isDate() bool {
	return ft.typ == mapping.TypeDate || ft.typ == mapping.TypeDateNanos
}

// isNumber reports the numeric field types (not dates or booleans).
func (ft *fieldType) isNumber() bool {
	switch ft.typ {
	case mapping.TypeLong, mapping.TypeInteger, mapping.TypeShort, mapping.TypeByte,
		mapping.TypeDouble, mapping.TypeFloat, mapping.TypeHalfFloat, mapping.TypeScaledFloat,
		mapping.TypeUnsignedLong:
		return true
	}
	return false
}

// isIntegral reports the number types holding whole values.
func (ft *fieldType) isIntegral() bool {
	switch ft.typ {
	case mapping.TypeLong, mapping.TypeInteger, mapping.TypeShort, mapping.TypeByte, mapping.TypeUnsignedLong:
		return true
	}
	return false
}

// indexed reports whether the field has an inverted index to search.
func (ft *fieldType) indexed() bool {
	return ft.f == nil || ft.f.Index == nil || *ft.f.Index
}

func (ft *fieldType) dateFormat() string {
	if ft.f != nil && ft.f.Format != "" {
		return ft.f.Format
	}
	return defaultDateFormat
}

func (ft *fieldType) scalingFactor() float64 {
	if ft.f != nil && ft.f.ScalingFactor != nil {
		return *ft.f.ScalingFactor
	}
	return 1
}

// failIfNotIndexed is MappedFieldType.failIfNotIndexed.
func (c *Context) failIfNotIndexed(ft *fieldType) error {
	if ft.indexed() {
		return nil
	}
	return c.failedToCreate(searchcore.IllegalArgument("Cannot search on field [%s] since it is not indexed.", ft.path))
}

// token is one analyzed token.
type token = blugeanalysis.Token

// textAnalyzer is what query analysis needs from an analyzer.
type textAnalyzer interface {
	Analyze(input []byte) blugeanalysis.TokenStream
}

var standardAnalyzer = sync.OnceValue(func() *blugeanalysis.Analyzer { return analyzer.NewStandardAnalyzer() })

// namedAnalyzer resolves an analyzer name ("" = the index default).
func (c *Context) namedAnalyzer(name string) (textAnalyzer, bool) {
	if c.Analyzers == nil {
		if name == "" || name == "standard" || name == "default" {
			return standardAnalyzer(), true
		}
		return nil, false
	}
	a, err := c.Analyzers.Analyzer(name)
	if err != nil || a == nil {
		return nil, false
	}
	return a, true
}

// searchAnalyzer is the analyzer a text field's query text goes through:
// search_analyzer, else analyzer, else the index's default_search/default.
func (c *Context) searchAnalyzer(ft *fieldType) (textAnalyzer, error) {
	var analyzerName, searchName string
	if ft.f != nil {
		analyzerName, searchName = ft.f.Analyzer, ft.f.SearchAnalyzer
	}
	if c.Analyzers == nil {
		name := searchName
		if name == "" {
			name = analyzerName
		}
		if a, ok := c.namedAnalyzer(name); ok {
			return a, nil
		}
		return nil, c.failedToCreate(searchcore.IllegalArgument("failed to find analyzer [%s]", name))
	}
	a, err := c.Analyzers.SearchAnalyzer(analyzerName, searchName)
	if err != nil {
		return nil, c.failedToCreate(err)
	}
	return a, nil
}

// normalize runs a keyword value through the field's normalizer (ES's
// KeywordFieldType.indexedValueForSearch); other fields keep the value.
func (c *Context) normalize(ft *fieldType, s string) (string, error) {
	if !ft.isKeyword() || ft.f == nil || ft.f.Normalizer == "" {
		return s, nil
	}
	if c.Analyzers == nil {
		return "", c.failedToCreate(searchcore.IllegalArgument("failed to find normalizer under name [%s]", ft.f.Normalizer))
	}
	n, err := c.Analyzers.Normalizer(ft.f.Normalizer)
	if err != nil {
		return "", c.failedToCreate(err)
	}
	return n.Normalize(s), nil
}

// lowercasesWildcards reports whether a text field's search analyzer
// normalizes wildcard/prefix patterns to lower case (ES applies the
// analyzer's normalization chain; all built-in analyzers except keyword and
// whitespace lowercase).
func (ft *fieldType) lowercasesWildcards() bool {
	if !ft.isText() {
		return false
	}
	name := ""
	if ft.f != nil {
		name = ft.f.SearchAnalyzer
		if name == "" {
			name = ft.f.Analyzer
		}
	}
	switch name {
	case "keyword", "whitespace":
		return false
	}
	return true
}

// ---------------------------------------------------------------------
// numbers

// rangeErr is NumberType's "Value [v] is out of range for a long" error.
func rangeErr(v scalar, what string) error {
	return searchcore.IllegalArgument("Value [%s] is out of range for %s", v.String(), what)
}

// hasDecimalPart is NumberFieldMapper.hasDecimalPart.
func hasDecimalPart(v scalar) (bool, error) {
	f, err := v.float64Of()
	if err != nil {
		return false, err
	}
	return math.Mod(f, 1) != 0, nil
}

// parseIntegral is NumberType.parse(value, coerce=true) for the integer
// types, with the range check of ES's INTEGER or LONG type.
func parseIntegral(ft *fieldType, v scalar) (float64, error) {
	f, err := v.float64Of()
	if err != nil {
		return 0, err
	}
	switch ft.typ {
	case mapping.TypeLong:
		if f < math.MinInt64 || f > math.MaxInt64 {
			return 0, rangeErr(v, "a long")
		}
		if v.kind == kNumber && isIntegerLiteral(v.s) {
			if n, err := strconv.ParseInt(v.s, 10, 64); err == nil {
				return float64(n), nil
			}
		}
		return math.Trunc(f), nil
	case mapping.TypeUnsignedLong:
		if f < 0 || f > math.MaxUint64 {
			return 0, rangeErr(v, "an unsigned long")
		}
		return math.Trunc(f), nil
	}
	if f < math.MinInt32 || f > math.MaxInt32 {
		return 0, rangeErr(v, "an integer")
	}
	return math.Trunc(f), nil
}

// parseFloating parses a value for the floating point types, rejecting
// non-finite values as ES does.
func parseFloating(ft *fieldType, v scalar) (float64, error) {
	f, err := v.float64Of()
	if err != nil {
		return 0, err
	}
	switch ft.typ {
	case mapping.TypeFloat, mapping.TypeHalfFloat:
		f32 := float32(f)
		if math.IsInf(float64(f32), 0) || math.IsNaN(float64(f32)) {
			return 0, searchcore.IllegalArgument("[%s] supports only finite values, but got [%s]", ft.typ, javaFloatString(f32))
		}
		return float64(f32), nil
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, searchcore.IllegalArgument("[%s] supports only finite values, but got [%s]", ft.typ, javaDoubleString(f))
	}
	return f, nil
}

// indexedNumber is the float64 the mapper indexes for value x of the field
// type (float and half_float lose precision, scaled floats are rounded to
// the scaling factor).
func indexedNumber(ft *fieldType, x float64) float64 {
	switch ft.typ {
	case mapping.TypeFloat:
		return float64(float32(x))
	case mapping.TypeHalfFloat:
		return toHalfFloat(x)
	case mapping.TypeScaledFloat:
		sf := ft.scalingFactor()
		return roundHalfUp(x*sf) / sf
	}
	return x
}

// numberExact returns the inclusive float64 range matching value v exactly
// on a numeric field (ES's NumberType.termQuery); none reports values that
// can never match (decimals on integer fields).
func numberExact(ft *fieldType, v scalar) (lo, hi float64, none bool, err error) {
	switch {
	case ft.isIntegral():
		dec, err := hasDecimalPart(v)
		if err != nil {
			return 0, 0, false, err
		}
		if dec {
			return 0, 0, true, nil
		}
		x, err := parseIntegral(ft, v)
		return x, x, false, err
	case ft.typ == mapping.TypeScaledFloat:
		f, err := v.float64Of()
		if err != nil {
			return 0, 0, false, err
		}
		x := indexedNumber(ft, f)
		return x, x, false, nil
	}
	x, err := parseFloating(ft, v)
	if err != nil {
		return 0, 0, false, err
	}
	x = indexedNumber(ft, x)
	return x, x, false, nil
}

// boolValue is BooleanFieldType.indexedValueForSearch: 1 or 0.
func boolValue(v scalar) (float64, error) {
	switch v.String() {
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	}
	return 0, searchcore.IllegalArgument("Can't parse boolean value [%s], expected [true] or [false]", v.String())
}

// ---------------------------------------------------------------------
// dates

// dateMathFor returns the date parser of a field, with an optional forced
// format and time zone.
func (c *Context) dateMathFor(ft *fieldType, format string, loc *time.Location) dateMath {
	if format == "" {
		format = ft.dateFormat()
	}
	return dateMath{format: format, loc: loc, now: c.now}
}

// dateRange is DateFieldType.rangeQuery's bound arithmetic: the inclusive
// millisecond range for optional lower/upper values.
func (c *Context) dateRange(dm dateMath, lower, upper *scalar, incLower, incUpper bool) (lo, hi int64, err error) {
	lo, hi = math.MinInt64, math.MaxInt64
	if lower != nil {
		lo, err = dm.resolve(lower.String(), !incLower)
		if err != nil {
			return 0, 0, err
		}
		if !incLower {
			if lo == math.MaxInt64 {
				return 1, 0, nil
			}
			lo++
		}
	}
	if upper != nil {
		hi, err = dm.resolve(upper.String(), incUpper)
		if err != nil {
			return 0, 0, err
		}
		if !incUpper {
			if hi == math.MinInt64 {
				return 1, 0, nil
			}
			hi--
		}
	}
	return lo, hi, nil
}

func millisBound(ms int64) float64 {
	switch ms {
	case math.MinInt64:
		return math.Inf(-1)
	case math.MaxInt64:
		return math.Inf(1)
	}
	return float64(ms)
}

// ---------------------------------------------------------------------
// term queries per field type

// termQuery is MappedFieldType.termQuery: the query matching value v
// exactly on the field, with ES's scoring (BM25 for string terms, constant
// for numbers and dates).
func (c *Context) termQuery(ft *fieldType, v scalar, boost float32) (bluge.Query, error) {
	if err := c.failIfNotIndexed(ft); err != nil {
		return nil, err
	}
	switch {
	case ft.isString():
		term, err := c.normalize(ft, v.String())
		if err != nil {
			return nil, err
		}
		return bluge.NewTermQuery(term).SetField(ft.path).SetBoost(float64(boost)), nil
	case ft.isNumber():
		lo, hi, none, err := numberExact(ft, v)
		if err != nil {
			return nil, c.failedToCreate(err)
		}
		if none {
			return matchNone(), nil
		}
		return &numericRangeQuery{field: ft.path, lo: lo, hi: hi, score: float64(boost)}, nil
	case ft.typ == mapping.TypeBoolean:
		x, err := boolValue(v)
		if err != nil {
			return nil, c.failedToCreate(err)
		}
		return &numericRangeQuery{field: ft.path, lo: x, hi: x, score: float64(boost)}, nil
	case ft.isDate():
		lo, hi, err := c.dateRange(c.dateMathFor(ft, "", nil), &v, &v, true, true)
		if err != nil {
			return nil, c.failedToCreate(err)
		}
		return &numericRangeQuery{field: ft.path, lo: millisBound(lo), hi: millisBound(hi), score: float64(boost)}, nil
	case ft.typ == mapping.TypeGeoPoint:
		return nil, c.shardErr("Geometry fields do not support exact searching, use dedicated geometry queries instead: [%s]", ft.path)
	}
	return nil, c.failedToCreate(searchcore.IllegalArgument("Field [%s] of type [%s] does not support term queries", ft.path, ft.typ))
}

// termQueryCaseInsensitive is termQuery with case_insensitive: true.
func (c *Context) termQueryCaseInsensitive(ft *fieldType, v scalar, boost float32) (bluge.Query, error) {
	if !ft.isString() {
		return nil, c.shardErr("[%s] field which is of type [%s], does not support case insensitive term queries", ft.path, ft.typ)
	}
	if err := c.failIfNotIndexed(ft); err != nil {
		return nil, err
	}
	term, err := c.normalize(ft, v.String())
	if err != nil {
		return nil, err
	}
	return c.regexpQuery(ft, "(?is)"+regexp.QuoteMeta(term), boost)
}

// regexpQuery builds a constant-score query over the terms matching an RE2
// pattern, failing like ES does for patterns too complex to compile.
func (c *Context) regexpQuery(ft *fieldType, pattern string, boost float32) (bluge.Query, error) {
	q, err := newRegexpQuery(ft.path, pattern, float64(boost))
	if err != nil {
		return nil, c.failedToCreate(searchcore.IllegalArgument("%v", err))
	}
	return q, nil
}
