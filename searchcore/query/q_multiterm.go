package query

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/blugelabs/bluge"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// PrefixQuery is {"prefix": {"<field>": {"value": "pre"}}} on keyword and
// text fields (constant score).
type PrefixQuery struct {
	base
	field, value    string
	caseInsensitive bool
}

// WildcardQuery is {"wildcard": {"<field>": {"value": "a*b?"}}}
// (constant score).
type WildcardQuery struct {
	base
	field, value    string
	caseInsensitive bool
}

// RegexpQuery is {"regexp": {"<field>": {"value": "...", "flags": ...}}}
// with Lucene regular expression syntax (constant score).
type RegexpQuery struct {
	base
	field, value    string
	flags           int
	caseInsensitive bool
	maxStates       int // max_determinized_states
}

// FuzzyQuery is {"fuzzy": {"<field>": {"value": v, "fuzziness": ...}}}.
type FuzzyQuery struct {
	base
	field          string
	value          scalar
	fuzzy          fuzziness
	prefixLength   int
	maxExpansions  int
	transpositions bool
}

func registerMultiTerm(p *Parser) {
	p.register("prefix", parsePrefix)
	p.register("wildcard", parseWildcard)
	p.register("regexp", parseRegexp)
	p.register("fuzzy", parseFuzzy)
}

// fieldValueForm walks the {"<field>": {...}} / {"<field>": "value"} forms
// shared by prefix, wildcard and regexp. inner handles one parameter of the
// long form; short receives the value of the short form.
func fieldValueForm(name string, body *jval, inner func(key string, v *jval) error,
	short func(v *jval) error) (string, error) {
	var field string
	has := false
	for _, m := range body.members {
		v := m.val
		if err := throwOnMultipleFields(name, v, field, m.key, has); err != nil {
			return "", err
		}
		field, has = m.key, true
		if v.kind == kObject {
			for _, im := range v.members {
				if err := inner(im.key, im.val); err != nil {
					return "", err
				}
			}
			continue
		}
		if err := short(v); err != nil {
			return "", err
		}
	}
	return field, nil
}

// requireFieldValue is the BaseTermQueryBuilder-style constructor check.
func requireFieldValue(field string, value *string) error {
	if field == "" {
		return searchcore.IllegalArgument("field name is null or empty")
	}
	if value == nil {
		return searchcore.IllegalArgument("value cannot be null")
	}
	return nil
}

// stringValueSpec describes a {"<field>": value} / {"<field>": {...}} query
// with one string value (prefix, wildcard, regexp): the parameters they all
// share are handled by parseStringFieldValue, the others by extra.
type stringValueSpec struct {
	name      string   // query name, for errors
	valueKeys []string // keys that carry the value in the long form
	// nullable reads the value with textOrNull (a null is reported later as
	// "value cannot be null"); otherwise a null is a parse error.
	nullable        bool
	caseInsensitive *bool
	// extra handles query-specific keys; it reports whether it knew key.
	extra func(key string, v *jval) (bool, error)
}

// parseStringFieldValue parses the body of a query described by spec into
// b (name, boost) and returns its field and value.
func parseStringFieldValue(b *base, body *jval, spec stringValueSpec) (string, string, error) {
	var value *string
	var boost float32 = 1
	readValue := func(v *jval) error {
		if !spec.nullable {
			s, err := v.text()
			value = &s
			return err
		}
		s, ok, err := v.textOrNull()
		value = nil
		if ok {
			value = &s
		}
		return err
	}
	field, err := fieldValueForm(spec.name, body, func(key string, v *jval) error {
		switch {
		case key == "_name":
			var err error
			b.name, err = v.text()
			return err
		case slices.Contains(spec.valueKeys, key):
			return readValue(v)
		case key == "boost":
			var err error
			boost, err = v.floatValue()
			return err
		case key == "rewrite":
			_, _, err := v.textOrNull()
			return err
		case key == "case_insensitive":
			var err error
			*spec.caseInsensitive, err = v.booleanValue()
			return err
		}
		if spec.extra != nil {
			if known, err := spec.extra(key, v); known {
				return err
			}
		}
		return v.parsingErr("[%s] query does not support [%s]", spec.name, key)
	}, readValue)
	if err != nil {
		return "", "", err
	}
	if err := requireFieldValue(field, value); err != nil {
		return "", "", err
	}
	if err := b.setBoost(boost, body); err != nil {
		return "", "", err
	}
	return field, *value, nil
}

// parsePrefix follows PrefixQueryBuilder.fromXContent.
func parsePrefix(_ *Parser, body *jval) (Node, error) {
	q := &PrefixQuery{base: newBase()}
	var err error
	q.field, q.value, err = parseStringFieldValue(&q.base, body, stringValueSpec{
		name: "prefix", valueKeys: []string{"value", "prefix"}, nullable: true, caseInsensitive: &q.caseInsensitive,
	})
	if err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node.
func (q *PrefixQuery) Compile(ctx *Context) (bluge.Query, error) {
	if q.field == indexField {
		return indexPrefixQuery(ctx, q.value, q.caseInsensitive, q.boost), nil
	}
	ft, _ := ctx.lookupField(q.field)
	if ft == nil {
		return matchNone(), nil
	}
	if !ft.isString() {
		return nil, ctx.shardErr("Can only use prefix queries on keyword, text and wildcard fields - not on [%s] which is of type [%s]", ft.path, ft.typ)
	}
	if err := ctx.failIfNotIndexed(ft); err != nil {
		return nil, err
	}
	value, err := ctx.normalize(ft, q.value)
	if err != nil {
		return nil, err
	}
	if q.caseInsensitive {
		return ctx.regexpQuery(ft, "(?is)"+regexp.QuoteMeta(value)+".*", q.boost)
	}
	return &prefixQuery{field: ft.path, prefix: value, score: float64(q.boost)}, nil
}

// parseWildcard follows WildcardQueryBuilder.fromXContent.
func parseWildcard(_ *Parser, body *jval) (Node, error) {
	q := &WildcardQuery{base: newBase()}
	var err error
	q.field, q.value, err = parseStringFieldValue(&q.base, body, stringValueSpec{
		name: "wildcard", valueKeys: []string{"wildcard", "value"}, caseInsensitive: &q.caseInsensitive,
	})
	if err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node.
func (q *WildcardQuery) Compile(ctx *Context) (bluge.Query, error) {
	if q.field == indexField {
		return indexWildcardQuery(ctx, q.value, q.caseInsensitive, q.boost), nil
	}
	ft, _ := ctx.lookupField(q.field)
	if ft == nil {
		return matchNone(), nil
	}
	if !ft.isString() {
		return nil, ctx.shardErr("Can only use wildcard queries on keyword, text and wildcard fields - not on [%s] which is of type [%s]", ft.path, ft.typ)
	}
	if err := ctx.failIfNotIndexed(ft); err != nil {
		return nil, err
	}
	pattern, err := ctx.normalize(ft, q.value)
	if err != nil {
		return nil, err
	}
	if ft.lowercasesWildcards() {
		pattern = strings.ToLower(pattern)
	}
	re := wildcardToRE2(pattern)
	if q.caseInsensitive {
		re = "(?i)" + re
	}
	return ctx.regexpQuery(ft, re, q.boost)
}

// parseRegexp follows RegexpQueryBuilder.fromXContent.
func parseRegexp(_ *Parser, body *jval) (Node, error) {
	q := &RegexpQuery{base: newBase(), flags: reAll, maxStates: defaultMaxDeterminizedStates}
	var err error
	q.field, q.value, err = parseStringFieldValue(&q.base, body, stringValueSpec{
		name: "regexp", valueKeys: []string{"value"}, nullable: true, caseInsensitive: &q.caseInsensitive,
		extra: func(key string, v *jval) (bool, error) {
			var err error
			switch key {
			case "flags":
				var s string
				if s, err = v.text(); err == nil {
					q.flags, err = resolveRegexpFlags(s)
				}
			case "flags_value":
				q.flags, err = v.intValue()
			case "max_determinized_states":
				q.maxStates, err = v.intValue()
			default:
				return false, nil
			}
			return true, err
		},
	})
	if err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node.
func (q *RegexpQuery) Compile(ctx *Context) (bluge.Query, error) {
	// RegexpQueryBuilder#doToQuery checks the length first, even for an
	// unmapped field.
	if err := ctx.checkRegexLength(q.value); err != nil {
		return nil, err
	}
	if q.field == indexField {
		return nil, ctx.shardErr("Can only use regexp queries on keyword and text fields - not on [%s] which is of type [%s]", indexField, indexField)
	}
	ft, _ := ctx.lookupField(q.field)
	if ft == nil {
		return matchNone(), nil
	}
	if !ft.isString() {
		return nil, ctx.shardErr("Can only use regexp queries on keyword and text fields - not on [%s] which is of type [%s]", ft.path, ft.typ)
	}
	if err := ctx.failIfNotIndexed(ft); err != nil {
		return nil, err
	}
	maxStates := q.maxStates
	if maxStates <= 0 {
		maxStates = defaultMaxDeterminizedStates
	}
	dfa, err := compileLuceneRegexp(q.value, q.flags, q.caseInsensitive, maxStates)
	if err != nil {
		return nil, ctx.failedToCreate(err)
	}
	return &regexpQuery{field: ft.path, aut: dfa, prefix: dfa.prefix, score: float64(q.boost), pattern: q.value}, nil
}

// checkRegexLength enforces index.max_regex_length (default 1000, counted in
// UTF-16 units as Java does); lenient parsing never swallows this error.
func (ctx *Context) checkRegexLength(value string) error {
	maxLen := ctx.MaxRegexLength
	if maxLen <= 0 {
		maxLen = 1000
	}
	if n := len(utf16.Encode([]rune(value))); n > maxLen {
		return ctx.failedToCreate(searchcore.IllegalArgument(
			"The length of regex [%d] used in the Regexp Query request has exceeded the allowed maximum of [%d]. "+
				"This maximum can be set by changing the [index.max_regex_length] index level setting.", n, maxLen))
	}
	return nil
}

// parseFuzzy follows FuzzyQueryBuilder.fromXContent.
func parseFuzzy(_ *Parser, body *jval) (Node, error) {
	q := &FuzzyQuery{base: newBase(), fuzzy: fuzzinessAuto, maxExpansions: 50, transpositions: true}
	var (
		field string
		has   bool
		value *scalar
		boost float32 = 1
	)
	for _, m := range body.members {
		v := m.val
		if err := throwOnMultipleFields("fuzzy", v, field, m.key, has); err != nil {
			return nil, err
		}
		field, has = m.key, true
		if v.kind != kObject {
			if s, ok := scalarOf(v); ok {
				value = &s
			} else if v.kind == kArray {
				return nil, v.parsingErr("[fuzzy] unexpected token [%s] after [%s]", v.kind.token(), m.key)
			}
			continue
		}
		for _, im := range v.members {
			iv := im.val
			if !iv.kind.isValue() {
				return nil, iv.parsingErr("[fuzzy] unexpected token [%s] after [%s]", iv.kind.token(), im.key)
			}
			var err error
			switch im.key {
			case "term", "value":
				s, _ := scalarOf(iv)
				value = &s
			case "boost":
				boost, err = iv.floatValue()
			case "fuzziness":
				q.fuzzy, err = parseFuzziness(iv)
			case "prefix_length":
				q.prefixLength, err = iv.intValue()
			case "max_expansions":
				q.maxExpansions, err = iv.intValue()
			case "transpositions":
				q.transpositions, err = iv.booleanValue()
			case "rewrite":
			case "_name":
				q.name = iv.s
			default:
				err = iv.parsingErr("[fuzzy] query does not support [%s]", im.key)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	if field == "" {
		return nil, searchcore.IllegalArgument("field name cannot be null or empty")
	}
	if value == nil {
		return nil, searchcore.IllegalArgument("query value cannot be null")
	}
	q.field, q.value = field, *value
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node.
func (q *FuzzyQuery) Compile(ctx *Context) (bluge.Query, error) {
	ft, _ := ctx.lookupField(q.field)
	if ft == nil {
		return matchNone(), nil
	}
	return ctx.fuzzyQuery(ft, q.value.String(), q.fuzzy, q.prefixLength, q.maxExpansions, q.transpositions, q.boost)
}
