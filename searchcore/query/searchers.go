package query

import (
	"fmt"
	"regexp/syntax"
	"sort"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/vellum/levenshtein"
	vregexp "github.com/blevesearch/vellum/regexp"
	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/searcher"
	"github.com/blugelabs/bluge/search/similarity"
)

// This file holds the bluge.Query implementations bluge lacks: constant
// scoring (filter context, constant_score, multi-term rewrites), a boolean
// query with ES semantics (filter clauses, minimum_should_match, boost),
// terms sets and fuzzy expansion limited like Lucene's FuzzyQuery.

// closeAll closes searchers opened before a failure.
func closeAll(ss []search.Searcher) {
	for _, s := range ss {
		if s != nil {
			_ = s.Close()
		}
	}
}

// scoreSearcher rewrites the score of every match of its child: set to a
// constant, or multiplied by a factor.
type scoreSearcher struct {
	search.Searcher
	value   float64
	scale   bool
	explain bool
	// filter marks a bool filter clause (explained as Lucene's FILTER).
	filter bool
	// desc describes a constant score in explanations ("" = "constant score").
	desc string
}

func (s *scoreSearcher) apply(dm *search.DocumentMatch) {
	if dm == nil {
		return
	}
	if s.scale {
		dm.Score *= s.value
		if s.explain && dm.Explanation != nil {
			dm.Explanation = search.NewExplanation(dm.Score, "product of:",
				dm.Explanation, search.NewExplanation(s.value, "boost"))
		}
		return
	}
	dm.Score = s.value
	switch {
	case s.explain && s.filter:
		inner := dm.Explanation
		if inner == nil {
			inner = search.NewExplanation(0, "match")
		}
		dm.Explanation = search.NewExplanation(0, "match on required clause, product of:",
			search.NewExplanation(0, "# clause"), inner)
	case s.explain && s.desc != "":
		dm.Explanation = search.NewExplanation(s.value, s.desc)
	case s.explain:
		dm.Explanation = search.NewExplanation(s.value, "constant score")
	}
}

func (s *scoreSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	dm, err := s.Searcher.Next(ctx)
	s.apply(dm)
	return dm, err
}

func (s *scoreSearcher) Advance(ctx *search.Context, number uint64) (*search.DocumentMatch, error) {
	dm, err := s.Searcher.Advance(ctx, number)
	s.apply(dm)
	return dm, err
}

// constScoreQuery gives every match of q the score value (0 in filter
// context).
type constScoreQuery struct {
	q     bluge.Query
	value float64
}

func constScore(q bluge.Query, value float64) bluge.Query {
	switch t := q.(type) {
	case *bluge.MatchNoneQuery:
		return q
	case *constScoreQuery:
		return &constScoreQuery{q: t.q, value: value}
	}
	return &constScoreQuery{q: q, value: value}
}

func (c *constScoreQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	s, err := c.q.Searcher(i, o)
	if err != nil {
		return nil, err
	}
	ss := &scoreSearcher{Searcher: s, value: c.value, explain: o.Explain}
	if o.Explain {
		// ConstantScoreWeight.explain: the query, and the score when not 1.
		ss.desc = "ConstantScore(" + describeString(c.q) + ")"
		if c.value != 1 {
			ss.desc += "^" + javaFloatString(float32(c.value))
		}
	}
	return ss, nil
}

// scaleQuery multiplies the scores of q by factor (query boost).
type scaleQuery struct {
	q      bluge.Query
	factor float64
}

// Boosted multiplies the scores of q by boost (indices_boost, query boosts).
func Boosted(q bluge.Query, boost float32) bluge.Query {
	if boost == 1 {
		return q
	}
	switch t := q.(type) {
	case *bluge.MatchNoneQuery:
		return q
	case *constScoreQuery:
		return &constScoreQuery{q: t.q, value: t.value * float64(boost)}
	case *matchAllQuery:
		return &matchAllQuery{score: t.score * float64(boost)}
	}
	return &scaleQuery{q: q, factor: float64(boost)}
}

func (c *scaleQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	s, err := c.q.Searcher(i, o)
	if err != nil {
		return nil, err
	}
	return &scoreSearcher{Searcher: s, value: c.factor, scale: true, explain: o.Explain}, nil
}

// matchAllQuery matches every document with a constant score (bluge's
// MatchAllQuery ignores its boost).
type matchAllQuery struct{ score float64 }

func (m *matchAllQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	return searcher.NewMatchAllSearcher(i, 1, similarity.ConstantScorer(m.score), o)
}

func matchNone() bluge.Query { return bluge.NewMatchNoneQuery() }

// boolQuery is a Lucene-style boolean query: must clauses score, filter
// clauses only restrict, should clauses score and at least minShould of
// them must match, must_not clauses exclude.
type boolQuery struct {
	must, filter, should, mustNot []bluge.Query
	minShould                     int
	boost                         float64
}

func (b *boolQuery) Searcher(i search.Reader, o search.SearcherOptions) (rv search.Searcher, err error) {
	var opened []search.Searcher
	defer func() {
		if err != nil {
			closeAll(opened)
		}
	}()
	open := func(q bluge.Query) (search.Searcher, error) {
		s, err := q.Searcher(i, o)
		if err == nil {
			opened = append(opened, s)
		}
		return s, err
	}
	if b.minShould > len(b.should) {
		return searcher.NewMatchNoneSearcher(i, o)
	}
	if s, ok, err := b.termDisjunction(i, o); ok || err != nil {
		return s, err
	}
	var required []search.Searcher
	for _, q := range b.must {
		s, err := open(q)
		if err != nil {
			return nil, err
		}
		required = append(required, s)
	}
	for _, q := range b.filter {
		s, err := open(q)
		if err != nil {
			return nil, err
		}
		required = append(required, &scoreSearcher{Searcher: s, value: 0, explain: o.Explain, filter: true})
	}
	var shoulds, nots []search.Searcher
	for _, q := range b.should {
		s, err := open(q)
		if err != nil {
			return nil, err
		}
		shoulds = append(shoulds, s)
	}
	for _, q := range b.mustNot {
		s, err := open(q)
		if err != nil {
			return nil, err
		}
		nots = append(nots, s)
	}
	if len(required) == 0 && len(shoulds) == 0 {
		if len(nots) == 0 {
			return searcher.NewMatchAllSearcher(i, 1, similarity.ConstantScorer(b.boost), o)
		}
		s, err := searcher.NewMatchAllSearcher(i, 1, similarity.ConstantScorer(0), o)
		if err != nil {
			return nil, err
		}
		opened = append(opened, s)
		required = append(required, s)
	}
	var mustS, shouldS, notS search.Searcher
	switch len(required) {
	case 0:
	case 1:
		mustS = required[0]
	default:
		mustS, err = searcher.NewConjunctionSearcher(i, required, similarity.NewCompositeSumScorer(), o)
		if err != nil {
			return nil, err
		}
	}
	if len(shoulds) > 0 {
		min := b.minShould
		if mustS == nil && min < 1 {
			min = 1
		}
		shouldS, err = searcher.NewDisjunctionSearcher(i, shoulds, min, similarity.NewCompositeSumScorer(), o)
		if err != nil {
			return nil, err
		}
	}
	switch len(nots) {
	case 0:
	case 1:
		notS = nots[0]
	default:
		notS, err = searcher.NewDisjunctionSearcher(i, nots, 1, similarity.NewCompositeSumScorer(), o)
		if err != nil {
			return nil, err
		}
	}
	return searcher.NewBooleanSearcher(mustS, shouldS, notS, similarity.NewCompositeSumScorerWithBoost(b.boost), o)
}

// termsQuery matches any of a set of terms with a constant score, like
// Lucene's TermInSetQuery.
type termsQuery struct {
	field string
	terms [][]byte
	score float64
}

func (t *termsQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	if len(t.terms) == 0 {
		return searcher.NewMatchNoneSearcher(i, o)
	}
	sc := similarity.ConstantScorer(t.score)
	return searcher.NewMultiTermSearcherBytes(i, t.terms, t.field, 1, sc, sc, o, false)
}

// numericRangeQuery is a constant-score numeric range over float64 doc
// values, both ends inclusive.
type numericRangeQuery struct {
	field  string
	lo, hi float64
	score  float64
}

// termRangeQuery is a constant-score range over the terms of a field; nil
// ends are open.
type termRangeQuery struct {
	field              string
	lo, hi             []byte
	incLower, incUpper bool
	score              float64
}

func (t *termRangeQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	sc := similarity.ConstantScorer(t.score)
	var hi []byte
	if t.hi != nil {
		hi = append(make([]byte, 0, len(t.hi)+1), t.hi...)
	}
	var lo []byte
	if t.lo != nil {
		lo = append([]byte(nil), t.lo...)
	}
	return searcher.NewTermRangeSearcher(i, lo, hi, t.incLower, t.incUpper, t.field, 1, sc, sc, o)
}

// prefixQuery is a constant-score prefix query.
type prefixQuery struct {
	field, prefix string
	score         float64
}

func (p *prefixQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	sc := similarity.ConstantScorer(p.score)
	if p.prefix == "" {
		return searcher.NewTermRangeSearcher(i, nil, nil, true, true, p.field, 1, sc, sc, o)
	}
	return searcher.NewTermPrefixSearcher(i, p.prefix, p.field, 1, sc, sc, o)
}

// termAutomaton is a byte automaton over the term dictionary
// (segment.Automaton).
type termAutomaton interface {
	Start() int
	IsMatch(int) bool
	CanMatch(int) bool
	WillAlwaysMatch(int) bool
	Accept(int, byte) int
}

// regexpQuery is a constant-score query over the terms accepted by an
// automaton (anchored at both ends of the term), all starting with prefix.
type regexpQuery struct {
	field   string
	aut     termAutomaton
	prefix  string
	score   float64
	pattern string // for descriptions
}

// newRegexpQuery compiles pattern (RE2 syntax) for bluge's term dictionary
// automaton; it fails for patterns the automaton cannot express.
func newRegexpQuery(field, pattern string, score float64) (*regexpQuery, error) {
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	re, err := vregexp.NewParsedWithLimit(pattern, parsed, vregexp.DefaultLimit)
	if err != nil {
		return nil, err
	}
	return &regexpQuery{field: field, aut: re, prefix: literalPrefix(parsed), score: score, pattern: pattern}, nil
}

// literalPrefix returns the literal (case-sensitive) prefix every match of
// the parsed pattern starts with.
func literalPrefix(s *syntax.Regexp) string {
	for s != nil && s.Op == syntax.OpConcat {
		if len(s.Sub) < 1 {
			return ""
		}
		s = s.Sub[0]
	}
	if s != nil && s.Op == syntax.OpLiteral && s.Flags&syntax.FoldCase == 0 {
		return string(s.Rune)
	}
	return ""
}

func (r *regexpQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	var beg, end []byte
	if r.prefix != "" {
		beg = []byte(r.prefix)
		end = incrementBytes(beg)
	}
	dict, err := i.DictionaryIterator(r.field, r.aut, beg, end)
	if err != nil {
		return nil, err
	}
	var terms []string
	tfd, err := dict.Next()
	for err == nil && tfd != nil {
		terms = append(terms, tfd.Term())
		tfd, err = dict.Next()
	}
	if cerr := dict.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	sc := similarity.ConstantScorer(r.score)
	return searcher.NewMultiTermSearcher(i, terms, r.field, 1, sc, sc, o, false)
}

// fuzzyQuery expands a term to the indexed terms within maxEdits edits
// (Damerau-Levenshtein when transpositions is set), keeps the best
// maxExpansions of them as Lucene's top-terms rewrite does, and scores each
// with its BM25 score times 1 - edits/min(length).
type fuzzyQuery struct {
	field, term    string
	maxEdits       int
	prefixLength   int
	maxExpansions  int
	transpositions bool
	boost          float64
}

var (
	levMu       sync.Mutex
	levBuilders = map[[2]int]*levenshtein.LevenshteinAutomatonBuilder{}
)

func levBuilder(edits int, transpositions bool) (*levenshtein.LevenshteinAutomatonBuilder, error) {
	key := [2]int{edits, 0}
	if transpositions {
		key[1] = 1
	}
	levMu.Lock()
	defer levMu.Unlock()
	if b, ok := levBuilders[key]; ok {
		return b, nil
	}
	b, err := levenshtein.NewLevenshteinAutomatonBuilder(uint8(edits), transpositions)
	if err != nil {
		return nil, err
	}
	levBuilders[key] = b
	return b, nil
}

func (f *fuzzyQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	if f.maxEdits <= 0 {
		return searcher.NewTermSearcher(i, f.term, f.field, f.boost, nil, o)
	}
	if f.maxEdits > 2 {
		return nil, fmt.Errorf("fuzzy edits %d over 2", f.maxEdits)
	}
	b, err := levBuilder(f.maxEdits, f.transpositions)
	if err != nil {
		return nil, err
	}
	dfa, err := b.BuildDfa(f.term, uint8(f.maxEdits))
	if err != nil {
		return nil, err
	}
	var beg, end []byte
	prefix := runePrefix(f.term, f.prefixLength)
	if prefix != "" {
		beg = []byte(prefix)
		end = incrementBytes(beg)
	}
	dict, err := i.DictionaryIterator(f.field, dfa, beg, end)
	if err != nil {
		return nil, err
	}
	q := []rune(f.term)
	type cand struct {
		term  string
		boost float64
	}
	var cands []cand
	tfd, err := dict.Next()
	for err == nil && tfd != nil {
		t := tfd.Term()
		ed := editDistance(q, []rune(t), f.transpositions)
		if ed <= f.maxEdits {
			minLen := min(len(q), utf8.RuneCountInString(t))
			boost := 1.0
			if minLen > 0 {
				boost = 1 - float64(ed)/float64(minLen)
			}
			cands = append(cands, cand{t, boost})
		}
		tfd, err = dict.Next()
	}
	if cerr := dict.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	sort.SliceStable(cands, func(a, b int) bool {
		if cands[a].boost != cands[b].boost {
			return cands[a].boost > cands[b].boost
		}
		return cands[a].term < cands[b].term
	})
	if f.maxExpansions > 0 && len(cands) > f.maxExpansions {
		cands = cands[:f.maxExpansions]
	}
	terms := make([]string, len(cands))
	boosts := make([]float64, len(cands))
	for j, c := range cands {
		terms[j], boosts[j] = c.term, c.boost
	}
	return searcher.NewMultiTermSearcherIndividualBoost(i, terms, boosts, f.field, f.boost, nil,
		similarity.NewCompositeSumScorer(), o, false)
}

// runePrefix returns the first n runes of s.
func runePrefix(s string, n int) string {
	if n <= 0 {
		return ""
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// incrementBytes returns the smallest byte string greater than every
// string having b as prefix (nil when there is none).
func incrementBytes(b []byte) []byte {
	rv := append([]byte(nil), b...)
	for i := len(rv) - 1; i >= 0; i-- {
		if rv[i] < 0xff {
			rv[i]++
			return rv[:i+1]
		}
	}
	return nil
}

// editDistance is the Levenshtein distance of a and b, counting an
// adjacent transposition as one edit when transpositions is set (optimal
// string alignment, as Lucene's automata).
func editDistance(a, b []rune, transpositions bool) int {
	n, m := len(a), len(b)
	d := make([][]int, n+1)
	for i := range d {
		d[i] = make([]int, m+1)
		d[i][0] = i
	}
	for j := 0; j <= m; j++ {
		d[0][j] = j
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if transpositions && i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[n][m]
}
