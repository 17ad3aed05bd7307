package query

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/blugelabs/bluge"

	"github.com/quarry-search/quarry/searchcore/analysis"
	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// Node is one parsed query of the Elasticsearch query DSL.
type Node interface {
	// Compile turns the query into a bluge query for one shard. Returns a
	// *searchcore.Error (query_shard_exception and the like) when the query
	// cannot be built against the mapping.
	Compile(ctx *Context) (bluge.Query, error)
	// Name is the query's _name ("" when not set), used for matched_queries.
	Name() string
}

// Context is what compiling a query needs to know about the index. A Context
// is built per request and shard and is not safe for concurrent use.
type Context struct {
	// Mapping is the index mapping; nil means no field is mapped.
	Mapping *mapping.Mapping
	// Analyzers resolves analyzer and normalizer names; nil means the
	// standard analyzer is used for all text.
	Analyzers *analysis.Registry
	// Now is the request time used by date math ("now"); zero means the
	// time of the first use.
	Now time.Time
	// MaxClauseCount is indices.query.bool.max_clause_count (0 = 1024).
	MaxClauseCount int
	// MaxTermsCount is index.max_terms_count (0 = 65536).
	MaxTermsCount int
	// MaxRegexLength is index.max_regex_length (0 = 1000).
	MaxRegexLength int
	// TermsLookup fetches the values of path in document id of index for
	// a terms lookup ({"terms":{"f":{"index","id","path"}}}). Returned
	// values are strings, numbers (float64/json.Number/int) or booleans.
	TermsLookup func(index, id, path, routing string) ([]any, error)
	// Index and IndexUUID are rendered in query_shard_exception errors.
	Index     string
	IndexUUID string
	// MaxInnerResultWindow is index.max_inner_result_window (0 = 100).
	MaxInnerResultWindow int
	// StoredSource turns a stored field of a hit into the hit's _source
	// (ok false for other fields); nil reads the field "_source" as is.
	StoredSource func(field string, value []byte) (src []byte, ok bool, err error)
	// InnerHits collects the inner_hits of the compiled query's nested
	// queries (filled by Compile).
	InnerHits []*InnerHitsSpec
	// nestedPath is the path of the nested query being compiled ("" at
	// the top level).
	nestedPath string
	// nestedSorts are the nested sort clauses CompileSort made, which
	// PrepareSorts readies for each reader searched.
	nestedSorts []*nestedSortSource
	// Wrap, when set, is applied to the compiled query of every node of the
	// tree (the root included, see CompileNode): the search uses it to
	// profile nodes and to remember named queries (matched_queries).
	Wrap func(n Node, q bluge.Query) bluge.Query
}

// CompileNode compiles n and applies Wrap to the result. Compound queries
// compile their inner queries through it.
func (c *Context) CompileNode(n Node) (bluge.Query, error) {
	q, err := n.Compile(c)
	if err != nil || c.Wrap == nil {
		return q, err
	}
	return c.Wrap(n, q), nil
}

func (c *Context) now() time.Time {
	if c.Now.IsZero() {
		c.Now = time.Now()
	}
	return c.Now
}

func (c *Context) maxClauseCount() int {
	if c.MaxClauseCount > 0 {
		return c.MaxClauseCount
	}
	return 1024
}

// shardErr is a QueryShardException raised directly by a query builder.
func (c *Context) shardErr(format string, args ...any) *searchcore.Error {
	e := searchcore.Errorf(searchcore.Invalid, "query_shard_exception", format, args...)
	if c.Index != "" {
		e.With("index_uuid", c.IndexUUID).With("index", c.Index)
	}
	return e
}

// failedToCreate wraps an exception the way QueryShardContext.toQuery does
// for everything that is not already a QueryShardException.
func (c *Context) failedToCreate(err error) error {
	cause, ok := searchcore.AsError(err)
	if !ok {
		cause = searchcore.Internalf(err, "%v", err)
	}
	if cause.Type == "query_shard_exception" || cause.Type == "parsing_exception" {
		return cause
	}
	e := c.shardErr("failed to create query: %s", cause.Reason)
	e.CausedBy = cause
	return e
}

// tooManyClauses is Lucene's BooleanQuery.TooManyClauses as ES reports it.
func (c *Context) tooManyClauses() error {
	return c.failedToCreate(searchcore.Errorf(searchcore.Invalid, "too_many_clauses",
		"maxClauseCount is set to %d", c.maxClauseCount()))
}

// parseFunc parses the body object of a query (the value after its name).
type parseFunc func(p *Parser, body *jval) (Node, error)

// Parser parses query DSL objects. The zero value is not usable; use
// NewParser. A Parser is safe for concurrent use once built.
type Parser struct {
	queries map[string]parseFunc
}

// NewParser returns a parser knowing every implemented query type.
func NewParser() *Parser {
	p := &Parser{queries: make(map[string]parseFunc)}
	// one registration per query family file
	registerMatchAll(p)
	registerTerm(p)
	registerMatch(p)
	registerRange(p)
	registerExists(p)
	registerCompound(p)
	registerMultiTerm(p)
	registerPhrase(p)
	registerDisMax(p)
	registerMultiMatch(p)
	registerGeo(p)
	registerFunctionScore(p)
	registerTermsSet(p)
	registerCombinedFields(p)
	registerQueryString(p)
	registerNested(p)
	return p
}

func (p *Parser) register(name string, fn parseFunc) {
	if _, dup := p.queries[name]; dup {
		panic("query: duplicate query parser " + name)
	}
	p.queries[name] = fn
}

var defaultParser = sync.OnceValue(NewParser)

// Parse parses an ES query object {"<name>": {...}} with the default parser.
// Errors are *searchcore.Error values carrying the ES exception type and
// reason (parsing_exception, x_content_parse_exception,
// illegal_argument_exception, ...). Positions are not rendered; see ParseAt.
func Parse(raw json.RawMessage) (Node, error) {
	return defaultParser().Parse(raw)
}

// ParseAt is Parser.ParseAt with the default parser.
func ParseAt(raw json.RawMessage, line, col int) (Node, error) {
	return defaultParser().ParseAt(raw, line, col)
}

// Parse parses an ES query object {"<name>": {...}}.
func (p *Parser) Parse(raw json.RawMessage) (Node, error) {
	return p.parse(raw, &jdoc{})
}

// ParseAt is Parse for a query object found at line/col (1-based, columns
// counting bytes) of the request body: errors then carry ES's line/col
// positions.
func (p *Parser) ParseAt(raw json.RawMessage, line, col int) (Node, error) {
	return p.parse(raw, &jdoc{located: true, line: line, col: col})
}

func (p *Parser) parse(raw []byte, d *jdoc) (Node, error) {
	v, err := parseJSON(raw, d)
	if err != nil {
		return nil, err
	}
	return p.parseInner(v)
}

// parseInner is AbstractQueryBuilder.parseInnerQueryBuilder.
func (p *Parser) parseInner(v *jval) (Node, error) {
	if v.kind != kObject {
		return nil, v.parsingErr("[_na] query malformed, must start with start_object")
	}
	if len(v.members) == 0 {
		line, col := v.doc.position(valueEnd(v) - 1)
		return nil, searchcore.IllegalArgument("query malformed, empty clause found at [%d:%d]", line, col)
	}
	m := v.members[0]
	if m.val.kind != kObject {
		return nil, m.val.parsingErr("[%s] query malformed, no start_object after query name", m.key)
	}
	fn, ok := p.queries[m.key]
	if !ok {
		return nil, m.val.parsingErr("unknown query [%s]%s", m.key, suggest(m.key, esQueryNames))
	}
	n, err := fn(p, m.val)
	if err != nil {
		return nil, err
	}
	if len(v.members) > 1 {
		return nil, v.doc.errAt(v.members[1].off, "parsing_exception", false,
			"[%s] malformed query, expected [END_OBJECT] but found [FIELD_NAME]", m.key)
	}
	return n, nil
}

// esQueryNames are the query names ES 7.17 registers; unknown names are
// matched against them for "did you mean" suggestions.
var esQueryNames = []string{
	"bool", "boosting", "combined_fields", "common", "constant_score", "dis_max", "distance_feature",
	"exists", "field_masking_span", "function_score", "fuzzy", "geo_bounding_box", "geo_distance",
	"geo_polygon", "geo_shape", "has_child", "has_parent", "ids", "intervals", "match", "match_all",
	"match_bool_prefix", "match_none", "match_phrase", "match_phrase_prefix", "more_like_this",
	"multi_match", "nested", "parent_id", "percolate", "pinned", "prefix", "query_string", "range",
	"rank_feature", "regexp", "script", "script_score", "shape", "simple_query_string",
	"span_containing", "span_first", "span_multi", "span_near", "span_not", "span_or", "span_term",
	"span_within", "term", "terms", "terms_set", "type", "wildcard", "wrapper",
}

// suggest is SuggestingErrorOnUnknown.suggest: candidates whose Lucene
// Levenshtein similarity to name is above 0.5, best first.
func suggest(name string, candidates []string) string {
	type scored struct {
		d float32
		s string
	}
	var list []scored
	for _, c := range candidates {
		if d := levenshteinSimilarity(name, c); d > 0.5 {
			list = append(list, scored{d, c})
		}
	}
	if len(list) == 0 {
		return ""
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].d != list[j].d {
			return list[i].d > list[j].d
		}
		return list[i].s < list[j].s
	})
	if len(list) == 1 {
		return " did you mean [" + list[0].s + "]?"
	}
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = s.s
	}
	return " did you mean any of [" + strings.Join(names, ", ") + "]?"
}

// levenshteinSimilarity is Lucene's LevenshteinDistance.getDistance:
// 1 - edits / max(len).
func levenshteinSimilarity(a, b string) float32 {
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 || len(rb) == 0 {
		if len(ra) == len(rb) {
			return 1
		}
		return 0
	}
	prev := make([]int, len(ra)+1)
	cur := make([]int, len(ra)+1)
	for i := range prev {
		prev[i] = i
	}
	for j := 1; j <= len(rb); j++ {
		cur[0] = j
		for i := 1; i <= len(ra); i++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[i] = min(cur[i-1]+1, prev[i]+1, prev[i-1]+cost)
		}
		prev, cur = cur, prev
	}
	return 1 - float32(prev[len(ra)])/float32(max(len(ra), len(rb)))
}

// base holds the parameters every query accepts.
type base struct {
	boost float32
	name  string
}

func newBase() base { return base{boost: 1} }

// Name returns the query's _name.
func (b *base) Name() string { return b.name }

// setBoost validates and stores a boost as AbstractQueryBuilder.boost does.
func (b *base) setBoost(f float32, body *jval) error {
	if f < 0 || (f == 0 && math.Signbit(float64(f))) {
		return searchcore.IllegalArgument("negative [boost] are not allowed in [%s], use a value between 0 and 1 to deboost",
			prettyQuery(body))
	}
	b.boost = f
	return nil
}

// prettyQuery renders the query object owning body roughly as ES's
// builder toString does (pretty JSON). ES renders its normalized builder,
// so defaults it adds are missing here.
func prettyQuery(body *jval) string {
	var sb strings.Builder
	writePretty(&sb, body, 0)
	return sb.String()
}

func writePretty(sb *strings.Builder, v *jval, indent int) {
	pad := func(n int) {
		sb.WriteByte('\n')
		for i := 0; i < n; i++ {
			sb.WriteString("  ")
		}
	}
	switch v.kind {
	case kObject:
		sb.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				sb.WriteByte(',')
			}
			pad(indent + 1)
			writeJSONString(sb, m.key)
			sb.WriteString(" : ")
			writePretty(sb, m.val, indent+1)
		}
		pad(indent)
		sb.WriteByte('}')
	case kArray:
		sb.WriteString("[ ")
		for i, e := range v.elems {
			if i > 0 {
				sb.WriteString(", ")
			}
			writePretty(sb, e, indent)
		}
		sb.WriteString(" ]")
	case kString:
		writeJSONString(sb, v.s)
	case kNumber:
		sb.WriteString(javaNumberString(v.s))
	default:
		sb.WriteString(v.s)
	}
}
