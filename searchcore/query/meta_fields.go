package query

import (
	"regexp"
	"strings"

	"github.com/blugelabs/bluge"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

// routingField is the _routing meta field: documents indexed with a custom
// routing carry it as a keyword.
const routingField = "_routing"

// indexField is the _index meta field: a constant per index, so queries on
// it match all or none of an index's documents (ES ConstantFieldType).
const indexField = "_index"

// indexNameMatches answers a query on _index for this index: all
// documents (scored boost, like a constant-score query) or none.
func indexNameMatches(ctx *Context, match bool, boost float32) bluge.Query {
	if match {
		return &matchAllQuery{score: float64(boost)}
	}
	return matchNone()
}

// indexPrefixQuery is a prefix query on _index.
func indexPrefixQuery(ctx *Context, prefix string, caseInsensitive bool, boost float32) bluge.Query {
	name := ctx.Index
	if caseInsensitive {
		name, prefix = strings.ToLower(name), strings.ToLower(prefix)
	}
	return indexNameMatches(ctx, strings.HasPrefix(name, prefix), boost)
}

// indexWildcardQuery is a wildcard query on _index.
func indexWildcardQuery(ctx *Context, pattern string, caseInsensitive bool, boost float32) bluge.Query {
	re := "^(?:" + wildcardToRE2(pattern) + ")$"
	if caseInsensitive {
		re = "(?i)" + re
	}
	r, err := regexp.Compile(re)
	return indexNameMatches(ctx, err == nil && r.MatchString(ctx.Index), boost)
}

// metaFieldType resolves the meta fields queries may name as keywords.
func metaFieldType(path string) *fieldType {
	switch path {
	case idField, routingField:
		return &fieldType{path: path, typ: mapping.TypeKeyword}
	}
	return nil
}
