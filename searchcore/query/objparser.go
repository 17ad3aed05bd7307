package query

import (
	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// objectParser mirrors the ES ObjectParser used by some query builders
// (bool, ids, match_all, sort): declared fields with accepted token types,
// "unknown field" errors with suggestions, and every failure inside a
// field's parser wrapped as "[name] failed to parse field [f]".
type objectParser struct {
	name   string
	body   *jval
	fields []objField
}

type objField struct {
	name  string
	kinds []kind
	fn    func(v *jval) error
}

func (op *objectParser) declare(name string, fn func(v *jval) error, kinds ...kind) {
	op.fields = append(op.fields, objField{name: name, kinds: kinds, fn: fn})
}

// str declares a string field (ValueType.STRING).
func (op *objectParser) str(name string, fn func(string) error) {
	op.declare(name, func(v *jval) error { return fn(v.s) }, kString)
}

// float declares a float field (ValueType.FLOAT: numbers and strings).
func (op *objectParser) float(name string, fn func(float32) error) {
	op.declare(name, func(v *jval) error {
		f, err := v.floatValue()
		if err != nil {
			return err
		}
		return fn(f)
	}, kNumber, kString)
}

// boolean declares a boolean field (ValueType.BOOLEAN).
func (op *objectParser) boolean(name string, fn func(bool) error) {
	op.declare(name, func(v *jval) error {
		b, err := v.booleanValue()
		if err != nil {
			return err
		}
		return fn(b)
	}, kBool, kString)
}

// value declares a scalar-or-null field read with textOrNull
// (ValueType.VALUE).
func (op *objectParser) value(name string, fn func(v *jval) error) {
	op.declare(name, fn, kString, kNumber, kBool, kNull)
}

// stringArray declares a string array field (a single string is accepted).
func (op *objectParser) stringArray(name string, fn func([]string) error) {
	op.declare(name, func(v *jval) error {
		if v.kind != kArray {
			return fn([]string{v.s})
		}
		out := make([]string, 0, len(v.elems))
		for _, e := range v.elems {
			s, err := e.text()
			if err != nil {
				return err
			}
			out = append(out, s)
		}
		return fn(out)
	}, kArray, kString)
}

func (op *objectParser) candidates() []string {
	names := make([]string, len(op.fields))
	for i, f := range op.fields {
		names[i] = f.name
	}
	return names
}

func (op *objectParser) parse() error {
	d := op.body.doc
	for _, m := range op.body.members {
		var fld *objField
		for i := range op.fields {
			if op.fields[i].name == m.key {
				fld = &op.fields[i]
				break
			}
		}
		if fld == nil {
			return d.xcontentErr(m.off, "[%s] unknown field [%s]%s", op.name, m.key, suggest(m.key, op.candidates()))
		}
		supported := false
		for _, k := range fld.kinds {
			if k == m.val.kind {
				supported = true
				break
			}
		}
		if !supported {
			return d.xcontentErr(m.val.off, "[%s] %s doesn't support values of type: %s", op.name, m.key, m.val.kind.token())
		}
		if err := fld.fn(m.val); err != nil {
			e := d.xcontentErr(m.val.off, "[%s] failed to parse field [%s]", op.name, m.key)
			if cause, ok := searchcore.AsError(err); ok {
				e.CausedBy = cause
			} else {
				e.CausedBy = searchcore.Internalf(err, "%v", err)
			}
			return e
		}
	}
	return nil
}
