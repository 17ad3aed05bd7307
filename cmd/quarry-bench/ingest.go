package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Ingest parameters fixed by the issue.
const (
	bulkDocs    = 1000
	bulkClients = 2
)

// ingestResult is one timed HTTP load of a dataset.
type ingestResult struct {
	Docs      int     `json:"docs"`
	Seconds   float64 `json:"seconds"`
	DocsPerS  float64 `json:"docs_per_s"`
	PeakRSS   int64   `json:"peak_rss_bytes"`
	DiskBytes int64   `json:"disk_bytes"`
}

// ingest sends ds to the server as _bulk requests of bulkDocs documents
// from bulkClients concurrent clients, refreshes the index and checks with
// _count that every document is searchable. The time runs from the first
// request to the verified count.
func ingest(ctx context.Context, s *server, index string, ds *dataset) (ingestResult, error) {
	bodies := ds.bulkBodies(bulkDocs)
	work := make(chan []byte)
	errs := make(chan error, bulkClients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < bulkClients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for body := range work {
				var res struct {
					Errors bool             `json:"errors"`
					Items  []map[string]any `json:"items"`
				}
				if err := s.call(ctx, "POST", "/"+index+"/_bulk", "application/x-ndjson", body, &res); err != nil {
					errs <- err
					return
				}
				if res.Errors {
					errs <- fmt.Errorf("bulk into %s reported item errors (first: %v)", index, firstFailure(res.Items))
					return
				}
			}
		}()
	}
	var failed error
feed:
	for _, b := range bodies {
		select {
		case work <- b:
		case failed = <-errs:
			break feed
		}
	}
	close(work)
	wg.Wait()
	if failed == nil {
		select {
		case failed = <-errs:
		default:
		}
	}
	if failed != nil {
		return ingestResult{}, failed
	}
	if err := s.call(ctx, "POST", "/"+index+"/_refresh", "", nil, nil); err != nil {
		return ingestResult{}, err
	}
	var cnt struct {
		Count int `json:"count"`
	}
	if err := s.call(ctx, "GET", "/"+index+"/_count", "", nil, &cnt); err != nil {
		return ingestResult{}, err
	}
	if cnt.Count != len(ds.docs) {
		return ingestResult{}, fmt.Errorf("%s: _count is %d after the load, want %d", index, cnt.Count, len(ds.docs))
	}
	secs := time.Since(start).Seconds()
	_, peak, err := s.memory()
	if err != nil {
		return ingestResult{}, err
	}
	disk, err := diskUsage(s.data)
	if err != nil {
		return ingestResult{}, err
	}
	return ingestResult{Docs: len(ds.docs), Seconds: secs, DocsPerS: float64(len(ds.docs)) / secs, PeakRSS: peak, DiskBytes: disk}, nil
}

func firstFailure(items []map[string]any) any {
	for _, it := range items {
		for _, v := range it {
			if m, ok := v.(map[string]any); ok && m["error"] != nil {
				return m["error"]
			}
		}
	}
	return nil
}
