package main

import (
	"context"
	"fmt"
	"time"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

// ceilingBatch is the bluge batch size of the in-process ceiling.
const ceilingBatch = 1000

// sourceField is the stored field holding a document's JSON, as the
// service stores it.
const sourceField = "_source"

// ceilingResult is one timed in-process indexing run.
type ceilingResult struct {
	Docs     int     `json:"docs"`
	Seconds  float64 `json:"seconds"`
	DocsPerS float64 `json:"docs_per_s"`
	// DiskBytes is the index size once every batch is persisted.
	DiskBytes int64 `json:"disk_bytes"`
}

// buildCeiling indexes ds straight into a bluge index at dir with one
// writer and batches of ceilingBatch: each document is converted by the
// service's own mapping code starting from an empty (dynamic) mapping, so
// the field types are exactly those dynamic mapping gives, and _source is
// stored. The writer is returned open for in-process queries.
func buildCeiling(ds *dataset, dir string) (*bluge.Writer, ceilingResult, error) {
	start := time.Now()
	w, err := bluge.OpenWriter(bluge.DefaultConfig(dir))
	if err != nil {
		return nil, ceilingResult{}, err
	}
	// Numbers get bluge's own terms (the legacy step), as plain bluge
	// indexes them.
	mp := newMapper(mapping.LegacyNumericStep)
	batch := bluge.NewBatch()
	n := 0
	for i, src := range ds.docs {
		doc, err := mp.doc(ds, i)
		if err != nil {
			_ = w.Close()
			return nil, ceilingResult{}, err
		}
		doc.AddField(bluge.NewStoredOnlyField(sourceField, src))
		batch.Update(doc.ID(), doc)
		n++
		if n == ceilingBatch {
			if err := w.Batch(batch); err != nil {
				_ = w.Close()
				return nil, ceilingResult{}, err
			}
			batch.Reset()
			n = 0
		}
	}
	if n > 0 {
		if err := w.Batch(batch); err != nil {
			_ = w.Close()
			return nil, ceilingResult{}, err
		}
	}
	// Searchable: a reader over everything written.
	r, err := w.Reader()
	if err != nil {
		_ = w.Close()
		return nil, ceilingResult{}, err
	}
	count, err := r.Count()
	_ = r.Close()
	if err != nil {
		_ = w.Close()
		return nil, ceilingResult{}, err
	}
	if int(count) != len(ds.docs) {
		_ = w.Close()
		return nil, ceilingResult{}, fmt.Errorf("ceiling index holds %d documents, want %d", count, len(ds.docs))
	}
	secs := time.Since(start).Seconds()
	disk, err := diskUsage(dir)
	if err != nil {
		_ = w.Close()
		return nil, ceilingResult{}, err
	}
	return w, ceilingResult{Docs: len(ds.docs), Seconds: secs, DocsPerS: float64(len(ds.docs)) / secs, DiskBytes: disk}, nil
}

// mapper converts a dataset's documents with the service's mapping code,
// starting from an empty (dynamic) mapping that each document may extend.
type mapper struct {
	m    *mapping.Mapping
	opts mapping.DocOptions
}

// newMapper returns a mapper indexing numbers with the precision step.
func newMapper(step uint) *mapper {
	return &mapper{m: mapping.New(), opts: mapping.DocOptions{NestedLimit: mapping.NestedObjectsLimit, NumericStep: step}}
}

// doc is document i of ds as bluge fields.
func (mp *mapper) doc(ds *dataset, i int) (*bluge.Document, error) {
	id := docID(i)
	doc := bluge.NewDocument(id)
	upd, _, err := mp.m.ParseDocumentWith(id, ds.docs[i], nil, doc, mp.opts)
	if err != nil {
		return nil, fmt.Errorf("%s document %d: %w", ds.name, i+1, err)
	}
	if upd != nil {
		mp.m = upd
	}
	return doc, nil
}

// runInProcess executes req on r the way the service answers a search:
// the hits' _source is loaded and every aggregation bucket is visited.
func runInProcess(ctx context.Context, r *bluge.Reader, req bluge.SearchRequest) (int, error) {
	it, err := r.Search(ctx, req)
	if err != nil {
		return 0, err
	}
	hits := 0
	for {
		m, err := it.Next()
		if err != nil {
			return 0, err
		}
		if m == nil {
			break
		}
		hits++
		var src []byte
		if err := m.VisitStoredFields(func(field string, value []byte) bool {
			if field == sourceField {
				src = value
				return false
			}
			return true
		}); err != nil {
			return 0, err
		}
		_ = src
	}
	visitBuckets(it.Aggregations())
	return hits, nil
}

// visitBuckets walks every bucket and metric of an aggregation tree.
func visitBuckets(b *search.Bucket) {
	if b == nil {
		return
	}
	for _, c := range b.Aggregations() {
		if bc, ok := c.(search.BucketCalculator); ok {
			for _, sub := range bc.Buckets() {
				visitBuckets(sub)
			}
		}
	}
}
