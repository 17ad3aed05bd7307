// Package appsearch is the App Search domain: engines, typed documents and
// schemas, keys, rate limits and the rules of the two revisions of the API
// (earlier/later). It is a client of the search core: an engine is a hidden
// core index whose mapping comes from the engine schema, so documents are
// stored, replayed and searched by package searchcore. It never imports
// net/http, echo or the generated code.
//
// # Hidden index layout
//
// The engine "movies" is the core index ".as-engine-movies" (after a schema
// change that needs a reindex, ".as-engine-movies.<n>"; Engine.Index names
// the current one). Each App Search document is one core document whose
// _id is the App Search id and whose _source is:
//
//	{"id": "doc-…", "<field>": <typed value>, …, "_as": {"id": "doc-…", "<field>": "<string>", …}}
//
// Top-level members hold the values coerced to the schema type (numbers as
// JSON numbers, dates as RFC 3339 strings in UTC, geolocations as "lat,lon";
// a value that cannot be coerced, like a later-revision number beyond the
// 32-bit float range, is left out of the top level and kept in "_as"). "_as" (not indexed) is the document as the
// documents API returns it (scalars as strings, arrays of strings, null), the
// source of every reindex. The mapping of a field (see FieldMapping):
//
//	text        {"type":"text","analyzer":<language>,"fields":{"enum":{"type":"keyword"}}}  (exact values: <field>.enum)
//	number      {"type":"double"} (earlier) or {"type":"float"} (later), ignore_malformed
//	date        {"type":"date"}, ignore_malformed
//	geolocation {"type":"geo_point"}, ignore_malformed
//
// Usage:
//
//	svc, err := appsearch.New(ctx, appsearch.Config{Core: core, Store: db})
//	eng, err := svc.CreateEngine(ctx, appsearch.EngineSpec{Name: "movies"})
//	res, err := svc.IndexDocuments(ctx, eng.Name, []json.RawMessage{[]byte(`{"title":"Heat"}`)})
package appsearch
