package searchcore

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/quarry-search/quarry/searchcore/cluster"
)

// Search contexts: scrolls and points in time. A context holds one
// ref-counted reader snapshot per shard (readerRef), so every search through
// it sees the index exactly as it was when the context opened, _source
// included (sources are read from the snapshot's stored fields). Contexts
// expire keep_alive after their last use; the reaper goroutine started by
// Open frees expired ones, and a lookup of an expired context frees it too.

// DefaultMaxOpenScrollContexts is search.max_open_scroll_context's default.
const DefaultMaxOpenScrollContexts = 500

// MaxKeepAlive is search.max_keep_alive's default: the longest keep_alive a
// scroll or point in time may ask for.
const MaxKeepAlive = 24 * time.Hour

// reapInterval is how often the reaper looks for expired contexts.
const reapInterval = 250 * time.Millisecond

type contextKind uint8

const (
	kindScroll contextKind = iota + 1
	kindPIT
)

// ctxShard is one shard of a search, with the snapshot it searches.
type ctxShard struct {
	idx *Index
	ord int // global shard ordinal within the search (slicing, _shard_doc)
	rr  *readerRef
}

// searchContext is an open scroll or point in time.
type searchContext struct {
	id     string
	kind   contextKind
	shards []ctxShard
	opened time.Time

	// guarded by the registry's mu
	keepAlive time.Duration
	expires   time.Time

	// scroll state; mu serialises the pages of one scroll
	mu     sync.Mutex
	scroll *scrollState
}

// contextRegistry tracks the open contexts of an engine.
type contextRegistry struct {
	now       func() time.Time
	maxScroll int

	mu      sync.Mutex
	byID    map[string]*searchContext
	scrolls int
	pits    int

	scrollTotal int64
	scrollTime  time.Duration
	pitTotal    int64
}

func newContextRegistry(now func() time.Time, maxScroll int) *contextRegistry {
	if maxScroll <= 0 {
		maxScroll = DefaultMaxOpenScrollContexts
	}
	return &contextRegistry{now: now, maxScroll: maxScroll, byID: make(map[string]*searchContext)}
}

// SearchContextStats are the open search contexts of the node, for the
// search section of _nodes/stats. Counts are per context (one scroll or
// point in time over any number of shards counts once).
type SearchContextStats struct {
	// OpenContexts is the number of open scrolls plus points in time.
	OpenContexts int64
	// ScrollCurrent is the number of open scrolls.
	ScrollCurrent int64
	// ScrollTotal is the number of scrolls freed so far (cleared, finished
	// without scroll, or expired).
	ScrollTotal int64
	// ScrollTimeInMillis is the summed lifetime of the freed scrolls.
	ScrollTimeInMillis int64
	// PointInTimeCurrent is the number of open points in time.
	PointInTimeCurrent int64
	// PointInTimeTotal is the number of points in time freed so far.
	PointInTimeTotal int64
}

// SearchContextStats returns the node's open scroll and point-in-time
// context counts (the search section of _nodes/stats: open_contexts,
// scroll_current, scroll_total, scroll_time_in_millis and the point in time
// counts). Safe for concurrent use.
func (e *Engine) SearchContextStats() SearchContextStats {
	r := e.contexts
	r.mu.Lock()
	defer r.mu.Unlock()
	return SearchContextStats{
		OpenContexts:       int64(r.scrolls + r.pits),
		ScrollCurrent:      int64(r.scrolls),
		ScrollTotal:        r.scrollTotal,
		ScrollTimeInMillis: r.scrollTime.Milliseconds(),
		PointInTimeCurrent: int64(r.pits),
		PointInTimeTotal:   r.pitTotal,
	}
}

// newContextID returns a random url-safe id.
func newContextID() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// validContextID reports whether id has the shape of the ids this node hands
// out (ES answers unparsable ids with a 400, unknown ones with a 404).
func validContextID(id string) bool {
	b, err := base64.RawURLEncoding.DecodeString(id)
	return err == nil && len(b) == 20
}

// clusterSetting returns a dynamic cluster setting (transient wins over
// persistent), or "" when it is not set.
func (e *Engine) clusterSetting(key string) string {
	if e.cl == nil {
		return ""
	}
	for _, scope := range []cluster.Scope{cluster.Transient, cluster.Persistent} {
		if v, ok := e.ClusterSettings(scope)[key]; ok && v != nil {
			if s, ok := v.(string); ok {
				return s
			}
			return fmt.Sprint(v)
		}
	}
	return ""
}

// maxKeepAlive is the search.max_keep_alive cluster setting (default 1d).
func (e *Engine) maxKeepAlive() time.Duration {
	if v := e.clusterSetting("search.max_keep_alive"); v != "" {
		if d, err := ParseTimeValue(v, "search.max_keep_alive"); err == nil && d > 0 {
			return d
		}
	}
	return MaxKeepAlive
}

// maxOpenScrolls is search.max_open_scroll_context: the cluster setting
// when set, else the node setting (Config.MaxOpenScrollContexts).
func (e *Engine) maxOpenScrolls() int {
	if v := e.clusterSetting("search.max_open_scroll_context"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			return n
		}
	}
	return e.contexts.maxScroll
}

// checkKeepAlive enforces search.max_keep_alive.
func (e *Engine) checkKeepAlive(d time.Duration) error {
	if limit := e.maxKeepAlive(); d > limit {
		return IllegalArgument("Keep alive for request (%s) is too large. It must be less than (%s). "+
			"This limit can be set by changing the [search.max_keep_alive] cluster level setting.",
			FormatTimeValue(d), FormatTimeValue(limit))
	}
	return nil
}

// FormatTimeValue renders a duration like Elasticsearch's TimeValue.
func FormatTimeValue(d time.Duration) string {
	switch {
	case d%(24*time.Hour) == 0 && d > 0:
		return itoa(int64(d/(24*time.Hour))) + "d"
	case d%time.Hour == 0 && d > 0:
		return itoa(int64(d/time.Hour)) + "h"
	case d%time.Minute == 0 && d > 0:
		return itoa(int64(d/time.Minute)) + "m"
	case d%time.Second == 0:
		return itoa(int64(d/time.Second)) + "s"
	case d%time.Millisecond == 0:
		return itoa(int64(d/time.Millisecond)) + "ms"
	}
	return itoa(int64(d)) + "nanos"
}

// contextMissing is ES's search_context_missing_exception.
func contextMissing(id string) *Error {
	return Errorf(NotFound, "search_context_missing_exception", "No search context found for id [%s]", id)
}

// tooManyScrolls is the error of an open over search.max_open_scroll_context.
func tooManyScrolls(limit int) *Error {
	return Errorf(TooManyRequests, "too_many_scroll_contexts_exception",
		"Trying to create too many scroll contexts. Must be less than or equal to: [%d]. "+
			"This limit can be set by changing the [search.max_open_scroll_context] setting.", limit)
}

// reserveScroll counts a scroll against the limit before it opens.
func (r *contextRegistry) reserveScroll(limit int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scrolls >= limit {
		return tooManyScrolls(limit)
	}
	r.scrolls++
	return nil
}

// unreserveScroll gives back a reservation whose scroll did not open.
func (r *contextRegistry) unreserveScroll() {
	r.mu.Lock()
	r.scrolls--
	r.mu.Unlock()
}

// add registers a context (a scroll must hold a reservation); the context
// takes over the callers' references on its shards' readers.
func (r *contextRegistry) add(c *searchContext, keepAlive time.Duration) {
	now := r.now()
	c.id = newContextID()
	c.opened = now
	r.mu.Lock()
	c.keepAlive = keepAlive
	c.expires = now.Add(keepAlive)
	r.byID[c.id] = c
	if c.kind == kindPIT {
		r.pits++
	}
	r.mu.Unlock()
}

// use looks up a live context of the given kind, extends its keep_alive
// when keepAlive > 0, and returns its shards with one extra reference each
// (release them with releaseShards). Expired contexts are freed here.
func (r *contextRegistry) use(id string, kind contextKind, keepAlive time.Duration) (*searchContext, []ctxShard, error) {
	if !validContextID(id) {
		if kind == kindPIT {
			return nil, nil, IllegalArgument("invalid id: [%s]", id)
		}
		return nil, nil, IllegalArgument("Cannot parse scroll id")
	}
	now := r.now()
	r.mu.Lock()
	c, ok := r.byID[id]
	if ok && c.kind != kind {
		ok = false
	}
	if ok && !now.Before(c.expires) {
		r.freeLocked(c, now)
		ok = false
	}
	if !ok {
		r.mu.Unlock()
		return nil, nil, contextMissing(id)
	}
	if keepAlive > 0 {
		c.keepAlive = keepAlive
	}
	c.expires = now.Add(c.keepAlive)
	shards := make([]ctxShard, len(c.shards))
	copy(shards, c.shards)
	for _, s := range shards {
		s.rr.refs.Add(1)
	}
	r.mu.Unlock()
	return c, shards, nil
}

// free removes the contexts with the given ids; it returns how many were
// open. Unknown ids are ignored.
func (r *contextRegistry) free(kind contextKind, ids []string) int {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, id := range ids {
		if c, ok := r.byID[id]; ok && c.kind == kind {
			if now.Before(c.expires) {
				n++
			}
			r.freeLocked(c, now)
		}
	}
	return n
}

// freeAll removes every context of a kind.
func (r *contextRegistry) freeAll(kind contextKind) int {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.byID {
		if c.kind == kind {
			if now.Before(c.expires) {
				n++
			}
			r.freeLocked(c, now)
		}
	}
	return n
}

// freeLocked drops c and its snapshot references (searches still running on
// it hold their own references).
func (r *contextRegistry) freeLocked(c *searchContext, now time.Time) {
	if _, ok := r.byID[c.id]; !ok {
		return
	}
	delete(r.byID, c.id)
	switch c.kind {
	case kindScroll:
		r.scrolls--
		r.scrollTotal++
		r.scrollTime += now.Sub(c.opened)
	case kindPIT:
		r.pits--
		r.pitTotal++
	}
	releaseShards(c.shards)
}

// freeIndex frees every context holding a shard of idx (index deletion).
func (r *contextRegistry) freeIndex(idx *Index) {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.byID {
		for _, s := range c.shards {
			if s.idx == idx {
				r.freeLocked(c, now)
				break
			}
		}
	}
}

// reap frees every expired context.
func (r *contextRegistry) reap() {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.byID {
		if !now.Before(c.expires) {
			r.freeLocked(c, now)
		}
	}
}

// closeAll frees every context (engine shutdown).
func (r *contextRegistry) closeAll() {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.byID {
		r.freeLocked(c, now)
	}
}

// reaper frees expired contexts (and the points of segments no longer
// read) until the engine stops.
func (e *Engine) reaper() {
	defer e.wg.Done()
	t := time.NewTicker(reapInterval)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			e.contexts.closeAll()
			return
		case <-t.C:
			e.contexts.reap()
			if e.points != nil {
				e.points.Expire()
			}
		}
	}
}

// acquireShards takes the current snapshot of every shard of indices, with
// global ordinals in index order (callers sort indices by name).
func acquireShards(indices []*Index) []ctxShard {
	var out []ctxShard
	ord := 0
	for _, idx := range indices {
		for _, sh := range idx.shards {
			out = append(out, ctxShard{idx: idx, ord: ord, rr: sh.acquire()})
			ord++
		}
	}
	return out
}

func releaseShards(shards []ctxShard) {
	for _, s := range shards {
		s.rr.release()
	}
}

// OpenPointInTime opens a point in time over indices kept for keepAlive and
// returns its id.
func (e *Engine) OpenPointInTime(indices []*Index, keepAlive time.Duration) (string, error) {
	if keepAlive <= 0 {
		return "", ValidationError("[keep_alive] is missing")
	}
	if err := e.checkKeepAlive(keepAlive); err != nil {
		return "", err
	}
	sorted := append([]*Index(nil), indices...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name() < sorted[j].Name() })
	c := &searchContext{kind: kindPIT, shards: acquireShards(sorted)}
	e.contexts.add(c, keepAlive)
	return c.id, nil
}

// ClosePointInTime frees a point in time; it reports how many were freed
// (0 for an unknown or expired id).
func (e *Engine) ClosePointInTime(id string) (int, error) {
	if !validContextID(id) {
		return 0, IllegalArgument("invalid id: [%s]", id)
	}
	return e.contexts.free(kindPIT, []string{id}), nil
}

// ClearScroll frees scroll contexts by id ("_all" frees every scroll) and
// reports how many were open. Malformed ids are an error.
func (e *Engine) ClearScroll(ids []string) (int, error) {
	for _, id := range ids {
		if id == "_all" {
			return e.contexts.freeAll(kindScroll), nil
		}
	}
	for _, id := range ids {
		if !validContextID(id) {
			return 0, IllegalArgument("Cannot parse scroll id")
		}
	}
	return e.contexts.free(kindScroll, ids), nil
}
