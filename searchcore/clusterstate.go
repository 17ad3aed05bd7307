package searchcore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/cluster"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

const (
	metaClusterState = "cluster/state"
	metaNodeID       = "node/id"
)

// clusterRuntime is the engine's cluster state: the persisted settings and
// voting exclusions, and the local node.
type clusterRuntime struct {
	state *cluster.State
	node  cluster.Node
	// mu serialises updates so the persisted copy matches memory.
	mu sync.Mutex
}

// openClusterState loads the persisted cluster state and the node id.
func (e *Engine) openClusterState(ctx context.Context) error {
	id, err := e.store.GetMeta(ctx, metaNodeID)
	switch {
	case errors.Is(err, ErrNotFound):
		id = []byte(newUUID())
		if err := e.store.PutMeta(ctx, metaNodeID, id); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	st := cluster.NewState()
	b, err := e.store.GetMeta(ctx, metaClusterState)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return err
	default:
		if st, err = cluster.Unmarshal(b); err != nil {
			return err
		}
	}
	e.cl = &clusterRuntime{state: st, node: cluster.NewNode(string(id), e.cfg.NodeName, e.cfg.Node)}
	return nil
}

// LocalNode describes this node.
func (e *Engine) LocalNode() cluster.Node { return e.cl.node }

// Nodes returns every node of the cluster (only the local one for now).
func (e *Engine) Nodes() []cluster.Node { return []cluster.Node{e.cl.node} }

// MasterNode returns the elected master (this node when it is
// master-eligible), and false when there is none.
func (e *Engine) MasterNode() (cluster.Node, bool) {
	return e.cl.node, e.cl.node.Master
}

// ClusterSettings returns a copy of the flat settings of one scope.
func (e *Engine) ClusterSettings(scope cluster.Scope) map[string]any {
	return e.cl.state.Settings(scope)
}

// ClusterSettingDefaults returns the defaults of the known cluster settings
// merged with the node settings (flat keys), as include_defaults shows them.
func (e *Engine) ClusterSettingDefaults() map[string]any {
	out := cluster.Defaults()
	for k, v := range e.cl.node.Settings {
		if v != "" {
			out[k] = v
		}
	}
	return out
}

// isNodeSetting reports whether key is a node setting (set at startup, so
// not dynamically updateable through the cluster settings API).
func (e *Engine) isNodeSetting(key string) bool {
	_, set := e.cl.node.Settings[key]
	return set || e.cl.node.StaticSettings[key] || strings.HasPrefix(key, "node.attr.")
}

// UpdateClusterSettings applies a settings request and persists the
// persistent part. It returns the settings the request set per scope.
func (e *Engine) UpdateClusterSettings(ctx context.Context, persistent, transient json.RawMessage) (map[cluster.Scope]map[string]any, error) {
	var applied map[cluster.Scope]map[string]any
	err := e.changeClusterState(ctx, func(st *cluster.State) error {
		var err error
		applied, err = st.Update(persistent, transient, e.isNodeSetting)
		return err
	})
	return applied, err
}

// changeClusterState applies fn to a copy of the state, persists the copy
// and only then makes it current, so memory always matches what is durable.
func (e *Engine) changeClusterState(ctx context.Context, fn func(*cluster.State) error) error {
	e.cl.mu.Lock()
	defer e.cl.mu.Unlock()
	next := e.cl.state.Clone()
	if err := fn(next); err != nil {
		return err
	}
	next.BumpVersion()
	b, err := next.Marshal()
	if err != nil {
		return err
	}
	if err := e.store.PutMeta(ctx, metaClusterState, b); err != nil {
		return fmt.Errorf("persist cluster state: %w", err)
	}
	e.cl.state.Replace(next)
	return nil
}

// RemoteClusters returns the configured remote clusters.
func (e *Engine) RemoteClusters() []cluster.RemoteCluster { return e.cl.state.Remotes() }

// ShardStats are the measured figures of one shard.
type ShardStats struct {
	Index string
	Shard int
	// Docs is the number of live documents visible to search.
	Docs int64
	// Deleted counts deleted documents not yet merged away.
	Deleted int64
	// StoreBytes is the size of the shard's bluge files on disk.
	StoreBytes int64
	// IndexTotal, DeleteTotal and Refreshes count operations since start.
	IndexTotal, DeleteTotal, Refreshes int64
	// GetTotal counts document GETs (including terms-lookup fetches).
	GetTotal int64
}

// ShardStats measures every shard of the given indices (all when nil).
func (e *Engine) ShardStats(indices []*Index) []ShardStats {
	if indices == nil {
		indices = e.Indices()
	}
	var out []ShardStats
	for _, ix := range indices {
		for _, sh := range ix.shards {
			st := ShardStats{
				Index: ix.Name(), Shard: sh.num,
				IndexTotal:  sh.stats.indexTotal.Load(),
				DeleteTotal: sh.stats.deleteTotal.Load(),
				Refreshes:   sh.stats.refreshes.Load(),
				GetTotal:    sh.stats.getTotal.Load(),
				StoreBytes:  dirSize(filepath.Join(e.cfg.DataPath, "indices", ix.UUID(), fmt.Sprint(sh.num))),
			}
			rr := sh.acquire()
			if rr != nil {
				if n, err := rr.r.Count(); err == nil {
					st.Docs = int64(n)
				}
				st.Deleted, _ = deletedDocs(rr.r)
				rr.release()
			}
			out = append(out, st)
		}
	}
	return out
}

// dirSize sums the sizes of the files under dir.
func dirSize(dir string) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, ierr := d.Info(); ierr == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}

// DataPath returns the node's data folder (path.data).
func (e *Engine) DataPath() string { return e.cfg.DataPath }

// VotingExclusions returns the voting configuration exclusions.
func (e *Engine) VotingExclusions() []cluster.VotingExclusion { return e.cl.state.VotingExclusions() }

// AddVotingExclusions excludes nodes, named by node names or by node ids
// (exactly one list), from the voting configuration and persists it. A name
// or id matching no node is recorded with the other side _absent_.
func (e *Engine) AddVotingExclusions(ctx context.Context, nodeNames, nodeIDs []string) error {
	if (len(nodeNames) == 0) == (len(nodeIDs) == 0) {
		return IllegalArgument("Please set node identifiers correctly. One and only one of [node_name], [node_names] and [node_ids] has to be set")
	}
	nodes := e.Nodes()
	var add []cluster.VotingExclusion
	for _, name := range nodeNames {
		ex := cluster.VotingExclusion{NodeID: cluster.Absent, NodeName: name}
		for _, n := range nodes {
			if n.Name == name {
				ex.NodeID = n.ID
			}
		}
		add = append(add, ex)
	}
	for _, id := range nodeIDs {
		ex := cluster.VotingExclusion{NodeID: id, NodeName: cluster.Absent}
		for _, n := range nodes {
			if n.ID == id {
				ex.NodeName = n.Name
			}
		}
		add = append(add, ex)
	}
	return e.changeClusterState(ctx, func(st *cluster.State) error { return st.AddVotingExclusions(add) })
}

// ClearVotingExclusions removes every voting configuration exclusion. With
// waitForRemoval, excluded nodes that are still in the cluster make it fail
// (a node never leaves a one-node cluster).
func (e *Engine) ClearVotingExclusions(ctx context.Context, waitForRemoval bool) error {
	if waitForRemoval {
		for _, ex := range e.VotingExclusions() {
			for _, n := range e.Nodes() {
				if n.ID == ex.NodeID {
					return Errorf(RequestTimeout, "elasticsearch_timeout_exception",
						"timed out waiting for removal of nodes; if nodes should not be removed, set waitForRemoval to false. %s", exclusionsString(e.VotingExclusions()))
				}
			}
		}
	}
	return e.changeClusterState(ctx, func(st *cluster.State) error { st.ClearVotingExclusions(); return nil })
}

func exclusionsString(list []cluster.VotingExclusion) string {
	parts := make([]string, len(list))
	for i, ex := range list {
		parts[i] = "{" + ex.NodeID + "}{" + ex.NodeName + "}"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// ClusterStateVersion counts the changes of the persisted cluster state.
func (e *Engine) ClusterStateVersion() int64 { return e.cl.state.Version() }

// Templates returns the index templates of one kind (legacy or
// composable), sorted by name.
func (e *Engine) Templates(legacy bool) []*cluster.Template { return e.cl.state.Templates(legacy) }

// PutTemplate parses and stores an index template body: composable
// ({index_patterns, template:{settings, mappings, aliases}, composed_of,
// priority, version, _meta}) or legacy ({index_patterns, order, version,
// settings, mappings, aliases}). order, when not nil, overrides the body's.
func (e *Engine) PutTemplate(ctx context.Context, legacy bool, name string, body json.RawMessage, create bool, order *int64) error {
	return e.putTemplate(ctx, &cluster.Template{Name: name, Legacy: legacy}, body, create, order)
}

// PutComponentTemplate parses and stores a component template
// ({template:{settings, mappings, aliases}, version, _meta}).
func (e *Engine) PutComponentTemplate(ctx context.Context, name string, body json.RawMessage, create bool) error {
	return e.putTemplate(ctx, &cluster.Template{Name: name, Component: true}, body, create, nil)
}

func (e *Engine) putTemplate(ctx context.Context, t *cluster.Template, body json.RawMessage, create bool, order *int64) error {
	name, legacy := t.Name, t.Legacy
	kind := "index_template"
	if t.Component {
		kind = "component_template"
	}
	if name == "" || strings.ContainsAny(name, " ,\"*\\<|>/?") || strings.HasPrefix(name, "_") {
		return InvalidIndexName(name, "must not contain the following characters [ , \", *, \\, <, |, ,, >, /, ?]")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return ParsingError("Failed to parse template body: %v", err)
	}
	inner := members
	if t.Component {
		if _, ok := members["template"]; !ok {
			return ParsingError("[%s] Required [template]", kind)
		}
	}
	for k, v := range members {
		var err error
		if t.Component && k != "template" && k != "version" && k != "_meta" {
			return ParsingError("[%s] unknown field [%s]", kind, k)
		}
		switch k {
		case "index_patterns":
			t.IndexPatterns, err = stringOrList(v)
		case "version":
			err = json.Unmarshal(v, &t.Version)
		case "_meta":
			t.Meta = v
		case "priority":
			if legacy {
				return IllegalArgument("unknown key [priority] in the template")
			}
			err = json.Unmarshal(v, &t.Priority)
		case "composed_of":
			if legacy {
				return IllegalArgument("unknown key [composed_of] in the template")
			}
			err = json.Unmarshal(v, &t.ComposedOf)
		case "data_stream":
			return IllegalArgument("data streams are not supported: index template [%s] cannot declare [data_stream]", name)
		case "template":
			if legacy {
				return IllegalArgument("unknown key [template] in the template")
			}
			inner = nil
			if err = json.Unmarshal(v, &inner); err == nil {
				for ik := range inner {
					if ik != "settings" && ik != "mappings" && ik != "aliases" {
						return ParsingError("[template] unknown field [%s]", ik)
					}
				}
			}
		case "order":
			if !legacy {
				return ParsingError("[%s] unknown field [order]", kind)
			}
			err = json.Unmarshal(v, &t.Order)
		case "settings", "mappings", "aliases":
			if !legacy {
				return ParsingError("[%s] unknown field [%s]", kind, k)
			}
		default:
			if legacy {
				return IllegalArgument("unknown key [%s] in the template ", k)
			}
			return ParsingError("[%s] unknown field [%s]", kind, k)
		}
		if err != nil {
			return ParsingError("failed to parse field [%s] of %s [%s]: %v", k, strings.ReplaceAll(kind, "_", " "), name, err)
		}
	}
	if order != nil {
		t.Order = *order
	}
	// Validate the parts the way index creation will use them.
	flat, err := flattenSettings(inner["settings"])
	if err != nil {
		return err
	}
	t.Settings = flat
	parsed, err := parseIndexSettings(flat)
	if err != nil {
		return err
	}
	reg, err := analysis.NewRegistry(parsed.Analysis)
	if err != nil {
		return err
	}
	if raw := trimJSON(inner["mappings"]); len(raw) > 0 && string(raw) != "null" {
		if legacy {
			raw = unwrapDocType(raw)
		}
		if _, err := mapping.Parse(raw, reg); err != nil {
			return mapping.CreateIndexError(err)
		}
		t.Mappings = raw
	}
	if raw := trimJSON(inner["aliases"]); len(raw) > 0 && string(raw) != "null" {
		if _, err := parseAliasesBody(raw); err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &t.Aliases); err != nil {
			return ParsingError("failed to parse aliases: %v", err)
		}
	}
	return e.changeClusterState(ctx, func(st *cluster.State) error { return st.PutTemplate(t, create) })
}

// unwrapDocType removes a legacy template's single mapping type ({"_doc":{...}}).
func unwrapDocType(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || len(m) != 1 {
		return raw
	}
	for k, v := range m {
		if k == "_doc" || (!strings.HasPrefix(k, "_") && k != "properties" && k != "dynamic" && k != "dynamic_templates" && k != "date_detection" && k != "numeric_detection" && bytes.HasPrefix(bytes.TrimSpace(v), []byte("{"))) {
			return v
		}
	}
	return raw
}

func stringOrList(raw json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var list []string
	err := json.Unmarshal(raw, &list)
	return list, err
}

// DeleteTemplates deletes templates matching a comma-separated list of
// names or wildcards. Returns a not-found error when none matches.
func (e *Engine) DeleteTemplates(ctx context.Context, legacy bool, names string) error {
	var removed []string
	err := e.changeClusterState(ctx, func(st *cluster.State) error {
		removed = st.DeleteTemplates(legacy, names)
		if len(removed) == 0 {
			if legacy {
				return Errorf(NotFound, "index_template_missing_exception", "index_template [%s] missing", names)
			}
			return Errorf(NotFound, "resource_not_found_exception", "index_template matching [%s] not found", names)
		}
		return nil
	})
	return err
}

// ComponentTemplates returns the component templates, sorted by name.
func (e *Engine) ComponentTemplates() []*cluster.Template { return e.cl.state.ComponentTemplates() }

// DeleteComponentTemplates deletes the component templates matching a
// comma-separated list of names or wildcards: none matching a concrete
// name is a not-found error, one still in use an illegal argument.
func (e *Engine) DeleteComponentTemplates(ctx context.Context, names string) error {
	return e.changeClusterState(ctx, func(st *cluster.State) error {
		removed, err := st.DeleteComponentTemplates(names)
		if err != nil {
			return err
		}
		if len(removed) == 0 && names != "*" && names != "_all" {
			return Errorf(NotFound, "resource_not_found_exception", "%s", names)
		}
		return nil
	})
}

// applyTemplates merges the templates matching a new index under the
// request: settings and aliases from the request win, mappings merge.
func (e *Engine) applyTemplates(name string, req CreateIndexRequest) (CreateIndexRequest, error) {
	tpls := e.cl.state.TemplatesFor(name)
	if len(tpls) == 0 {
		return req, nil
	}
	settings := map[string]any{}
	var mappings []json.RawMessage
	aliases := map[string]json.RawMessage{}
	for _, t := range tpls {
		for k, v := range t.Settings {
			settings[k] = v
		}
		mappings = append(mappings, t.Mappings)
		for a, def := range t.Aliases {
			aliases[strings.ReplaceAll(a, "{index}", name)] = def
		}
	}
	reqSettings, err := flattenSettings(req.Settings)
	if err != nil {
		return req, err
	}
	for k, v := range reqSettings {
		settings[k] = v
	}
	if len(settings) > 0 {
		b, err := json.Marshal(settings)
		if err != nil {
			return req, err
		}
		req.Settings = b
	}
	mergedMapping, err := cluster.MergeMappings(append(mappings, req.Mappings)...)
	if err != nil {
		return req, err
	}
	if mergedMapping != nil {
		req.Mappings = mergedMapping
	}
	if raw := trimJSON(req.Aliases); len(raw) > 0 && string(raw) != "null" {
		var own map[string]json.RawMessage
		if err := json.Unmarshal(raw, &own); err != nil {
			return req, ParsingError("failed to parse aliases: %v", err)
		}
		for a, def := range own {
			aliases[a] = def
		}
	}
	if len(aliases) > 0 {
		b, err := json.Marshal(aliases)
		if err != nil {
			return req, err
		}
		req.Aliases = b
	}
	return req, nil
}

// autoCreateAllowed applies action.auto_create_index: the cluster setting
// when set (true, false, or comma-separated +pattern/-pattern entries where
// the first match decides and no match refuses), else the node setting.
func (e *Engine) autoCreateAllowed(index string) bool {
	v, _ := e.cl.state.Effective("action.auto_create_index").(string)
	switch strings.TrimSpace(v) {
	case "":
		return e.cfg.AutoCreateIndex
	case "true":
		return true
	case "false":
		return false
	}
	for _, p := range strings.Split(v, ",") {
		p = strings.TrimSpace(p)
		allow := !strings.HasPrefix(p, "-")
		p = strings.TrimLeft(p, "+-")
		if ok, _ := filepath.Match(p, index); ok {
			return allow
		}
	}
	return false
}
