package security

import (
	"regexp"
	"sort"
	"strings"
)

// privilege is a named set of action patterns (Elasticsearch's privilege
// automata, reduced to glob patterns) with optional exclusions.
type privilege struct {
	name    string
	actions []string
	except  []string
}

func (p privilege) grants(action string) bool {
	for _, x := range p.except {
		if globMatch(x, action) {
			return false
		}
	}
	for _, a := range p.actions {
		if globMatch(a, action) {
			return true
		}
	}
	return false
}

const (
	// ActionPutMapping is the mapping update action, also implied by writes
	// that add fields dynamically.
	ActionPutMapping = "indices:admin/mapping/put"
	// ActionAutoCreate is the automatic index creation done by a write to a
	// missing index; from 7.8 only create_index, manage and all grant it.
	ActionAutoCreate = "indices:admin/auto_create"
)

// clusterPrivileges are the named cluster privileges, in the order
// Elasticsearch lists them in "granted by" messages (narrowest first).
var clusterPrivileges = []privilege{
	{name: "monitor", actions: []string{"cluster:monitor/*"}},
	{name: "monitor_transform", actions: []string{"cluster:monitor/transform/*"}},
	{name: "manage_transform", actions: []string{"cluster:monitor/transform/*", "cluster:admin/transform/*"}},
	{name: "manage_ingest_pipelines", actions: []string{"cluster:admin/ingest/pipeline/*"}},
	{name: "manage_index_templates", actions: []string{"indices:admin/template/*", "indices:admin/index_template/*", "cluster:admin/component_template/*"}},
	{name: "manage_own_api_key", actions: []string{"cluster:admin/xpack/security/api_key/*"}},
	{name: "manage_api_key", actions: []string{"cluster:admin/xpack/security/api_key/*"}},
	{name: "manage_service_account", actions: []string{"cluster:admin/xpack/security/service_account/*"}},
	{name: "manage_token", actions: []string{"cluster:admin/xpack/security/token/*"}},
	{name: "manage", actions: []string{"cluster:*", "indices:admin/template/*", "indices:admin/index_template/*"}, except: []string{"cluster:admin/xpack/security/*"}},
	{name: "manage_security", actions: []string{"cluster:admin/xpack/security/*"}},
	{name: "all", actions: []string{"cluster:*", "indices:admin/template/*", "indices:admin/index_template/*"}},
}

// indexPrivileges are the named index privileges, narrowest first.
var indexPrivileges = []privilege{
	{name: "read", actions: []string{"indices:data/read/*"}},
	{name: "read_cross_cluster", actions: []string{"internal:transport/proxy/indices:data/read/*"}},
	{name: "view_index_metadata", actions: []string{"indices:admin/aliases/get", "indices:admin/get", "indices:admin/mappings/fields/get*", "indices:admin/mappings/get", "indices:monitor/settings/get", "indices:admin/resolve/index", "indices:data/read/field_caps*"}},
	{name: "monitor", actions: []string{"indices:monitor/*"}},
	{name: "create_doc", actions: []string{"indices:data/write/index:op_type/create", "indices:data/write/bulk*", ActionPutMapping}},
	{name: "create", actions: []string{"indices:data/write/index:op_type/create", "indices:data/write/bulk*", ActionPutMapping}},
	{name: "delete", actions: []string{"indices:data/write/delete*", "indices:data/write/bulk*"}},
	{name: "index", actions: []string{"indices:data/write/index*", "indices:data/write/update*", "indices:data/write/bulk*", ActionPutMapping}},
	{name: "write", actions: []string{"indices:data/write/*", ActionPutMapping}},
	{name: "create_index", actions: []string{"indices:admin/create", ActionAutoCreate}},
	{name: "auto_configure", actions: []string{ActionAutoCreate, "indices:admin/mapping/auto_put"}},
	{name: "delete_index", actions: []string{"indices:admin/delete"}},
	{name: "maintenance", actions: []string{"indices:admin/refresh*", "indices:admin/flush*", "indices:admin/forcemerge*"}},
	{name: "manage", actions: []string{"indices:monitor/*", "indices:admin/*"}},
	{name: "all", actions: []string{"indices:*", "internal:transport/proxy/indices:*"}},
	{name: "none"},
}

func findPrivilege(list []privilege, name string) (privilege, bool) {
	for _, p := range list {
		if p.name == name {
			return p, true
		}
	}
	return privilege{}, false
}

func privilegeNames(list []privilege) []string {
	out := make([]string, 0, len(list))
	for _, p := range list {
		out = append(out, p.name)
	}
	sort.Strings(out)
	return out
}

// grantedBy lists the privileges of list that grant action, in list order.
func grantedBy(list []privilege, action string) []string {
	var out []string
	for _, p := range list {
		if p.grants(action) {
			out = append(out, p.name)
		}
	}
	return out
}

// isAction reports whether a privilege entry is a raw action pattern
// ("cluster:monitor/health", "indices:data/read/*") rather than a name.
func isAction(s string) bool {
	return strings.HasPrefix(s, "cluster:") || strings.HasPrefix(s, "indices:") || strings.HasPrefix(s, "internal:")
}

// grantsAction reports whether a privilege entry (a name or an action
// pattern) grants action.
func grantsAction(list []privilege, entry, action string) bool {
	if isAction(entry) {
		return globMatch(entry, action)
	}
	p, ok := findPrivilege(list, entry)
	return ok && p.grants(action)
}

// globMatch matches s against a pattern with * and ? wildcards.
func globMatch(pattern, s string) bool {
	px, sx := 0, 0
	nextPx, nextSx := -1, -1
	for px < len(pattern) || sx < len(s) {
		if px < len(pattern) {
			switch c := pattern[px]; c {
			case '*':
				nextPx, nextSx = px, sx+1
				px++
				continue
			case '?':
				if sx < len(s) {
					px++
					sx++
					continue
				}
			default:
				if sx < len(s) && s[sx] == c {
					px++
					sx++
					continue
				}
			}
		}
		if nextSx > 0 && nextSx <= len(s) {
			px, sx = nextPx, nextSx
			continue
		}
		return false
	}
	return true
}

// namePattern is one entry of a role's indices names: a glob or, between
// slashes, a Lucene-style regular expression (anchored).
type namePattern struct {
	glob string
	re   *regexp.Regexp
}

func compileNamePattern(s string) (namePattern, error) {
	if len(s) >= 2 && strings.HasPrefix(s, "/") && strings.HasSuffix(s, "/") {
		re, err := regexp.Compile("^(?:" + s[1:len(s)-1] + ")$")
		if err != nil {
			return namePattern{}, err
		}
		return namePattern{re: re}, nil
	}
	return namePattern{glob: s}, nil
}

func (p namePattern) match(name string) bool {
	if p.re != nil {
		return p.re.MatchString(name)
	}
	return globMatch(p.glob, name)
}

// PrivilegeGrants reports whether the named cluster or index privilege
// (kind "cluster" or "index") grants action.
func PrivilegeGrants(kind, name, action string) bool {
	list := clusterPrivileges
	if kind == "index" {
		list = indexPrivileges
	}
	return grantsAction(list, name, action)
}

// GlobMatch matches s against a pattern with * and ? wildcards.
func GlobMatch(pattern, s string) bool { return globMatch(pattern, s) }
