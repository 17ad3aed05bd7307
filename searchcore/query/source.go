package query

import (
	"encoding/json"
	"strings"
)

// SourceFilter is ES's fetch source context: whether _source is returned
// and which paths it keeps. A nil *SourceFilter returns sources unchanged.
type SourceFilter struct {
	enabled  bool
	includes []string
	excludes []string
	inc, exc *globSet
}

// NewSourceFilter builds a filter from the URL parameters _source (enabled),
// _source_includes and _source_excludes; a nil enabled means true.
func NewSourceFilter(includes, excludes []string, enabled *bool) *SourceFilter {
	f := &SourceFilter{enabled: enabled == nil || *enabled, includes: includes, excludes: excludes}
	f.compile()
	return f
}

func (f *SourceFilter) compile() {
	if len(f.includes) > 0 {
		f.inc = &globSet{pats: f.includes}
	}
	if len(f.excludes) > 0 {
		f.exc = &globSet{pats: f.excludes}
	}
}

// Enabled reports whether the source is returned at all.
func (f *SourceFilter) Enabled() bool { return f == nil || f.enabled }

// Includes returns the include patterns.
func (f *SourceFilter) Includes() []string {
	if f == nil {
		return nil
	}
	return f.includes
}

// Excludes returns the exclude patterns.
func (f *SourceFilter) Excludes() []string {
	if f == nil {
		return nil
	}
	return f.excludes
}

// ParseSourceFilter parses a search body's _source: false | true |
// "pattern" | ["a", "b*"] | {"includes": [...], "excludes": [...]} (also
// "include"/"exclude"), with FetchSourceContext.fromXContent's errors.
func ParseSourceFilter(raw json.RawMessage) (*SourceFilter, error) {
	v, err := parseJSON(raw, &jdoc{})
	if err != nil {
		return nil, err
	}
	f := &SourceFilter{enabled: true}
	switch v.kind {
	case kBool:
		f.enabled = v.s == "true"
	case kString:
		f.includes = []string{v.s}
	case kArray:
		for _, e := range v.elems {
			s, err := e.text()
			if err != nil {
				return nil, err
			}
			f.includes = append(f.includes, s)
		}
	case kObject:
		for _, m := range v.members {
			var dst *[]string
			switch m.key {
			case "includes", "include":
				dst = &f.includes
			case "excludes", "exclude":
				dst = &f.excludes
			}
			val := m.val
			switch {
			case dst != nil && val.kind == kArray:
				list := make([]string, 0, len(val.elems))
				for _, e := range val.elems {
					if e.kind != kString {
						return nil, e.parsingErr("Unknown key for a %s in [%s].", e.kind.token(), m.key)
					}
					list = append(list, e.s)
				}
				*dst = list
			case dst != nil && val.kind == kString:
				*dst = []string{val.s}
			default:
				return nil, val.parsingErr("Unknown key for a %s in [%s].", val.kind.token(), m.key)
			}
		}
	default:
		return nil, v.parsingErr("Expected one of [VALUE_BOOLEAN, START_OBJECT] but found [%s]", v.kind.token())
	}
	f.compile()
	return f, nil
}

// Apply returns src filtered as ES does: present is false when the source
// is disabled; without include/exclude patterns src is returned as-is (no
// allocation); otherwise the kept paths are re-serialized compactly with
// the source's key order. Excludes win over includes; "*" matches any run
// of characters (dots included); a pattern also matches everything below
// the object it names.
func (f *SourceFilter) Apply(src []byte) ([]byte, bool, error) {
	if f == nil {
		return src, src != nil, nil
	}
	if !f.enabled {
		return nil, false, nil
	}
	if src == nil {
		return nil, false, nil
	}
	if f.inc == nil && f.exc == nil {
		return src, true, nil
	}
	v, err := parseJSON(src, &jdoc{})
	if err != nil {
		return nil, false, err
	}
	if v.kind != kObject {
		return src, true, nil
	}
	inc := f.inc
	if inc == nil {
		inc = matchAllGlobs
	}
	exc := f.exc
	if exc == nil {
		exc = emptyGlobs
	}
	members := filterObject(v, inc, inc.start(), exc, exc.start())
	var sb strings.Builder
	sb.Grow(len(src))
	writeObject(&sb, members)
	return []byte(sb.String()), true, nil
}

// filterObject is XContentMapValues.filter over a map.
func filterObject(obj *jval, inc *globSet, incState gstate, exc *globSet, excState gstate) []member {
	var out []member
	for _, m := range obj.members {
		is := inc.stepString(incState, m.key)
		if is.dead() {
			continue
		}
		es := exc.stepString(excState, m.key)
		if !es.dead() && exc.accept(es) {
			continue
		}
		val := m.val
		subInc, subIncState := inc, is
		if inc.accept(is) {
			if es.dead() || exc.step(es, '.').dead() {
				// the exclude has no chance to match inner properties
				out = append(out, m)
				continue
			}
			// the object matched: every inner property is included, only
			// excludes matter now
			subInc, subIncState = matchAllGlobs, matchAllGlobs.start()
		}
		switch val.kind {
		case kObject:
			subIncState = subInc.step(subIncState, '.')
			if subIncState.dead() {
				continue
			}
			if !es.dead() {
				es = exc.step(es, '.')
			}
			fv := filterObject(val, subInc, subIncState, exc, es)
			if inc.accept(is) || len(fv) > 0 {
				out = append(out, member{key: m.key, val: &jval{kind: kObject, members: fv}})
			}
		case kArray:
			fl := filterArray(val.elems, subInc, subIncState, exc, es)
			if len(fl) > 0 {
				out = append(out, member{key: m.key, val: &jval{kind: kArray, elems: fl}})
			}
		default:
			if inc.accept(is) && (es.dead() || !exc.accept(es)) {
				out = append(out, m)
			}
		}
	}
	return out
}

// filterArray is XContentMapValues.filter over a list.
func filterArray(elems []*jval, inc *globSet, incState gstate, exc *globSet, excState gstate) []*jval {
	var out []*jval
	isInclude := inc.accept(incState)
	for _, e := range elems {
		switch e.kind {
		case kObject:
			is := inc.step(incState, '.')
			es := excState
			if !es.dead() {
				es = exc.step(es, '.')
			}
			fv := filterObject(e, inc, is, exc, es)
			if len(fv) > 0 {
				out = append(out, &jval{kind: kObject, members: fv})
			}
		case kArray:
			fl := filterArray(e.elems, inc, incState, exc, excState)
			if len(fl) > 0 {
				out = append(out, &jval{kind: kArray, elems: fl})
			}
		default:
			if isInclude {
				out = append(out, e)
			}
		}
	}
	return out
}

// writeValue serializes v the way ES's XContentBuilder writes a parsed
// source map: compact, Jackson string escaping, integers verbatim and
// floating point numbers as Java doubles.
func writeValue(sb *strings.Builder, v *jval) {
	switch v.kind {
	case kObject:
		writeObject(sb, v.members)
	case kArray:
		sb.WriteByte('[')
		for i, e := range v.elems {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeValue(sb, e)
		}
		sb.WriteByte(']')
	case kString:
		writeJSONString(sb, v.s)
	case kNumber:
		sb.WriteString(javaNumberString(v.s))
	default:
		sb.WriteString(v.s)
	}
}

func writeObject(sb *strings.Builder, members []member) {
	sb.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			sb.WriteByte(',')
		}
		writeJSONString(sb, m.key)
		sb.WriteByte(':')
		writeValue(sb, m.val)
	}
	sb.WriteByte('}')
}

const hexDigits = "0123456789ABCDEF"

// writeJSONString writes s quoted with Jackson's default escaping: \" \\
// \b \t \f \n \r, \u00XX for other control characters, the rest verbatim.
func writeJSONString(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		sb.WriteString(s[start:i])
		switch c {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\b':
			sb.WriteString(`\b`)
		case '\t':
			sb.WriteString(`\t`)
		case '\f':
			sb.WriteString(`\f`)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		default:
			sb.WriteString(`\u00`)
			sb.WriteByte(hexDigits[c>>4])
			sb.WriteByte(hexDigits[c&0xf])
		}
		start = i + 1
	}
	sb.WriteString(s[start:])
	sb.WriteByte('"')
}

// globSet is the automaton ES builds from simple wildcard patterns
// (Regex.simpleMatchToAutomaton) united with "pattern.*" so that naming an
// object also names everything below it. A state is the set of live
// positions in the patterns.
type globSet struct {
	pats     []string
	matchAll bool
}

var (
	matchAllGlobs = &globSet{matchAll: true}
	emptyGlobs    = &globSet{}
)

// gstate is a set of live pattern positions; any means the "pattern." prefix
// has been read and every continuation is accepted.
type gstate struct {
	pos  []gpos
	any  bool
	live bool
}

type gpos struct{ pat, at int }

func (s gstate) dead() bool { return !s.live }

func (g *globSet) start() gstate {
	if g.matchAll {
		return gstate{any: true, live: true}
	}
	s := gstate{}
	for i := range g.pats {
		s.pos = g.closure(s.pos, gpos{i, 0})
	}
	s.live = len(s.pos) > 0
	return s
}

// closure adds p and the positions reachable through '*' (which also
// matches the empty string).
func (g *globSet) closure(list []gpos, p gpos) []gpos {
	for {
		for _, q := range list {
			if q == p {
				return list
			}
		}
		list = append(list, p)
		pat := g.pats[p.pat]
		if p.at < len(pat) && pat[p.at] == '*' {
			p = gpos{p.pat, p.at + 1}
			continue
		}
		return list
	}
}

func (g *globSet) step(s gstate, c byte) gstate {
	if !s.live {
		return s
	}
	if s.any {
		return s
	}
	next := gstate{}
	for _, p := range s.pos {
		pat := g.pats[p.pat]
		switch {
		case p.at < len(pat) && pat[p.at] == '*':
			next.pos = g.closure(next.pos, p)
		case p.at < len(pat) && pat[p.at] == c:
			next.pos = g.closure(next.pos, gpos{p.pat, p.at + 1})
		case p.at == len(pat) && c == '.':
			next.any = true
		}
	}
	next.live = next.any || len(next.pos) > 0
	if next.any {
		next.pos = nil
	}
	return next
}

func (g *globSet) stepString(s gstate, key string) gstate {
	for i := 0; i < len(key) && s.live; i++ {
		s = g.step(s, key[i])
	}
	return s
}

func (g *globSet) accept(s gstate) bool {
	if !s.live {
		return false
	}
	if s.any {
		return true
	}
	for _, p := range s.pos {
		if p.at == len(g.pats[p.pat]) {
			return true
		}
	}
	return false
}
