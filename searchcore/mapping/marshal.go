package mapping

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// paramOrder is, per type, the order Elasticsearch 7.17 renders parameters.
var paramOrder = withNumericParamOrder(map[string][]string{
	TypeText: {"index", "eager_global_ordinals", "index_phrases", "index_prefixes", "store", "index_options", "norms",
		"term_vector", "analyzer", "search_analyzer", "search_quote_analyzer", "similarity", "position_increment_gap",
		"fielddata", "fielddata_frequency_filter", "meta", "boost"},
	TypeKeyword: {"index", "doc_values", "store", "null_value", "eager_global_ordinals", "ignore_above", "index_options",
		"norms", "similarity", "normalizer", "split_queries_on_whitespace", "meta", "boost"},
	TypeScaledFloat: {"index", "doc_values", "store", "ignore_malformed", "meta", "scaling_factor", "coerce", "null_value", "boost"},
	TypeDate:        {"index", "doc_values", "store", "format", "locale", "null_value", "ignore_malformed", "meta", "boost"},
	TypeDateNanos:   {"index", "doc_values", "store", "format", "locale", "null_value", "ignore_malformed", "meta", "boost"},
	TypeBoolean:     {"doc_values", "index", "null_value", "store", "meta", "boost"},
	TypeGeoPoint:    {"ignore_malformed", "ignore_z_value", "index", "doc_values", "store", "null_value", "meta"},
})

// withNumericParamOrder adds the parameter order shared by the numeric
// types to order and returns it.
func withNumericParamOrder(order map[string][]string) map[string][]string {
	num := []string{"index", "doc_values", "store", "ignore_malformed", "coerce", "null_value", "meta", "boost"}
	for _, t := range []string{TypeLong, TypeInteger, TypeShort, TypeByte, TypeDouble, TypeFloat, TypeHalfFloat, TypeUnsignedLong} {
		order[t] = num
	}
	return order
}

// extraDefault returns the default of a verbatim-kept parameter.
func extraDefault(typ, p string) (json.RawMessage, bool) {
	switch p {
	case "eager_global_ordinals", "fielddata", "index_phrases", "split_queries_on_whitespace", "include_in_parent", "include_in_root":
		return json.RawMessage("false"), true
	case "norms":
		if typ == TypeText {
			return json.RawMessage("true"), true
		}
		return json.RawMessage("false"), true
	case "index_options":
		if typ == TypeText {
			return json.RawMessage(`"positions"`), true
		}
		return json.RawMessage(`"docs"`), true
	case "term_vector":
		return json.RawMessage(`"no"`), true
	case "position_increment_gap":
		return json.RawMessage("100"), true
	case "ignore_z_value":
		return json.RawMessage("true"), true
	case "meta":
		return json.RawMessage("{}"), true
	case "boost":
		return json.RawMessage("1.0"), true
	}
	return nil, false
}

// rawEqual compares two scalar JSON values loosely ("true" == true, 1 == 1.0).
func rawEqual(a, b json.RawMessage) bool {
	norm := func(r json.RawMessage) string {
		r = bytes.TrimSpace(r)
		var s string
		if json.Unmarshal(r, &s) == nil {
			return s
		}
		if f, err := strconv.ParseFloat(string(r), 64); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return string(compact(r))
	}
	return norm(a) == norm(b)
}

// MarshalJSON renders the mapping as GET _mapping shows it: only parameters
// that differ from their defaults, "type" omitted for objects with
// properties, properties sorted by name, an empty mapping as {}.
func (m *Mapping) MarshalJSON() ([]byte, error) {
	var w jsonWriter
	w.begin()
	if m.Dynamic != "" {
		w.key("dynamic")
		w.str(m.Dynamic)
	}
	if m.Enabled != nil && !*m.Enabled {
		w.key("enabled")
		w.raw("false")
	}
	if len(m.Meta) > 0 {
		w.key("_meta")
		w.raw(string(compact(m.Meta)))
	}
	// Metadata fields, sorted by name like Elasticsearch's metadata mappers.
	meta := map[string]func(){}
	for k, v := range m.Extra {
		if strings.HasPrefix(k, "_") {
			v := v
			meta[k] = func() { w.raw(string(v)) }
		}
	}
	if m.RoutingRequired != nil && *m.RoutingRequired {
		meta["_routing"] = func() { w.raw(`{"required":true}`) }
	}
	if s := m.Source; s != nil && (s.Enabled != nil && !*s.Enabled || len(s.Includes) > 0 || len(s.Excludes) > 0) {
		meta["_source"] = func() {
			w.begin()
			if s.Enabled != nil && !*s.Enabled {
				w.key("enabled")
				w.raw("false")
			}
			if len(s.Includes) > 0 {
				w.key("includes")
				w.strList(s.Includes)
			}
			if len(s.Excludes) > 0 {
				w.key("excludes")
				w.strList(s.Excludes)
			}
			w.end()
		}
	}
	for _, k := range sortedKeys(meta) {
		w.key(k)
		meta[k]()
	}
	if m.DynamicDateFormats != nil {
		w.key("dynamic_date_formats")
		w.strList(m.DynamicDateFormats)
	}
	if len(m.DynamicTemplates) > 0 {
		w.key("dynamic_templates")
		w.raw(string(compact(m.DynamicTemplates)))
	}
	if m.DateDetection != nil {
		w.key("date_detection")
		w.raw(strconv.FormatBool(*m.DateDetection))
	}
	if m.NumericDetection != nil {
		w.key("numeric_detection")
		w.raw(strconv.FormatBool(*m.NumericDetection))
	}
	for _, k := range sortedKeys(m.Extra) {
		if !strings.HasPrefix(k, "_") {
			w.key(k)
			w.raw(string(m.Extra[k]))
		}
	}
	if len(m.Properties) > 0 {
		w.key("properties")
		writeProps(&w, m.Properties)
	}
	w.end()
	return w.buf.Bytes(), nil
}

// MarshalJSON renders one field as GET _mapping shows it.
func (f *Field) MarshalJSON() ([]byte, error) {
	var w jsonWriter
	writeField(&w, f)
	return w.buf.Bytes(), nil
}

func writeProps(w *jsonWriter, props map[string]*Field) {
	w.begin()
	for _, name := range sortedKeys(props) {
		w.key(name)
		writeField(w, props[name])
	}
	w.end()
}

func writeField(w *jsonWriter, f *Field) {
	w.begin()
	if f.IsObject() {
		if f.Type == TypeNested || len(f.Properties) == 0 {
			w.key("type")
			w.str(f.Type)
		}
		if f.Type == TypeNested {
			for _, p := range []string{"include_in_parent", "include_in_root"} {
				if v, ok := f.Extra[p]; ok && string(v) == "true" {
					w.key(p)
					w.raw("true")
				}
			}
		}
		if f.Dynamic != "" {
			w.key("dynamic")
			w.str(f.Dynamic)
		}
		if f.Enabled != nil && !*f.Enabled {
			w.key("enabled")
			w.raw("false")
		}
		if len(f.Properties) > 0 {
			w.key("properties")
			writeProps(w, f.Properties)
		}
		w.end()
		return
	}
	w.key("type")
	w.str(f.Type)
	order := paramOrder[f.Type]
	for _, p := range order {
		writeParam(w, f, p)
	}
	// Verbatim parameters without a known position, sorted.
	for _, k := range sortedKeys(f.Extra) {
		known := false
		for _, p := range order {
			if p == k {
				known = true
				break
			}
		}
		if !known {
			w.key(k)
			w.raw(string(f.Extra[k]))
		}
	}
	if len(f.Fields) > 0 {
		w.key("fields")
		writeProps(w, f.Fields)
	}
	if len(f.CopyTo) > 0 {
		w.key("copy_to")
		w.strList(f.CopyTo)
	}
	w.end()
}

func writeBoolParam(w *jsonWriter, name string, b *bool, def bool) {
	if b != nil && *b != def {
		w.key(name)
		w.raw(strconv.FormatBool(*b))
	}
}

func writeParam(w *jsonWriter, f *Field, p string) {
	switch p {
	case "index":
		writeBoolParam(w, p, f.Index, true)
	case "doc_values":
		writeBoolParam(w, p, f.DocValues, true)
	case "store":
		writeBoolParam(w, p, f.Store, false)
	case "coerce":
		writeBoolParam(w, p, f.Coerce, true)
	case "ignore_malformed":
		writeBoolParam(w, p, f.IgnoreMalformed, false)
	case "null_value":
		if len(f.NullValue) > 0 {
			w.key(p)
			w.raw(string(compact(f.NullValue)))
		}
	case "ignore_above":
		if f.IgnoreAbove != nil && *f.IgnoreAbove != defaultIgnoreAbove {
			w.key(p)
			w.raw(strconv.Itoa(*f.IgnoreAbove))
		}
	case "analyzer", "search_analyzer", "search_quote_analyzer", "normalizer":
		v := map[string]string{"analyzer": f.Analyzer, "search_analyzer": f.SearchAnalyzer,
			"search_quote_analyzer": f.SearchQuoteAnalyzer, "normalizer": f.Normalizer}[p]
		if v != "" {
			w.key(p)
			w.str(v)
		}
	case "format":
		if f.Format != "" && f.Format != dateFormatOf(&Field{Type: f.Type}) {
			w.key(p)
			w.str(f.Format)
		}
	case "scaling_factor":
		if f.ScalingFactor != nil {
			w.key(p)
			w.raw(javaDouble(*f.ScalingFactor))
		}
	default:
		v, ok := f.Extra[p]
		if !ok {
			return
		}
		if d, hasDef := extraDefault(f.Type, p); hasDef && rawEqual(v, d) {
			return
		}
		w.key(p)
		w.raw(string(v))
	}
}

// jsonWriter builds compact JSON without HTML escaping (as Elasticsearch).
type jsonWriter struct {
	buf   bytes.Buffer
	first []bool
}

func (w *jsonWriter) begin() {
	w.buf.WriteByte('{')
	w.first = append(w.first, true)
}

func (w *jsonWriter) end() {
	w.buf.WriteByte('}')
	w.first = w.first[:len(w.first)-1]
}

func (w *jsonWriter) key(k string) {
	if !w.first[len(w.first)-1] {
		w.buf.WriteByte(',')
	}
	w.first[len(w.first)-1] = false
	writeJSONString(&w.buf, k)
	w.buf.WriteByte(':')
}

func (w *jsonWriter) str(s string) { writeJSONString(&w.buf, s) }
func (w *jsonWriter) raw(s string) { w.buf.WriteString(s) }

func (w *jsonWriter) strList(l []string) {
	w.buf.WriteByte('[')
	for i, s := range l {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		writeJSONString(&w.buf, s)
	}
	w.buf.WriteByte(']')
}

const hexDigits = "0123456789abcdef"

func writeJSONString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < 0x20:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xF])
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(`\ufffd`)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// sortStrings sorts in place and returns l.
func sortStrings(l []string) []string {
	sort.Strings(l)
	return l
}
