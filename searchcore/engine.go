package searchcore

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/cluster"
	"github.com/quarry-search/quarry/searchcore/mapping"
	"github.com/quarry-search/quarry/searchcore/query"
)

// Config configures an Engine.
type Config struct {
	// DataPath is the folder holding the bluge shard indices.
	DataPath string
	// Storage is the durable store (badger in production).
	Storage Storage
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// ClusterName and NodeName identify this node.
	ClusterName string
	NodeName    string
	// AutoCreateIndex allows writes to create missing indices (default true
	// through NewConfig).
	AutoCreateIndex bool
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// ScriptsPath is path.scripts, the folder of file search templates (<name>.mustache).
	ScriptsPath string
	// ScriptAllowedTypes is script.allowed_types (inline, stored, none; empty allows all).
	ScriptAllowedTypes string
	// ScriptAllowedContexts is script.allowed_contexts (context names or none; empty allows all).
	ScriptAllowedContexts string
	// MaxOpenScrollContexts is search.max_open_scroll_context: the most
	// scroll contexts open at once (0 means the default, 500).
	MaxOpenScrollContexts int
	// Node describes the local node (roles, attributes, node settings).
	Node cluster.NodeConfig
	// PointsCacheBytes bounds the memory of the numeric points range
	// queries read (0 means query.DefaultPointsCacheBytes; negative
	// disables points, and range queries read the term dictionaries).
	PointsCacheBytes int64
}

// Engine is the search core facade: indices, documents and searches.
type Engine struct {
	cfg   Config
	log   *slog.Logger
	store Storage
	now   func() time.Time

	// mu guards indices and aliases (the cluster metadata).
	mu      sync.RWMutex
	indices map[string]*Index
	// closed are the closed indices: metadata only, no shards (see close.go).
	closed map[string]*Index
	// clusterUUID identifies this cluster (persisted).
	clusterUUID string
	// cl is the cluster state (settings, voting exclusions, local node).
	cl *clusterRuntime

	// contexts are the open scrolls and points in time.
	contexts *contextRegistry
	// points caches the numeric points of every shard's segments (nil:
	// disabled).
	points *query.PointsCache

	stop      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

const (
	metaIndexPrefix = "index/"
	metaClusterUUID = "cluster/uuid"
)

// Open loads every index from storage, opens its shards (replaying what the
// bluge indices lack) and starts the periodic refresher.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Storage == nil {
		return nil, errors.New("searchcore: Config.Storage is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ClusterName == "" {
		cfg.ClusterName = "quarry"
	}
	if cfg.NodeName == "" {
		host, _ := os.Hostname()
		cfg.NodeName = host
	}
	e := &Engine{
		cfg:     cfg,
		log:     cfg.Logger,
		store:   cfg.Storage,
		now:     cfg.Now,
		indices: make(map[string]*Index),
		closed:  make(map[string]*Index),
		stop:    make(chan struct{}),
	}
	e.contexts = newContextRegistry(cfg.Now, cfg.MaxOpenScrollContexts)
	if cfg.PointsCacheBytes >= 0 {
		e.points = query.NewPointsCache(cfg.PointsCacheBytes, cfg.Now)
	}
	if err := os.MkdirAll(filepath.Join(cfg.DataPath, "indices"), 0o755); err != nil {
		return nil, fmt.Errorf("create data folder: %w", err)
	}
	uuid, err := e.store.GetMeta(ctx, metaClusterUUID)
	switch {
	case errors.Is(err, ErrNotFound):
		e.clusterUUID = newUUID()
		if err := e.store.PutMeta(ctx, metaClusterUUID, []byte(e.clusterUUID)); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		e.clusterUUID = string(uuid)
	}
	if err := e.openClusterState(ctx); err != nil {
		return nil, err
	}
	var metas []*indexMeta
	err = e.store.ListMeta(ctx, metaIndexPrefix, func(_ string, v []byte) error {
		var m indexMeta
		if err := json.Unmarshal(v, &m); err != nil {
			return fmt.Errorf("decode index metadata: %w", err)
		}
		metas = append(metas, &m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, m := range metas {
		if m.State == stateClosed {
			idx, err := e.newIndex(m)
			if err != nil {
				e.closeIndices()
				return nil, fmt.Errorf("load closed index [%s]: %w", m.Name, err)
			}
			e.closed[m.Name] = idx
			continue
		}
		idx, err := e.openIndex(ctx, m)
		if err != nil {
			e.closeIndices()
			return nil, fmt.Errorf("open index [%s]: %w", m.Name, err)
		}
		e.indices[m.Name] = idx
	}
	e.wg.Add(2)
	go e.refresher()
	go e.reaper()
	return e, nil
}

// Close refreshes and closes every index.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		close(e.stop)
		e.wg.Wait()
		e.mu.Lock()
		defer e.mu.Unlock()
		e.closeErr = e.closeIndices()
	})
	return e.closeErr
}

func (e *Engine) closeIndices() error {
	var first error
	for name, idx := range e.indices {
		if err := idx.close(); err != nil && first == nil {
			first = err
		}
		delete(e.indices, name)
	}
	return first
}

// ClusterName returns the configured cluster name.
func (e *Engine) ClusterName() string { return e.cfg.ClusterName }

// NodeName returns the configured node name.
func (e *Engine) NodeName() string { return e.cfg.NodeName }

// ClusterUUID returns the persistent cluster UUID.
func (e *Engine) ClusterUUID() string { return e.clusterUUID }

// refresher refreshes every index at its refresh interval.
func (e *Engine) refresher() {
	defer e.wg.Done()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case now := <-t.C:
			e.mu.RLock()
			list := make([]*Index, 0, len(e.indices))
			for _, idx := range e.indices {
				list = append(list, idx)
			}
			e.mu.RUnlock()
			for _, idx := range list {
				idx.maybeRefresh(now)
			}
		}
	}
}

// newUUID returns a random URL-safe identifier like Elasticsearch's.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])[:22]
}

// indexMeta is the persisted definition of an index.
type indexMeta struct {
	Name         string                `json:"name"`
	UUID         string                `json:"uuid"`
	CreationDate int64                 `json:"creation_date"`
	Settings     map[string]any        `json:"settings"`
	Mapping      json.RawMessage       `json:"mapping"`
	Aliases      map[string]*AliasMeta `json:"aliases,omitempty"`
	Version      int64                 `json:"version"`
	// State is "close" for a closed index, empty when open.
	State string `json:"state,omitempty"`
	// MappingType is the mapping type name set by a typed (7.x
	// include_type_name=true) create or put mapping, or by the first
	// typeless one (_doc); empty when no mapping request named one.
	MappingType string `json:"mapping_type,omitempty"`
	// DefaultMapping is the index's _default_ mapping (rendered), the base
	// of the mapping type the index gets first; empty when it has none.
	DefaultMapping json.RawMessage `json:"default_mapping,omitempty"`
	// NumericStep is the precision step of the index's numeric terms
	// (mapping.NumericStep since it was recorded); 0 for indices created
	// before, which keep mapping.LegacyNumericStep.
	NumericStep uint `json:"numeric_step,omitempty"`
	// SourceDict is the zstd dictionary the index's stored sources are
	// compressed with (sourcecodec.go); empty until it has one.
	SourceDict []byte `json:"source_dict,omitempty"`
}

// AliasMeta is one alias of an index.
type AliasMeta struct {
	Filter        json.RawMessage `json:"filter,omitempty"`
	IndexRouting  string          `json:"index_routing,omitempty"`
	SearchRouting string          `json:"search_routing,omitempty"`
	IsWriteIndex  *bool           `json:"is_write_index,omitempty"`
	IsHidden      *bool           `json:"is_hidden,omitempty"`
}

// Index is one open index: its metadata and shards.
type Index struct {
	engine *Engine
	// name and uuid never change; they are read without metaMu, while
	// metadata updates replace meta.
	name, uuid string
	// metaMu guards meta, mapping and analyzers (replaced, never mutated).
	metaMu sync.RWMutex
	meta   *indexMeta
	// codec compresses stored sources once the index has a dictionary
	// (set once, read without metaMu).
	codec     atomic.Pointer[sourceCodec]
	settings  *IndexSettings
	mapping   *mapping.Mapping
	analyzers *analysis.Registry

	shards []*shard

	lastRefresh time.Time
	refreshMu   sync.Mutex
}

// Name returns the index name.
func (ix *Index) Name() string { return ix.name }

// UUID returns the index UUID.
func (ix *Index) UUID() string { return ix.uuid }

// Mapping returns the current mapping (immutable).
func (ix *Index) Mapping() *mapping.Mapping {
	ix.metaMu.RLock()
	defer ix.metaMu.RUnlock()
	return ix.mapping
}

// Settings returns the parsed index settings.
func (ix *Index) Settings() *IndexSettings {
	ix.metaMu.RLock()
	defer ix.metaMu.RUnlock()
	return ix.settings
}

// Analyzers returns the index's analyzer registry.
func (ix *Index) Analyzers() *analysis.Registry {
	ix.metaMu.RLock()
	defer ix.metaMu.RUnlock()
	return ix.analyzers
}

func (ix *Index) metaSnapshot() *indexMeta {
	ix.metaMu.RLock()
	defer ix.metaMu.RUnlock()
	return ix.meta
}

func (e *Engine) openIndex(ctx context.Context, m *indexMeta) (*Index, error) {
	idx, err := e.newIndex(m)
	if err != nil {
		return nil, err
	}
	if err := idx.openShards(ctx); err != nil {
		return nil, err
	}
	return idx, nil
}

// newIndex builds the index of m without opening its shards.
func (e *Engine) newIndex(m *indexMeta) (*Index, error) {
	settings, err := parseIndexSettings(m.Settings)
	if err != nil {
		return nil, err
	}
	reg, err := analysis.NewRegistry(settings.Analysis)
	if err != nil {
		return nil, err
	}
	mp := mapping.New()
	if len(m.Mapping) > 0 && string(m.Mapping) != "{}" {
		mp, err = mapping.Parse(m.Mapping, reg)
		if err != nil {
			return nil, err
		}
	}
	ix := &Index{engine: e, name: m.Name, uuid: m.UUID, meta: m, settings: settings, mapping: mp, analyzers: reg, lastRefresh: e.now()}
	if len(m.SourceDict) > 0 {
		c, err := newSourceCodec(m.SourceDict)
		if err != nil {
			return nil, err
		}
		ix.codec.Store(c)
	}
	return ix, nil
}

// openShards opens (replaying) the shards of the index.
func (ix *Index) openShards(ctx context.Context) error {
	e, m := ix.engine, ix.meta
	for i := 0; i < ix.settings.NumberOfShards; i++ {
		dir := filepath.Join(e.cfg.DataPath, "indices", m.UUID, fmt.Sprint(i))
		var points *query.PointsScope
		if e.points != nil {
			points = e.points.Scope()
		}
		sh, err := openShard(ctx, i, m.UUID, dir, e.store, ix.buildDoc, func() bool { return ix.Mapping().HasNested() }, points, e.log)
		if err != nil {
			_ = ix.close()
			ix.shards = nil
			return err
		}
		ix.shards = append(ix.shards, sh)
	}
	return nil
}

func (ix *Index) close() error {
	var first error
	for _, sh := range ix.shards {
		if err := sh.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// maybeRefresh refreshes the index if its refresh interval has passed.
func (ix *Index) maybeRefresh(now time.Time) {
	interval := ix.Settings().RefreshInterval
	if interval <= 0 {
		return
	}
	ix.refreshMu.Lock()
	due := now.Sub(ix.lastRefresh) >= interval
	if due {
		ix.lastRefresh = now
	}
	ix.refreshMu.Unlock()
	if !due {
		return
	}
	for _, sh := range ix.shards {
		if _, err := sh.refresh(); err != nil {
			ix.engine.log.Warn("periodic refresh failed", "index", ix.Name(), "err", err)
		}
	}
}

// Refresh makes every applied operation of the index searchable, waiting for
// operations already acknowledged.
func (ix *Index) Refresh(ctx context.Context) error {
	for _, sh := range ix.shards {
		sh.writeMu.Lock()
		target := sh.nextSeq - 1
		sh.writeMu.Unlock()
		if err := sh.refreshTo(ctx, target); err != nil {
			return err
		}
	}
	return nil
}

// persistMeta stores m durably.
func (e *Engine) persistMeta(ctx context.Context, m *indexMeta) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return e.store.PutMeta(ctx, metaIndexPrefix+m.Name, b)
}

// ValidateIndexName checks an index name against the Elasticsearch rules.
func ValidateIndexName(name string) error {
	switch {
	case name == "":
		return InvalidIndexName(name, "must not be empty")
	case strings.ToLower(name) != name:
		return InvalidIndexName(name, "must be lowercase")
	case name == "." || name == "..":
		return InvalidIndexName(name, "must not be '.' or '..'")
	case strings.HasPrefix(name, "_") || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "+"):
		return InvalidIndexName(name, "must not start with '_', '-', or '+'")
	case strings.ContainsAny(name, "\\/*?\"<>| ,#:"):
		if strings.Contains(name, "#") {
			return InvalidIndexName(name, "must not contain '#'")
		}
		if strings.Contains(name, ":") {
			return InvalidIndexName(name, "must not contain ':'")
		}
		return InvalidIndexName(name, `must not contain the following characters [ , ", *, \, <, |, ,, >, /, ?]`)
	case len(name) > 255:
		return InvalidIndexName(name, fmt.Sprintf("index name is too long, (%d > 255)", len(name)))
	}
	return nil
}

// CreateIndexRequest is the body of a create-index request.
type CreateIndexRequest struct {
	Settings json.RawMessage
	Mappings json.RawMessage
	Aliases  json.RawMessage
	// MappingType names the type of Mappings in the deprecated typed form
	// (include_type_name=true): Mappings is then the type's own mapping.
	// Empty for the typeless form.
	MappingType string
	// DefaultMapping is the _default_ mapping of the typed form: stored
	// with the index and the base of its type's mapping.
	DefaultMapping json.RawMessage
}

// CreateIndex creates an index. Returns resource_already_exists_exception if
// the name is taken and invalid_index_name_exception for a bad name.
func (e *Engine) CreateIndex(ctx context.Context, name string, req CreateIndexRequest) (*Index, error) {
	name, err := resolveDateMathName(name, e.now())
	if err != nil {
		return nil, err
	}
	if err := ValidateIndexName(name); err != nil {
		return nil, err
	}
	req, err = e.applyTemplates(name, req)
	if err != nil {
		return nil, err
	}
	flat, err := flattenSettings(req.Settings)
	if err != nil {
		return nil, err
	}
	settings, err := parseIndexSettings(flat)
	if err != nil {
		return nil, err
	}
	reg, err := analysis.NewRegistry(settings.Analysis)
	if err != nil {
		return nil, err
	}
	var defaultJSON json.RawMessage
	if raw := trimJSON(req.DefaultMapping); len(raw) > 0 && string(raw) != "null" {
		def, err := mapping.Parse(raw, reg)
		if err != nil {
			return nil, mapping.CreateIndexTypeError(DefaultMappingName, err)
		}
		if defaultJSON, err = json.Marshal(def); err != nil {
			return nil, err
		}
		if raw := trimJSON(req.Mappings); len(raw) > 0 && string(raw) != "null" {
			if req.Mappings, err = withDefaults(raw, defaultJSON); err != nil {
				return nil, err
			}
		}
	}
	mp := mapping.New()
	if raw := trimJSON(req.Mappings); len(raw) > 0 && string(raw) != "null" {
		if req.MappingType == "" {
			if err := rejectTypedMapping(raw, "The mapping definition cannot be nested under a type [%s] unless include_type_name is set to true."); err != nil {
				return nil, err
			}
		}
		mp, err = mapping.Parse(raw, reg)
		if err != nil {
			return nil, mapping.CreateIndexError(err)
		}
	}
	aliases, err := parseAliasesBody(req.Aliases)
	if err != nil {
		return nil, err
	}
	mappingJSON, err := json.Marshal(mp)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if existing, ok := e.indices[name]; ok {
		return nil, IndexExists(name, existing.UUID())
	}
	if existing, ok := e.closed[name]; ok {
		return nil, IndexExists(name, existing.UUID())
	}
	if e.aliasExistsLocked(name) {
		return nil, InvalidIndexName(name, "an alias with the same name already exists").With("index", name)
	}
	for a := range aliases {
		if _, ok := e.indices[a]; ok {
			return nil, InvalidIndexName(a, "an index or data stream exists with the same name as the alias")
		}
	}
	uuid := newUUID()
	now := e.now()
	flat["index.uuid"] = uuid
	flat["index.creation_date"] = fmt.Sprint(now.UnixMilli())
	flat["index.provided_name"] = name
	flat["index.version.created"] = versionCreated
	if _, ok := flat["index.number_of_shards"]; !ok {
		flat["index.number_of_shards"] = "1"
	}
	if _, ok := flat["index.number_of_replicas"]; !ok {
		flat["index.number_of_replicas"] = "1"
	}
	if _, ok := flat["index.routing.allocation.include._tier_preference"]; !ok {
		flat["index.routing.allocation.include._tier_preference"] = "data_content"
	}
	m := &indexMeta{Name: name, UUID: uuid, CreationDate: now.UnixMilli(), Settings: flat, Mapping: mappingJSON, Aliases: aliases, Version: 1, MappingType: req.MappingType, DefaultMapping: defaultJSON, NumericStep: mapping.NumericStep}
	if err := e.persistMeta(ctx, m); err != nil {
		return nil, err
	}
	idx, err := e.openIndex(ctx, m)
	if err != nil {
		_ = e.store.DeleteMeta(ctx, metaIndexPrefix+name)
		return nil, err
	}
	e.indices[name] = idx
	e.log.Info("created index", "index", name, "uuid", uuid, "shards", settings.NumberOfShards)
	return idx, nil
}

// versionCreated is the index.version.created value reported (7.17.0).
const versionCreated = "7170099"

// rejectTypedMapping fails mappings wrapped in the type name _doc, {"_doc":
// {...}} (the 7.x behaviour without include_type_name, as
// MapperService.isMappingSourceTyped: any other single key is left to the
// mapping parser, which names it an unsupported root parameter); msg may use
// %s for the type.
func rejectTypedMapping(raw json.RawMessage, msg string) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return MapperParsing("Failed to parse mapping [_doc]: %s", err.Error())
	}
	if _, ok := top[DefaultMappingType]; ok && len(top) == 1 {
		if strings.Contains(msg, "%s") {
			return IllegalArgument(msg, DefaultMappingType)
		}
		return IllegalArgument("%s", msg)
	}
	return nil
}

// DefaultMappingType is the single mapping type of typeless 7.x requests.
const DefaultMappingType = "_doc"

// DeleteIndex deletes the named indices (already resolved names).
func (e *Engine) DeleteIndex(ctx context.Context, names []string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, name := range names {
		idx, ok := e.indices[name]
		if !ok {
			if idx, ok = e.closed[name]; !ok {
				return IndexNotFound(name)
			}
		}
		if err := e.store.DeleteMeta(ctx, metaIndexPrefix+name); err != nil {
			return err
		}
		delete(e.indices, name)
		delete(e.closed, name)
		// scrolls and points in time over the index go with it
		e.contexts.freeIndex(idx)
		if err := idx.close(); err != nil {
			e.log.Warn("closing deleted index", "index", name, "err", err)
		}
		if err := e.store.DropIndex(ctx, idx.UUID()); err != nil {
			return err
		}
		if err := os.RemoveAll(filepath.Join(e.cfg.DataPath, "indices", idx.UUID())); err != nil {
			e.log.Warn("removing index files", "index", name, "err", err)
		}
		e.log.Info("deleted index", "index", name)
	}
	return nil
}

// Index returns the open index with exactly this name (not an alias).
func (e *Engine) Index(name string) (*Index, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	idx, ok := e.indices[name]
	return idx, ok
}

// Indices returns all indices sorted by name.
func (e *Engine) Indices() []*Index {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]*Index, 0, len(e.indices))
	for _, idx := range e.indices {
		out = append(out, idx)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// PutMapping merges a typeless mapping update into each index.
func (e *Engine) PutMapping(ctx context.Context, indices []*Index, body json.RawMessage) error {
	if err := rejectTypedMapping(body, "Types cannot be provided in put mapping requests, unless the include_type_name parameter is set to true."); err != nil {
		return err
	}
	return e.putMapping(ctx, indices, DefaultMappingType, false, body)
}

// PutTypedMapping merges a mapping update given with a type name (the
// deprecated include_type_name=true form). The body is wrapped in the type,
// {"<typ>":{...}}, or bare. An index holds a single type: an update under
// another type fails, except the bare form under _doc, which updates
// whatever type the index has (MapperService.getTypeForUpdate).
func (e *Engine) PutTypedMapping(ctx context.Context, indices []*Index, typ string, body json.RawMessage) error {
	body, typed := unwrapMember(body, typ)
	return e.putMapping(ctx, indices, typ, typed, body)
}

// unwrapMember returns the value of body's member name when body is an
// object with that one member ({"<name>":{...}}), and body itself
// otherwise; ok tells which.
func unwrapMember(body json.RawMessage, name string) (json.RawMessage, bool) {
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) == nil && len(members) == 1 {
		if inner, ok := members[name]; ok {
			return inner, true
		}
	}
	return body, false
}

func (e *Engine) putMapping(ctx context.Context, indices []*Index, typ string, typed bool, body json.RawMessage) error {
	// Validate against every index first so a conflict changes nothing.
	type change struct {
		idx *Index
		mp  *mapping.Mapping
		typ string
	}
	var changes []change
	for _, idx := range indices {
		existing, forUpdate := idx.MappingType(), typ
		if !typed && typ == DefaultMappingType && existing != "" {
			forUpdate = existing
		}
		if existing != "" && existing != forUpdate {
			return IllegalArgument("Rejecting mapping update to [%s] as the final mapping would have more than 1 type: [%s, %s]", idx.Name(), existing, forUpdate)
		}
		src := body
		if existing == "" {
			// The first type starts from the _default_ mapping.
			var err error
			if src, err = withDefaults(body, idx.DefaultMappingJSON()); err != nil {
				return err
			}
		}
		upd, err := mapping.Parse(src, idx.Analyzers())
		if err != nil {
			return err
		}
		merged, err := idx.Mapping().Merge(upd)
		if err != nil {
			return err
		}
		changes = append(changes, change{idx, merged, forUpdate})
	}
	for _, c := range changes {
		if err := c.idx.setMapping(ctx, c.mp, c.typ); err != nil {
			return err
		}
	}
	return nil
}

// setMapping persists and publishes a new mapping of the given type.
func (ix *Index) setMapping(ctx context.Context, mp *mapping.Mapping, typ string) error {
	raw, err := json.Marshal(mp)
	if err != nil {
		return err
	}
	ix.metaMu.Lock()
	defer ix.metaMu.Unlock()
	m := *ix.meta
	m.Mapping = raw
	m.MappingType = typ
	m.Version++
	if err := ix.engine.persistMeta(ctx, &m); err != nil {
		return err
	}
	ix.meta = &m
	ix.mapping = mp
	return nil
}

// mergeDynamic merges a dynamic mapping update produced while parsing a
// document into the current mapping and persists it. It returns the mapping
// now in force.
func (ix *Index) mergeDynamic(ctx context.Context, upd *mapping.Mapping) (*mapping.Mapping, error) {
	ix.metaMu.Lock()
	defer ix.metaMu.Unlock()
	merged, err := ix.mapping.Merge(upd)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(merged)
	if err != nil {
		return nil, err
	}
	m := *ix.meta
	m.Mapping = raw
	m.Version++
	if err := ix.engine.persistMeta(ctx, &m); err != nil {
		return nil, err
	}
	ix.meta = &m
	ix.mapping = merged
	return merged, nil
}

// UpdateSettings applies dynamic settings to each index.
func (e *Engine) UpdateSettings(ctx context.Context, indices []*Index, body json.RawMessage) error {
	var wrapper map[string]json.RawMessage
	if err := json.Unmarshal(body, &wrapper); err != nil {
		return ParsingError("request body is required")
	}
	body, _ = unwrapMember(body, "settings")
	upd, err := flattenSettings(body)
	if err != nil {
		return err
	}
	if len(upd) == 0 {
		return ValidationError("no settings to update")
	}
	for k := range upd {
		if _, static := staticSettings[k]; static {
			return IllegalArgument("Can't update non dynamic settings [[%s]] for open indices [[%s]]", k, indices[0].Name())
		}
	}
	for _, idx := range indices {
		idx.metaMu.Lock()
		m := *idx.meta
		flat := make(map[string]any, len(m.Settings)+len(upd))
		for k, v := range m.Settings {
			flat[k] = v
		}
		for k, v := range upd {
			if v == nil {
				delete(flat, k)
			} else {
				flat[k] = v
			}
		}
		st, err := parseIndexSettings(flat)
		if err != nil {
			idx.metaMu.Unlock()
			return err
		}
		m.Settings = flat
		m.Version++
		if err := e.persistMeta(ctx, &m); err != nil {
			idx.metaMu.Unlock()
			return err
		}
		idx.meta = &m
		idx.settings = st
		idx.metaMu.Unlock()
	}
	return nil
}

// trimJSON returns raw without surrounding white space.
func trimJSON(raw json.RawMessage) json.RawMessage {
	return json.RawMessage(strings.TrimSpace(string(raw)))
}
