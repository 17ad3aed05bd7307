package searchcore

import "sort"

// Names returns the names of every index and every alias, sorted, for
// authorization: wildcards are expanded over them to the authorized ones.
func (e *Engine) Names() (indices, aliases []string) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, idx := range e.indices {
		indices = append(indices, idx.Name())
	}
	for a := range e.aliasMembersLocked() {
		aliases = append(aliases, a)
	}
	sort.Strings(indices)
	sort.Strings(aliases)
	return indices, aliases
}

// PointInTimeIndices returns the index names a point in time covers
// (false when the id names no live point in time).
func (e *Engine) PointInTimeIndices(id string) ([]string, bool) {
	r := e.contexts
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.byID[id]
	if !ok || c.kind != kindPIT {
		return nil, false
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range c.shards {
		if n := s.idx.Name(); !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, true
}

// ContextMissing is the error for an unknown scroll or point in time id
// (search_context_missing_exception, 404).
func ContextMissing(id string) *Error { return contextMissing(id) }
