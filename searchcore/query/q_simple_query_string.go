package query

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/blugelabs/bluge"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// SimpleQueryStringQuery is {"simple_query_string": {"query": "quick + (fox | dog) -cat"}}:
// Lucene's SimpleQueryParser syntax, which never fails to parse.
type SimpleQueryStringQuery struct {
	base
	query           string
	fields          []fieldBoost
	operatorAnd     bool
	analyzer        string
	flags           int
	lenient         bool
	analyzeWildcard bool
	msm             string
	hasMSM          bool
	fuzzyPrefix     int
	fuzzyMaxExp     int
	transpositions  bool
}

// simple_query_string flags (SimpleQueryStringFlag).
const (
	sqAnd = 1 << iota
	sqNot
	sqOr
	sqPrefix
	sqPhrase
	sqPrecedence
	sqEscape
	sqWhitespace
	sqFuzzy
	sqNear
	sqAll = -1
)

var sqFlagNames = map[string]int{"ALL": sqAll, "NONE": 0, "AND": sqAnd, "NOT": sqNot, "OR": sqOr, "PREFIX": sqPrefix,
	"PHRASE": sqPhrase, "PRECEDENCE": sqPrecedence, "ESCAPE": sqEscape, "WHITESPACE": sqWhitespace,
	"FUZZY": sqFuzzy, "NEAR": sqNear, "SLOP": sqNear}

// parseSimpleQueryString follows SimpleQueryStringBuilder.fromXContent.
func parseSimpleQueryString(_ *Parser, body *jval) (Node, error) {
	q := &SimpleQueryStringQuery{base: newBase(), flags: sqAll, fuzzyMaxExp: 50, transpositions: true}
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
			return nil, v.parsingErr("[simple_query_string] unsupported token [%s] after [%s]", v.kind.token(), m.key)
		}
		var err error
		switch m.key {
		case "query":
			q.query, hasQuery = v.s, true
		case "analyzer":
			q.analyzer = v.s
		case "default_operator":
			q.operatorAnd, err = parseOperator(v.s)
		case "flags":
			if v.kind == kNumber {
				q.flags, err = v.intValue()
				if q.flags == 0 {
					q.flags = 0
				}
				break
			}
			q.flags = 0
			for _, f := range strings.Split(v.s, "|") {
				fl, ok := sqFlagNames[strings.ToUpper(strings.TrimSpace(f))]
				if !ok {
					return nil, searchcore.IllegalArgument("Unknown %s flag [%s]", "simple_query_string", f)
				}
				if fl == sqAll {
					q.flags = sqAll
				} else if q.flags != sqAll {
					q.flags |= fl
				}
			}
		case "lenient":
			q.lenient, err = v.booleanValue()
		case "analyze_wildcard":
			q.analyzeWildcard, err = v.booleanValue()
		case "minimum_should_match":
			q.msm, q.hasMSM = v.s, true
		case "fuzzy_prefix_length":
			q.fuzzyPrefix, err = v.intValue()
		case "fuzzy_max_expansions":
			q.fuzzyMaxExp, err = v.intValue()
		case "fuzzy_transpositions":
			q.transpositions, err = v.booleanValue()
		case "quote_field_suffix", "auto_generate_synonyms_phrase_query", "locale", "lowercase_expanded_terms":
		case "boost":
			boost, err = v.floatValue()
		case "_name":
			q.name = v.s
		default:
			err = v.parsingErr("[simple_query_string] unsupported field [%s]", m.key)
		}
		if err != nil {
			return nil, err
		}
	}
	if !hasQuery {
		return nil, body.parsingErr("[simple_query_string] query text missing")
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// simpleParser is Lucene's SimpleQueryParser producing the shared tree.
type simpleParser struct {
	s        []rune
	pos      int
	flags    int
	operator occur
	depth    int
}

func (p *simpleParser) on(f int) bool { return p.flags == sqAll || p.flags&f != 0 }

type sqState struct {
	top     qsNode
	prevOp  occur
	curOp   occur
	hasOp   bool
	not     int
	hasPrev bool
}

func (p *simpleParser) build(st *sqState, branch qsNode) {
	if branch == nil {
		return
	}
	if st.not%2 == 1 {
		branch = &qsBool{clauses: []qsClause{{occur: occMustNot, node: branch}}, boost: 1, matchAll: true}
	}
	op := p.operator
	if st.hasOp {
		op = st.curOp
	}
	switch {
	case st.top == nil:
		st.top = branch
	case st.hasPrev && st.prevOp == op:
		if b, ok := st.top.(*qsBool); ok && !b.matchAll {
			b.clauses = append(b.clauses, qsClause{occur: op, node: branch})
			break
		}
		fallthrough
	default:
		st.top = &qsBool{boost: 1, clauses: []qsClause{{occur: op, node: st.top}, {occur: op, node: branch}}}
	}
	st.prevOp, st.hasPrev = op, true
	st.not, st.hasOp = 0, false
}

func (p *simpleParser) parse() qsNode {
	st := &sqState{}
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == '(' && p.on(sqPrecedence) && p.depth < 100:
			p.pos++
			p.depth++
			sub := p.parse()
			p.depth--
			p.build(st, sub)
		case c == ')' && p.on(sqPrecedence) && p.depth > 0:
			p.pos++
			return st.top
		case c == '"' && p.on(sqPhrase):
			p.pos++
			start := p.pos
			var sb strings.Builder
			for p.pos < len(p.s) && p.s[p.pos] != '"' {
				if p.s[p.pos] == '\\' && p.on(sqEscape) && p.pos+1 < len(p.s) {
					p.pos++
				}
				sb.WriteRune(p.s[p.pos])
				p.pos++
			}
			if p.pos >= len(p.s) {
				// unterminated: the text is parsed as terms
				p.pos = start
				continue
			}
			p.pos++
			t := &qsTerm{kind: qsPhraseKind, text: sb.String(), boost: 1}
			if p.on(sqNear) && p.pos < len(p.s) && p.s[p.pos] == '~' {
				p.pos++
				if n, ok := p.int(); ok {
					t.slop, t.hasSlop = n, true
				}
			}
			p.build(st, t)
		case c == '+' && p.on(sqAnd):
			p.pos++
			if st.top != nil {
				st.curOp, st.hasOp = occMust, true
			}
		case c == '|' && p.on(sqOr):
			p.pos++
			if st.top != nil {
				st.curOp, st.hasOp = occShould, true
			}
		case c == '-' && p.on(sqNot):
			p.pos++
			st.not++
		case (c == ' ' || c == '\t' || c == '\n' || c == '\r') && p.on(sqWhitespace):
			p.pos++
		default:
			p.build(st, p.term())
		}
	}
	return st.top
}

func (p *simpleParser) int() (int, bool) {
	start := p.pos
	for p.pos < len(p.s) && unicode.IsDigit(p.s[p.pos]) {
		p.pos++
	}
	n, err := strconv.Atoi(string(p.s[start:p.pos]))
	return n, err == nil
}

func (p *simpleParser) term() qsNode {
	var sb strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '\\' && p.on(sqEscape) && p.pos+1 < len(p.s) {
			sb.WriteRune(p.s[p.pos+1])
			p.pos += 2
			continue
		}
		if (unicode.IsSpace(c) && p.on(sqWhitespace)) || (c == '"' && p.on(sqPhrase)) ||
			(c == '|' && p.on(sqOr)) || (c == '+' && p.on(sqAnd)) ||
			((c == '(' || c == ')') && p.on(sqPrecedence)) || (c == '~' && p.on(sqFuzzy)) {
			break
		}
		sb.WriteRune(c)
		p.pos++
	}
	text := sb.String()
	t := &qsTerm{kind: qsTermKind, text: text, boost: 1}
	if p.pos < len(p.s) && p.s[p.pos] == '~' && p.on(sqFuzzy) {
		p.pos++
		t.kind = qsFuzzyKind
		if n, ok := p.int(); ok {
			f := fuzziness{edits: float32(n)}
			t.fuzzy = &f
		}
	} else if p.on(sqPrefix) && strings.HasSuffix(text, "*") {
		t.kind, t.text = qsPrefixKind, strings.TrimRight(text, "*")
	}
	if text == "" {
		if p.pos < len(p.s) {
			p.pos++
		}
		return nil
	}
	return t
}

// Compile implements Node.
func (q *SimpleQueryStringQuery) Compile(ctx *Context) (bluge.Query, error) {
	p := &simpleParser{s: []rune(q.query), flags: q.flags, operator: occShould}
	if q.operatorAnd {
		p.operator = occMust
	}
	tree := p.parse()
	if tree == nil {
		return matchNone(), nil
	}
	fields := q.fields
	lenient := q.lenient
	if len(fields) == 0 {
		fields = []fieldBoost{{field: "*", boost: 1}}
	}
	for _, f := range fields {
		if f.field == "*" {
			lenient = true
		}
	}
	c := &qsCompiler{ctx: ctx, name: "simple_query_string", fields: fields, operatorAnd: q.operatorAnd,
		analyzer: q.analyzer, lenient: lenient, fuzzy: fuzziness{edits: 2}, fuzzyPrefix: q.fuzzyPrefix,
		fuzzyMaxExp: q.fuzzyMaxExp, transpositions: q.transpositions, tieBreaker: 1, analyzeWildcard: q.analyzeWildcard}
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
