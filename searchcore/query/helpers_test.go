package query

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/analysis"
	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// testIndex is a small in-memory bluge index built through the mapping
// package, so documents follow the index-time encoding contract.
type testIndex struct {
	reader *bluge.Reader
	ctx    *Context
}

// fixedNow is the "now" of every test context: 2020-03-15T10:20:30.456Z.
var fixedNow = time.Date(2020, 3, 15, 10, 20, 30, 456e6, time.UTC)

const testAnalysis = `{
  "filter": {"syn": {"type": "synonym", "synonyms": ["quick, fast"]}},
  "analyzer": {"syn": {"tokenizer": "standard", "filter": ["lowercase", "syn"]}}
}`

const testMapping = `{"properties": {
  "title":   {"type": "text", "fields": {"keyword": {"type": "keyword"}}},
  "body":    {"type": "text"},
  "stopped": {"type": "text", "analyzer": "stop"},
  "synonym": {"type": "text", "analyzer": "syn"},
  "tag":     {"type": "keyword"},
  "ntag":    {"type": "keyword", "normalizer": "lowercase"},
  "count":   {"type": "long"},
  "int":     {"type": "integer"},
  "price":   {"type": "double"},
  "ratio":   {"type": "float"},
  "half":    {"type": "half_float"},
  "scaled":  {"type": "scaled_float", "scaling_factor": 100},
  "flag":    {"type": "boolean"},
  "date":    {"type": "date"},
  "day":     {"type": "date", "format": "yyyy-MM-dd"},
  "loc":     {"type": "geo_point"},
  "noindex": {"type": "keyword", "index": false},
  "user":    {"properties": {"name": {"type": "keyword"}, "age": {"type": "integer"}}}
}}`

// testDocs are indexed in order; ids are the keys of the first column.
var testDocs = [][2]string{
	{"1", `{"title": "The Quick Brown Fox", "body": "quick brown fox jumps over the lazy dog", "stopped": "the quick fox",
		"synonym": "a fast car", "tag": ["a", "b"], "ntag": "Hello", "count": 5, "int": 10, "price": 1.5, "ratio": 0.1,
		"half": 1.5, "scaled": 1.234, "flag": true, "date": "2020-01-01T10:00:00Z", "day": "2020-01-01",
		"user": {"name": "alice", "age": 30}}`},
	{"2", `{"title": "Lazy Dog", "body": "the lazy dog sleeps all day", "tag": "b", "ntag": "WORLD", "count": 10,
		"int": 20, "price": 2.5, "ratio": 0.2, "flag": false, "date": "2020-01-02T00:00:00Z", "day": "2020-01-02",
		"user": {"name": "bob"}}`},
	{"3", `{"title": "Quick Quick Rabbit", "body": "a quick rabbit", "synonym": "quick thinking", "tag": "c",
		"count": -3, "price": 10, "date": "2020-02-15T12:30:00Z", "day": "2020-02-15", "noindex": "x"}`},
	{"4", `{"title": "brown bear", "body": "brown bears eat honey", "tag": ["z", "a"], "count": [1, 100],
		"price": [3, 7], "date": "2019-12-31T23:59:59.999Z", "loc": {"lat": 1, "lon": 2}}`},
	{"5", `{"body": "nothing quick here", "price": 1e2}`},
}

func newTestIndex(tb testing.TB) *testIndex {
	tb.Helper()
	reg, err := analysis.NewRegistry(json.RawMessage(testAnalysis))
	if err != nil {
		tb.Fatalf("NewRegistry: %v", err)
	}
	m, err := mapping.Parse(json.RawMessage(testMapping), reg)
	if err != nil {
		tb.Fatalf("mapping.Parse: %v", err)
	}
	return buildIndex(tb, m, reg, testDocs)
}

// buildIndex indexes docs like a new index (mapping.NumericStep).
func buildIndex(tb testing.TB, m *mapping.Mapping, reg *analysis.Registry, docs [][2]string) *testIndex {
	tb.Helper()
	return buildIndexStep(tb, m, reg, docs, mapping.NumericStep)
}

// buildIndexStep indexes docs with the given numeric precision step.
func buildIndexStep(tb testing.TB, m *mapping.Mapping, reg *analysis.Registry, docs [][2]string, step uint) *testIndex {
	tb.Helper()
	w, err := bluge.OpenWriter(bluge.InMemoryOnlyConfig())
	if err != nil {
		tb.Fatalf("OpenWriter: %v", err)
	}
	batch := bluge.NewBatch()
	for _, d := range docs {
		doc := bluge.NewDocument(d[0])
		updated, _, err := m.ParseDocumentWith(d[0], []byte(d[1]), reg, doc, mapping.DocOptions{NestedLimit: mapping.NestedObjectsLimit, NumericStep: step})
		if err != nil {
			tb.Fatalf("ParseDocument(%s): %v", d[0], err)
		}
		if updated != nil {
			m = updated
		}
		batch.Update(doc.ID(), doc)
	}
	if err := w.Batch(batch); err != nil {
		tb.Fatalf("Batch: %v", err)
	}
	r, err := w.Reader()
	if err != nil {
		tb.Fatalf("Reader: %v", err)
	}
	tb.Cleanup(func() {
		_ = r.Close()
		_ = w.Close()
	})
	return &testIndex{reader: r, ctx: &Context{Mapping: m, Analyzers: reg, Now: fixedNow, Index: "test", IndexUUID: "uuid"}}
}

// hit is one search result.
type hit struct {
	id    string
	score float64
	sort  []any
}

// run executes q with an optional compiled sort and returns all hits in
// result order.
func (ix *testIndex) run(tb testing.TB, q bluge.Query, order search.SortOrder, dec []SortDecoder) []hit {
	tb.Helper()
	req := bluge.NewTopNSearch(1000, q)
	if order != nil {
		req.SortByCustom(order)
	}
	it, err := ix.reader.Search(context.Background(), req)
	if err != nil {
		tb.Fatalf("Search: %v", err)
	}
	var out []hit
	for {
		m, err := it.Next()
		if err != nil {
			tb.Fatalf("Next: %v", err)
		}
		if m == nil {
			return out
		}
		h := hit{score: m.Score}
		_ = m.VisitStoredFields(func(field string, value []byte) bool {
			if field == "_id" {
				h.id = string(value)
			}
			return true
		})
		for i, d := range dec {
			h.sort = append(h.sort, d.Decode(m.SortValue[i]))
		}
		out = append(out, h)
	}
}

// ids parses, compiles and runs a query and returns the matching ids sorted.
func (ix *testIndex) ids(tb testing.TB, query string) []string {
	tb.Helper()
	q := ix.compile(tb, query)
	var ids []string
	for _, h := range ix.run(tb, q, nil, nil) {
		ids = append(ids, h.id)
	}
	sort.Strings(ids)
	return ids
}

// ranked returns the ids in score order.
func (ix *testIndex) ranked(tb testing.TB, query string) []hit {
	tb.Helper()
	return ix.run(tb, ix.compile(tb, query), nil, nil)
}

func (ix *testIndex) compile(tb testing.TB, query string) bluge.Query {
	tb.Helper()
	n, err := Parse(json.RawMessage(query))
	if err != nil {
		tb.Fatalf("Parse(%s): %v", query, err)
	}
	q, err := n.Compile(ix.ctx)
	if err != nil {
		tb.Fatalf("Compile(%s): %v", query, err)
	}
	return q
}

// errString renders an error with its causes for comparisons:
// "type: reason [caused_by: type: reason]".
func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	e, ok := searchcore.AsError(err)
	if !ok {
		return "NOT A *searchcore.Error: " + err.Error()
	}
	s := e.Type + ": " + e.Reason
	if e.CausedBy != nil {
		s += " [caused_by: " + errString(e.CausedBy) + "]"
	}
	return s
}

func asErr(err error) (*searchcore.Error, bool) { return searchcore.AsError(err) }

func newTopNAfter(q bluge.Query, order search.SortOrder, after [][]byte) *bluge.TopNSearch {
	return bluge.NewTopNSearch(1000, q).SortByCustom(order).After(after)
}
