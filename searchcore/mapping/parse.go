package mapping

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// New returns an empty mapping (rendered as {}).
func New() *Mapping { return &Mapping{} }

// Parse parses an Elasticsearch 7 mapping body ({"properties": ..., "dynamic":
// ..., "_source": ..., ...}; a single "_doc" wrapper is accepted). Analyzer
// and normalizer names are checked against reg (nil: built-ins only).
//
// Errors are reported as PUT _mapping reports them (mapper_parsing_exception
// "No handler for type [x] declared on field [y]", "unknown parameter [x] on
// mapper [y] of type [z]", illegal_argument_exception "analyzer [x] has not
// been configured in mappings", ...). Index creation wraps them: see
// CreateIndexError.
func Parse(raw json.RawMessage, reg *analysis.Registry) (*Mapping, error) {
	if reg == nil {
		reg = analysis.Global()
	}
	root, err := decodeMap(raw)
	if err != nil {
		return nil, eserr.MapperParsing("Failed to parse mapping: %s", err.Error())
	}
	if len(root) == 1 {
		if inner, ok := root["_doc"]; ok {
			if m, err := decodeMap(inner); err == nil && m != nil {
				root = m
			}
		}
	}
	m := &Mapping{}
	var unsupported []string
	for _, key := range sortedKeys(root) {
		v := root[key]
		switch key {
		case "properties":
			props, err := parseProperties("", v, reg)
			if err != nil {
				return nil, err
			}
			m.Properties = props
		case "dynamic":
			d, err := parseDynamic("_doc", v)
			if err != nil {
				return nil, err
			}
			m.Dynamic = d
		case "date_detection", "numeric_detection":
			b, ok := parseBool(v)
			if !ok {
				return nil, eserr.IllegalArgument("Could not convert [%s] to boolean", key)
			}
			if key == "date_detection" {
				m.DateDetection = &b
			} else {
				m.NumericDetection = &b
			}
		case "dynamic_date_formats":
			formats, ok := parseStringList(v)
			if !ok {
				return nil, eserr.MapperParsing("Invalid value for [dynamic_date_formats]: %s", previewRaw(v))
			}
			for _, f := range formats {
				if _, err := compileDateFormat(f); err != nil {
					return nil, err
				}
			}
			m.DynamicDateFormats = formats
		case "dynamic_templates":
			if err := validateTemplates(v); err != nil {
				return nil, err
			}
			m.DynamicTemplates = compact(v)
		case "_source":
			sc, err := parseSource(v)
			if err != nil {
				return nil, err
			}
			m.Source = sc
		case "_routing":
			obj, err := decodeMap(v)
			if err != nil || obj == nil {
				return nil, eserr.MapperParsing("Expected map for property [_routing] but got %s", previewRaw(v))
			}
			for _, k := range sortedKeys(obj) {
				if k != "required" {
					return nil, eserr.MapperParsing("unknown parameter [%s] on mapper [_routing] of type [_routing]", k)
				}
				b, ok := parseBool(obj[k])
				if !ok {
					return nil, eserr.MapperParsing("Failed to parse value [%s] as only [true] or [false] are allowed.", previewRaw(obj[k]))
				}
				m.RoutingRequired = &b
			}
		case "_meta":
			if obj, err := decodeMap(v); err != nil || obj == nil {
				if isNull(v) {
					continue
				}
				return nil, eserr.MapperParsing("[_meta] must be an object, got %s", previewRaw(v))
			}
			m.Meta = compact(v)
		case "enabled":
			b, ok := parseBool(v)
			if !ok {
				return nil, eserr.MapperParsing("Failed to parse value [%s] as only [true] or [false] are allowed.", previewRaw(v))
			}
			m.Enabled = &b
		case "_field_names", "runtime", "_data_stream_timestamp":
			if m.Extra == nil {
				m.Extra = map[string]json.RawMessage{}
			}
			m.Extra[key] = compact(v)
		default:
			unsupported = append(unsupported, key+" : "+previewRaw(v))
		}
	}
	if len(unsupported) > 0 {
		return nil, eserr.MapperParsing("Root mapping definition has unsupported parameters:  [%s]", strings.Join(unsupported, "] ["))
	}
	if n := countFields(m.Properties); n > totalFieldsLimit {
		return nil, eserr.IllegalArgument("Limit of total fields [%d] has been exceeded", totalFieldsLimit)
	}
	if err := checkNestedLimit(m.Properties); err != nil {
		return nil, err
	}
	return m, nil
}

// CreateIndexError wraps a Parse error the way index creation reports it:
// mapper_parsing_exception "Failed to parse mapping [_doc]: <reason>" caused
// by the original error.
func CreateIndexError(err error) error {
	return CreateIndexTypeError("_doc", err)
}

// CreateIndexTypeError is CreateIndexError for the mapping of the named
// type (_default_ for the default mapping).
func CreateIndexTypeError(typ string, err error) error {
	var e *eserr.Error
	if !asEserr(err, &e) {
		return err
	}
	return eserr.MapperParsing("Failed to parse mapping [%s]: %s", typ, e.Reason).Caused(e)
}

func asEserr(err error, target **eserr.Error) bool {
	e, ok := err.(*eserr.Error)
	if ok {
		*target = e
	}
	return ok
}

// Limits Elasticsearch applies by default to mappings.
const (
	totalFieldsLimit = 1000
	depthLimit       = 20
)

// countFields counts mapped fields as index.mapping.total_fields.limit does:
// every object and leaf plus every multi-field.
func countFields(props map[string]*Field) int {
	n := 0
	for _, f := range props {
		n++
		n += countFields(f.Properties)
		n += countFields(f.Fields)
	}
	return n
}

func decodeMap(raw json.RawMessage) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	return m, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return b.Bytes()
}

// previewRaw renders a raw JSON value like Java's toString of the parsed
// value (strings unquoted, maps as {k=v}).
func previewRaw(raw json.RawMessage) string {
	n, err := parseJSON(string(raw))
	if err != nil {
		return string(raw)
	}
	return n.preview()
}

// parseBool accepts JSON booleans and the strings "true"/"false", as
// XContentMapValues.nodeBooleanValue does.
func parseBool(raw json.RawMessage) (bool, bool) {
	switch string(bytes.TrimSpace(raw)) {
	case "true", `"true"`:
		return true, true
	case "false", `"false"`:
		return false, true
	}
	return false, false
}

func parseString(raw json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// parseStringList accepts a string or an array of strings.
func parseStringList(raw json.RawMessage) ([]string, bool) {
	if s, ok := parseString(raw); ok {
		return []string{s}, true
	}
	var arr []string
	if err := json.Unmarshal(raw, &arr); err != nil {
		return nil, false
	}
	return arr, true
}

// parseDynamic parses a "dynamic" value into "true", "false", "strict" or
// "runtime".
func parseDynamic(owner string, raw json.RawMessage) (string, error) {
	s, isStr := parseString(raw)
	if isStr {
		switch strings.ToLower(s) {
		case "strict":
			return "strict", nil
		case "runtime":
			return "runtime", nil
		}
	}
	if b, ok := parseBool(raw); ok {
		return strconv.FormatBool(b), nil
	}
	return "", eserr.IllegalArgument("Could not convert [%s.dynamic] to boolean", owner)
}

func parseSource(raw json.RawMessage) (*SourceConfig, error) {
	obj, err := decodeMap(raw)
	if err != nil || obj == nil {
		return nil, eserr.MapperParsing("Expected map for property [_source] but got %s", previewRaw(raw))
	}
	sc := &SourceConfig{}
	for _, k := range sortedKeys(obj) {
		v := obj[k]
		switch k {
		case "enabled":
			b, ok := parseBool(v)
			if !ok {
				return nil, eserr.MapperParsing("Failed to parse value [%s] as only [true] or [false] are allowed.", previewRaw(v))
			}
			sc.Enabled = &b
		case "includes", "excludes":
			l, ok := parseStringList(v)
			if !ok {
				return nil, eserr.MapperParsing("Failed to parse value [%s] for parameter [%s] on mapper [_source]", previewRaw(v), k)
			}
			if l == nil {
				l = []string{}
			}
			if k == "includes" {
				sc.Includes = l
			} else {
				sc.Excludes = l
			}
		default:
			return nil, eserr.MapperParsing("unknown parameter [%s] on mapper [_source] of type [_source]", k)
		}
	}
	return sc, nil
}

func validateTemplates(raw json.RawMessage) error {
	var arr []json.RawMessage
	bad := eserr.MapperParsing("Dynamic template syntax error. An array of named objects is expected.")
	if err := json.Unmarshal(raw, &arr); err != nil {
		return bad
	}
	for _, t := range arr {
		obj, err := decodeMap(t)
		if err != nil || len(obj) != 1 {
			return bad
		}
		for name, def := range obj {
			d, err := decodeMap(def)
			if err != nil || d == nil {
				return bad
			}
			if _, ok := d["mapping"]; !ok {
				if _, rt := d["runtime"]; !rt {
					return eserr.MapperParsing("template [%s] must have either mapping or runtime set", name)
				}
			}
			if mm, ok := d["match_mapping_type"]; ok {
				s, _ := parseString(mm)
				switch s {
				case "*", "string", "long", "double", "boolean", "date", "object", "binary":
				default:
					return eserr.IllegalArgument("No field type matched on [%s], possible values are [object, string, long, double, boolean, date, binary]", s)
				}
			}
		}
	}
	return nil
}

// parseProperties parses a "properties" object whose fields live under
// parentPath ("" for the root). Dotted names expand into objects.
func parseProperties(parentPath string, raw json.RawMessage, reg *analysis.Registry) (map[string]*Field, error) {
	obj, err := decodeMap(raw)
	if err != nil {
		return nil, eserr.MapperParsing("Expected map for property [properties] but got %s", previewRaw(raw))
	}
	props := map[string]*Field{}
	for _, name := range sortedKeys(obj) {
		def := obj[name]
		if name == "" {
			return nil, eserr.IllegalArgument("field name cannot be an empty string")
		}
		parts := strings.Split(name, ".")
		for len(parts) > 1 && parts[len(parts)-1] == "" { // Java's split drops trailing empties
			parts = parts[:len(parts)-1]
		}
		for _, p := range parts {
			if p == "" {
				return nil, eserr.IllegalArgument("Invalid field name %s", name)
			}
		}
		leaf := parts[len(parts)-1]
		objPath := joinPath(parentPath, strings.Join(parts[:len(parts)-1], "."))
		defMap, err := decodeMap(def)
		if err != nil || defMap == nil {
			return nil, eserr.MapperParsing("Expected map for property [fields] on field [%s] but got a %s", name, javaClass(def))
		}
		f, err := parseField(joinPath(objPath, leaf), leaf, defMap, reg, false)
		if err != nil {
			return nil, err
		}
		// Wrap in intermediate objects for dotted names.
		for i := len(parts) - 2; i >= 0; i-- {
			f = &Field{Type: TypeObject, Properties: map[string]*Field{parts[i+1]: f}}
		}
		top := parts[0]
		if existing, ok := props[top]; ok {
			merged, err := mergeField(joinPath(parentPath, top), existing, f)
			if err != nil {
				return nil, err
			}
			f = merged
		}
		props[top] = f
	}
	return props, nil
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	if name == "" {
		return parent
	}
	return parent + "." + name
}

// javaClass names the Java class Elasticsearch reports for a non-map value.
func javaClass(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "class java.lang.String"
	}
	switch t[0] {
	case '"':
		return "class java.lang.String"
	case '[':
		return "class java.util.ArrayList"
	case 't', 'f':
		return "class java.lang.Boolean"
	case 'n':
		return "null"
	}
	if bytes.ContainsAny(t, ".eE") {
		return "class java.lang.Double"
	}
	return "class java.lang.Integer"
}

// leafParams lists, per type, the parameters a field of that type accepts
// besides type, fields, copy_to, meta and boost.
var leafParams = map[string]map[string]bool{
	TypeText: set("index", "store", "analyzer", "search_analyzer", "search_quote_analyzer", "eager_global_ordinals",
		"fielddata", "fielddata_frequency_filter", "index_options", "index_prefixes", "index_phrases", "norms",
		"position_increment_gap", "similarity", "term_vector"),
	TypeKeyword: set("index", "store", "doc_values", "null_value", "ignore_above", "normalizer", "eager_global_ordinals",
		"index_options", "norms", "similarity", "split_queries_on_whitespace"),
	TypeLong:         numericParams(),
	TypeInteger:      numericParams(),
	TypeShort:        numericParams(),
	TypeByte:         numericParams(),
	TypeDouble:       numericParams(),
	TypeFloat:        numericParams(),
	TypeHalfFloat:    numericParams(),
	TypeUnsignedLong: numericParams(),
	TypeScaledFloat:  numericParams("scaling_factor"),
	TypeBoolean:      set("index", "store", "doc_values", "null_value"),
	TypeDate:         set("index", "store", "doc_values", "null_value", "format", "locale", "ignore_malformed"),
	TypeDateNanos:    set("index", "store", "doc_values", "null_value", "format", "locale", "ignore_malformed"),
	TypeGeoPoint:     set("index", "store", "doc_values", "null_value", "ignore_malformed", "ignore_z_value"),
}

func set(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

func numericParams(extra ...string) map[string]bool {
	return set(append([]string{"index", "store", "doc_values", "null_value", "coerce", "ignore_malformed"}, extra...)...)
}

// isObjectType reports whether t is an object-like type.
func isObjectType(t string) bool { return t == TypeObject || t == TypeNested }

// IsObject reports whether f is an object or nested field.
func (f *Field) IsObject() bool { return f != nil && isObjectType(f.Type) }

// parseField parses one field definition. path is its full dotted path
// (for messages that need it), name its simple name.
func parseField(path, name string, def map[string]json.RawMessage, reg *analysis.Registry, multi bool) (*Field, error) {
	typ := ""
	if t, ok := def["type"]; ok {
		s, isStr := parseString(t)
		if !isStr {
			s = previewRaw(t)
		}
		typ = s
	} else if _, ok := def["properties"]; ok {
		typ = TypeObject
	} else if _, ok := def["enabled"]; ok && len(def) == 1 {
		typ = TypeObject
	} else {
		return nil, eserr.MapperParsing("No type specified for field [%s]", name)
	}
	if isObjectType(typ) {
		if multi {
			return nil, eserr.MapperParsing("Type [%s] cannot be used in multi field", typ)
		}
		return parseObject(path, name, typ, def, reg)
	}
	allowed, known := leafParams[typ]
	if !known {
		return nil, eserr.MapperParsing("No handler for type [%s] declared on field [%s]", typ, name)
	}
	f := &Field{Type: typ}
	for _, key := range sortedKeys(def) {
		v := def[key]
		switch key {
		case "type":
			continue
		case "fields":
			obj, err := decodeMap(v)
			if err != nil || obj == nil {
				return nil, eserr.MapperParsing("Expected map for property [fields] on field [%s] but got a %s", name, javaClass(v))
			}
			f.Fields = map[string]*Field{}
			for _, sub := range sortedKeys(obj) {
				if strings.Contains(sub, ".") {
					return nil, eserr.MapperParsing("Field name [%s] which is a multi field of [%s] cannot contain '.'", sub, name)
				}
				if sub == "" {
					return nil, eserr.IllegalArgument("field name cannot be an empty string")
				}
				subDef, err := decodeMap(obj[sub])
				if err != nil || subDef == nil {
					return nil, eserr.MapperParsing("Expected map for property [fields] on field [%s] but got a %s", sub, javaClass(obj[sub]))
				}
				if _, ok := subDef["copy_to"]; ok {
					return nil, eserr.MapperParsing("copy_to in multi fields is not allowed. Found the copy_to in field [%s] which is within a multi field.", sub)
				}
				sf, err := parseField(path+"."+sub, sub, subDef, reg, true)
				if err != nil {
					return nil, err
				}
				f.Fields[sub] = sf
			}
			continue
		case "copy_to":
			l, ok := parseStringList(v)
			if !ok {
				return nil, eserr.MapperParsing("Failed to parse value [%s] for parameter [copy_to] on mapper [%s]", previewRaw(v), name)
			}
			f.CopyTo = l
			continue
		case "meta", "boost":
			if key == "meta" {
				if obj, err := decodeMap(v); err != nil || obj == nil {
					return nil, eserr.MapperParsing("[meta] must be an object, got [%s] for field [%s]", previewRaw(v), name)
				}
			}
			f.setExtra(key, v)
			continue
		}
		if !allowed[key] {
			return nil, eserr.MapperParsing("unknown parameter [%s] on mapper [%s] of type [%s]", key, name, typ)
		}
		if err := f.setParam(name, key, v, reg); err != nil {
			return nil, err
		}
	}
	// Cross-parameter checks.
	if typ == TypeScaledFloat && f.ScalingFactor == nil {
		return nil, eserr.IllegalArgument("Field [scaling_factor] is required")
	}
	if f.SearchAnalyzer != "" && f.Analyzer == "" {
		return nil, eserr.MapperParsing("analyzer on field [%s] must be set when search_analyzer is set", name)
	}
	if f.SearchQuoteAnalyzer != "" && f.SearchAnalyzer == "" {
		return nil, eserr.MapperParsing("analyzer and search_analyzer on field [%s] must be set when search_quote_analyzer is set", name)
	}
	if len(f.NullValue) > 0 {
		nv, err := normalizeNullValue(f, name)
		if err != nil {
			return nil, err
		}
		f.NullValue = nv
	}
	return f, nil
}

func (f *Field) setExtra(key string, v json.RawMessage) {
	if f.Extra == nil {
		f.Extra = map[string]json.RawMessage{}
	}
	f.Extra[key] = compact(v)
}

// setParam parses one type-specific parameter.
func (f *Field) setParam(name, key string, v json.RawMessage, reg *analysis.Registry) error {
	badBool := func() error {
		return eserr.MapperParsing("Failed to parse value [%s] as only [true] or [false] are allowed.", previewRaw(v))
	}
	boolPtr := func() (*bool, error) {
		b, ok := parseBool(v)
		if !ok {
			return nil, badBool()
		}
		return &b, nil
	}
	var err error
	switch key {
	case "index":
		f.Index, err = boolPtr()
	case "store":
		f.Store, err = boolPtr()
	case "doc_values":
		f.DocValues, err = boolPtr()
	case "coerce":
		f.Coerce, err = boolPtr()
	case "ignore_malformed":
		f.IgnoreMalformed, err = boolPtr()
	case "null_value":
		if !isNull(v) {
			f.NullValue = compact(v)
		}
	case "ignore_above":
		n, ok := parseIntParam(v)
		if !ok {
			return eserr.MapperParsing("Failed to parse value [%s] for parameter [ignore_above] on mapper [%s]", previewRaw(v), name)
		}
		if n < 0 {
			return eserr.MapperParsing("[ignore_above] must be positive, got [%d]", n)
		}
		f.IgnoreAbove = &n
	case "analyzer", "search_analyzer", "search_quote_analyzer":
		s, ok := parseString(v)
		if !ok {
			return eserr.MapperParsing("Failed to parse value [%s] for parameter [%s] on mapper [%s]", previewRaw(v), key, name)
		}
		if !reg.HasAnalyzer(s) {
			return eserr.IllegalArgument("analyzer [%s] has not been configured in mappings", s)
		}
		switch key {
		case "analyzer":
			f.Analyzer = s
		case "search_analyzer":
			f.SearchAnalyzer = s
		default:
			f.SearchQuoteAnalyzer = s
		}
	case "normalizer":
		if isNull(v) {
			return nil
		}
		s, ok := parseString(v)
		if !ok {
			return eserr.MapperParsing("Failed to parse value [%s] for parameter [normalizer] on mapper [%s]", previewRaw(v), name)
		}
		if _, err := reg.Normalizer(s); err != nil {
			return eserr.MapperParsing("normalizer [%s] not found for field [%s]", s, name)
		}
		f.Normalizer = s
	case "format":
		s, ok := parseString(v)
		if !ok {
			return eserr.MapperParsing("Failed to parse value [%s] for parameter [format] on mapper [%s]", previewRaw(v), name)
		}
		if _, err := compileDateFormat(s); err != nil {
			return err
		}
		f.Format = s
	case "scaling_factor":
		n, ok := parseFloatParam(v)
		if !ok {
			return eserr.MapperParsing("Failed to parse value [%s] for parameter [scaling_factor] on mapper [%s]", previewRaw(v), name)
		}
		if n <= 0 || math.IsInf(n, 0) || math.IsNaN(n) {
			return eserr.IllegalArgument("[scaling_factor] must be a positive number, got [%s]", javaDouble(n))
		}
		f.ScalingFactor = &n
	default:
		// Parameters kept verbatim; check the common boolean ones.
		switch key {
		case "eager_global_ordinals", "fielddata", "index_phrases", "norms", "split_queries_on_whitespace", "ignore_z_value":
			if _, ok := parseBool(v); !ok {
				return badBool()
			}
		case "index_options":
			s, _ := parseString(v)
			switch s {
			case "docs", "freqs", "positions", "offsets":
			default:
				return eserr.MapperParsing("Unknown value [%s] for field [index_options] - accepted values are [docs, freqs, positions, offsets]", previewRaw(v))
			}
		}
		f.setExtra(key, v)
	}
	return err
}

func parseIntParam(raw json.RawMessage) (int, bool) {
	s := strings.Trim(string(bytes.TrimSpace(raw)), `"`)
	n, err := strconv.Atoi(s)
	return n, err == nil
}

func parseFloatParam(raw json.RawMessage) (float64, bool) {
	s := strings.Trim(string(bytes.TrimSpace(raw)), `"`)
	n, err := strconv.ParseFloat(s, 64)
	return n, err == nil
}

// normalizeNullValue checks null_value converts to the field type and
// returns it as Elasticsearch renders it.
func normalizeNullValue(f *Field, name string) (json.RawMessage, error) {
	n, jerr := parseJSON(string(f.NullValue))
	if jerr != nil {
		return nil, eserr.MapperParsing("Failed to parse value [%s] for [null_value]", string(f.NullValue))
	}
	if n.kind == jObject || n.kind == jArray {
		if f.Type != TypeGeoPoint {
			return nil, eserr.MapperParsing("Failed to parse value [%s] for [null_value] on field [%s]", n.preview(), name)
		}
	}
	switch f.Type {
	case TypeKeyword:
		if n.kind == jString {
			return f.NullValue, nil
		}
		b, _ := json.Marshal(n.preview())
		return b, nil
	case TypeBoolean:
		v, cause := parseBoolean(n)
		if cause != nil {
			return nil, eserr.MapperParsing("Failed to parse value [%s] for [null_value] on field [%s]", n.preview(), name).Caused(cause)
		}
		return json.RawMessage(strconv.FormatBool(v)), nil
	case TypeDate, TypeDateNanos:
		if _, _, err := parseDateNanos(nodeText(n), dateFormatOf(f)); err != nil {
			return nil, eserr.MapperParsing("Failed to parse value [%s] for [null_value] on field [%s]", n.preview(), name).Caused(err.(*eserr.Error))
		}
		return f.NullValue, nil
	case TypeGeoPoint:
		if _, _, cause := parseGeoPoint(f, name, n); cause != nil {
			return nil, eserr.MapperParsing("Failed to parse value [%s] for [null_value] on field [%s]", n.preview(), name).Caused(cause)
		}
		return f.NullValue, nil
	}
	lenient := *f
	coerce := true
	lenient.Coerce = &coerce // null_value strings are numbers, not coercions
	v, isNullV, cause := parseNumeric(&lenient, n)
	if cause != nil {
		return nil, eserr.MapperParsing("Failed to parse value [%s] for [null_value] on field [%s]", n.preview(), name).Caused(cause)
	}
	if isNullV {
		return nil, nil
	}
	switch f.Type {
	case TypeLong, TypeInteger, TypeShort, TypeByte:
		if n.isInt() {
			return json.RawMessage(n.str), nil
		}
		return json.RawMessage(strconv.FormatInt(int64(v), 10)), nil
	case TypeUnsignedLong:
		if n.isInt() || (n.kind == jString && allDigits(n.str)) {
			return json.RawMessage(n.str), nil
		}
		return json.RawMessage(strconv.FormatUint(uint64(v), 10)), nil
	case TypeScaledFloat:
		raw, _ := parseFloatValue(n)
		return json.RawMessage(javaDouble(raw)), nil
	}
	return json.RawMessage(javaDouble(v)), nil
}

// objectParams are the parameters of object and nested fields.
var objectParams = set("type", "properties", "dynamic", "enabled")
var nestedParams = set("type", "properties", "dynamic", "enabled", "include_in_parent", "include_in_root")

func parseObject(path, name, typ string, def map[string]json.RawMessage, reg *analysis.Registry) (*Field, error) {
	f := &Field{Type: typ}
	allowed := objectParams
	if typ == TypeNested {
		allowed = nestedParams
	}
	var unsupported []string
	for _, key := range sortedKeys(def) {
		v := def[key]
		if !allowed[key] {
			unsupported = append(unsupported, key+" : "+previewRaw(v))
			continue
		}
		switch key {
		case "properties":
			props, err := parseProperties(path, v, reg)
			if err != nil {
				return nil, err
			}
			f.Properties = props
		case "dynamic":
			d, err := parseDynamic(name, v)
			if err != nil {
				return nil, err
			}
			f.Dynamic = d
		case "enabled":
			b, ok := parseBool(v)
			if !ok {
				return nil, eserr.MapperParsing("Failed to parse value [%s] as only [true] or [false] are allowed.", previewRaw(v))
			}
			f.Enabled = &b
		case "include_in_parent", "include_in_root":
			b, ok := parseBool(v)
			if !ok {
				return nil, eserr.MapperParsing("Failed to parse value [%s] as only [true] or [false] are allowed.", previewRaw(v))
			}
			f.setExtra(key, json.RawMessage(strconv.FormatBool(b)))
		}
	}
	if len(unsupported) > 0 {
		return nil, eserr.MapperParsing("Mapping definition for [%s] has unsupported parameters:  [%s]", name, strings.Join(unsupported, "] ["))
	}
	if strings.Count(path, ".")+1 > depthLimit {
		return nil, eserr.IllegalArgument("Limit of mapping depth [%d] has been exceeded due to object field [%s]", depthLimit, path)
	}
	return f, nil
}

// dateFormatOf returns the effective format of a date field.
func dateFormatOf(f *Field) string {
	if f.Format != "" {
		return f.Format
	}
	if f.Type == TypeDateNanos {
		return DefaultDateNanosFormat
	}
	return DefaultDateFormat
}

// javaDouble formats a float64 like Java's Double.toString (1.0, 1.5,
// 1.0E10, Infinity, NaN).
func javaDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, 64) // 1.5E+10
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	if strings.HasPrefix(exp, "-") {
		exp = "-" + strings.TrimLeft(exp[1:], "0")
	} else {
		exp = strings.TrimLeft(exp, "0")
	}
	return mant + "E" + exp
}
