package searchcore

import (
	"context"
	"unicode/utf16"

	"github.com/blugelabs/bluge"
)

// matched_queries: every query carrying _name is remembered while the tree
// compiles; at fetch time each named query is run over the page's hits of
// each shard (advancing straight to those documents) and the hits it
// matches get its name.

// namedQuery is a compiled query that carries a _name.
type namedQuery struct {
	name string
	q    bluge.Query
}

// matchNamedQueries sets MatchedQueries on hits (parallel to page).
func matchNamedQueries(ctx context.Context, shards []ctxShard, compiled map[*Index]*compiledIndex, page []shardHit, hits []Hit) error {
	if len(page) == 0 {
		return nil
	}
	byShard := map[int][]int{}
	for i, h := range page {
		byShard[h.shard] = append(byShard[h.shard], i)
	}
	for _, sh := range shards {
		at := byShard[sh.ord]
		ci := compiled[sh.idx]
		if len(at) == 0 || ci == nil || len(ci.named) == 0 {
			continue
		}
		docs := make([]uint64, len(at))
		for k, i := range at {
			docs[k] = page[i].dm.Number
		}
		matched := map[uint64]map[string]bool{}
		for _, nq := range ci.named {
			m, err := scoreDocs(ctx, sh, nq.q, docs, nil, false)
			if err != nil {
				return err
			}
			for n := range m {
				if matched[n] == nil {
					matched[n] = map[string]bool{}
				}
				matched[n][nq.name] = true
			}
		}
		names := make([]string, 0, len(ci.named))
		seen := map[string]bool{}
		for _, nq := range ci.named {
			if !seen[nq.name] {
				seen[nq.name] = true
				names = append(names, nq.name)
			}
		}
		names = javaHashOrder(names)
		for _, i := range at {
			set := matched[page[i].dm.Number]
			if len(set) == 0 {
				continue
			}
			list := make([]string, 0, len(set))
			for _, n := range names {
				if set[n] {
					list = append(list, n)
				}
			}
			hits[i].MatchedQueries = list
		}
	}
	return nil
}

// javaHashOrder orders distinct names as a java.util.HashMap holding them
// iterates (Elasticsearch collects matched query names through one).
func javaHashOrder(names []string) []string {
	size := 16
	for float64(len(names)) > 0.75*float64(size) {
		size *= 2
	}
	buckets := make([][]string, size)
	for _, n := range names {
		h := javaStringHash(n)
		h ^= int32(uint32(h) >> 16)
		b := int(uint32(h) & uint32(size-1))
		buckets[b] = append(buckets[b], n)
	}
	out := make([]string, 0, len(names))
	for _, b := range buckets {
		out = append(out, b...)
	}
	return out
}

// javaStringHash is Java's String.hashCode over UTF-16 code units.
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}
