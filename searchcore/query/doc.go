// Package query implements the Elasticsearch 7.17 query DSL, sort and
// _source filtering over bluge.
//
// A query is parsed once into a tree of Nodes (one type per ES query) and
// compiled per shard against the index mapping into a bluge.Query:
//
//	node, err := query.Parse(json.RawMessage(`{"bool": {
//	    "must":   {"match": {"title": "quick fox"}},
//	    "filter": {"range": {"date": {"gte": "now-1d/d"}}}}}`))
//	if err != nil {
//	    return err // *searchcore.Error: parsing_exception, ...
//	}
//	q, err := node.Compile(&query.Context{Mapping: m, Analyzers: reg, Now: now})
//	if err != nil {
//	    return err // query_shard_exception, ...
//	}
//	fields, err := query.ParseSort(json.RawMessage(`[{"date": "desc"}, "_score"]`))
//	order, decoders, err := query.CompileSort(fields, ctx)
//	req := bluge.NewTopNSearch(10, q).SortByCustom(order)
//	// hit.SortValue[i] -> decoders[i].Decode(...) gives the ES "sort" value
//
// Every failure is a *searchcore.Error carrying the ES exception type and
// reason (parsing and parameter errors follow the ES query builders,
// including their x_content_parse_exception wrapping; compile errors are
// query_shard_exception "failed to create query: ..." with the cause).
//
// Queries rely on the index-time encoding contract of package mapping:
// text and keyword fields are bluge terms, numbers, dates (epoch millis)
// and booleans (1/0) are bluge numeric fields, and _field_names lists the
// paths of each document for exists queries. bluge lacks several Lucene
// queries; searchers.go implements them (constant score, ES boolean
// semantics with filter clauses, term sets, fuzzy expansion limits).
//
// searchers_compound.go adds phrase prefixes, dis_max and boosting,
// searchers_function.go the function_score scorer (reading doc values),
// q_terms_set.go a covering query and q_geo.go arc-distance and polygon
// filters over bluge's bounding-box searcher.
//
// New query types are added with one file per family that registers its
// parsers in NewParser. The nested query (q_nested.go) joins the hidden
// nested documents (mapping/nested.go) to their enclosing documents;
// searches over an index with nested fields wrap the top-level query in
// ExcludeNested.
package query
