package searchcore

import (
	"context"
	"encoding/json"
	"path"
	"sort"
	"strings"
)

// ResolveOptions control how an index expression expands (ES IndicesOptions).
type ResolveOptions struct {
	IgnoreUnavailable bool
	AllowNoIndices    bool
	// ExpandOpen/ExpandClosed/ExpandHidden follow expand_wildcards (open,
	// closed, hidden, all, none).
	ExpandOpen   bool
	ExpandClosed bool
	ExpandHidden bool
	// AllowClosed returns closed indices instead of failing with
	// index_closed_exception (delete, open and close resolve this way).
	AllowClosed bool
}

// DefaultResolve is the strict-for-concrete, lenient-for-wildcards default.
var DefaultResolve = ResolveOptions{AllowNoIndices: true, ExpandOpen: true}

// ParseExpandWildcards applies an expand_wildcards value to o.
func (o *ResolveOptions) ParseExpandWildcards(v string) error {
	o.ExpandOpen, o.ExpandClosed, o.ExpandHidden = false, false, false
	for _, p := range strings.Split(v, ",") {
		switch strings.TrimSpace(p) {
		case "open":
			o.ExpandOpen = true
		case "closed":
			o.ExpandClosed = true
		case "hidden":
			o.ExpandHidden = true
		case "all":
			o.ExpandOpen, o.ExpandClosed, o.ExpandHidden = true, true, true
		case "none":
		default:
			return IllegalArgument("No enum constant org.elasticsearch.action.support.IndicesOptions.WildcardStates.%s", strings.ToUpper(p))
		}
	}
	return nil
}

// Resolve expands an index expression (comma list, wildcards, aliases,
// exclusions, _all) into indices sorted by name.
func (e *Engine) Resolve(expr string, o ResolveOptions) ([]*Index, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.resolveLocked(expr, o)
}

func (e *Engine) resolveLocked(expr string, o ResolveOptions) ([]*Index, error) {
	parts, err := resolveDateMathParts(splitExpr(expr), e.now())
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 || (len(parts) == 1 && (parts[0] == "_all" || parts[0] == "*")) {
		out := e.allLocked(o, "*")
		closed, err := e.closedMatchesLocked(o, "*")
		if err != nil {
			return nil, err
		}
		out = append(out, closed...)
		sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
		if len(out) == 0 && !o.AllowNoIndices {
			return nil, IndexNotFound(firstNonEmpty(expr, "_all"))
		}
		return out, nil
	}
	set := map[string]*Index{}
	sawWildcard := false
	for _, p := range parts {
		if strings.HasPrefix(p, "-") && sawWildcard {
			pat := p[1:]
			for name := range set {
				if matchPattern(pat, name) {
					delete(set, name)
				}
			}
			continue
		}
		if strings.Contains(p, "*") {
			sawWildcard = true
			matched := e.allLocked(o, p)
			closed, err := e.closedMatchesLocked(o, p)
			if err != nil {
				return nil, err
			}
			matched = append(matched, closed...)
			for _, idx := range matched {
				set[idx.Name()] = idx
			}
			for alias, members := range e.aliasMembersLocked() {
				if matchPattern(p, alias) && (o.ExpandOpen || o.ExpandHidden) {
					for _, idx := range members {
						set[idx.Name()] = idx
					}
				}
			}
			if len(matched) == 0 && !o.AllowNoIndices && len(set) == 0 {
				return nil, IndexNotFound(p)
			}
			continue
		}
		if idx, ok := e.indices[p]; ok {
			set[p] = idx
			continue
		}
		if idx, ok := e.closed[p]; ok {
			switch {
			case o.AllowClosed:
				set[p] = idx
			case !o.IgnoreUnavailable:
				return nil, IndexClosed(p, idx.UUID())
			}
			continue
		}
		if members, ok := e.aliasMembersLocked()[p]; ok {
			for _, idx := range members {
				set[idx.Name()] = idx
			}
			continue
		}
		if !o.IgnoreUnavailable {
			return nil, IndexNotFound(p)
		}
	}
	out := make([]*Index, 0, len(set))
	for _, idx := range set {
		out = append(out, idx)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	if len(out) == 0 && !o.AllowNoIndices {
		return nil, IndexNotFound(expr)
	}
	return out, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// allLocked returns indices matching pat under the wildcard options.
func (e *Engine) allLocked(o ResolveOptions, pat string) []*Index {
	var out []*Index
	for name, idx := range e.indices {
		hidden := idx.Settings().Hidden || (strings.HasPrefix(name, ".") && !strings.HasPrefix(pat, "."))
		if hidden && !o.ExpandHidden {
			continue
		}
		if !hidden && !o.ExpandOpen {
			continue
		}
		if matchPattern(pat, name) {
			out = append(out, idx)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

func splitExpr(expr string) []string {
	var out []string
	for _, p := range strings.Split(expr, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// matchPattern matches simple * wildcards like Elasticsearch's Regex.simpleMatch.
func matchPattern(pat, s string) bool {
	if pat == "*" {
		return true
	}
	if !strings.Contains(pat, "*") {
		return pat == s
	}
	ok, err := path.Match(escapeNonStar(pat), s)
	return err == nil && ok
}

// escapeNonStar escapes path.Match meta characters other than '*'.
func escapeNonStar(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `?`, `\?`, `[`, `\[`)
	return r.Replace(p)
}

// aliasMembersLocked maps alias name → member indices.
func (e *Engine) aliasMembersLocked() map[string][]*Index {
	out := map[string][]*Index{}
	for _, idx := range e.indices {
		for a := range idx.metaSnapshot().Aliases {
			out[a] = append(out[a], idx)
		}
	}
	return out
}

func (e *Engine) aliasExistsLocked(name string) bool {
	for _, idx := range e.indices {
		if _, ok := idx.metaSnapshot().Aliases[name]; ok {
			return true
		}
	}
	return false
}

// IsAlias reports whether name is an alias.
func (e *Engine) IsAlias(name string) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.aliasExistsLocked(name)
}

// WriteTarget is the resolved destination of a write.
type WriteTarget struct {
	Index   *Index
	Routing string // alias index_routing, if any
}

// resolveWriteLocked resolves a write target name (index or alias).
// Returns (nil, nil) when the name is neither.
func (e *Engine) resolveWriteLocked(name string) (*WriteTarget, error) {
	if idx, ok := e.indices[name]; ok {
		return &WriteTarget{Index: idx}, nil
	}
	if idx, ok := e.closed[name]; ok {
		return nil, IndexClosed(name, idx.UUID())
	}
	members := e.aliasMembersLocked()[name]
	if len(members) == 0 {
		return nil, nil
	}
	var write *Index
	for _, idx := range members {
		a := idx.metaSnapshot().Aliases[name]
		if a.IsWriteIndex != nil && *a.IsWriteIndex {
			write = idx
		}
	}
	if write == nil && len(members) == 1 {
		a := members[0].metaSnapshot().Aliases[name]
		if a.IsWriteIndex == nil {
			write = members[0]
		}
	}
	if write == nil {
		return nil, IllegalArgument("no write index is defined for alias [%s]. The write index may be explicitly disabled using is_write_index=false or the alias points to multiple indices without one being designated as a write index", name)
	}
	return &WriteTarget{Index: write, Routing: write.metaSnapshot().Aliases[name].IndexRouting}, nil
}

// WriteTarget resolves where a write to name goes, creating the index when
// it is missing and auto-creation is allowed. requireAlias demands an alias.
func (e *Engine) WriteTarget(ctx context.Context, name string, requireAlias bool) (*WriteTarget, error) {
	name, err := resolveDateMathName(name, e.now())
	if err != nil {
		return nil, err
	}
	e.mu.RLock()
	if idx, ok := e.indices[name]; ok && !requireAlias {
		// The common case: a concrete index, no alias bookkeeping needed.
		e.mu.RUnlock()
		return &WriteTarget{Index: idx}, nil
	}
	t, err := e.resolveWriteLocked(name)
	isAlias := e.aliasExistsLocked(name)
	e.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	if requireAlias && !isAlias {
		return nil, Errorf(NotFound, "index_not_found_exception",
			"no such index [%s] and [require_alias] request flag is [true] and [%s] is not an alias", name, name).
			With("index_uuid", "_na_").With("index", name)
	}
	if t != nil {
		return t, nil
	}
	if !e.autoCreateAllowed(name) {
		return nil, IndexNotFound(name)
	}
	idx, err := e.CreateIndex(ctx, name, CreateIndexRequest{})
	if err != nil {
		if ee, ok := AsError(err); ok && ee.Type == "resource_already_exists_exception" {
			if idx, ok := e.Index(name); ok {
				return &WriteTarget{Index: idx}, nil
			}
		}
		return nil, err
	}
	return &WriteTarget{Index: idx}, nil
}

// parseAliasesBody parses the "aliases" object of a create-index request.
func parseAliasesBody(raw json.RawMessage) (map[string]*AliasMeta, error) {
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, ParsingError("Failed to parse aliases: %s", err.Error())
	}
	out := make(map[string]*AliasMeta, len(in))
	for name, body := range in {
		a, err := parseAliasBody(body)
		if err != nil {
			return nil, err
		}
		out[name] = a
	}
	return out, nil
}

// parseAliasBody parses {filter, routing, index_routing, search_routing, is_write_index, is_hidden}.
func parseAliasBody(raw json.RawMessage) (*AliasMeta, error) {
	a := &AliasMeta{}
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return a, nil
	}
	var in struct {
		Filter        json.RawMessage `json:"filter"`
		Routing       *string         `json:"routing"`
		IndexRouting  *string         `json:"index_routing"`
		SearchRouting *string         `json:"search_routing"`
		IsWriteIndex  *bool           `json:"is_write_index"`
		IsHidden      *bool           `json:"is_hidden"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, ParsingError("Failed to parse alias: %s", err.Error())
	}
	if len(in.Filter) > 0 && string(in.Filter) != "null" {
		a.Filter = in.Filter
	}
	if in.Routing != nil {
		a.IndexRouting, a.SearchRouting = *in.Routing, *in.Routing
	}
	if in.IndexRouting != nil {
		a.IndexRouting = *in.IndexRouting
	}
	if in.SearchRouting != nil {
		a.SearchRouting = *in.SearchRouting
	}
	a.IsWriteIndex = in.IsWriteIndex
	a.IsHidden = in.IsHidden
	return a, nil
}

// AliasAction is one add/remove action of an update-aliases request.
type AliasAction struct {
	Remove bool
	// RemoveIndex deletes the index itself.
	RemoveIndex bool
	Indices     []*Index
	Aliases     []string
	Alias       *AliasMeta
	// MustExist fails a remove of a missing alias.
	MustExist bool
}

// UpdateAliases applies alias actions atomically.
func (e *Engine) UpdateAliases(ctx context.Context, actions []AliasAction) error {
	e.mu.Lock()
	// Compute new alias maps per index first.
	next := map[*Index]map[string]*AliasMeta{}
	get := func(idx *Index) map[string]*AliasMeta {
		if m, ok := next[idx]; ok {
			return m
		}
		m := map[string]*AliasMeta{}
		for k, v := range idx.metaSnapshot().Aliases {
			m[k] = v
		}
		next[idx] = m
		return m
	}
	var removeIdx []string
	for _, act := range actions {
		if act.RemoveIndex {
			for _, idx := range act.Indices {
				removeIdx = append(removeIdx, idx.Name())
			}
			continue
		}
		for _, idx := range act.Indices {
			m := get(idx)
			for _, alias := range act.Aliases {
				if act.Remove {
					found := false
					for name := range m {
						if matchPattern(alias, name) {
							delete(m, name)
							found = true
						}
					}
					if !found && act.MustExist {
						e.mu.Unlock()
						return Errorf(NotFound, "aliases_not_found_exception", "aliases [%s] missing", alias).
							With("resource.type", "aliases").With("resource.id", alias)
					}
					continue
				}
				if _, clash := e.indices[alias]; clash {
					e.mu.Unlock()
					return InvalidIndexName(alias, "an index or data stream exists with the same name as the alias")
				}
				cp := *act.Alias
				m[alias] = &cp
			}
		}
	}
	// Only one write index per alias.
	for idx, m := range next {
		for alias, a := range m {
			if a.IsWriteIndex == nil || !*a.IsWriteIndex {
				continue
			}
			for other, om := range next {
				if other == idx {
					continue
				}
				if oa, ok := om[alias]; ok && oa.IsWriteIndex != nil && *oa.IsWriteIndex {
					e.mu.Unlock()
					return IllegalArgument("alias [%s] has more than one write index [%s,%s]", alias, idx.Name(), other.Name())
				}
			}
		}
	}
	for idx, m := range next {
		idx.metaMu.Lock()
		meta := *idx.meta
		meta.Aliases = m
		meta.Version++
		if err := e.persistMeta(ctx, &meta); err != nil {
			idx.metaMu.Unlock()
			e.mu.Unlock()
			return err
		}
		idx.meta = &meta
		idx.metaMu.Unlock()
	}
	e.mu.Unlock()
	if len(removeIdx) > 0 {
		return e.DeleteIndex(ctx, removeIdx)
	}
	return nil
}

// ParseAliasBody exposes alias body parsing to handlers.
func ParseAliasBody(raw json.RawMessage) (*AliasMeta, error) { return parseAliasBody(raw) }

// AliasNames returns every alias name matching pat across the given indices.
func AliasNames(indices []*Index, pat string) map[string][]string {
	out := map[string][]string{}
	for _, idx := range indices {
		for name := range idx.Aliases() {
			if pat == "" || anyMatch(pat, name) {
				out[idx.Name()] = append(out[idx.Name()], name)
			}
		}
	}
	return out
}

func anyMatch(patterns, name string) bool {
	for _, p := range splitExpr(patterns) {
		if p == "_all" || matchPattern(p, name) {
			return true
		}
	}
	return false
}
