package appsearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Limits are the App Search limits of APPSEARCH.md §9 enforced here.
type Limits struct {
	// SourceEngines is the most source engines of a meta engine (15).
	SourceEngines int
	// SchemaFields is the most schema fields of an engine (64).
	SchemaFields int
	// DocumentsPerRequest is the most documents per index/patch request (100).
	DocumentsPerRequest int
	// DocumentBytes is the largest document (100 KB).
	DocumentBytes int
	// PayloadBytes is the largest request body of the documents API (10 MB).
	PayloadBytes int64
}

// DefaultLimits are the product's defaults.
var DefaultLimits = Limits{
	SourceEngines:       15,
	SchemaFields:        64,
	DocumentsPerRequest: 100,
	DocumentBytes:       100 << 10,
	PayloadBytes:        10 << 20,
}

// Config configures a Service.
type Config struct {
	// Core is the search core holding the engines' hidden indices.
	Core *searchcore.Engine
	// Store persists engines and keys.
	Store searchcore.MetaStore
	// DefaultRevision is the revision of engines created without one
	// (appsearch.revision; default later).
	DefaultRevision Revision
	// Limits override DefaultLimits (zero members keep the default).
	Limits Limits
	// RateLimits configure the per-key hourly limits.
	RateLimits RateLimits
	// Now is the clock (nil: time.Now); rate limits use it.
	Now func() time.Time
}

// Service is the App Search domain over the core.
type Service struct {
	core    *searchcore.Engine
	store   searchcore.MetaStore
	rev     Revision
	limits  Limits
	now     func() time.Time
	limiter *RateLimiter

	mu      sync.RWMutex
	engines map[string]*Engine
	// locks serialise writes and schema changes per engine.
	locks map[string]*sync.Mutex

	keysMu sync.RWMutex
	keys   map[string]*Key // by name
}

const (
	metaEnginePrefix = "appsearch/engine/"
	metaKeyPrefix    = "appsearch/key/"
	// IndexPrefix starts the name of every engine's hidden core index.
	IndexPrefix = ".as-engine-"
)

// New loads the engines and keys.
func New(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.Core == nil || cfg.Store == nil {
		return nil, errors.New("appsearch: Config.Core and Config.Store are required")
	}
	if cfg.DefaultRevision == "" {
		cfg.DefaultRevision = RevisionLater
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	l := DefaultLimits
	if cfg.Limits.SourceEngines > 0 {
		l.SourceEngines = cfg.Limits.SourceEngines
	}
	if cfg.Limits.SchemaFields > 0 {
		l.SchemaFields = cfg.Limits.SchemaFields
	}
	if cfg.Limits.DocumentsPerRequest > 0 {
		l.DocumentsPerRequest = cfg.Limits.DocumentsPerRequest
	}
	if cfg.Limits.DocumentBytes > 0 {
		l.DocumentBytes = cfg.Limits.DocumentBytes
	}
	if cfg.Limits.PayloadBytes > 0 {
		l.PayloadBytes = cfg.Limits.PayloadBytes
	}
	s := &Service{
		core: cfg.Core, store: cfg.Store, rev: cfg.DefaultRevision, limits: l, now: cfg.Now,
		limiter: NewRateLimiter(cfg.RateLimits, cfg.Now),
		engines: map[string]*Engine{}, locks: map[string]*sync.Mutex{}, keys: map[string]*Key{},
	}
	err := s.store.ListMeta(ctx, metaEnginePrefix, func(_ string, v []byte) error {
		var e Engine
		if err := json.Unmarshal(v, &e); err != nil {
			return fmt.Errorf("decode engine: %w", err)
		}
		s.engines[e.Name] = &e
		s.locks[e.Name] = &sync.Mutex{}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.dropOrphans(ctx); err != nil {
		return nil, err
	}
	err = s.store.ListMeta(ctx, metaKeyPrefix, func(_ string, v []byte) error {
		var k Key
		if err := json.Unmarshal(v, &k); err != nil {
			return fmt.Errorf("decode key: %w", err)
		}
		s.keys[k.Name] = &k
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// dropOrphans deletes hidden engine indices no engine uses: what a crash
// left between creating an index and recording it (engine creation, the
// switch of a reindex).
func (s *Service) dropOrphans(ctx context.Context) error {
	used := map[string]bool{}
	for _, e := range s.engines {
		used[e.Index] = true
	}
	var orphans []string
	for _, idx := range s.core.Indices() {
		if n := idx.Name(); strings.HasPrefix(n, IndexPrefix) && !used[n] {
			orphans = append(orphans, n)
		}
	}
	if len(orphans) == 0 {
		return nil
	}
	if err := s.core.DeleteIndex(ctx, orphans); err != nil {
		return fmt.Errorf("drop orphaned engine indices: %w", err)
	}
	return nil
}

// Limits returns the limits in force.
func (s *Service) Limits() Limits { return s.limits }

// DefaultRevision returns the revision of engines created without one.
func (s *Service) DefaultRevision() Revision { return s.rev }

// RateLimiter returns the per-key rate limiter.
func (s *Service) RateLimiter() *RateLimiter { return s.limiter }

// Core returns the search core.
func (s *Service) Core() *searchcore.Engine { return s.core }

// EngineType is default (documents) or meta (a view over source engines).
type EngineType string

// Engine types.
const (
	EngineDefault EngineType = "default"
	EngineMeta    EngineType = "meta"
)

// Engine is an engine definition. Values are immutable once published:
// changes replace the whole value.
type Engine struct {
	Name     string     `json:"name"`
	Type     EngineType `json:"type"`
	Language *string    `json:"language"`
	Revision Revision   `json:"revision"`
	// SourceEngines are the engines a meta engine searches.
	SourceEngines []string `json:"source_engines,omitempty"`
	// Index is the hidden core index (empty for meta engines).
	Index string `json:"index,omitempty"`
	// Generation counts reindexes (it names the index after the first).
	Generation int       `json:"generation"`
	Schema     Schema    `json:"schema"`
	CreatedAt  time.Time `json:"created_at"`
}

// LanguageName returns the language or "" (universal).
func (e *Engine) LanguageName() string {
	if e.Language == nil {
		return ""
	}
	return *e.Language
}

// EngineSpec is a create-engine request.
type EngineSpec struct {
	Name          string
	Language      *string
	Type          string
	SourceEngines []string
	Revision      string
}

// Engine returns an engine. Returns 404 Could not find engine.
func (s *Service) Engine(name string) (*Engine, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.engines[name]
	if !ok {
		return nil, EngineNotFound()
	}
	return e, nil
}

// Engines returns every engine sorted by name.
func (s *Service) Engines() []*Engine {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*Engine, 0, len(s.engines))
	for _, e := range s.engines {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// CoreIndex returns the hidden core index of a (default) engine.
func (s *Service) CoreIndex(e *Engine) (*searchcore.Index, error) {
	if e.Type == EngineMeta {
		return nil, Errorf(eserr.Invalid, "Meta engines have no documents of their own")
	}
	idx, ok := s.core.Index(e.Index)
	if !ok {
		return nil, eserr.Internalf(nil, "engine [%s] has lost its index [%s]", e.Name, e.Index)
	}
	return idx, nil
}

// SearchIndices returns the core indices an engine searches: its own, or
// the source engines' for a meta engine (with their engines, same order).
func (s *Service) SearchIndices(e *Engine) ([]*searchcore.Index, []*Engine, error) {
	engines := []*Engine{e}
	if e.Type == EngineMeta {
		engines = engines[:0]
		for _, n := range e.SourceEngines {
			src, err := s.Engine(n)
			if err != nil {
				continue
			}
			engines = append(engines, src)
		}
	}
	out := make([]*searchcore.Index, 0, len(engines))
	for _, src := range engines {
		idx, err := s.CoreIndex(src)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, idx)
	}
	return out, engines, nil
}

// DocumentCount counts an engine's documents (a meta engine's: the sum over
// its sources).
func (s *Service) DocumentCount(ctx context.Context, e *Engine) (int64, error) {
	indices, _, err := s.SearchIndices(e)
	if err != nil || len(indices) == 0 {
		return 0, err
	}
	res, err := s.core.Count(ctx, indices, nil, 0)
	if err != nil {
		return 0, err
	}
	return res.Count, nil
}

// validEngineName: lowercase letters, digits and hyphens, 1..64 characters.
func validEngineName(n string) bool {
	if n == "" || len(n) > 64 || n[0] == '-' {
		return false
	}
	for _, c := range n {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func validLanguage(l string) bool {
	for _, x := range Languages {
		if x == l {
			return true
		}
	}
	return false
}

// CreateEngine creates an engine (and its hidden index). Request errors
// ("Name is already taken", "Source engines are required for meta
// engines", ...) are Errors(eserr.Invalid, ...): 200 {"errors":[...]}.
func (s *Service) CreateEngine(ctx context.Context, spec EngineSpec) (*Engine, error) {
	var msgs []string
	switch {
	case spec.Name == "":
		msgs = append(msgs, "Name is required")
	case !validEngineName(spec.Name):
		msgs = append(msgs, "Name can only contain lowercase letters, numbers, and hyphens")
	}
	typ := EngineType(spec.Type)
	if spec.Type == "" {
		typ = EngineDefault
	}
	if typ != EngineDefault && typ != EngineMeta {
		msgs = append(msgs, "Type must be one of: default, meta")
	}
	if spec.Language != nil && !validLanguage(*spec.Language) {
		msgs = append(msgs, fmt.Sprintf("Language '%s' is not supported", *spec.Language))
	}
	rev, err := ParseRevision(spec.Revision, s.rev)
	if err != nil {
		msgs = append(msgs, Messages(err.(*eserr.Error))...)
	}
	if typ == EngineMeta {
		if spec.Language != nil {
			msgs = append(msgs, "Language cannot be set on meta engines")
		}
		msgs = append(msgs, s.checkSources(spec.Name, nil, spec.SourceEngines)...)
	} else if len(spec.SourceEngines) > 0 {
		msgs = append(msgs, "Source engines can only be set on meta engines")
	}
	if len(msgs) > 0 {
		return nil, Errors(eserr.Invalid, msgs...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.engines[spec.Name]; ok {
		return nil, Errors(eserr.Invalid, "Name is already taken")
	}
	e := &Engine{Name: spec.Name, Type: typ, Language: spec.Language, Revision: rev, Schema: Schema{}, CreatedAt: s.now().UTC()}
	if typ == EngineMeta {
		e.SourceEngines = dedupe(spec.SourceEngines)
	} else {
		e.Index = IndexPrefix + e.Name
		if err := s.createIndex(ctx, e); err != nil {
			return nil, err
		}
	}
	if err := s.persistEngine(ctx, e); err != nil {
		if e.Index != "" {
			_ = s.dropIndex(ctx, e.Index)
		}
		return nil, err
	}
	s.engines[e.Name] = e
	s.locks[e.Name] = &sync.Mutex{}
	return e, nil
}

// createIndex creates e.Index with the mapping of e.Schema.
func (s *Service) createIndex(ctx context.Context, e *Engine) error {
	settings := json.RawMessage(`{"index":{"hidden":true,"number_of_shards":1,"number_of_replicas":0}}`)
	_, err := s.core.CreateIndex(ctx, e.Index, searchcore.CreateIndexRequest{
		Settings: settings,
		Mappings: IndexMapping(e.Schema, e.Revision, e.LanguageName()),
	})
	if err != nil {
		return fmt.Errorf("create index of engine [%s]: %w", e.Name, err)
	}
	return nil
}

func (s *Service) dropIndex(ctx context.Context, name string) error {
	if _, ok := s.core.Index(name); !ok {
		return nil
	}
	return s.core.DeleteIndex(ctx, []string{name})
}

// checkSources validates source engines of meta engine name (cur are the
// sources it already has).
func (s *Service) checkSources(name string, cur, add []string) []string {
	if len(add) == 0 && len(cur) == 0 {
		return []string{"Source engines are required for meta engines"}
	}
	var msgs []string
	s.mu.RLock()
	for _, n := range add {
		src, ok := s.engines[n]
		switch {
		case !ok:
			msgs = append(msgs, fmt.Sprintf("Source engine does not exist: %s", n))
		case src.Type == EngineMeta:
			msgs = append(msgs, fmt.Sprintf("Source engine cannot be a meta engine: %s", n))
		case n == name:
			msgs = append(msgs, "A meta engine cannot be its own source engine")
		}
	}
	s.mu.RUnlock()
	if len(dedupe(append(append([]string{}, cur...), add...))) > s.limits.SourceEngines {
		msgs = append(msgs, fmt.Sprintf("Meta engines can have at most %d source engines", s.limits.SourceEngines))
	}
	return msgs
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, x := range in {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func (s *Service) persistEngine(ctx context.Context, e *Engine) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return s.store.PutMeta(ctx, metaEnginePrefix+e.Name, b)
}

// DeleteEngine deletes an engine and its documents; it leaves the meta
// engines that named it as a source.
func (s *Service) DeleteEngine(ctx context.Context, name string) error {
	// Wait for the engine's writes: a write finishing after the index is
	// gone would auto-create a plain index under the hidden name.
	_, unlock, err := s.lockEngine(name)
	if err != nil {
		return err
	}
	defer unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.engines[name]
	if !ok {
		return EngineNotFound()
	}
	if err := s.store.DeleteMeta(ctx, metaEnginePrefix+name); err != nil {
		return err
	}
	delete(s.engines, name)
	delete(s.locks, name)
	for _, m := range s.engines {
		if m.Type != EngineMeta || !contains(m.SourceEngines, name) {
			continue
		}
		cp := *m
		cp.SourceEngines = remove(m.SourceEngines, []string{name})
		if err := s.persistEngine(ctx, &cp); err != nil {
			return err
		}
		s.engines[m.Name] = &cp
	}
	if e.Index != "" {
		return s.dropIndex(ctx, e.Index)
	}
	return nil
}

func contains(l []string, x string) bool {
	for _, y := range l {
		if y == x {
			return true
		}
	}
	return false
}

func remove(l, drop []string) []string {
	out := []string{}
	for _, x := range l {
		if !contains(drop, x) {
			out = append(out, x)
		}
	}
	return out
}

// AddSourceEngines adds source engines to a meta engine.
func (s *Service) AddSourceEngines(ctx context.Context, name string, add []string) (*Engine, error) {
	e, err := s.Engine(name)
	if err != nil {
		return nil, err
	}
	if e.Type != EngineMeta {
		return nil, Errors(eserr.Invalid, "Source engines can only be changed on meta engines")
	}
	if msgs := s.checkSources(name, e.SourceEngines, add); len(msgs) > 0 {
		return nil, Errors(eserr.Invalid, msgs...)
	}
	return s.updateSources(ctx, name, func(cur []string) []string { return dedupe(append(append([]string{}, cur...), add...)) })
}

// RemoveSourceEngines removes source engines from a meta engine; a meta
// engine keeps at least one.
func (s *Service) RemoveSourceEngines(ctx context.Context, name string, drop []string) (*Engine, error) {
	e, err := s.Engine(name)
	if err != nil {
		return nil, err
	}
	if e.Type != EngineMeta {
		return nil, Errors(eserr.Invalid, "Source engines can only be changed on meta engines")
	}
	var msgs []string
	for _, n := range drop {
		if !contains(e.SourceEngines, n) {
			msgs = append(msgs, fmt.Sprintf("Source engine is not a source of this meta engine: %s", n))
		}
	}
	if len(msgs) == 0 && len(remove(e.SourceEngines, drop)) == 0 {
		msgs = append(msgs, "Source engines are required for meta engines")
	}
	if len(msgs) > 0 {
		return nil, Errors(eserr.Invalid, msgs...)
	}
	return s.updateSources(ctx, name, func(cur []string) []string { return remove(cur, drop) })
}

func (s *Service) updateSources(ctx context.Context, name string, f func([]string) []string) (*Engine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.engines[name]
	if !ok {
		return nil, EngineNotFound()
	}
	cp := *e
	cp.SourceEngines = f(e.SourceEngines)
	if err := s.persistEngine(ctx, &cp); err != nil {
		return nil, err
	}
	s.engines[name] = &cp
	return &cp, nil
}

// lockEngine serialises writes and schema changes of one engine and
// returns its current definition.
func (s *Service) lockEngine(name string) (*Engine, func(), error) {
	s.mu.RLock()
	l, ok := s.locks[name]
	s.mu.RUnlock()
	if !ok {
		return nil, nil, EngineNotFound()
	}
	l.Lock()
	s.mu.RLock()
	e, ok := s.engines[name]
	same := s.locks[name] == l
	s.mu.RUnlock()
	if !ok || !same {
		// Deleted (and perhaps re-created) while we waited.
		l.Unlock()
		return nil, nil, EngineNotFound()
	}
	return e, l.Unlock, nil
}

// publish replaces an engine definition (persisted first).
func (s *Service) publish(ctx context.Context, e *Engine) error {
	if err := s.persistEngine(ctx, e); err != nil {
		return err
	}
	s.mu.Lock()
	s.engines[e.Name] = e
	s.mu.Unlock()
	return nil
}
