package appsearch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Searches is the search side of App Search: searches, multi searches,
// query suggestions, search settings, synonyms, curations, clicks and
// analytics, over the engines of a Service. Its per-engine state lives in
// the MetaStore under "appsearch/search/<engine>/".
type Searches struct {
	svc   *Service
	store searchcore.MetaStore
	now   func() time.Time

	mu      sync.Mutex
	engines map[string]*engineSearch
}

// engineSearch is the loaded search state of one engine.
type engineSearch struct {
	// born is the creation time of the engine this state belongs to: state
	// left by a deleted engine of the same name is dropped.
	born      time.Time
	settings  *rawSettings
	synonyms  []SynonymSet
	curations []Curation
	analytics *analyticsLog
}

// SynonymSet is a set of words or phrases searched as one.
type SynonymSet struct {
	ID       string   `json:"id"`
	Synonyms []string `json:"synonyms"`
}

const metaSearchPrefix = "appsearch/search/"

// NewSearches builds the search side over svc (sharing its metadata
// store); now is the clock (nil means the service's).
func NewSearches(svc *Service, now func() time.Time) *Searches {
	if now == nil {
		now = svc.now
	}
	return &Searches{svc: svc, store: svc.store, now: now, engines: map[string]*engineSearch{}}
}

// state returns the loaded search state of an engine, loading it (and
// dropping state left by a deleted engine of the same name) first.
func (ss *Searches) state(ctx context.Context, e *Engine) (*engineSearch, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if st, ok := ss.engines[e.Name]; ok && st.born.Equal(e.CreatedAt) {
		return st, nil
	}
	prefix := metaSearchPrefix + e.Name + "/"
	st := &engineSearch{born: e.CreatedAt, analytics: &analyticsLog{}}
	var stale []string
	born := ""
	err := ss.store.ListMeta(ctx, prefix, func(k string, v []byte) error {
		if k == prefix+"born" {
			born = string(v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	fresh := born == e.CreatedAt.UTC().Format(time.RFC3339Nano)
	err = ss.store.ListMeta(ctx, prefix, func(k string, v []byte) error {
		rest := strings.TrimPrefix(k, prefix)
		if !fresh {
			stale = append(stale, k)
			return nil
		}
		switch {
		case rest == "settings":
			var rs rawSettings
			if err := json.Unmarshal(v, &rs); err != nil {
				return err
			}
			st.settings = &rs
		case strings.HasPrefix(rest, "synonym/"):
			var s SynonymSet
			if err := json.Unmarshal(v, &s); err != nil {
				return err
			}
			st.synonyms = append(st.synonyms, s)
		case strings.HasPrefix(rest, "curation/"):
			var c Curation
			if err := json.Unmarshal(v, &c); err != nil {
				return err
			}
			st.curations = append(st.curations, c)
		case strings.HasPrefix(rest, "event/"):
			var ev analyticsEvent
			if err := json.Unmarshal(v, &ev); err != nil {
				return err
			}
			if ev.At.Before(ss.now().Add(-AnalyticsRetention)) {
				stale = append(stale, k)
				return nil
			}
			st.analytics.events = append(st.analytics.events, ev)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range stale {
		if err := ss.store.DeleteMeta(ctx, k); err != nil {
			return nil, err
		}
	}
	if !fresh {
		if err := ss.store.PutMeta(ctx, prefix+"born", []byte(e.CreatedAt.UTC().Format(time.RFC3339Nano))); err != nil {
			return nil, err
		}
	}
	sort.Slice(st.synonyms, func(i, j int) bool { return st.synonyms[i].ID < st.synonyms[j].ID })
	sort.Slice(st.curations, func(i, j int) bool { return st.curations[i].ID < st.curations[j].ID })
	sort.SliceStable(st.analytics.events, func(i, j int) bool { return st.analytics.events[i].At.Before(st.analytics.events[j].At) })
	ss.engines[e.Name] = st
	return st, nil
}

// DropEngine forgets the search state of a deleted engine (settings,
// synonyms, curations, analytics).
func (ss *Searches) DropEngine(ctx context.Context, engine string) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.engines, engine)
	var keys []string
	err := ss.store.ListMeta(ctx, metaSearchPrefix+engine+"/", func(k string, _ []byte) error {
		keys = append(keys, k)
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := ss.store.DeleteMeta(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// context builds the search Context of an engine. A meta engine searches
// the union of its source engines' schemas.
func (ss *Searches) context(ctx context.Context, e *Engine) (*Context, *engineSearch, []*searchcore.Index, map[string]string, error) {
	st, err := ss.state(ctx, e)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	indices, engines, err := ss.svc.SearchIndices(e)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	schema := e.Schema
	indexEngines := map[string]string{}
	if e.Type == EngineMeta {
		schema = Schema{}
		for i, src := range engines {
			indexEngines[indices[i].Name()] = src.Name
			for f, t := range src.Schema {
				if _, ok := schema[f]; !ok {
					schema[f] = t
				}
			}
		}
	}
	c := &Context{
		Engine: e.Name, EngineType: string(e.Type), Schema: schema, Revision: e.Revision,
		Now: ss.now(), Analyzer: analyzerFor(e.LanguageName()),
	}
	// Copy under the lock: updates replace these while searches run.
	ss.mu.Lock()
	c.Curations = append([]Curation(nil), st.curations...)
	for _, s := range st.synonyms {
		c.Synonyms = append(c.Synonyms, s.Synonyms)
	}
	settings := st.settings
	ss.mu.Unlock()
	if settings != nil {
		c.Settings = settings.resolve(schema, e.Revision)
	}
	return c, st, indices, indexEngines, nil
}

// Search runs one search request on an engine. requestID is echoed in
// meta.request_id.
func (ss *Searches) Search(ctx context.Context, engine string, body []byte, requestID string) (*SearchOutcome, error) {
	e, err := ss.svc.Engine(engine)
	if err != nil {
		return nil, err
	}
	req, err := ParseSearchRequest(body, e.Revision)
	if err != nil {
		return nil, err
	}
	return ss.run(ctx, e, req, requestID)
}

func (ss *Searches) run(ctx context.Context, e *Engine, req *SearchRequest, requestID string) (*SearchOutcome, error) {
	c, st, indices, indexEngines, err := ss.context(ctx, e)
	if err != nil {
		return nil, err
	}
	if err := req.Validate(c); err != nil {
		return nil, err
	}
	out, err := RunSearch(ctx, NewCoreSearch(ss.svc.Core(), indices), req, c, requestID, indexEngines)
	if err != nil {
		return nil, err
	}
	if req.RecordAnalytics {
		if err := ss.record(ctx, e.Name, st, analyticsEvent{
			Kind: "query", At: ss.now().UTC(), Query: normalizeQuery(req.Query), Tags: req.Tags, Results: out.Total,
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MultiSearchEntry is one element of a multi search response: a search
// response, or the errors of a query that failed ({"errors": [...]}).
type MultiSearchEntry struct {
	Outcome *SearchOutcome
	Errors  []string
}

// MarshalJSON renders the response or {"errors": [...]}.
func (m MultiSearchEntry) MarshalJSON() ([]byte, error) {
	if m.Outcome != nil {
		return m.Outcome.MarshalJSON()
	}
	errs := m.Errors
	if errs == nil {
		errs = []string{}
	}
	return json.Marshal(map[string][]string{"errors": errs})
}

// MultiSearch runs {"queries": [...]} (at most 10). When any query is
// invalid nothing runs: the entries carry each query's errors (empty for
// valid ones) and failed is true.
func (ss *Searches) MultiSearch(ctx context.Context, engine string, body []byte) (entries []MultiSearchEntry, failed bool, err error) {
	e, err := ss.svc.Engine(engine)
	if err != nil {
		return nil, false, err
	}
	v, err := decodeBody(body)
	if err != nil {
		return nil, false, err
	}
	if v.kind != jObject {
		return nil, false, RequestErrors("Multi search request must be a JSON object")
	}
	for _, m := range v.obj {
		if m.key != "queries" {
			return nil, false, RequestErrors("Options contains invalid key: " + m.key)
		}
	}
	qs := v.get("queries")
	if qs == nil {
		return nil, false, MissingParameter("queries")
	}
	if qs.kind != jArray || len(qs.arr) == 0 {
		return nil, false, RequestErrors("Queries must be a non-empty array of search requests")
	}
	if len(qs.arr) > MaxMultiSearch {
		return nil, false, RequestErrors(sprintf("Queries must contain %d queries or fewer", MaxMultiSearch))
	}
	c, _, _, _, err := ss.context(ctx, e)
	if err != nil {
		return nil, false, err
	}
	reqs := make([]*SearchRequest, len(qs.arr))
	entries = make([]MultiSearchEntry, len(qs.arr))
	for i, q := range qs.arr {
		r, perr := parseSearchValue(q, e.Revision)
		if perr == nil {
			perr = r.Validate(c)
		}
		if perr != nil {
			msgs := ErrorMessages(perr)
			if msgs == nil {
				return nil, false, perr
			}
			entries[i].Errors, failed = msgs, true
			continue
		}
		entries[i].Errors = []string{}
		reqs[i] = r
	}
	if failed {
		return entries, true, nil
	}
	for i, r := range reqs {
		out, err := ss.run(ctx, e, r, "")
		if err != nil {
			return nil, false, err
		}
		entries[i] = MultiSearchEntry{Outcome: out}
	}
	return entries, false, nil
}

// ErrorMessages returns the messages of an App Search request or
// decoding error, or nil when err is not one.
func ErrorMessages(err error) []string {
	e, ok := eserr.AsError(err)
	if !ok || (e.Type != TypeErrors && e.Type != TypeDecoding) {
		return nil
	}
	return Messages(e)
}

// newID returns prefix + 24 hex characters (like App Search's ids).
func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// errNotFound is a 404 App Search error.
func errNotFound(msg string) error { return Errors(eserr.NotFound, msg) }
