package query

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/blugelabs/bluge"
)

// Wrapper is implemented by queries that wrap another compiled query (the
// search's profiling and naming wrappers); Describe looks through them.
type Wrapper interface {
	Unwrap() bluge.Query
}

// Describe names a compiled query the way Elasticsearch's profiler does:
// the Lucene query class and the query's Lucene-style string form.
func Describe(q bluge.Query) (typ, desc string) {
	q = unwrapQuery(q)
	desc = describeString(q)
	switch q.(type) {
	case *bluge.TermQuery:
		return "TermQuery", desc
	case *termsQuery:
		return "TermInSetQuery", desc
	case *boolQuery:
		return "BooleanQuery", desc
	case *constScoreQuery:
		return "ConstantScoreQuery", desc
	case *scaleQuery:
		return "BoostQuery", desc
	case *matchAllQuery, *bluge.MatchAllQuery:
		return "MatchAllDocsQuery", desc
	case *bluge.MatchNoneQuery:
		return "MatchNoDocsQuery", desc
	case *bluge.MatchPhraseQuery:
		return "PhraseQuery", desc
	case *bluge.MultiPhraseQuery, *phraseQuery:
		return "MultiPhraseQuery", desc
	case *phrasePrefixQuery:
		return "MultiPhrasePrefixQuery", desc
	case *numericRangeQuery:
		return "IndexOrDocValuesQuery", desc
	case *termRangeQuery:
		return "TermRangeQuery", desc
	case *prefixQuery:
		return "PrefixQuery", desc
	case *regexpQuery:
		return "RegexpQuery", desc
	case *fuzzyQuery, *bluge.FuzzyQuery:
		return "FuzzyQuery", desc
	case *disMaxQuery:
		return "DisjunctionMaxQuery", desc
	case *boostingQuery:
		return "BoostingQuery", desc
	case *functionScoreQuery:
		return "FunctionScoreQuery", desc
	}
	name := strings.TrimPrefix(strings.TrimPrefix(typeName(q), "*"), "bluge.")
	name = strings.TrimPrefix(name, "query.")
	if name != "" {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	return name, desc
}

// unwrapQuery looks through Wrapper queries.
func unwrapQuery(q bluge.Query) bluge.Query {
	for {
		w, ok := q.(Wrapper)
		if !ok {
			return q
		}
		q = w.Unwrap()
	}
}

func typeName(q bluge.Query) string {
	s := strings.TrimPrefix(strings.SplitN(strings.TrimPrefix(fmtType(q), "*"), "{", 2)[0], "&")
	return s
}

// describeString is the Lucene toString form of a compiled query.
func describeString(q bluge.Query) string {
	switch t := unwrapQuery(q).(type) {
	case *bluge.TermQuery:
		return t.Field() + ":" + t.Term()
	case *termsQuery:
		return t.field + ":(" + joinTerms(t.terms) + ")"
	case *matchAllQuery, *bluge.MatchAllQuery:
		return "*:*"
	case *bluge.MatchNoneQuery:
		return `MatchNoDocsQuery("")`
	case *bluge.MatchPhraseQuery:
		return t.Field() + `:"` + t.Phrase() + `"`
	case *boolQuery:
		var parts []string
		add := func(prefix string, qs []bluge.Query) {
			for _, c := range qs {
				s := describeString(c)
				if isBool(c) {
					s = "(" + s + ")"
				}
				parts = append(parts, prefix+s)
			}
		}
		add("+", t.must)
		add("", t.should)
		add("-", t.mustNot)
		add("#", t.filter)
		s := strings.Join(parts, " ")
		if t.minShould > 0 {
			s = "(" + s + ")~" + strconv.Itoa(t.minShould)
		}
		return s
	case *constScoreQuery:
		s := "ConstantScore(" + describeString(t.q) + ")"
		if t.value != 1 {
			s = "(" + s + ")^" + javaFloatString(float32(t.value))
		}
		return s
	case *scaleQuery:
		return "(" + describeString(t.q) + ")^" + javaFloatString(float32(t.factor))
	case *numericRangeQuery:
		return t.field + ":[" + javaFloatString(float32(t.lo)) + " TO " + javaFloatString(float32(t.hi)) + "]"
	case *termRangeQuery:
		lo, hi := "[", "]"
		if !t.incLower {
			lo = "{"
		}
		if !t.incUpper {
			hi = "}"
		}
		return t.field + ":" + lo + rangeEnd(t.lo) + " TO " + rangeEnd(t.hi) + hi
	case *prefixQuery:
		return t.field + ":" + t.prefix + "*"
	case *regexpQuery:
		return t.field + ":/" + t.pattern + "/"
	case *disMaxQuery:
		parts := make([]string, len(t.clauses))
		for i, c := range t.clauses {
			parts[i] = describeString(c)
		}
		s := "(" + strings.Join(parts, " | ") + ")"
		if t.tieBreaker != 0 {
			s += "~" + javaFloatString(float32(t.tieBreaker))
		}
		return s
	case *boostingQuery:
		return "BoostingQuery(positive: " + describeString(t.positive) + ", negative: " + describeString(t.negative) + ")"
	case *functionScoreQuery:
		return "function score (" + describeString(t.inner) + ", functions: " + strconv.Itoa(len(t.functions)) + ")"
	case *phraseQuery:
		return typeName(t.MultiPhraseQuery)
	}
	return typeName(q)
}

func isBool(q bluge.Query) bool {
	_, ok := unwrapQuery(q).(*boolQuery)
	return ok
}

func rangeEnd(b []byte) string {
	if b == nil {
		return "*"
	}
	return string(b)
}

func joinTerms(terms [][]byte) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = string(t)
	}
	return strings.Join(parts, " ")
}

func fmtType(q bluge.Query) string { return fmt.Sprintf("%T", q) }
