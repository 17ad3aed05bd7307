package mapping

import (
	"math"
	"strconv"
	"strings"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// StoredFieldValues returns, for GET/search "stored_fields", the values of
// the requested fields that are mapped with store: true, read from the
// source and converted as Elasticsearch returns stored values (integers as
// int64, floating types as float64, booleans as bool, dates formatted with
// the field's format, keywords and text as strings). Patterns with "*" are
// expanded; unknown, unstored or valueless fields are left out. Values
// copied in with copy_to are included. docPath is the nested path of the
// document read ("" for the top-level document): fields stored in other
// (nested) documents are left out too.
func (m *Mapping) StoredFieldValues(source []byte, fields []string, docPath string) (map[string][]any, error) {
	out := map[string][]any{}
	if len(fields) == 0 {
		return out, nil
	}
	root, jerr := parseJSON(string(source))
	if jerr != nil || root.kind != jObject {
		return nil, eserr.MapperParsing("failed to parse")
	}
	idx := m.index()
	seen := map[string]bool{}
	for _, pat := range fields {
		for _, path := range m.MatchFields(pat) {
			if seen[path] {
				continue
			}
			seen[path] = true
			f := idx.all[path]
			if f == nil || f.IsObject() || !boolOr(f.Store, false) || !m.InNestedDocument(path, docPath) {
				continue
			}
			var vals []any
			sources := append([]string{sourcePathOf(idx, path)}, idx.copyFrom[path]...)
			for _, src := range sources {
				for _, n := range valuesAt(root, src) {
					if v, ok := storedValue(f, n); ok {
						vals = append(vals, v)
					}
				}
			}
			if len(vals) > 0 {
				out[path] = vals
			}
		}
	}
	return out, nil
}

// sourcePathOf maps a multi-field path to the path of its parent value.
func sourcePathOf(idx *fieldIndex, path string) string {
	if _, ok := idx.props[path]; ok {
		return path
	}
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return sourcePathOf(idx, path[:i])
	}
	return path
}

// valuesAt collects the scalar values at a dotted path of a source,
// flattening arrays and accepting dotted keys in the source.
func valuesAt(n *jnode, path string) []*jnode {
	var out []*jnode
	var walk func(n *jnode, rest string)
	walk = func(n *jnode, rest string) {
		switch n.kind {
		case jArray:
			for _, v := range n.vals {
				walk(v, rest)
			}
			return
		case jObject:
			if rest == "" {
				out = append(out, n) // geo points as objects
				return
			}
			for i, k := range n.keys {
				if k == rest {
					walk(n.vals[i], "")
				} else if strings.HasPrefix(rest, k+".") {
					walk(n.vals[i], rest[len(k)+1:])
				}
			}
			return
		}
		if rest == "" {
			out = append(out, n)
		}
	}
	if path == "" {
		return nil
	}
	walk(n, path)
	return out
}

// storedValue converts a source value to its stored form.
func storedValue(f *Field, n *jnode) (any, bool) {
	if n.kind == jNull {
		if len(f.NullValue) == 0 {
			return nil, false
		}
		nv, err := parseJSON(string(f.NullValue))
		if err != nil {
			return nil, false
		}
		n = nv
	}
	switch f.Type {
	case TypeText, TypeKeyword:
		s, cause := scalarText(n)
		if cause != nil {
			return nil, false
		}
		if f.IgnoreAbove != nil && utf16Len(s) > *f.IgnoreAbove {
			return nil, false
		}
		return s, true
	case TypeBoolean:
		b, cause := parseBoolean(n)
		return b, cause == nil
	case TypeDate, TypeDateNanos:
		s, cause := scalarText(n)
		if cause != nil {
			return nil, false
		}
		sec, nsec, err := parseDateNanos(s, dateFormatOf(f))
		if err != nil {
			return nil, false
		}
		return FormatDate(sec*1000+nsec/1e6, dateFormatOf(f)), true
	case TypeGeoPoint:
		lat, lon, cause := parseGeoPoint(f, "", n)
		if cause != nil {
			return nil, false
		}
		return strconv.FormatFloat(lat, 'f', -1, 64) + ", " + strconv.FormatFloat(lon, 'f', -1, 64), true
	}
	v, isNull, cause := parseNumeric(f, n)
	if cause != nil || isNull {
		return nil, false
	}
	switch f.Type {
	case TypeLong, TypeInteger, TypeShort, TypeByte:
		if n.isInt() {
			if i, err := strconv.ParseInt(n.str, 10, 64); err == nil {
				return i, true
			}
		}
		return int64(v), true
	case TypeUnsignedLong:
		if v > math.MaxInt64 {
			return uint64(v), true
		}
		return int64(v), true
	}
	return v, true
}
