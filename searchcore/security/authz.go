package security

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Request is an action to authorize, on indices (index actions) or none
// (cluster actions).
type Request struct {
	Action  string
	Indices []string
}

func clusterGrants(roles []*RoleDescriptor, action string) bool {
	for _, r := range roles {
		for _, c := range r.Cluster {
			if grantsAction(clusterPrivileges, c, action) {
				return true
			}
		}
	}
	return false
}

func indexGrants(roles []*RoleDescriptor, action, index string) bool {
	for _, r := range roles {
		for _, ip := range r.Indices {
			if !namesMatch(ip.Names, index) {
				continue
			}
			for _, p := range ip.Privileges {
				if grantsAction(indexPrivileges, p, action) {
					return true
				}
			}
		}
	}
	return false
}

func namesMatch(patterns []string, index string) bool {
	for _, n := range patterns {
		if np, err := compileNamePattern(n); err == nil && np.match(index) {
			return true
		}
	}
	return false
}

// permits applies a's roles and, for API keys, the owner's limitation.
func (a *Authentication) permits(check func([]*RoleDescriptor) bool) bool {
	if !check(a.roles) {
		return false
	}
	return a.limitedBy == nil || check(a.limitedBy)
}

// Unrestricted reports whether a may do anything: cluster privilege all
// and index privilege all on every index, without document or field
// restrictions (the superuser role). Authorization shortcuts use it, not
// Superuser, which only looks at the cluster privilege.
func (a *Authentication) Unrestricted() bool {
	return a.permits(unrestricted)
}

func unrestricted(roles []*RoleDescriptor) bool {
	cluster, indices := false, false
	for _, r := range roles {
		for _, c := range r.Cluster {
			cluster = cluster || c == "all"
		}
		for _, ip := range r.Indices {
			if ip.Query != nil || ip.FieldSecurity != nil {
				continue
			}
			all := false
			for _, p := range ip.Privileges {
				all = all || p == "all"
			}
			for _, n := range ip.Names {
				indices = indices || (all && n == "*")
			}
		}
	}
	if !cluster || !indices {
		return false
	}
	// A restricted grant on some index narrows what that index shows.
	for _, r := range roles {
		for _, ip := range r.Indices {
			if ip.Query != nil || ip.FieldSecurity != nil {
				return false
			}
		}
	}
	return true
}

// ClusterPermits reports whether a may run a cluster action.
func (a *Authentication) ClusterPermits(action string) bool {
	return a.permits(func(r []*RoleDescriptor) bool { return clusterGrants(r, action) })
}

// IndexPermits reports whether a may run an index action on index.
func (a *Authentication) IndexPermits(action, index string) bool {
	return a.permits(func(r []*RoleDescriptor) bool { return indexGrants(r, action, index) })
}

// Authorize checks an action: a cluster action when req.Indices is empty,
// else an index action on every index. It returns the 403
// security_exception Elasticsearch sends when a privilege is missing.
func (a *Authentication) Authorize(req Request) error {
	if len(req.Indices) == 0 {
		if a.ClusterPermits(req.Action) {
			return nil
		}
		return a.denied(req.Action, nil, "cluster", grantedBy(clusterPrivileges, req.Action))
	}
	var denied []string
	for _, idx := range req.Indices {
		if !a.IndexPermits(req.Action, idx) {
			denied = append(denied, idx)
		}
	}
	if len(denied) == 0 {
		return nil
	}
	return a.denied(req.Action, denied, "index", grantedBy(indexPrivileges, req.Action))
}

// Principal describes the principal in authorization messages.
func (a *Authentication) Principal() string {
	if a.APIKeyID != "" {
		return fmt.Sprintf("API key id [%s] of user [%s]", a.APIKeyID, a.User.Username)
	}
	if len(a.roleNames) == 0 {
		return fmt.Sprintf("user [%s]", a.User.Username)
	}
	names := append([]string(nil), a.roleNames...)
	sort.Strings(names)
	return fmt.Sprintf("user [%s] with roles [%s]", a.User.Username, strings.Join(names, ","))
}

func (a *Authentication) denied(action string, indices []string, kind string, by []string) error {
	msg := fmt.Sprintf("action [%s] is unauthorized for %s", action, a.Principal())
	if len(indices) > 0 {
		msg += fmt.Sprintf(" on indices [%s]", strings.Join(indices, ","))
	}
	if len(by) > 0 {
		msg += fmt.Sprintf(", this action is granted by the %s privileges [%s]", kind, strings.Join(by, ","))
	}
	return eserr.Errorf(eserr.Forbidden, "security_exception", "%s", msg)
}

// covers reports whether the entries (names or action patterns) grant
// every action of privilege p.
func covers(list []privilege, entries []string, p privilege) bool {
	if len(p.actions) == 0 {
		return true
	}
	for _, act := range p.actions {
		ok := false
		for _, e := range entries {
			if e == p.name || grantsAction(list, e, act) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func (a *Authentication) hasClusterPrivilege(name string) bool {
	p, known := findPrivilege(clusterPrivileges, name)
	if !known {
		return a.ClusterPermits(name)
	}
	return a.permits(func(roles []*RoleDescriptor) bool {
		var entries []string
		for _, r := range roles {
			entries = append(entries, r.Cluster...)
		}
		return covers(clusterPrivileges, entries, p)
	})
}

func (a *Authentication) hasIndexPrivilege(index, name string) bool {
	p, known := findPrivilege(indexPrivileges, name)
	if !known {
		return a.IndexPermits(name, index)
	}
	return a.permits(func(roles []*RoleDescriptor) bool {
		var entries []string
		for _, r := range roles {
			for _, ip := range r.Indices {
				if namesMatch(ip.Names, index) {
					entries = append(entries, ip.Privileges...)
				}
			}
		}
		return covers(indexPrivileges, entries, p)
	})
}

// HasPrivilegesRequest is the body of the has privileges API.
type HasPrivilegesRequest struct {
	Cluster []string `json:"cluster"`
	Index   []struct {
		Names                  []string `json:"names"`
		Privileges             []string `json:"privileges"`
		AllowRestrictedIndices bool     `json:"allow_restricted_indices"`
	} `json:"index"`
	Application []ApplicationPrivilege `json:"application"`
}

// HasPrivilegesResult answers the has privileges API.
type HasPrivilegesResult struct {
	Username        string                                `json:"username"`
	HasAllRequested bool                                  `json:"has_all_requested"`
	Cluster         map[string]bool                       `json:"cluster"`
	Index           map[string]map[string]bool            `json:"index"`
	Application     map[string]map[string]map[string]bool `json:"application"`
}

// HasPrivileges checks named privileges (or action patterns) without
// running anything.
func (a *Authentication) HasPrivileges(req HasPrivilegesRequest) HasPrivilegesResult {
	res := HasPrivilegesResult{Username: a.User.Username, HasAllRequested: true,
		Cluster: map[string]bool{}, Index: map[string]map[string]bool{}, Application: map[string]map[string]map[string]bool{}}
	for _, c := range req.Cluster {
		ok := a.hasClusterPrivilege(c)
		res.Cluster[c] = ok
		res.HasAllRequested = res.HasAllRequested && ok
	}
	for _, ix := range req.Index {
		for _, n := range ix.Names {
			if res.Index[n] == nil {
				res.Index[n] = map[string]bool{}
			}
			for _, p := range ix.Privileges {
				ok := a.hasIndexPrivilege(n, p)
				res.Index[n][p] = ok
				res.HasAllRequested = res.HasAllRequested && ok
			}
		}
	}
	for _, app := range req.Application {
		if res.Application[app.Application] == nil {
			res.Application[app.Application] = map[string]map[string]bool{}
		}
		for _, rsc := range app.Resources {
			m := map[string]bool{}
			for _, p := range app.Privileges {
				ok := a.hasApplicationPrivilege(app.Application, p, rsc)
				m[p] = ok
				res.HasAllRequested = res.HasAllRequested && ok
			}
			res.Application[app.Application][rsc] = m
		}
	}
	return res
}

func (a *Authentication) hasApplicationPrivilege(app, priv, resource string) bool {
	return a.permits(func(roles []*RoleDescriptor) bool {
		for _, r := range roles {
			for _, ap := range r.Applications {
				if !globMatch(ap.Application, app) {
					continue
				}
				for _, p := range ap.Privileges {
					if p != "*" && p != "all" && p != priv {
						continue
					}
					for _, rs := range ap.Resources {
						if globMatch(rs, resource) {
							return true
						}
					}
				}
			}
		}
		return false
	})
}

// DocumentSecurity returns the document-level queries that restrict what a
// may read in index; restricted is false when some grant carries no query
// (then every document is visible).
func (a *Authentication) DocumentSecurity(index string) (queries []json.RawMessage, restricted bool) {
	q, r := dlsOf(a.roles, index)
	if !r && a.limitedBy != nil {
		return dlsOf(a.limitedBy, index)
	}
	return q, r
}

func dlsOf(roles []*RoleDescriptor, index string) ([]json.RawMessage, bool) {
	var out []json.RawMessage
	for _, r := range roles {
		for _, ip := range r.Indices {
			if !namesMatch(ip.Names, index) || !grantsRead(ip.Privileges) {
				continue
			}
			if len(ip.Query) == 0 {
				return nil, false
			}
			out = append(out, ip.Query)
		}
	}
	return out, len(out) > 0
}

func grantsRead(privs []string) bool {
	for _, p := range privs {
		if grantsAction(indexPrivileges, p, "indices:data/read/search") {
			return true
		}
	}
	return false
}

// FieldSecurity returns the field grants that restrict what a may read in
// index; restricted is false when some grant allows every field.
func (a *Authentication) FieldSecurity(index string) (fs []FieldSecurity, restricted bool) {
	f, r := flsOf(a.roles, index)
	if !r && a.limitedBy != nil {
		return flsOf(a.limitedBy, index)
	}
	return f, r
}

func flsOf(roles []*RoleDescriptor, index string) ([]FieldSecurity, bool) {
	var out []FieldSecurity
	for _, r := range roles {
		for _, ip := range r.Indices {
			if !namesMatch(ip.Names, index) || !grantsRead(ip.Privileges) {
				continue
			}
			if ip.FieldSecurity == nil {
				return nil, false
			}
			out = append(out, *ip.FieldSecurity)
		}
	}
	return out, len(out) > 0
}

// FieldAllowed reports whether a dotted field path is visible under the
// field grants (a union over the grants; "except" removes fields).
func FieldAllowed(fs []FieldSecurity, field string) bool {
	for _, f := range fs {
		granted := false
		for _, g := range f.Grant {
			if globMatch(g, field) {
				granted = true
				break
			}
		}
		for _, e := range f.Except {
			if globMatch(e, field) {
				granted = false
			}
		}
		if granted {
			return true
		}
	}
	return false
}

// FieldPrefixAllowed reports whether some visible field lies under the
// object path prefix (so the object must be kept while filtering).
func FieldPrefixAllowed(fs []FieldSecurity, prefix string) bool {
	for _, f := range fs {
		for _, g := range f.Grant {
			if globMatch(g, prefix) || strings.HasPrefix(g, prefix+".") || strings.HasPrefix(g, "*") {
				return true
			}
		}
	}
	return false
}

// AuthenticatedPayload is the _authenticate answer.
func (a *Authentication) AuthenticatedPayload() map[string]any {
	roles := a.User.Roles
	if roles == nil {
		roles = []string{}
	}
	meta := a.User.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	out := map[string]any{
		"username": a.User.Username, "roles": roles, "full_name": a.User.FullName, "email": a.User.Email,
		"metadata": meta, "enabled": a.User.Enabled,
		"authentication_realm": a.AuthenticationRealm, "lookup_realm": a.LookupRealm,
		"authentication_type": a.Type,
	}
	if a.TokenName != "" {
		out["token"] = map[string]any{"name": a.TokenName, "type": a.TokenSource}
	}
	if a.APIKeyID != "" {
		out["api_key"] = map[string]any{"id": a.APIKeyID, "name": a.APIKeyName}
	}
	return out
}
