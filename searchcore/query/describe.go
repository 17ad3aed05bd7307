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
	for {
		w, ok := q.(Wrapper)
		if !ok {
			break
		}
		q = w.Unwrap()
	}
	switch t := q.(type) {
	case *bluge.TermQuery:
		return "TermQuery", t.Field() + ":" + t.Term()
	case *termsQuery:
		return "TermInSetQuery", t.field + ":(" + joinTerms(t.terms) + ")"
	case *boolQuery:
		return "BooleanQuery", describeString(q)
	case *constScoreQuery:
		return "ConstantScoreQuery", describeString(q)
	case *scaleQuery:
		return "BoostQuery", describeString(q)
	case *matchAllQuery, *bluge.MatchAllQuery:
		return "MatchAllDocsQuery", "*:*"
	case *bluge.MatchNoneQuery:
		return "MatchNoDocsQuery", `MatchNoDocsQuery("")`
	case *bluge.MatchPhraseQuery:
		return "PhraseQuery", t.Field() + `:"` + t.Phrase() + `"`
	case *bluge.MultiPhraseQuery:
		return "MultiPhraseQuery", describeString(q)
	case *phrasePrefixQuery:
		return "MultiPhrasePrefixQuery", describeString(q)
	case *numericRangeQuery:
		return "IndexOrDocValuesQuery", describeString(q)
	case *termRangeQuery:
		return "TermRangeQuery", describeString(q)
	case *prefixQuery:
		return "PrefixQuery", t.field + ":" + t.prefix + "*"
	case *regexpQuery:
		return "RegexpQuery", describeString(q)
	case *fuzzyQuery, *bluge.FuzzyQuery:
		return "FuzzyQuery", describeString(q)
	case *disMaxQuery:
		return "DisjunctionMaxQuery", describeString(q)
	case *boostingQuery:
		return "BoostingQuery", describeString(q)
	case *functionScoreQuery:
		return "FunctionScoreQuery", describeString(q)
	}
	name := strings.TrimPrefix(strings.TrimPrefix(typeName(q), "*"), "bluge.")
	name = strings.TrimPrefix(name, "query.")
	if name != "" {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	return name, describeString(q)
}

func typeName(q bluge.Query) string {
	s := strings.TrimPrefix(strings.SplitN(strings.TrimPrefix(fmtType(q), "*"), "{", 2)[0], "&")
	return s
}

// describeString is the Lucene toString form of a compiled query.
func describeString(q bluge.Query) string {
	for {
		w, ok := q.(Wrapper)
		if !ok {
			break
		}
		q = w.Unwrap()
	}
	switch t := q.(type) {
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
	}
	return typeName(q)
}

func isBool(q bluge.Query) bool {
	for {
		w, ok := q.(Wrapper)
		if !ok {
			break
		}
		q = w.Unwrap()
	}
	_, ok := q.(*boolQuery)
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
