package mapping

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// fieldIndex is the per-Mapping lookup structure, built once on first use.
type fieldIndex struct {
	// props maps full paths reachable through properties (objects and
	// leaves, not multi-fields) to their fields.
	props map[string]*Field
	// all adds the multi-field paths ("title.keyword").
	all map[string]*Field
	// leaves are the sorted leaf and multi-field paths.
	leaves []string
	// subNames are the sorted multi-field names per leaf.
	subNames map[*Field][]string
	// copyFrom maps a copy_to target to the source paths copying into it.
	copyFrom map[string][]string
	// count is the number of mapped fields (for the total fields limit).
	count     int
	templates []*dynamicTemplate
	// nested are the nested field paths.
	nested map[string]struct{}
	// dateFormats are the dynamic date formats in force.
	dateFormats []string
}

// index returns the lookup structure, building it on first use. Concurrent
// first calls may build it twice; both results are identical.
func (m *Mapping) index() *fieldIndex {
	if idx := m.cache.Load(); idx != nil {
		return idx
	}
	idx := buildIndex(m)
	m.cache.Store(idx)
	return idx
}

func buildIndex(m *Mapping) *fieldIndex {
	idx := &fieldIndex{
		props:    map[string]*Field{},
		all:      map[string]*Field{},
		subNames: map[*Field][]string{},
		copyFrom: map[string][]string{},
		nested:   map[string]struct{}{},
	}
	nestedPaths(m.Properties, "", idx.nested)
	var walk func(prefix string, props map[string]*Field)
	var addLeaf func(path string, f *Field)
	addLeaf = func(path string, f *Field) {
		idx.all[path] = f
		idx.leaves = append(idx.leaves, path)
		idx.count++
		for _, t := range f.CopyTo {
			idx.copyFrom[t] = append(idx.copyFrom[t], path)
		}
		if len(f.Fields) > 0 {
			names := sortStrings(keysOf(f.Fields))
			idx.subNames[f] = names
			for _, n := range names {
				addLeaf(path+"."+n, f.Fields[n])
			}
		}
	}
	walk = func(prefix string, props map[string]*Field) {
		for name, f := range props {
			path := joinPath(prefix, name)
			idx.props[path] = f
			if f.IsObject() {
				idx.all[path] = f
				idx.count++
				walk(path, f.Properties)
				continue
			}
			addLeaf(path, f)
		}
	}
	walk("", m.Properties)
	sort.Strings(idx.leaves)
	idx.templates = parseTemplates(m.DynamicTemplates)
	idx.dateFormats = m.DynamicDateFormats
	if idx.dateFormats == nil {
		idx.dateFormats = defaultDynamicDateFormats
	}
	return idx
}

// defaultDynamicDateFormats are Elasticsearch 7's dynamic date formats.
var defaultDynamicDateFormats = []string{DefaultDateFormat, "yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis"}

func keysOf(m map[string]*Field) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Lookup returns the field mapped at a full dotted path: a leaf, an object,
// or a multi-field ("title.keyword"); nil if unmapped.
func (m *Mapping) Lookup(path string) *Field {
	return m.index().all[path]
}

// FieldPaths returns every leaf path, multi-fields included, sorted.
func (m *Mapping) FieldPaths() []string {
	return append([]string(nil), m.index().leaves...)
}

// FieldCount returns the number of mapped fields (objects, leaves and
// multi-fields), as index.mapping.total_fields.limit counts them.
func (m *Mapping) FieldCount() int { return m.index().count }

// MatchFields expands a field pattern with "*" wildcards (as in multi_match
// "fields": ["tit*"]) to the sorted leaf paths it matches, multi-fields
// included. A pattern without wildcards returns itself if mapped.
func (m *Mapping) MatchFields(pattern string) []string {
	idx := m.index()
	if !strings.Contains(pattern, "*") {
		if f, ok := idx.all[pattern]; ok && !f.IsObject() {
			return []string{pattern}
		}
		return nil
	}
	var out []string
	for _, p := range idx.leaves {
		if wildcardMatch(pattern, p) {
			out = append(out, p)
		}
	}
	return out
}

// wildcardMatch matches s against a pattern where "*" matches any run.
func wildcardMatch(pattern, s string) bool {
	for {
		star := strings.IndexByte(pattern, '*')
		if star < 0 {
			return pattern == s
		}
		if !strings.HasPrefix(s, pattern[:star]) {
			return false
		}
		s = s[star:]
		pattern = pattern[star+1:]
		if pattern == "" {
			return true
		}
		next := strings.IndexByte(pattern, '*')
		lit := pattern
		if next >= 0 {
			lit = pattern[:next]
		}
		if next < 0 {
			return strings.HasSuffix(s, lit)
		}
		i := strings.Index(s, lit)
		if i < 0 {
			return false
		}
		s = s[i:]
	}
}

// dynamicTemplate is one parsed entry of dynamic_templates.
type dynamicTemplate struct {
	name                       string
	match, unmatch             string
	pathMatch, pathUnmatch     string
	matchMappingType           string
	regex                      *regexp.Regexp
	unmatchRegex               *regexp.Regexp
	mapping                    map[string]json.RawMessage
	hasMatch, hasUnmatch       bool
	hasPathMatch, hasPathUnmat bool
}

func parseTemplates(raw json.RawMessage) []*dynamicTemplate {
	if len(raw) == 0 {
		return nil
	}
	var arr []map[string]map[string]json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		return nil
	}
	var out []*dynamicTemplate
	for _, entry := range arr {
		for name, def := range entry {
			t := &dynamicTemplate{name: name}
			str := func(k string) (string, bool) {
				v, ok := def[k]
				if !ok {
					return "", false
				}
				s, _ := parseString(v)
				return s, true
			}
			t.match, t.hasMatch = str("match")
			t.unmatch, t.hasUnmatch = str("unmatch")
			t.pathMatch, t.hasPathMatch = str("path_match")
			t.pathUnmatch, t.hasPathUnmat = str("path_unmatch")
			t.matchMappingType, _ = str("match_mapping_type")
			if mp, _ := str("match_pattern"); mp == "regex" {
				if t.hasMatch {
					t.regex, _ = regexp.Compile("^(?:" + t.match + ")$")
				}
				if t.hasUnmatch {
					t.unmatchRegex, _ = regexp.Compile("^(?:" + t.unmatch + ")$")
				}
			}
			if mraw, ok := def["mapping"]; ok {
				_ = json.Unmarshal(mraw, &t.mapping)
			}
			if t.mapping == nil {
				continue // runtime templates are not supported
			}
			out = append(out, t)
		}
	}
	return out
}

// matches reports whether the template applies to a field.
func (t *dynamicTemplate) matches(path, name, matchType string) bool {
	if t.matchMappingType != "" && t.matchMappingType != "*" && t.matchMappingType != matchType {
		return false
	}
	if t.hasPathMatch && !wildcardMatch(t.pathMatch, path) {
		return false
	}
	if t.hasPathUnmat && wildcardMatch(t.pathUnmatch, path) {
		return false
	}
	if t.hasMatch {
		if t.regex != nil {
			if !t.regex.MatchString(name) {
				return false
			}
		} else if !wildcardMatch(t.match, name) {
			return false
		}
	}
	if t.hasUnmatch {
		if t.unmatchRegex != nil {
			if t.unmatchRegex.MatchString(name) {
				return false
			}
		} else if wildcardMatch(t.unmatch, name) {
			return false
		}
	}
	return true
}

// render substitutes {name} and {dynamic_type} in the template mapping.
func (t *dynamicTemplate) render(name, dynamicType string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(t.mapping))
	r := strings.NewReplacer("{name}", name, "{dynamic_type}", dynamicType, "{dynamicType}", dynamicType)
	for k, v := range t.mapping {
		out[r.Replace(k)] = substituteRaw(v, r)
	}
	return out
}

func substituteRaw(raw json.RawMessage, r *strings.Replacer) json.RawMessage {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	var sub func(any) any
	sub = func(x any) any {
		switch t := x.(type) {
		case string:
			return r.Replace(t)
		case []any:
			for i := range t {
				t[i] = sub(t[i])
			}
			return t
		case map[string]any:
			o := make(map[string]any, len(t))
			for k, vv := range t {
				o[r.Replace(k)] = sub(vv)
			}
			return o
		}
		return x
	}
	b, err := json.Marshal(sub(v))
	if err != nil {
		return raw
	}
	return b
}
