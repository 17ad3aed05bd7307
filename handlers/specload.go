package handlers

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// parseSpec parses an embedded OpenAPI document (JSON) into the same
// resolved document openapi3.Loader.LoadFromData gives, spreading the work
// over workers goroutines: kin-openapi unmarshals a document in one pass
// (about 45 ms for the cluster document, most of the node's start-up), but
// its path items are independent until references are resolved. The
// document without its paths and each share of the path items are
// unmarshalled concurrently, then the references are resolved once.
func parseSpec(raw []byte, workers int) (*openapi3.T, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("parse OpenAPI document: %w", err)
	}
	var paths map[string]json.RawMessage
	if p, ok := top["paths"]; ok {
		if err := json.Unmarshal(p, &paths); err != nil {
			return nil, fmt.Errorf("parse OpenAPI paths: %w", err)
		}
		top["paths"] = json.RawMessage("{}")
	}
	rest, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(paths))
	for k := range paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Shares of about equal bytes, so the goroutines finish together.
	workers = max(1, workers)
	shares := make([][]string, workers)
	load := make([]int, workers)
	for _, k := range keys {
		w := 0
		for i := range load {
			if load[i] < load[w] {
				w = i
			}
		}
		shares[w] = append(shares[w], k)
		load[w] += len(paths[k])
	}
	items := make([]*openapi3.PathItem, len(keys))
	index := make(map[string]int, len(keys))
	for i, k := range keys {
		index[k] = i
	}
	doc := &openapi3.T{}
	errs := make([]error, workers+1)
	var wg sync.WaitGroup
	wg.Add(workers)
	for w := range shares {
		go func(w int) {
			defer wg.Done()
			for _, k := range shares[w] {
				item := &openapi3.PathItem{}
				if err := item.UnmarshalJSON(paths[k]); err != nil {
					errs[w] = fmt.Errorf("parse OpenAPI path %s: %w", k, err)
					return
				}
				items[index[k]] = item
			}
		}(w)
	}
	errs[workers] = doc.UnmarshalJSON(rest)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if doc.Paths == nil {
		doc.Paths = openapi3.NewPaths()
	}
	for i, k := range keys {
		doc.Paths.Set(k, items[i])
	}
	if err := openapi3.NewLoader().ResolveRefsIn(doc, nil); err != nil {
		return nil, err
	}
	return doc, nil
}

// specWorkers is how many goroutines parse one document's path items.
const specWorkers = 2

// loadEmbedded parses a generated package's embedded document.
func loadEmbedded(raw func() ([]byte, error)) (*openapi3.T, error) {
	b, err := raw()
	if err != nil {
		return nil, err
	}
	return parseSpec(b, specWorkers)
}
