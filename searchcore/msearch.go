package searchcore

import (
	"context"
	"fmt"
	"runtime"
	"sync"
)

// MultiSearchRequest is one search of a multi search.
type MultiSearchRequest struct {
	// Target is the index expression ("" means all indices).
	Target string
	// Options controls how Target expands.
	Options ResolveOptions
	// Request is the parsed search.
	Request *SearchRequest
	// Err, when set, is this search's failure found before it could run
	// (a template that did not render, say): it is reported in its place.
	Err error
}

// MultiSearchResult is the outcome of one search of a multi search: a
// result or the error that failed it completely.
type MultiSearchResult struct {
	Result *SearchResult
	Err    error
}

// DefaultMaxConcurrentSearches is Elasticsearch's default for
// max_concurrent_searches on one data node: min(search thread pool size, 10),
// the pool being processors × 3 / 2 + 1.
func DefaultMaxConcurrentSearches() int {
	n := runtime.GOMAXPROCS(0)*3/2 + 1
	if n > 10 {
		n = 10
	}
	if n < 1 {
		n = 1
	}
	return n
}

// MultiSearch runs the searches, at most maxConcurrent at a time (the
// default when < 1), and returns their outcomes in request order. A search
// that fails (missing index, bad query, ...) fails alone.
func (e *Engine) MultiSearch(ctx context.Context, reqs []MultiSearchRequest, maxConcurrent int) []MultiSearchResult {
	if maxConcurrent < 1 {
		maxConcurrent = DefaultMaxConcurrentSearches()
	}
	out := make([]MultiSearchResult, len(reqs))
	sem := make(chan struct{}, maxConcurrent)
	var wg sync.WaitGroup
	for i := range reqs {
		if reqs[i].Err != nil {
			out[i].Err = reqs[i].Err
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = e.searchOne(ctx, &reqs[i])
		}(i)
	}
	wg.Wait()
	return out
}

// searchOne resolves and runs one search of a multi search; a panic fails
// only this search.
func (e *Engine) searchOne(ctx context.Context, r *MultiSearchRequest) (res MultiSearchResult) {
	defer func() {
		if p := recover(); p != nil {
			e.log.Error("multi search item panicked", "panic", p)
			res = MultiSearchResult{Err: Internalf(fmt.Errorf("panic: %v", p), "search failed")}
		}
	}()
	var indices []*Index
	// A point-in-time search names no index: the PIT holds its indices (an
	// index given with a PIT is the core's validation error).
	if r.Request.PIT == nil || r.Target != "" {
		target := r.Target
		if target == "" {
			target = "_all"
		}
		var err error
		if indices, err = e.Resolve(target, r.Options); err != nil {
			return MultiSearchResult{Err: err}
		}
	}
	sr, err := e.Search(ctx, indices, r.Request)
	if err != nil {
		return MultiSearchResult{Err: err}
	}
	return MultiSearchResult{Result: sr}
}
