package cluster

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Scope is where a cluster setting lives: persistent settings survive a
// restart, transient ones do not.
type Scope string

// Setting scopes.
const (
	Persistent Scope = "persistent"
	Transient  Scope = "transient"
)

// VotingExclusion is a node excluded from the voting configuration.
// With one node this is bookkeeping that the multi-node cluster builds on.
type VotingExclusion struct {
	NodeID   string `json:"node_id"`
	NodeName string `json:"node_name"`
}

// Absent names a side of an exclusion that matches no known node.
const Absent = "_absent_"

// State is the mutable cluster state: settings and voting exclusions.
// It is safe for concurrent use.
type State struct {
	mu         sync.RWMutex
	persistent map[string]any
	transient  map[string]any
	exclusions []VotingExclusion
	version    int64
	// templates are keyed index/<name> or legacy/<name>.
	templates map[string]*Template
}

// NewState returns an empty state.
func NewState() *State {
	return &State{persistent: map[string]any{}, transient: map[string]any{}}
}

// persisted is the durable part of the state.
type persisted struct {
	Version    int64                `json:"version"`
	Persistent map[string]any       `json:"persistent"`
	Exclusions []VotingExclusion    `json:"voting_config_exclusions"`
	Templates  map[string]*Template `json:"templates,omitempty"`
}

// Marshal encodes the durable part (persistent settings, exclusions).
func (s *State) Marshal() ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return json.Marshal(persisted{Version: s.version, Persistent: s.persistent, Exclusions: s.exclusions, Templates: s.templates})
}

// Unmarshal restores a state encoded by Marshal.
func Unmarshal(b []byte) (*State, error) {
	var p persisted
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("decode cluster state: %w", err)
	}
	st := NewState()
	for k, v := range p.Persistent {
		st.persistent[k] = normalise(v)
	}
	st.exclusions = p.Exclusions
	st.version = p.Version
	st.templates = p.Templates
	for _, t := range st.templates {
		for k, v := range t.Settings {
			t.Settings[k] = normalise(v)
		}
	}
	return st, nil
}

// normalise turns decoded JSON back into string / []string values.
func normalise(v any) any {
	if arr, ok := v.([]any); ok {
		out := make([]string, len(arr))
		for i, x := range arr {
			out[i] = scalar(x)
		}
		return out
	}
	return scalar(v)
}

// Settings returns a copy of the flat settings of one scope.
func (s *State) Settings(scope Scope) map[string]any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return copyMap(s.scope(scope))
}

func (s *State) scope(scope Scope) map[string]any {
	if scope == Transient {
		return s.transient
	}
	return s.persistent
}

// Effective returns the value of key (transient wins over persistent),
// or nil when it is not set.
func (s *State) Effective(key string) any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if v, ok := s.transient[key]; ok {
		return v
	}
	return s.persistent[key]
}

// Update applies a settings request. Each body is a settings object with
// nested or flat keys; null resets a setting (a key with * resets every
// matching one). It returns the settings this request set, per scope, and
// changes nothing when any key or value is invalid. static, when not nil,
// tells node settings (known, but only settable at startup) from unknown
// keys: setting one fails with "not dynamically updateable".
func (s *State) Update(persistent, transient json.RawMessage, static func(key string) bool) (applied map[Scope]map[string]any, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := map[Scope]map[string]any{Persistent: copyMap(s.persistent), Transient: copyMap(s.transient)}
	applied = map[Scope]map[string]any{Persistent: {}, Transient: {}}
	for _, part := range []struct {
		scope Scope
		raw   json.RawMessage
	}{{Transient, transient}, {Persistent, persistent}} {
		flat, order, err := flatten(part.raw)
		if err != nil {
			return nil, err
		}
		target := next[part.scope]
		for _, key := range order {
			val := flat[key]
			if val == nil {
				if strings.Contains(key, "*") {
					for k := range target {
						if wildcardMatch(key, k) {
							delete(target, k)
						}
					}
				} else {
					if lookup(key) == nil {
						return nil, eserr.IllegalArgument("%s setting [%s], not recognized", part.scope, key)
					}
					delete(target, key)
				}
				continue
			}
			def := lookup(key)
			if def == nil {
				if static != nil && static(key) {
					return nil, eserr.IllegalArgument("%s setting [%s], not dynamically updateable", part.scope, key)
				}
				return nil, eserr.IllegalArgument("%s setting [%s], not recognized", part.scope, key)
			}
			norm, verr := def.check(val)
			if verr != nil {
				return nil, eserr.IllegalArgument("illegal value can't update [%s] from [%s] to [%s]", key, display(s.valueLocked(key, def)), display(val)).
					Caused(eserr.IllegalArgument("%s", verr.Error()))
			}
			target[key] = norm
			applied[part.scope][key] = norm
		}
	}
	if err := validateRemotes(next[Persistent], next[Transient]); err != nil {
		return nil, err
	}
	s.persistent, s.transient = next[Persistent], next[Transient]
	return applied, nil
}

// valueLocked is the current effective value of key, or its default.
func (s *State) valueLocked(key string, def *setting) any {
	if v, ok := s.transient[key]; ok {
		return v
	}
	if v, ok := s.persistent[key]; ok {
		return v
	}
	if def.def != nil {
		return def.def
	}
	return ""
}

func display(v any) string {
	if l, ok := v.([]string); ok {
		return "[" + strings.Join(l, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// wildcardMatch matches a settings key against a pattern whose * spans any
// characters (dots included).
func wildcardMatch(pattern, key string) bool {
	ok, _ := path.Match(strings.ReplaceAll(pattern, ".", "\x00"), strings.ReplaceAll(key, ".", "\x00"))
	if ok {
		return true
	}
	if prefix, found := strings.CutSuffix(pattern, "*"); found && !strings.Contains(prefix, "*") {
		return strings.HasPrefix(key, prefix)
	}
	return false
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if l, ok := v.([]string); ok {
			v = append([]string(nil), l...)
		}
		out[k] = v
	}
	return out
}

// RemoteCluster is one remote cluster configured for cross-cluster search.
type RemoteCluster struct {
	Alias           string
	Mode            string // sniff or proxy
	Seeds           []string
	ProxyAddress    string
	SkipUnavailable bool
	NodeConnections int
	ProxySockets    int
}

// remoteSettings merges persistent and transient cluster.remote.* keys.
func remoteSettings(persistent, transient map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, m := range []map[string]any{persistent, transient} {
		for k, v := range m {
			rest, ok := strings.CutPrefix(k, "cluster.remote.")
			if !ok {
				continue
			}
			alias, field, ok := strings.Cut(rest, ".")
			if !ok || alias == "initial_connect_timeout" {
				continue
			}
			if out[alias] == nil {
				out[alias] = map[string]any{}
			}
			out[alias][field] = v
		}
	}
	return out
}

// validateRemotes checks each configured remote cluster as a whole.
func validateRemotes(persistent, transient map[string]any) error {
	for alias, f := range remoteSettings(persistent, transient) {
		mode, _ := f["mode"].(string)
		seeds, _ := f["seeds"].([]string)
		proxy, _ := f["proxy_address"].(string)
		if mode == "proxy" {
			if proxy == "" {
				for field := range f {
					if field != "mode" {
						return eserr.IllegalArgument("missing required setting [cluster.remote.%s.proxy_address] for setting [cluster.remote.%s.%s]", alias, alias, field)
					}
				}
			}
			if len(seeds) > 0 {
				return eserr.IllegalArgument("Setting \"cluster.remote.%s.seeds\" cannot be used with the configured \"cluster.remote.%s.mode\" [required=SNIFF, configured=PROXY]", alias, alias)
			}
			continue
		}
		if proxy != "" {
			return eserr.IllegalArgument("Setting \"cluster.remote.%s.proxy_address\" cannot be used with the configured \"cluster.remote.%s.mode\" [required=PROXY, configured=SNIFF]", alias, alias)
		}
		if len(seeds) == 0 {
			keys := make([]string, 0, len(f))
			for field := range f {
				if field != "seeds" && field != "mode" {
					keys = append(keys, field)
				}
			}
			sort.Strings(keys)
			if len(keys) > 0 {
				return eserr.IllegalArgument("missing required setting [cluster.remote.%s.seeds] for setting [cluster.remote.%s.%s]", alias, alias, keys[0])
			}
		}
	}
	return nil
}

// Remotes returns the configured remote clusters, sorted by alias. A remote
// with neither seeds nor a proxy address is not configured.
func (s *State) Remotes() []RemoteCluster {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []RemoteCluster
	for alias, f := range remoteSettings(s.persistent, s.transient) {
		rc := RemoteCluster{Alias: alias, Mode: "sniff", NodeConnections: 3, ProxySockets: 18}
		if m, _ := f["mode"].(string); m != "" {
			rc.Mode = strings.ToLower(m)
		}
		rc.Seeds, _ = f["seeds"].([]string)
		rc.ProxyAddress, _ = f["proxy_address"].(string)
		rc.SkipUnavailable = f["skip_unavailable"] == "true"
		if n, err := strconv.Atoi(fmt.Sprint(f["node_connections"])); err == nil {
			rc.NodeConnections = n
		}
		if n, err := strconv.Atoi(fmt.Sprint(f["proxy_socket_connections"])); err == nil {
			rc.ProxySockets = n
		}
		if len(rc.Seeds) == 0 && rc.ProxyAddress == "" {
			continue
		}
		out = append(out, rc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Alias < out[j].Alias })
	return out
}

// VotingExclusions returns the current voting configuration exclusions.
func (s *State) VotingExclusions() []VotingExclusion {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]VotingExclusion{}, s.exclusions...)
}

// AddVotingExclusions adds exclusions (already resolved against the known
// nodes), skipping duplicates, and enforces
// cluster.max_voting_config_exclusions.
func (s *State) AddVotingExclusions(add []VotingExclusion) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	max := 10
	if v, ok := s.transient["cluster.max_voting_config_exclusions"]; ok {
		max, _ = strconv.Atoi(fmt.Sprint(v))
	} else if v, ok := s.persistent["cluster.max_voting_config_exclusions"]; ok {
		max, _ = strconv.Atoi(fmt.Sprint(v))
	}
	next := append([]VotingExclusion{}, s.exclusions...)
	for _, ex := range add {
		dup := false
		for _, cur := range next {
			if cur == ex {
				dup = true
			}
		}
		if !dup {
			next = append(next, ex)
		}
	}
	if len(next) > max {
		names := make([]string, len(add))
		for i, ex := range add {
			names[i] = ex.NodeName
		}
		return eserr.IllegalArgument("add voting config exclusions request for %v would add [%d] exclusions to the existing [%d] which would exceed the maximum of [%d] set by [cluster.max_voting_config_exclusions]", names, len(next)-len(s.exclusions), len(s.exclusions), max)
	}
	s.exclusions = next
	return nil
}

// ClearVotingExclusions removes every exclusion.
func (s *State) ClearVotingExclusions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exclusions = nil
}

// Clone returns an independent copy of the state.
func (s *State) Clone() *State {
	s.mu.RLock()
	defer s.mu.RUnlock()
	templates := make(map[string]*Template, len(s.templates))
	for k, t := range s.templates {
		templates[k] = t // templates are replaced, never mutated
	}
	return &State{persistent: copyMap(s.persistent), transient: copyMap(s.transient), exclusions: append([]VotingExclusion(nil), s.exclusions...), version: s.version, templates: templates}
}

// Replace makes s hold the contents of other (used to commit a clone once
// it is durable).
func (s *State) Replace(other *State) {
	c := other.Clone()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.persistent, s.transient, s.exclusions, s.version, s.templates = c.persistent, c.transient, c.exclusions, c.version, c.templates
}

// Version counts the changes made to the state.
func (s *State) Version() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.version
}

// BumpVersion records one more change.
func (s *State) BumpVersion() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version++
}
