package mapping

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/blugelabs/bluge"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Nested documents. Each object under a nested field is indexed as a hidden
// bluge document of its own (like Lucene's block join children) carrying:
//
//   - NestedFlagField: the term NestedFlagValue (top-level searches
//     exclude documents that have it);
//   - NestedPathField: the nested path ("comments", "comments.replies");
//   - NestedRootField: the _id of the top-level document (deletes and
//     updates drop a document's nested documents by this term);
//   - NestedParentField: the hidden _id of the enclosing nested object, or
//     the root _id for first-level objects;
//   - NestedAncestorPrefix+path: the hidden _id of the enclosing object at
//     each nested level above the parent;
//   - NestedIdentityField (stored): the object's identity as inner hits
//     render it, {"field": <path relative to the enclosing nested path>,
//     "offset": <position in its array>[, "_nested": <deeper level>]};
//   - "_source" (stored): the object itself.
//
// Its own fields use full paths ("comments.author"); they are also copied
// into the parent (include_in_parent) or the root (include_in_root)
// document.
const (
	NestedFlagField      = "_nested"
	NestedFlagValue      = "T"
	NestedPathField      = "_nested_path"
	NestedRootField      = "_nested_root"
	NestedParentField    = "_nested_parent"
	NestedAncestorPrefix = "_nested_up."
	NestedIdentityField  = "_nested_identity"
)

// Limits enforced like Elasticsearch's defaults of
// index.mapping.nested_fields.limit and index.mapping.nested_objects.limit.
const (
	NestedFieldsLimit  = 50
	NestedObjectsLimit = 10000
)

// docState is what one (root or nested) document collects while parsing.
type docState struct {
	fields []bluge.Field
	names  []string
	// exact holds the exact doc-values words per numeric path (exact.go).
	exact      map[string][]byte
	exactOrder []string
	// exactLossy lists the paths with a value their float64 doc values
	// do not hold exactly.
	exactLossy []string
	nameSet    map[string]struct{}
}

// nestedFrame is an enclosing nested object while its content is parsed.
type nestedFrame struct {
	path, id string
	// rel is path relative to the enclosing nested path; offset the
	// object's position in its array.
	rel    string
	offset int
}

// HasNested reports whether the mapping has a nested field.
func (m *Mapping) HasNested() bool {
	return len(m.index().nested) > 0
}

// IsNested reports whether path is a nested field.
func (m *Mapping) IsNested(path string) bool {
	_, ok := m.index().nested[path]
	return ok
}

// NestedParentPath returns the nearest nested path strictly above path
// ("" for the root).
func (m *Mapping) NestedParentPath(path string) string {
	nested := m.index().nested
	for {
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			return ""
		}
		path = path[:i]
		if _, ok := nested[path]; ok {
			return path
		}
	}
}

// NestedPathOf returns the nearest nested path containing the field path
// (the path itself if it is nested; "" when the field lives in the root
// document).
func (m *Mapping) NestedPathOf(path string) string {
	if m.IsNested(path) {
		return path
	}
	return m.NestedParentPath(path)
}

// InNestedDocument reports whether the values of the field path are
// indexed in the documents of the nested path docPath ("" for the
// top-level document): fields of docPath's own objects, and fields of
// nested objects below it copied up by include_in_parent at every level
// (or, for the top-level document, by include_in_root).
func (m *Mapping) InNestedDocument(path, docPath string) bool {
	for np := m.NestedPathOf(path); np != docPath; np = m.NestedParentPath(np) {
		if np == "" {
			// outside docPath's objects
			return false
		}
		f := m.LookupPath(np)
		switch {
		case f == nil:
			return false
		case docPath == "" && extraBool(f, "include_in_root"):
			return true
		case !extraBool(f, "include_in_parent"):
			return false
		}
	}
	return true
}

// countNested counts nested fields below props.
func countNested(props map[string]*Field) int {
	n := 0
	for _, f := range props {
		if f.Type == TypeNested {
			n++
		}
		n += countNested(f.Properties)
	}
	return n
}

func checkNestedLimit(props map[string]*Field) error {
	if countNested(props) > NestedFieldsLimit {
		return eserr.IllegalArgument("Limit of nested fields [%d] has been exceeded", NestedFieldsLimit)
	}
	return nil
}

func extraBool(f *Field, key string) bool {
	raw, ok := f.Extra[key]
	if !ok {
		return false
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && s == "true"
}

// nestedValue indexes the objects of a nested field as nested documents.
func (p *docParser) nestedValue(f *Field, path, name, dyn string, val *jnode) error {
	var objs []*jnode
	var collect func(v *jnode) error
	collect = func(v *jnode) error {
		switch v.kind {
		case jObject:
			objs = append(objs, v)
		case jArray:
			for _, e := range v.vals {
				if err := collect(e); err != nil {
					return err
				}
			}
		case jNull:
		default:
			return eserr.MapperParsing("object mapping for [%s] tried to parse field [%s] as object, but found a concrete value", path, name)
		}
		return nil
	}
	if err := collect(val); err != nil {
		return err
	}
	if f.Enabled != nil && !*f.Enabled {
		return nil
	}
	for offset, obj := range objs {
		if err := p.nestedObject(f, path, childDyn(f, dyn), obj, offset); err != nil {
			return err
		}
	}
	return nil
}

func (p *docParser) nestedObject(f *Field, path, dyn string, obj *jnode, offset int) error {
	p.nestedCount++
	if p.nestedCount > p.nestedLimit {
		return eserr.MapperParsing("The number of nested documents has exceeded the allowed limit of [%d]. "+
			"This limit can be set by changing the [index.mapping.nested_objects.limit] index level setting.", p.nestedLimit)
	}
	parentID := p.id
	if n := len(p.frames); n > 0 {
		parentID = p.frames[n-1].id
	}
	childID := p.id + "\x00" + strconv.Itoa(p.nestedCount)
	saved := p.docState
	p.docState = docState{}
	p.stack = append(p.stack, saved)
	rel := path
	if n := len(p.frames); n > 0 {
		rel = strings.TrimPrefix(path, p.frames[n-1].path+".")
	}
	p.frames = append(p.frames, nestedFrame{path: path, id: childID, rel: rel, offset: offset})
	identity := nestedIdentity(p.frames)
	err := p.walkObject(obj, path, dyn)
	child := p.docState
	p.frames = p.frames[:len(p.frames)-1]
	p.stack = p.stack[:len(p.stack)-1]
	p.docState = saved
	if err != nil {
		return err
	}
	inParent, inRoot := extraBool(f, "include_in_parent"), extraBool(f, "include_in_root")
	if inParent {
		p.absorb(&p.docState, &child)
	}
	if inRoot && !(inParent && len(p.frames) == 0) {
		root := &p.docState
		if len(p.stack) > 0 {
			root = &p.stack[0]
		}
		p.absorb(root, &child)
	}
	doc := bluge.NewDocument(childID)
	for _, fl := range child.fields {
		doc.AddField(fl)
	}
	cur := p.docState
	p.docState = child
	for _, fl := range p.exactFields() {
		doc.AddField(fl)
	}
	p.docState = cur
	if len(child.names) > 0 {
		doc.AddField(bluge.NewKeywordField(FieldNamesField, strings.Join(child.names, "\x00")).WithAnalyzer(listAnalyzer{}))
	}
	doc.AddField(bluge.NewKeywordField(NestedFlagField, NestedFlagValue))
	doc.AddField(bluge.NewKeywordField(NestedPathField, path))
	doc.AddField(bluge.NewKeywordField(NestedRootField, p.id).Sortable())
	doc.AddField(bluge.NewKeywordField(NestedParentField, parentID).Sortable())
	for _, fr := range p.frames {
		doc.AddField(bluge.NewKeywordField(NestedAncestorPrefix+fr.path, fr.id).Sortable())
	}
	doc.AddField(bluge.NewStoredOnlyField(NestedIdentityField, identity))
	var src strings.Builder
	obj.writeJSON(&src)
	doc.AddField(bluge.NewStoredOnlyField("_source", []byte(src.String())))
	p.nested = append(p.nested, doc)
	return nil
}

// nestedIdentity renders the _nested object of the innermost frame.
func nestedIdentity(frames []nestedFrame) []byte {
	var b strings.Builder
	for i, fr := range frames {
		if i > 0 {
			b.WriteString(`,"_nested":`)
		}
		q, _ := json.Marshal(fr.rel)
		b.WriteString(`{"field":`)
		b.Write(q)
		b.WriteString(`,"offset":`)
		b.WriteString(strconv.Itoa(fr.offset))
	}
	b.WriteString(strings.Repeat("}", len(frames)))
	return []byte(b.String())
}

// absorb copies a nested object's indexed values into an enclosing document
// (include_in_parent / include_in_root).
func (p *docParser) absorb(into, from *docState) {
	into.fields = append(into.fields, from.fields...)
	cur := p.docState
	p.docState = *into
	for _, n := range from.names {
		p.addFieldName(n)
	}
	for _, path := range from.exactOrder {
		b := from.exact[path]
		if p.exact == nil {
			p.exact = map[string][]byte{}
		}
		if _, ok := p.exact[path]; !ok {
			p.exactOrder = append(p.exactOrder, path)
		}
		p.exact[path] = append(p.exact[path], b...)
	}
	for _, path := range from.exactLossy {
		p.markLossy(path)
	}
	*into = p.docState
	p.docState = cur
}

// nestedPaths lists the nested paths of an index, sorted.
func nestedPaths(props map[string]*Field, prefix string, out map[string]struct{}) {
	for name, f := range props {
		path := joinPath(prefix, name)
		if f.Type == TypeNested {
			out[path] = struct{}{}
		}
		nestedPaths(f.Properties, path, out)
	}
}

// NestedPaths returns the nested field paths, sorted.
func (m *Mapping) NestedPaths() []string {
	out := make([]string, 0, len(m.index().nested))
	for p := range m.index().nested {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// LookupPath returns the field at path, objects and nested fields included
// (nil when unmapped).
func (m *Mapping) LookupPath(path string) *Field {
	if f, ok := m.index().props[path]; ok {
		return f
	}
	return m.index().all[path]
}
