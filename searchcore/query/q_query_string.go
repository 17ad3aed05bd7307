package query

import (
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/blugelabs/bluge"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// QueryStringQuery is {"query_string": {"query": "title:(quick OR fox) AND -dog"}}
// with the Lucene classic query syntax.
type QueryStringQuery struct {
	base
	query           string
	defaultField    string
	fields          []fieldBoost
	operatorAnd     bool
	analyzer        string
	analyzeWildcard bool
	lenient         *bool
	fuzzy           fuzziness
	fuzzyPrefix     int
	fuzzyMaxExp     int
	transpositions  bool
	phraseSlop      int
	tieBreaker      float32
	msm             string
	hasMSM          bool
	allowLeadingWc  bool
	mostFields      bool
	timeZone        *time.Location
	maxStates       int // max_determinized_states of /regex/ terms
}

func registerQueryString(p *Parser) {
	p.register("query_string", parseQueryString)
	p.register("simple_query_string", parseSimpleQueryString)
}

// parseQueryString follows QueryStringQueryBuilder.fromXContent.
func parseQueryString(_ *Parser, body *jval) (Node, error) {
	q := &QueryStringQuery{base: newBase(), fuzzy: fuzzinessAuto, fuzzyMaxExp: 50, transpositions: true, allowLeadingWc: true,
		maxStates: defaultMaxDeterminizedStates}
	var (
		boost    float32 = 1
		hasQuery bool
	)
	for _, m := range body.members {
		v := m.val
		if m.key == "fields" && v.kind == kArray {
			for _, e := range v.elems {
				var err error
				if q.fields, err = appendFieldBoost(q.fields, e); err != nil {
					return nil, err
				}
			}
			continue
		}
		if !v.kind.isValue() {
			return nil, v.parsingErr("[query_string] unknown token [%s] after [%s]", v.kind.token(), m.key)
		}
		var err error
		switch m.key {
		case "query":
			q.query, hasQuery = v.s, true
		case "default_field":
			q.defaultField = v.s
		case "default_operator":
			q.operatorAnd, err = parseOperator(v.s)
		case "analyzer":
			q.analyzer = v.s
		case "type":
			t, ok := multiMatchTypes[strings.ToLower(v.s)]
			if !ok {
				return nil, searchcore.Errorf(searchcore.Invalid, "parse_exception",
					"failed to parse [multi_match] query type [%s]. unknown type.", v.s)
			}
			q.mostFields = t == "most_fields"
		case "time_zone":
			q.timeZone, err = parseZone(v.s)
		case "quote_analyzer", "quote_field_suffix", "rewrite",
			"auto_generate_synonyms_phrase_query", "escape",
			"enable_position_increments", "auto_generate_phrase_queries":
		case "max_determinized_states":
			q.maxStates, err = v.intValue()
		case "allow_leading_wildcard":
			q.allowLeadingWc, err = v.booleanValue()
		case "analyze_wildcard":
			q.analyzeWildcard, err = v.booleanValue()
		case "boost":
			boost, err = v.floatValue()
		case "fuzziness":
			q.fuzzy, err = parseFuzziness(v)
		case "fuzzy_prefix_length":
			q.fuzzyPrefix, err = v.intValue()
		case "fuzzy_max_expansions":
			q.fuzzyMaxExp, err = v.intValue()
		case "fuzzy_transpositions":
			q.transpositions, err = v.booleanValue()
		case "fuzzy_rewrite":
		case "phrase_slop":
			q.phraseSlop, err = v.intValue()
		case "tie_breaker":
			q.tieBreaker, err = v.floatValue()
		case "lenient":
			var b bool
			b, err = v.booleanValue()
			q.lenient = &b
		case "minimum_should_match":
			q.msm, q.hasMSM = v.s, true
		case "_name":
			q.name = v.s
		default:
			err = v.parsingErr("[query_string] query does not support [%s]", m.key)
		}
		if err != nil {
			return nil, err
		}
	}
	if !hasQuery {
		return nil, body.parsingErr("[query_string] must be provided with a [query]")
	}
	if q.defaultField != "" && len(q.fields) > 0 {
		return nil, body.parsingErr("[query_string] cannot use [fields] parameter in conjunction with [default_field]")
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// ---------------------------------------------------------------------
// syntax tree shared by query_string and simple_query_string

type occur int

const (
	occShould occur = iota
	occMust
	occMustNot
)

// qsNode is a parsed query string element.
type qsNode interface{}

type qsClause struct {
	occur occur
	node  qsNode
}

type qsBool struct {
	clauses []qsClause
	boost   float32
	// matchAll adds a match_all SHOULD clause (simple_query_string negation)
	matchAll bool
}

type qsKind int

const (
	qsTermKind qsKind = iota
	qsPhraseKind
	qsWildcardKind
	qsPrefixKind
	qsFuzzyKind
	qsRegexKind
	qsRangeKind
	qsExistsKind
	qsMatchAllKind
)

type qsTerm struct {
	kind     qsKind
	field    string // "" = default fields
	text     string
	slop     int
	hasSlop  bool
	fuzzy    *fuzziness
	boost    float32
	lo, hi   *string // range bounds (nil = open)
	incLo    bool
	incHi    bool
	quotedHi bool
}

// qsParseErr is the Lucene ParseException as ES wraps it.
type qsParseErr struct{ msg string }

func (e *qsParseErr) Error() string { return e.msg }

// classicParser parses the Lucene classic query syntax.
type classicParser struct {
	s          []rune
	pos        int
	operator   occur // occMust for AND default
	allowLead  bool
	depth      int
	clauseSeen int
}

func (p *classicParser) errf(format string, args ...any) error {
	return &qsParseErr{msg: sprintf(format, args...)}
}

func sprintf(format string, args ...any) string {
	return searchcore.Errorf(searchcore.Invalid, "x", format, args...).Reason
}

func (p *classicParser) skipWS() {
	for p.pos < len(p.s) && unicode.IsSpace(p.s[p.pos]) {
		p.pos++
	}
}

func (p *classicParser) peekWord(w string) bool {
	r := []rune(w)
	if p.pos+len(r) > len(p.s) || string(p.s[p.pos:p.pos+len(r)]) != w {
		return false
	}
	end := p.pos + len(r)
	return end == len(p.s) || unicode.IsSpace(p.s[end]) || p.s[end] == '(' || p.s[end] == ')'
}

const qsSpecial = "+-!():^[]\"{}~*?\\/"

// parseQuery parses clauses until end of input or a closing parenthesis.
func (p *classicParser) parseQuery() (*qsBool, error) {
	b := &qsBool{boost: 1}
	conj := -1 // 0 none, 1 AND, 2 OR
	for {
		p.skipWS()
		if p.pos >= len(p.s) || p.s[p.pos] == ')' {
			break
		}
		c := 0
		switch {
		case p.peekWord("AND"):
			p.pos += 3
			c = 1
		case p.s[p.pos] == '&' && p.pos+1 < len(p.s) && p.s[p.pos+1] == '&':
			p.pos += 2
			c = 1
		case p.peekWord("OR"):
			p.pos += 2
			c = 2
		case p.s[p.pos] == '|' && p.pos+1 < len(p.s) && p.s[p.pos+1] == '|':
			p.pos += 2
			c = 2
		}
		if c != 0 {
			if len(b.clauses) == 0 || conj > 0 {
				return nil, p.errf("Encountered \"%s\" at column %d.", map[int]string{1: "AND", 2: "OR"}[c], p.pos)
			}
			conj = c
			continue
		}
		mods := 0 // 1 required, 2 prohibited
		switch {
		case p.s[p.pos] == '+':
			mods = 1
			p.pos++
		case p.s[p.pos] == '-' || p.s[p.pos] == '!':
			mods = 2
			p.pos++
		case p.peekWord("NOT"):
			mods = 2
			p.pos += 3
		}
		p.skipWS()
		node, err := p.parseClause()
		if err != nil {
			return nil, err
		}
		p.addClause(b, max(conj, 0), mods, node)
		conj = 0
	}
	if conj > 0 {
		return nil, p.errf("Encountered \"<EOF>\" at end of input.")
	}
	return b, nil
}

// addClause is QueryParserBase.addClause.
func (p *classicParser) addClause(b *qsBool, conj, mods int, node qsNode) {
	if n := len(b.clauses); n > 0 {
		last := &b.clauses[n-1]
		if conj == 1 && last.occur != occMustNot {
			last.occur = occMust
		}
		if p.operator == occMust && conj == 2 && last.occur != occMustNot {
			last.occur = occShould
		}
	}
	var required, prohibited bool
	if p.operator == occShould {
		prohibited = mods == 2
		required = mods == 1
		if conj == 1 && !prohibited {
			required = true
		}
	} else {
		prohibited = mods == 2
		required = !prohibited && conj != 2
	}
	o := occShould
	switch {
	case required && !prohibited:
		o = occMust
	case prohibited:
		o = occMustNot
	}
	b.clauses = append(b.clauses, qsClause{occur: o, node: node})
}

// parseClause parses [field:] (term | group) [^boost].
func (p *classicParser) parseClause() (qsNode, error) {
	if p.pos >= len(p.s) {
		return nil, p.errf("Encountered \"<EOF>\" at end of input.")
	}
	field := ""
	// field prefix: a term followed by ':'
	save := p.pos
	if p.s[p.pos] != '(' && p.s[p.pos] != '"' && p.s[p.pos] != '[' && p.s[p.pos] != '{' && p.s[p.pos] != '/' {
		word := p.readTermText(true)
		if word != "" && p.pos < len(p.s) && p.s[p.pos] == ':' {
			field = word
			p.pos++
			p.skipWS()
		} else {
			p.pos = save
		}
	}
	if p.pos >= len(p.s) {
		return nil, p.errf("Encountered \"<EOF>\" at end of input.")
	}
	var node qsNode
	switch r := p.s[p.pos]; {
	case r == '(':
		p.pos++
		p.depth++
		if p.depth > 100 {
			return nil, p.errf("too deeply nested")
		}
		sub, err := p.parseQuery()
		if err != nil {
			return nil, err
		}
		p.depth--
		if p.pos >= len(p.s) || p.s[p.pos] != ')' {
			return nil, p.errf("Encountered \"<EOF>\" at end of input. Was expecting \")\"")
		}
		p.pos++
		if field != "" {
			setField(sub, field)
		}
		if bst, ok, err := p.readBoost(); err != nil {
			return nil, err
		} else if ok {
			sub.boost = bst
		}
		node = sub
	case r == '"':
		p.pos++
		var sb strings.Builder
		closed := false
		for p.pos < len(p.s) {
			c := p.s[p.pos]
			if c == '\\' && p.pos+1 < len(p.s) {
				sb.WriteRune(p.s[p.pos+1])
				p.pos += 2
				continue
			}
			p.pos++
			if c == '"' {
				closed = true
				break
			}
			sb.WriteRune(c)
		}
		if !closed {
			return nil, p.errf("Lexical error at end of input: unterminated quoted string")
		}
		t := &qsTerm{kind: qsPhraseKind, field: field, text: sb.String(), boost: 1}
		if p.pos < len(p.s) && p.s[p.pos] == '~' {
			p.pos++
			num := p.readNumber()
			n, err := strconv.ParseFloat(num, 64)
			if num == "" || err != nil {
				return nil, p.errf("Encountered \"~\" without a slop value")
			}
			t.slop, t.hasSlop = int(n), true
		}
		if err := p.termBoost(t); err != nil {
			return nil, err
		}
		node = t
	case r == '[' || r == '{':
		t, err := p.readRange(field)
		if err != nil {
			return nil, err
		}
		node = t
	case r == '/':
		p.pos++
		var sb strings.Builder
		closed := false
		for p.pos < len(p.s) {
			c := p.s[p.pos]
			if c == '\\' && p.pos+1 < len(p.s) && p.s[p.pos+1] == '/' {
				sb.WriteRune('/')
				p.pos += 2
				continue
			}
			p.pos++
			if c == '/' {
				closed = true
				break
			}
			sb.WriteRune(c)
		}
		if !closed {
			return nil, p.errf("Lexical error at end of input: unterminated regular expression")
		}
		t := &qsTerm{kind: qsRegexKind, field: field, text: sb.String(), boost: 1}
		if err := p.termBoost(t); err != nil {
			return nil, err
		}
		node = t
	case (r == '>' || r == '<') && field != "":
		p.pos++
		inc := false
		if p.pos < len(p.s) && p.s[p.pos] == '=' {
			inc = true
			p.pos++
		}
		v := p.readTermText(false)
		if v == "" {
			return nil, p.errf("Encountered \"<EOF>\" at end of input.")
		}
		t := &qsTerm{kind: qsRangeKind, field: field, boost: 1}
		if r == '>' {
			t.lo, t.incLo = &v, inc
		} else {
			t.hi, t.incHi = &v, inc
		}
		node = t
	default:
		raw := p.pos
		text := p.readTermText(false)
		if text == "" {
			return nil, p.errf("Encountered \"%s\" at column %d.", string(p.s[p.pos]), p.pos)
		}
		t := &qsTerm{kind: qsTermKind, field: field, text: text, boost: 1}
		hasWild := false
		for i := raw; i < p.pos; i++ {
			c := p.s[i]
			if c == '\\' {
				i++
				continue
			}
			if c == '*' || c == '?' {
				hasWild = true
			}
		}
		switch {
		case text == "*" && hasWild:
			if field == "" {
				t.kind = qsMatchAllKind
			} else {
				t.kind = qsExistsKind
			}
		case hasWild:
			rawText := string(p.s[raw:p.pos])
			t.text = rawText
			if strings.HasSuffix(rawText, "*") && !strings.ContainsAny(rawText[:len(rawText)-1], "*?") {
				t.kind, t.text = qsPrefixKind, unescapeQS(rawText[:len(rawText)-1])
			} else {
				t.kind = qsWildcardKind
			}
			if !p.allowLead && (strings.HasPrefix(rawText, "*") || strings.HasPrefix(rawText, "?")) {
				return nil, p.errf("'*' or '?' not allowed as first character in WildcardQuery")
			}
		}
		if field == "_exists_" {
			t.kind, t.field = qsExistsKind, text
		}
		if p.pos < len(p.s) && p.s[p.pos] == '~' {
			p.pos++
			num := p.readNumber()
			t.kind = qsFuzzyKind
			if num != "" {
				n, err := strconv.ParseFloat(num, 64)
				if err != nil {
					return nil, p.errf("invalid fuzziness [%s]", num)
				}
				f := fuzziness{edits: float32(n)}
				t.fuzzy = &f
			}
		}
		if err := p.termBoost(t); err != nil {
			return nil, err
		}
		node = t
	}
	return node, nil
}

func (p *classicParser) termBoost(t *qsTerm) error {
	b, ok, err := p.readBoost()
	if ok {
		t.boost = b
	}
	return err
}

func (p *classicParser) readBoost() (float32, bool, error) {
	if p.pos >= len(p.s) || p.s[p.pos] != '^' {
		return 1, false, nil
	}
	p.pos++
	num := p.readNumber()
	if num == "" {
		return 0, false, p.errf("Encountered \"^\" without a boost value")
	}
	f, err := strconv.ParseFloat(num, 32)
	if err != nil {
		return 0, false, p.errf("invalid boost [%s]", num)
	}
	return float32(f), true, nil
}

func (p *classicParser) readNumber() string {
	start := p.pos
	for p.pos < len(p.s) && (unicode.IsDigit(p.s[p.pos]) || p.s[p.pos] == '.') {
		p.pos++
	}
	return string(p.s[start:p.pos])
}

// readTermText reads an unquoted term (escapes resolved); stopAtColon
// ends it at ':' (field names).
func (p *classicParser) readTermText(fieldName bool) string {
	var sb strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '\\' && p.pos+1 < len(p.s) {
			sb.WriteRune(p.s[p.pos+1])
			p.pos += 2
			continue
		}
		if unicode.IsSpace(c) || strings.ContainsRune("()[]{}\"^~:", c) {
			break
		}
		if !fieldName && sb.Len() == 0 && strings.ContainsRune("+-!", c) {
			break
		}
		if fieldName && strings.ContainsRune("+!", c) {
			break
		}
		sb.WriteRune(c)
		p.pos++
	}
	return sb.String()
}

func (p *classicParser) readRange(field string) (*qsTerm, error) {
	incLo := p.s[p.pos] == '['
	p.pos++
	p.skipWS()
	readBound := func() (string, bool) {
		p.skipWS()
		if p.pos < len(p.s) && p.s[p.pos] == '"' {
			p.pos++
			start := p.pos
			for p.pos < len(p.s) && p.s[p.pos] != '"' {
				p.pos++
			}
			s := string(p.s[start:min(p.pos, len(p.s))])
			p.pos = min(p.pos+1, len(p.s))
			return s, true
		}
		start := p.pos
		for p.pos < len(p.s) && !unicode.IsSpace(p.s[p.pos]) && p.s[p.pos] != ']' && p.s[p.pos] != '}' {
			p.pos++
		}
		return string(p.s[start:p.pos]), false
	}
	lo, loQuoted := readBound()
	p.skipWS()
	if !p.peekWord("TO") {
		return nil, p.errf("Encountered range without \"TO\"")
	}
	p.pos += 2
	hi, hiQuoted := readBound()
	p.skipWS()
	if p.pos >= len(p.s) || (p.s[p.pos] != ']' && p.s[p.pos] != '}') {
		return nil, p.errf("Encountered \"<EOF>\" at end of input. Was expecting one of: \"]\" \"}\"")
	}
	incHi := p.s[p.pos] == ']'
	p.pos++
	t := &qsTerm{kind: qsRangeKind, field: field, boost: 1, incLo: incLo, incHi: incHi}
	if lo != "*" || loQuoted {
		t.lo = &lo
	}
	if hi != "*" || hiQuoted {
		t.hi = &hi
	}
	if err := p.termBoost(t); err != nil {
		return nil, err
	}
	return t, nil
}

func setField(n qsNode, field string) {
	switch t := n.(type) {
	case *qsBool:
		for _, c := range t.clauses {
			setField(c.node, field)
		}
	case *qsTerm:
		if t.field == "" {
			t.field = field
			if t.kind == qsTermKind {
				openRange(t)
			}
		}
	}
}

// openRanges applies openRange to the unfielded terms of n.
func openRanges(n qsNode) {
	switch t := n.(type) {
	case *qsBool:
		for _, c := range t.clauses {
			openRanges(c.node)
		}
	case *qsTerm:
		if t.field == "" && t.kind == qsTermKind {
			openRange(t)
		}
	}
}

// openRange turns a term of a field group that starts with >, >=, < or <=
// into the one-sided range Elasticsearch's getFieldQuery makes of it, as
// in age:(>=10 AND <20).
func openRange(t *qsTerm) {
	s := t.text
	if len(s) < 2 || (s[0] != '>' && s[0] != '<') {
		return
	}
	v, inc := s[1:], false
	if len(s) > 2 && s[1] == '=' {
		v, inc = s[2:], true
	}
	t.kind, t.text = qsRangeKind, ""
	if s[0] == '>' {
		t.lo, t.incLo = &v, inc
	} else {
		t.hi, t.incHi = &v, inc
	}
}

func unescapeQS(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var sb strings.Builder
	r := []rune(s)
	for i := 0; i < len(r); i++ {
		if r[i] == '\\' && i+1 < len(r) {
			i++
		}
		sb.WriteRune(r[i])
	}
	return sb.String()
}

// ---------------------------------------------------------------------
// compiling

// qsCompiler turns a query string tree into bluge queries.
type qsCompiler struct {
	ctx             *Context
	name            string
	fields          []fieldBoost // default fields
	operatorAnd     bool
	analyzer        string
	lenient         bool
	fuzzy           fuzziness
	fuzzyPrefix     int
	fuzzyMaxExp     int
	transpositions  bool
	phraseSlop      int
	tieBreaker      float64
	analyzeWildcard bool
	timeZone        *time.Location
	maxStates       int // 0 for the default
	clauses         int
}

func (c *qsCompiler) compile(n qsNode) (bluge.Query, error) {
	switch t := n.(type) {
	case *qsBool:
		return c.compileBool(t)
	case *qsTerm:
		return c.compileTerm(t)
	}
	return matchNone(), nil
}

func (c *qsCompiler) compileBool(b *qsBool) (bluge.Query, error) {
	if len(b.clauses) == 1 && !b.matchAll && b.clauses[0].occur != occMustNot {
		q, err := c.compile(b.clauses[0].node)
		if err != nil {
			return nil, err
		}
		return Boosted(q, b.boost), nil
	}
	bq := &boolQuery{boost: 1}
	for _, cl := range b.clauses {
		q, err := c.compile(cl.node)
		if err != nil {
			return nil, err
		}
		switch cl.occur {
		case occMust:
			bq.must = append(bq.must, q)
		case occMustNot:
			bq.mustNot = append(bq.mustNot, q)
		default:
			bq.should = append(bq.should, q)
		}
	}
	if b.matchAll {
		bq.should = append(bq.should, &matchAllQuery{score: 1})
	}
	if len(bq.must)+len(bq.should) == 0 && len(bq.mustNot) > 0 {
		// ES's Queries.fixNegativeQueryIfNeeded
		bq.must = append(bq.must, &matchAllQuery{score: 1})
	}
	if len(bq.must)+len(bq.should)+len(bq.mustNot) > c.ctx.maxClauseCount() {
		return nil, c.ctx.tooManyClauses()
	}
	return Boosted(bq, b.boost), nil
}

// fieldsFor returns the fields a term searches.
func (c *qsCompiler) fieldsFor(field string) []resolvedField {
	if field == "" {
		return c.ctx.resolveFields(c.fields)
	}
	if strings.Contains(field, "*") {
		return c.ctx.resolveFields([]fieldBoost{{field: field, boost: 1}})
	}
	if field == indexField {
		// the terms compile to the _index queries (meta_fields.go)
		return []resolvedField{{ft: &fieldType{path: indexField, typ: indexField}, boost: 1}}
	}
	if ft, _ := c.ctx.lookupField(field); ft != nil {
		return []resolvedField{{ft: ft, boost: 1}}
	}
	return nil
}

func (c *qsCompiler) compileTerm(t *qsTerm) (bluge.Query, error) {
	switch t.kind {
	case qsMatchAllKind:
		return &matchAllQuery{score: float64(t.boost)}, nil
	case qsExistsKind:
		q, err := (&ExistsQuery{base: base{boost: t.boost}, field: t.field}).Compile(c.ctx)
		return q, err
	}
	if t.kind == qsRegexKind {
		if err := c.ctx.checkRegexLength(t.text); err != nil {
			return nil, err
		}
	}
	fields := c.fieldsFor(t.field)
	lenient := c.lenient || t.field == "" && len(c.fields) == 1 && c.fields[0].field == "*"
	var alts []bluge.Query
	for _, f := range fields {
		c.clauses++
		if c.clauses > c.ctx.maxClauseCount() {
			return nil, c.ctx.tooManyClauses()
		}
		q, err := c.termOnField(t, f, lenient)
		if err != nil {
			if lenient {
				continue
			}
			return nil, err
		}
		if _, none := q.(*bluge.MatchNoneQuery); none {
			continue
		}
		alts = append(alts, q)
	}
	var q bluge.Query
	switch len(alts) {
	case 0:
		return matchNone(), nil
	case 1:
		q = alts[0]
	default:
		q = &disMaxQuery{clauses: alts, tieBreaker: c.tieBreaker}
	}
	return Boosted(q, t.boost), nil
}

func (c *qsCompiler) termOnField(t *qsTerm, f resolvedField, lenient bool) (bluge.Query, error) {
	b := base{boost: f.boost}
	switch t.kind {
	case qsTermKind:
		op := "OR"
		if c.operatorAnd {
			op = "AND"
		}
		return (&MatchQuery{base: b, field: f.ft.path, value: scalar{kind: kString, s: t.text}, operator: op,
			analyzer: c.analyzer, maxExpansions: 50, transpositions: true, lenient: lenient}).Compile(c.ctx)
	case qsPhraseKind:
		slop := c.phraseSlop
		if t.hasSlop {
			slop = t.slop
		}
		return c.ctx.textQuery(c.name, f.ft, t.text, &textOpts{kind: textPhrase, analyzer: c.analyzer, slop: slop, lenient: lenient}, f.boost)
	case qsPrefixKind:
		text := t.text
		if f.ft.lowercasesWildcards() {
			text = strings.ToLower(text)
		}
		if !f.ft.isString() {
			if lenient {
				return matchNone(), nil
			}
		}
		return (&PrefixQuery{base: b, field: f.ft.path, value: text}).Compile(c.ctx)
	case qsWildcardKind:
		text := t.text
		if f.ft.lowercasesWildcards() {
			text = strings.ToLower(text)
		}
		if !f.ft.isString() && lenient {
			return matchNone(), nil
		}
		return (&WildcardQuery{base: b, field: f.ft.path, value: text}).Compile(c.ctx)
	case qsRegexKind:
		if !f.ft.isString() && lenient {
			return matchNone(), nil
		}
		return (&RegexpQuery{base: b, field: f.ft.path, value: t.text, flags: reAll, maxStates: c.maxStates}).Compile(c.ctx)
	case qsFuzzyKind:
		fz := c.fuzzy
		if t.fuzzy != nil {
			fz = *t.fuzzy
		}
		if !f.ft.isString() {
			if lenient {
				return matchNone(), nil
			}
		}
		text := t.text
		if f.ft.lowercasesWildcards() {
			text = strings.ToLower(text)
		}
		return (&FuzzyQuery{base: b, field: f.ft.path, value: scalar{kind: kString, s: text}, fuzzy: fz,
			prefixLength: c.fuzzyPrefix, maxExpansions: c.fuzzyMaxExp, transpositions: c.transpositions}).Compile(c.ctx)
	case qsRangeKind:
		r := &RangeQuery{base: b, field: f.ft.path, incLower: t.incLo, incUpper: t.incHi, timeZone: c.timeZone}
		if t.lo != nil {
			r.from = &scalar{kind: kString, s: *t.lo}
		}
		if t.hi != nil {
			r.to = &scalar{kind: kString, s: *t.hi}
		}
		q, err := r.Compile(c.ctx)
		if err != nil && lenient {
			return matchNone(), nil
		}
		return q, err
	}
	return matchNone(), nil
}

// Compile implements Node.
func (q *QueryStringQuery) Compile(ctx *Context) (bluge.Query, error) {
	p := &classicParser{s: []rune(q.query), operator: occShould, allowLead: q.allowLeadingWc}
	if q.operatorAnd {
		p.operator = occMust
	}
	tree, err := p.parseQuery()
	if err == nil && p.pos < len(p.s) {
		err = p.errf("Encountered \" \")\" \") \"\" at line 1, column %d.", p.pos)
	}
	if err != nil {
		msg := err.Error()
		e := ctx.shardErr("Failed to parse query [%s]", q.query)
		e.CausedBy = searchcore.Errorf(searchcore.Invalid, "parse_exception", "Cannot parse '%s': %s", q.query, msg)
		return nil, e
	}
	fields := q.fields
	if len(fields) == 0 {
		df := q.defaultField
		if df == "" {
			df = "*"
		}
		fields = []fieldBoost{{field: df, boost: 1}}
		if df != "*" {
			// a single default field is the parser's field, so its
			// unfielded >, >=, < and <= terms are ranges too
			openRanges(tree)
		}
	}
	c := &qsCompiler{ctx: ctx, name: "query_string", fields: fields, operatorAnd: q.operatorAnd, analyzer: q.analyzer,
		fuzzy: q.fuzzy, fuzzyPrefix: q.fuzzyPrefix, fuzzyMaxExp: q.fuzzyMaxExp, transpositions: q.transpositions,
		phraseSlop: q.phraseSlop, tieBreaker: float64(q.tieBreaker), analyzeWildcard: q.analyzeWildcard, maxStates: q.maxStates,
		timeZone: q.timeZone}
	if q.mostFields && q.tieBreaker == 0 {
		c.tieBreaker = 1
	}
	if q.lenient != nil {
		c.lenient = *q.lenient
	}
	if len(tree.clauses) == 0 {
		return matchNone(), nil
	}
	out, err := c.compile(tree)
	if err != nil {
		return nil, err
	}
	if q.hasMSM {
		if bq, ok := out.(*boolQuery); ok && len(bq.should) > 0 {
			n, err := minShouldMatch(len(bq.should), q.msm)
			if err != nil {
				return nil, ctx.failedToCreate(err)
			}
			if n > 0 {
				bq.minShould = n
			}
		}
	}
	return Boosted(out, q.boost), nil
}
