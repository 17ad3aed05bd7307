package searchcore

import (
	"context"
	"sort"
	"strings"
)

// stateClosed is indexMeta.State of a closed index.
const stateClosed = "close"

// verifiedBeforeClose is the private setting a closed index carries.
const verifiedBeforeClose = "index.verified_before_close"

// IndicesWithClosed returns every index, open and closed, sorted by name
// (what the cluster state's metadata and routing table list).
func (e *Engine) IndicesWithClosed() []*Index {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]*Index, 0, len(e.indices)+len(e.closed))
	for _, idx := range e.indices {
		out = append(out, idx)
	}
	for _, idx := range e.closed {
		out = append(out, idx)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// closedMatchesLocked returns the closed indices a wildcard pattern expands
// to under o: none unless expand_wildcards includes closed; then they are
// returned (AllowClosed), skipped (ignore_unavailable) or an
// index_closed_exception, as Elasticsearch's concreteIndices does for
// searches.
func (e *Engine) closedMatchesLocked(o ResolveOptions, pat string) ([]*Index, error) {
	if !o.ExpandClosed {
		return nil, nil
	}
	var out []*Index
	for name, idx := range e.closed {
		hidden := idx.Settings().Hidden || (strings.HasPrefix(name, ".") && !strings.HasPrefix(pat, "."))
		if (hidden && !o.ExpandHidden) || !matchPattern(pat, name) {
			continue
		}
		switch {
		case o.AllowClosed:
			out = append(out, idx)
		case !o.IgnoreUnavailable:
			return nil, IndexClosed(name, idx.UUID())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// IsClosed reports whether idx is a closed index.
func (ix *Index) IsClosed() bool { return ix.metaSnapshot().State == stateClosed }

// CloseIndices closes the given (resolved) indices: their shards are
// flushed and released, searches and writes then fail with
// index_closed_exception, and the state survives restarts. It returns the
// names of the indices this call closed (already closed ones are skipped).
func (e *Engine) CloseIndices(ctx context.Context, indices []*Index) ([]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var closed []string
	for _, idx := range indices {
		name := idx.Name()
		if e.indices[name] != idx {
			continue // already closed (or gone)
		}
		// Copy, persist and publish under metaMu, so that a metadata
		// update racing the close (a write giving the index its source
		// dictionary) is neither lost nor undoes the close.
		idx.metaMu.Lock()
		m := *idx.meta
		m.State = stateClosed
		if err := e.persistMeta(ctx, &m); err != nil {
			idx.metaMu.Unlock()
			return closed, err
		}
		idx.meta = &m
		idx.metaMu.Unlock()
		delete(e.indices, name)
		e.contexts.freeIndex(idx)
		if err := idx.close(); err != nil {
			e.log.Warn("closing index shards", "index", name, "err", err)
		}
		idx.shards = nil
		e.closed[name] = idx
		closed = append(closed, name)
		e.log.Info("closed index", "index", name)
	}
	return closed, nil
}

// OpenIndices reopens the given closed indices (open ones are left alone):
// their shards are opened and replay what bluge lacks.
func (e *Engine) OpenIndices(ctx context.Context, indices []*Index) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, idx := range indices {
		name := idx.Name()
		if e.closed[name] != idx {
			continue
		}
		m := *idx.metaSnapshot()
		m.State = ""
		opened, err := e.newIndex(&m)
		if err != nil {
			return err
		}
		if err := opened.openShards(ctx); err != nil {
			return err
		}
		if err := e.persistMeta(ctx, &m); err != nil {
			_ = opened.close()
			return err
		}
		delete(e.closed, name)
		e.indices[name] = opened
		e.log.Info("opened index", "index", name)
	}
	return nil
}
