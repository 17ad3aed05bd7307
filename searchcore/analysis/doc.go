// Package analysis builds the text analyzers of an index from its
// Elasticsearch-style settings.index.analysis object, on top of bluge's
// analysis building blocks.
//
// A Registry is built once per index (NewRegistry) and is immutable: every
// analyzer and normalizer is constructed when the registry is built and then
// shared by all indexing and search goroutines (building analyzers per
// document halves indexing throughput).
//
//	reg, err := analysis.NewRegistry(json.RawMessage(`{
//	  "analyzer": {"folded": {"type": "custom", "tokenizer": "standard",
//	                          "filter": ["lowercase", "asciifolding"]}}}`))
//	a, _ := reg.Analyzer("folded")         // *bluge analysis.Analyzer
//	toks, _ := reg.Analyze("folded", "Déjà Vu") // [deja vu]
//
// Errors are *searchcore.Error values carrying the Elasticsearch exception
// type and reason (illegal_argument_exception for unknown names and bad
// definitions).
package analysis
