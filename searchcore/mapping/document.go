package mapping

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/blugelabs/bluge"
	blugeanalysis "github.com/blugelabs/bluge/analysis"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Names of the bookkeeping fields ParseDocument adds.
const (
	// FieldNamesField holds one term per leaf path with a value and per
	// object path above it (the exists query searches it).
	FieldNamesField = "_field_names"
	// IgnoredField holds the paths whose value was dropped by ignore_above
	// or ignore_malformed (Elasticsearch's _ignored).
	IgnoredField = "_ignored"
)

// ParseDocument decodes a JSON source and adds its bluge fields to doc
// following the encoding contract of this package. It never changes m.
//
// When the document introduces fields (dynamic mapping), updated is the
// complete new mapping (m plus the new fields); otherwise it is nil. On
// error nothing is added to doc and the error is a mapper_parsing_exception
// (or strict_dynamic_mapping_exception, illegal_argument_exception for
// limits) with Elasticsearch's reason.
func (m *Mapping) ParseDocument(id string, source []byte, reg *analysis.Registry, doc *bluge.Document) (updated *Mapping, err error) {
	updated, _, err = m.ParseDocumentNested(id, source, reg, doc, NestedObjectsLimit)
	return updated, err
}

// ParseDocumentNested is ParseDocument returning also the hidden documents
// of the source's nested objects (see nested.go), which must be indexed
// with doc. nestedLimit is index.mapping.nested_objects.limit (default
// NestedObjectsLimit).
func (m *Mapping) ParseDocumentNested(id string, source []byte, reg *analysis.Registry, doc *bluge.Document, nestedLimit int) (updated *Mapping, nested []*bluge.Document, err error) {
	return m.ParseDocumentWith(id, source, reg, doc, DocOptions{NestedLimit: nestedLimit})
}

// DocOptions are the per-index choices of how ParseDocumentWith indexes a
// document.
type DocOptions struct {
	// NestedLimit is index.mapping.nested_objects.limit (the default is
	// NestedObjectsLimit).
	NestedLimit int
	// NumericStep is the precision step of the shift terms of numeric and
	// date fields (see NumericField); 0 means LegacyNumericStep.
	NumericStep uint
}

// ParseDocumentWith is ParseDocumentNested with the index's DocOptions.
func (m *Mapping) ParseDocumentWith(id string, source []byte, reg *analysis.Registry, doc *bluge.Document, opts DocOptions) (updated *Mapping, nested []*bluge.Document, err error) {
	nestedLimit := opts.NestedLimit
	if reg == nil {
		reg = analysis.Global()
	}
	trimmed := bytes.TrimSpace(source)
	if len(trimmed) == 0 {
		return nil, nil, eserr.MapperParsing("failed to parse, document is empty")
	}
	root, jerr := parseJSON(string(source))
	if jerr != nil {
		if c := trimmed[0]; c != '{' && c != '[' {
			return nil, nil, eserr.MapperParsing("failed to parse").Caused(eserr.New("not_x_content_exception",
				"Compressor detection can only be called on some xcontent bytes or compressed xcontent bytes"))
		}
		return nil, nil, eserr.MapperParsing("failed to parse").Caused(eserr.New("json_parse_exception",
			jerr.msg+"\n at [Source: (byte[])\""+sourcePreview(source)+"\"; line: "+strconv.Itoa(jerr.line)+", column: "+strconv.Itoa(jerr.column)+"]"))
	}
	if root.kind != jObject {
		return nil, nil, eserr.MapperParsing("Malformed content, must start with an object")
	}
	if m.Enabled != nil && !*m.Enabled {
		return nil, nil, nil
	}
	p := &docParser{
		m:                m,
		idx:              m.index(),
		reg:              reg,
		id:               id,
		dateDetection:    boolOr(m.DateDetection, true),
		numericDetection: boolOr(m.NumericDetection, false),
		nestedLimit:      nestedLimit,
		numericStep:      opts.NumericStep,
	}
	p.fields = make([]bluge.Field, 0, len(root.keys)*2)
	rootDyn := m.Dynamic
	if rootDyn == "" {
		rootDyn = "true"
	}
	if err := p.walkObject(root, "", rootDyn); err != nil {
		return nil, nil, err
	}
	if len(p.added) > 0 {
		updated = m.withAdditions(p.added)
	}
	for _, f := range p.fields {
		doc.AddField(f)
	}
	for _, f := range p.exactFields() {
		doc.AddField(f)
	}
	if len(p.names) > 0 {
		doc.AddField(bluge.NewKeywordField(FieldNamesField, strings.Join(p.names, "\x00")).WithAnalyzer(listAnalyzer{}))
	}
	if len(p.ignored) > 0 {
		doc.AddField(bluge.NewKeywordField(IgnoredField, strings.Join(p.ignored, "\x00")).WithAnalyzer(listAnalyzer{}))
	}
	return updated, p.nested, nil
}

func sourcePreview(b []byte) string {
	if len(b) > 500 {
		return string(b[:500]) + "[truncated " + strconv.Itoa(len(b)-500) + " bytes]"
	}
	return string(b)
}

// listAnalyzer splits a NUL-joined list into one term per entry.
type listAnalyzer struct{}

func (listAnalyzer) Analyze(input []byte) blugeanalysis.TokenStream {
	ts := make(blugeanalysis.TokenStream, 0, bytes.Count(input, []byte{0})+1)
	start := 0
	for i := 0; i <= len(input); i++ {
		if i == len(input) || input[i] == 0 {
			if i > start {
				ts = append(ts, &blugeanalysis.Token{Term: input[start:i], Start: start, End: i, PositionIncr: 1, Type: blugeanalysis.AlphaNumeric})
			}
			start = i + 1
		}
	}
	return ts
}

type addedField struct {
	parent, name string
	f            *Field
}

// docParser is the state of one ParseDocument call.
type docParser struct {
	m                *Mapping
	idx              *fieldIndex
	reg              *analysis.Registry
	id               string
	dateDetection    bool
	numericDetection bool
	numericStep      uint

	// docState is the document being filled: the root, or a nested object
	// while its content is parsed (nested.go); stack holds the enclosing
	// documents' states and frames the enclosing nested objects.
	docState
	stack       []docState
	frames      []nestedFrame
	nested      []*bluge.Document
	nestedCount int
	nestedLimit int
	ignored     []string

	added       []addedField
	addedByPath map[string]*Field
	newCount    int
}

func (p *docParser) lookup(path string) *Field {
	if f, ok := p.idx.props[path]; ok {
		return f
	}
	if p.addedByPath != nil {
		return p.addedByPath[path]
	}
	return nil
}

func childDyn(f *Field, dyn string) string {
	if f.Dynamic != "" {
		return f.Dynamic
	}
	return dyn
}

func failedToParse(cause *eserr.Error) *eserr.Error {
	return eserr.MapperParsing("failed to parse").Caused(cause)
}

func (p *docParser) walkObject(node *jnode, path, dyn string) error {
	for i, key := range node.keys {
		val := node.vals[i]
		if key == "" {
			return failedToParse(eserr.IllegalArgument("field name cannot be an empty string"))
		}
		if strings.TrimSpace(key) == "" {
			return failedToParse(eserr.IllegalArgument("field name cannot contain only whitespace: ['%s']", joinPath(path, key)))
		}
		if strings.IndexByte(key, '.') >= 0 {
			if err := p.dottedField(path, dyn, key, val); err != nil {
				return err
			}
			continue
		}
		if err := p.field(path, dyn, key, val); err != nil {
			return err
		}
	}
	return nil
}

// dottedField handles {"a.b.c": v} as {"a": {"b": {"c": v}}}.
func (p *docParser) dottedField(parent, dyn, key string, val *jnode) error {
	parts := strings.Split(key, ".")
	for _, part := range parts {
		if strings.TrimSpace(part) == "" {
			return failedToParse(eserr.IllegalArgument("object field starting or ending with a [.] makes object resolution ambiguous: [%s]", joinPath(parent, key)))
		}
	}
	for _, part := range parts[:len(parts)-1] {
		path := joinPath(parent, part)
		f := p.lookup(path)
		switch {
		case f == nil:
			switch dyn {
			case "strict":
				return strictErr(part, parent)
			case "false", "runtime":
				return nil
			}
			obj, err := p.newObjectField(parent, path, part)
			if err != nil {
				return err
			}
			if err := p.addDynamic(parent, part, path, obj); err != nil {
				return err
			}
			f = obj
		case !f.IsObject():
			return eserr.MapperParsing("Could not dynamically add mapping for field [%s]. Existing mapping for [%s] must be of type object but found [%s].", joinPath(parent, key), path, f.Type)
		}
		if f.Enabled != nil && !*f.Enabled {
			return nil
		}
		dyn = childDyn(f, dyn)
		parent = path
	}
	return p.field(parent, dyn, parts[len(parts)-1], val)
}

func strictErr(name, parent string) *eserr.Error {
	if parent == "" {
		parent = "_doc"
	}
	return eserr.Errorf(eserr.Invalid, "strict_dynamic_mapping_exception",
		"mapping set to strict, dynamic introduction of [%s] within [%s] is not allowed", name, parent)
}

func (p *docParser) field(parent, dyn, name string, val *jnode) error {
	path := joinPath(parent, name)
	f := p.lookup(path)
	if f == nil {
		return p.dynamicField(parent, dyn, name, path, val)
	}
	if f.Type == TypeNested {
		return p.nestedValue(f, path, name, dyn, val)
	}
	if f.IsObject() {
		return p.objectValue(f, path, name, dyn, val)
	}
	return p.leafValue(f, path, val, true)
}

func (p *docParser) objectValue(f *Field, path, name, dyn string, val *jnode) error {
	switch val.kind {
	case jObject:
		if f.Enabled != nil && !*f.Enabled {
			return nil
		}
		return p.walkObject(val, path, childDyn(f, dyn))
	case jArray:
		for _, e := range val.vals {
			if err := p.objectValue(f, path, name, dyn, e); err != nil {
				return err
			}
		}
		return nil
	case jNull:
		return nil
	}
	return eserr.MapperParsing("object mapping for [%s] tried to parse field [%s] as object, but found a concrete value", path, name)
}

func (p *docParser) leafValue(f *Field, path string, val *jnode, allowCopy bool) error {
	if val.kind == jArray && !(f.Type == TypeGeoPoint && isGeoArrayPoint(val)) {
		for _, e := range val.vals {
			if err := p.leafValue(f, path, e, allowCopy); err != nil {
				return err
			}
		}
		return nil
	}
	v := val
	if v.kind == jNull {
		if len(f.NullValue) == 0 {
			return p.multiFields(f, path, val)
		}
		nv, jerr := parseJSON(string(f.NullValue))
		if jerr != nil {
			return nil
		}
		v = nv
	}
	if cause := p.index(f, path, v); cause != nil {
		if f.IgnoreMalformed != nil && *f.IgnoreMalformed && val.kind != jObject && val.kind != jArray {
			p.ignore(path)
			return nil
		}
		return eserr.MapperParsing("failed to parse field [%s] of type [%s] in document with id '%s'. Preview of field's value: '%s'",
			path, f.Type, p.id, val.preview()).Caused(cause)
	}
	if allowCopy && val.kind != jNull {
		for _, target := range f.CopyTo {
			if err := p.copyTo(target, val); err != nil {
				return err
			}
		}
	}
	return p.multiFields(f, path, val)
}

func (p *docParser) multiFields(f *Field, path string, val *jnode) error {
	if len(f.Fields) == 0 {
		return nil
	}
	names, ok := p.idx.subNames[f]
	if !ok {
		names = sortStrings(keysOf(f.Fields))
	}
	for _, n := range names {
		if err := p.leafValue(f.Fields[n], path+"."+n, val, false); err != nil {
			return err
		}
	}
	return nil
}

func (p *docParser) copyTo(target string, val *jnode) error {
	f := p.lookup(target)
	if f == nil {
		// Unmapped targets are mapped dynamically, under their parent's rules.
		parent, name := "", target
		if i := strings.LastIndexByte(target, '.'); i >= 0 {
			parent, name = target[:i], target[i+1:]
		}
		dyn, ok, err := p.ensureObjectPath(parent)
		if err != nil || !ok {
			return err
		}
		return p.dynamicField(parent, dyn, name, target, val)
	}
	if f.IsObject() {
		return eserr.MapperParsing("Cannot copy to field [%s] since it is mapped as an object", target)
	}
	return p.leafValue(f, target, val, false)
}

// ensureObjectPath makes sure the objects of path exist (creating them
// dynamically) and returns the dynamic setting in force there; ok is false
// when dynamic=false stops the creation.
func (p *docParser) ensureObjectPath(path string) (dyn string, ok bool, err error) {
	dyn = p.m.Dynamic
	if dyn == "" {
		dyn = "true"
	}
	if path == "" {
		return dyn, true, nil
	}
	parent := ""
	for _, part := range strings.Split(path, ".") {
		cur := joinPath(parent, part)
		f := p.lookup(cur)
		if f == nil {
			switch dyn {
			case "strict":
				return "", false, strictErr(part, parent)
			case "false", "runtime":
				return "", false, nil
			}
			obj, err := p.newObjectField(parent, cur, part)
			if err != nil {
				return "", false, err
			}
			if err := p.addDynamic(parent, part, cur, obj); err != nil {
				return "", false, err
			}
			f = obj
		} else if !f.IsObject() {
			return "", false, eserr.MapperParsing("Could not dynamically add mapping for field [%s]. Existing mapping for [%s] must be of type object but found [%s].", path, cur, f.Type)
		}
		dyn = childDyn(f, dyn)
		parent = cur
	}
	return dyn, true, nil
}

func (p *docParser) dynamicField(parent, dyn, name, path string, val *jnode) error {
	switch val.kind {
	case jNull:
		return nil
	case jArray:
		for _, e := range val.vals {
			if err := p.field(parent, dyn, name, e); err != nil {
				return err
			}
		}
		return nil
	}
	switch dyn {
	case "strict":
		return strictErr(name, parent)
	case "false", "runtime":
		return nil
	}
	var f *Field
	var err error
	if val.kind == jObject {
		f, err = p.newObjectField(parent, path, name)
	} else {
		f, err = p.newLeafField(path, name, val)
	}
	if err != nil {
		return err
	}
	if err := p.addDynamic(parent, name, path, f); err != nil {
		return err
	}
	if f.Type == TypeNested {
		return p.nestedValue(f, path, name, dyn, val)
	}
	if f.IsObject() {
		return p.objectValue(f, path, name, dyn, val)
	}
	return p.leafValue(f, path, val, true)
}

func (p *docParser) addDynamic(parent, name, path string, f *Field) error {
	p.newCount += 1 + countFields(f.Properties) + countFields(f.Fields)
	if p.idx.count+p.newCount > totalFieldsLimit {
		return eserr.IllegalArgument("Limit of total fields [%d] has been exceeded", totalFieldsLimit)
	}
	if p.addedByPath == nil {
		p.addedByPath = map[string]*Field{}
	}
	if f.IsObject() && f.Properties == nil {
		f.Properties = map[string]*Field{}
	}
	p.addedByPath[path] = f
	if pf, ok := p.addedByPath[parent]; ok && parent != "" {
		pf.Properties[name] = f // a new object owned by this parse
		return nil
	}
	p.added = append(p.added, addedField{parent: parent, name: name, f: f})
	return nil
}

// newObjectField maps a new object, through a dynamic template if one
// matches.
func (p *docParser) newObjectField(parent, path, name string) (*Field, error) {
	if strings.Count(path, ".")+1 > depthLimit {
		return nil, eserr.IllegalArgument("Limit of mapping depth [%d] has been exceeded due to object field [%s]", depthLimit, path)
	}
	if f, err := p.fromTemplate(path, name, "object", "object", ""); f != nil || err != nil {
		return f, err
	}
	return &Field{Type: TypeObject}, nil
}

// newLeafField maps a new leaf from its JSON value exactly as
// Elasticsearch 7 does (date and numeric detection, text + keyword).
func (p *docParser) newLeafField(path, name string, val *jnode) (*Field, error) {
	matchType, dateFmt := "", ""
	var def *Field
	switch val.kind {
	case jTrue, jFalse:
		matchType, def = "boolean", &Field{Type: TypeBoolean}
	case jNumber:
		if val.isInt() {
			matchType, def = "long", &Field{Type: TypeLong}
		} else {
			matchType, def = "double", &Field{Type: TypeFloat}
		}
	case jString:
		s := val.str
		_, errL := strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, 64)
		isLong := errL == nil && isIntLiteral(s)
		_, isDouble := parseFloatValue(val)
		switch {
		case isLong && p.numericDetection:
			matchType, def = "long", &Field{Type: TypeLong}
		case isDouble && p.numericDetection:
			matchType, def = "double", &Field{Type: TypeFloat}
		case !isLong && !isDouble && p.dateDetection:
			for _, fmt := range p.idx.dateFormats {
				if _, _, err := parseDateNanos(s, fmt); err == nil {
					dateFmt = fmt
					break
				}
			}
			if dateFmt != "" {
				matchType, def = "date", &Field{Type: TypeDate}
				if dateFmt != DefaultDateFormat {
					def.Format = dateFmt
				}
			}
		}
		if def == nil {
			matchType = "string"
			ia := 256
			def = &Field{Type: TypeText, Fields: map[string]*Field{"keyword": {Type: TypeKeyword, IgnoreAbove: &ia}}}
		}
	}
	dynType := map[string]string{"string": TypeText, "long": TypeLong, "double": TypeFloat, "boolean": TypeBoolean, "date": TypeDate}[matchType]
	if f, err := p.fromTemplate(path, name, matchType, dynType, dateFmt); f != nil || err != nil {
		return f, err
	}
	return def, nil
}

// fromTemplate returns the field built by the first matching dynamic
// template, or nil.
func (p *docParser) fromTemplate(path, name, matchType, dynType, dateFmt string) (*Field, error) {
	for _, t := range p.idx.templates {
		if !t.matches(path, name, matchType) {
			continue
		}
		def := t.render(name, dynType)
		if _, ok := def["type"]; !ok {
			b, _ := json.Marshal(dynType)
			def["type"] = b
		}
		f, err := parseField(path, name, def, p.reg, false)
		if err != nil {
			return nil, err
		}
		if (f.Type == TypeDate || f.Type == TypeDateNanos) && f.Format == "" && dateFmt != "" && dateFmt != DefaultDateFormat {
			f.Format = dateFmt
		}
		return f, nil
	}
	return nil, nil
}

// withAdditions returns a copy of m with the dynamically added fields;
// only the objects on the way to an addition are copied.
func (m *Mapping) withAdditions(added []addedField) *Mapping {
	out := &Mapping{
		Dynamic: m.Dynamic, DateDetection: m.DateDetection, NumericDetection: m.NumericDetection,
		DynamicDateFormats: m.DynamicDateFormats, DynamicTemplates: m.DynamicTemplates, Source: m.Source,
		RoutingRequired: m.RoutingRequired, Meta: m.Meta, Properties: m.Properties, Enabled: m.Enabled, Extra: m.Extra,
	}
	for _, a := range added {
		out.Properties = insertAt(out.Properties, a.parent, a.name, a.f)
	}
	return out
}

func insertAt(props map[string]*Field, parent, name string, f *Field) map[string]*Field {
	out := make(map[string]*Field, len(props)+1)
	for k, v := range props {
		out[k] = v
	}
	if parent == "" {
		out[name] = f
		return out
	}
	first, rest, _ := strings.Cut(parent, ".")
	old := out[first]
	if old == nil {
		old = &Field{Type: TypeObject}
	}
	child := *old
	child.Properties = insertAt(child.Properties, rest, name, f)
	out[first] = &child
	return out
}

// addFieldName records path and the object paths above it in _field_names.
func (p *docParser) addFieldName(path string) {
	for {
		if p.hasName(path) {
			return // its parents were added with it
		}
		p.names = append(p.names, path)
		if p.nameSet != nil {
			p.nameSet[path] = struct{}{}
		}
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			return
		}
		path = path[:i]
	}
}

// hasName reports whether path is already in _field_names; small sets are
// scanned, larger ones use a map.
func (p *docParser) hasName(path string) bool {
	if p.nameSet == nil {
		for _, n := range p.names {
			if n == path {
				return true
			}
		}
		if len(p.names) < 32 {
			return false
		}
		p.nameSet = make(map[string]struct{}, 2*len(p.names))
		for _, n := range p.names {
			p.nameSet[n] = struct{}{}
		}
		return false
	}
	_, ok := p.nameSet[path]
	return ok
}

func (p *docParser) ignore(path string) {
	for _, n := range p.ignored {
		if n == path {
			return
		}
	}
	p.ignored = append(p.ignored, path)
}

// index converts one scalar value (or geo point) and adds its bluge field.
func (p *docParser) index(f *Field, path string, v *jnode) *eserr.Error {
	indexed := boolOr(f.Index, true)
	store := boolOr(f.Store, false)
	dv := boolOr(f.DocValues, true)
	switch f.Type {
	case TypeText:
		s, cause := scalarText(v)
		if cause != nil {
			return cause
		}
		if indexed {
			a, err := p.reg.Analyzer(f.Analyzer)
			if err != nil {
				a, _ = p.reg.Analyzer("")
			}
			tf := bluge.NewTextField(path, s).WithAnalyzer(a).SearchTermPositions()
			if store {
				tf.StoreValue()
			}
			p.fields = append(p.fields, tf)
		} else if store {
			p.fields = append(p.fields, bluge.NewStoredOnlyField(path, []byte(s)))
		}
		p.addFieldName(path)
		return nil
	case TypeKeyword:
		s, cause := scalarText(v)
		if cause != nil {
			return cause
		}
		if f.IgnoreAbove != nil && utf16Len(s) > *f.IgnoreAbove {
			p.ignore(path)
			return nil
		}
		norm := s
		if f.Normalizer != "" {
			if n, err := p.reg.Normalizer(f.Normalizer); err == nil {
				norm = n.Normalize(s)
			}
		}
		if indexed || dv {
			kf := bluge.NewKeywordField(path, norm)
			if dv {
				kf.Sortable().Aggregatable()
			}
			if store && norm == s {
				kf.StoreValue()
			}
			p.fields = append(p.fields, kf)
		}
		if store && (norm != s || !(indexed || dv)) {
			p.fields = append(p.fields, bluge.NewStoredOnlyField(path, []byte(s)))
		}
		p.addFieldName(path)
		return nil
	case TypeBoolean:
		b, cause := parseBoolean(v)
		if cause != nil {
			return cause
		}
		n := 0.0
		if b {
			n = 1
		}
		p.addNumeric(path, n, indexed, dv, store)
		return nil
	case TypeDate, TypeDateNanos:
		s, cause := scalarText(v)
		if cause != nil {
			return cause
		}
		sec, nsec, err := parseDateNanos(s, dateFormatOf(f))
		if err != nil {
			return err.(*eserr.Error)
		}
		if f.Type == TypeDateNanos {
			if cause := checkNanosRange(sec, nsec); cause != nil {
				return cause
			}
		}
		ms := float64(sec*1000 + nsec/1e6)
		if f.Type == TypeDateNanos {
			ms += float64(nsec%1e6) / 1e6
		}
		p.addNumeric(path, ms, indexed, dv, store)
		return nil
	case TypeGeoPoint:
		lat, lon, cause := parseGeoPoint(f, path, v)
		if cause != nil {
			return cause
		}
		if indexed || dv {
			gf := bluge.NewGeoPointField(path, lon, lat)
			if !dv {
				gf.FieldOptions = bluge.Index
			}
			if store {
				gf.StoreValue()
			}
			p.fields = append(p.fields, gf)
		}
		p.addFieldName(path)
		return nil
	}
	n, isNull, cause := parseNumeric(f, v)
	if cause != nil {
		return cause
	}
	if isNull {
		if len(f.NullValue) == 0 {
			return nil
		}
		nv, jerr := parseJSON(string(f.NullValue))
		if jerr != nil {
			return nil
		}
		if n, _, cause = parseNumeric(f, nv); cause != nil {
			return cause
		}
		v = nv
	}
	p.addNumeric(path, n, indexed, dv, store)
	if HasExactValues(f) {
		w := exactWord(f, v, n)
		p.addExact(path, w, exactLossy(f, w, n))
	}
	return nil
}

func (p *docParser) addNumeric(path string, n float64, indexed, dv, store bool) {
	switch {
	case indexed || dv:
		nf := NumericField(path, n, p.numericStep)
		if !dv {
			nf.FieldOptions = bluge.Index
		}
		if store {
			nf.StoreValue()
		}
		p.fields = append(p.fields, nf)
		if sf := ShiftField(path, n, p.numericStep); sf != nil {
			p.fields = append(p.fields, sf)
		}
	case store:
		nf := bluge.NewNumericField(path, n)
		nf.FieldOptions = bluge.Store
		p.fields = append(p.fields, nf)
	}
	p.addFieldName(path)
}

// checkNanosRange is DateUtils.toLong: a date_nanos value must lie between
// the epoch and 2262-04-11T23:47:16.854775807Z (the long nanosecond range).
func checkNanosRange(sec, nsec int64) *eserr.Error {
	const maxSec, maxNsec int64 = math.MaxInt64 / 1_000_000_000, math.MaxInt64 % 1_000_000_000
	if sec < 0 {
		return eserr.IllegalArgument("date[%s] is before the epoch in 1970 and cannot be stored in nanosecond resolution", instantString(sec, nsec))
	}
	if sec > maxSec || (sec == maxSec && nsec > maxNsec) {
		return eserr.IllegalArgument("date[%s] is after 2262-04-11T23:47:16.854775807 and cannot be stored in nanosecond resolution", instantString(sec, nsec))
	}
	return nil
}

// instantString renders a UTC instant like Java's Instant.toString: the
// seconds always, the fraction in groups of three digits when non-zero.
func instantString(sec, nsec int64) string {
	t := time.Unix(sec, nsec).UTC()
	var b strings.Builder
	y := t.Year()
	switch {
	case y > 9999:
		b.WriteByte('+')
	case y < 0:
		b.WriteByte('-')
		y = -y
	}
	b.WriteString(fmt.Sprintf("%04d", y))
	b.WriteString(t.Format("-01-02T15:04:05"))
	if n := t.Nanosecond(); n != 0 {
		switch {
		case n%1e6 == 0:
			b.WriteString(fmt.Sprintf(".%03d", n/1e6))
		case n%1e3 == 0:
			b.WriteString(fmt.Sprintf(".%06d", n/1e3))
		default:
			b.WriteString(fmt.Sprintf(".%09d", n))
		}
	}
	b.WriteByte('Z')
	return b.String()
}
