package security

// Realm names and types reported by _authenticate.
const (
	realmReserved = "reserved"
	realmNative   = "default_native"
	realmFile     = "default_file"
	typeNative    = "native"
	typeFile      = "file"
)

func reserved(extra map[string]any) map[string]any {
	m := map[string]any{"_reserved": true}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func kibanaApp(privs ...string) []ApplicationPrivilege {
	return []ApplicationPrivilege{{Application: "kibana-.kibana", Privileges: privs, Resources: []string{"*"}}}
}

// builtinRoles are the reserved roles; they cannot be changed or deleted.
func builtinRoles() map[string]*RoleDescriptor {
	transformIdx := []IndicesPrivileges{{Names: []string{".transform-notifications-*", ".data-frame-notifications-*", ".transform-notifications-read"}, Privileges: []string{"view_index_metadata", "read"}}}
	dashboardAdmin := func(meta map[string]any) *RoleDescriptor {
		return &RoleDescriptor{Applications: kibanaApp("all"), Metadata: reserved(meta)}
	}
	roles := map[string]*RoleDescriptor{
		"superuser": {
			Cluster:      []string{"all"},
			Indices:      []IndicesPrivileges{{Names: []string{"*"}, Privileges: []string{"all"}, AllowRestrictedIndices: true}},
			Applications: []ApplicationPrivilege{{Application: "*", Privileges: []string{"*"}, Resources: []string{"*"}}},
			RunAs:        []string{"*"},
			Metadata:     reserved(nil),
		},
		"transform_user":  {Cluster: []string{"monitor_transform"}, Indices: transformIdx, Metadata: reserved(nil)},
		"transform_admin": {Cluster: []string{"manage_transform"}, Indices: transformIdx, Metadata: reserved(nil)},
		"dashboard_admin": dashboardAdmin(nil),
		"dashboard_user": dashboardAdmin(map[string]any{
			"_deprecated": true, "_deprecated_reason": "Please use the [dashboard_admin] role instead",
		}),
		"monitoring_user": {
			Indices:      []IndicesPrivileges{{Names: []string{".monitoring-*"}, Privileges: []string{"read", "read_cross_cluster"}}},
			Applications: kibanaApp("reserved_monitoring"),
			Metadata:     reserved(nil),
		},
		"remote_monitoring_agent": {
			Cluster: []string{"manage_index_templates", "manage_ingest_pipelines", "monitor"},
			Indices: []IndicesPrivileges{
				{Names: []string{".monitoring-*"}, Privileges: []string{"all"}},
				{Names: []string{"metricbeat-*"}, Privileges: []string{"index", "create_index", "view_index_metadata"}},
			},
			Metadata: reserved(nil),
		},
		"remote_monitoring_collector": {
			Cluster: []string{"monitor"},
			Indices: []IndicesPrivileges{
				{Names: []string{"*"}, Privileges: []string{"monitor"}, AllowRestrictedIndices: true},
				{Names: []string{".kibana*"}, Privileges: []string{"read"}},
			},
			Metadata: reserved(nil),
		},
		"ingest_admin": {Cluster: []string{"manage_index_templates", "manage_ingest_pipelines"}, Metadata: reserved(nil)},
		"viewer": {
			Indices:      []IndicesPrivileges{{Names: []string{"*"}, Privileges: []string{"read", "view_index_metadata"}}},
			Applications: kibanaApp("read"),
			Metadata:     reserved(nil),
		},
		"editor": {
			Indices: []IndicesPrivileges{
				{Names: []string{"*"}, Privileges: []string{"read", "view_index_metadata"}},
				{Names: []string{"observability-annotations"}, Privileges: []string{"read", "view_index_metadata", "write"}},
			},
			Applications: kibanaApp("all"),
			Metadata:     reserved(nil),
		},
		"dashboard_system": {
			Cluster: []string{"monitor", "manage_index_templates", "manage_token", "manage_own_api_key", "cluster:admin/xpack/monitoring/bulk"},
			Indices: []IndicesPrivileges{
				{Names: []string{".kibana*", ".reporting-*"}, Privileges: []string{"all"}, AllowRestrictedIndices: true},
				{Names: []string{".monitoring-*"}, Privileges: []string{"read", "read_cross_cluster"}},
			},
			Metadata: reserved(nil),
		},
		"logstash_system": {Cluster: []string{"monitor", "cluster:admin/xpack/monitoring/bulk"}, Metadata: reserved(nil)},
		"beats_system": {
			Cluster:  []string{"monitor", "cluster:admin/xpack/monitoring/bulk"},
			Indices:  []IndicesPrivileges{{Names: []string{".monitoring-beats-*"}, Privileges: []string{"create_index", "create_doc"}}},
			Metadata: reserved(nil),
		},
	}
	for _, r := range roles {
		r.TransientMetadata = map[string]any{"enabled": true}
		r.normalize()
	}
	return roles
}

// deprecatedRoles maps a deprecated built-in role to its replacement.
var deprecatedRoles = map[string]string{"dashboard_user": "dashboard_admin"}

// reservedUsers are the built-in users and their roles, in listing order.
var reservedUsers = []struct {
	name  string
	roles []string
}{
	{"elastic", []string{"superuser"}},
	{"dashboard", []string{"dashboard_system"}},
	{"dashboard_system", []string{"dashboard_system"}},
	{"logstash_system", []string{"logstash_system"}},
	{"beats_system", []string{"beats_system"}},
	{"remote_monitoring_user", []string{"remote_monitoring_collector", "remote_monitoring_agent"}},
}

// deprecatedUsers maps a deprecated reserved user to its replacement.
var deprecatedUsers = map[string]string{"dashboard": "dashboard_system"}

func reservedRoles(name string) ([]string, bool) {
	for _, u := range reservedUsers {
		if u.name == name {
			return u.roles, true
		}
	}
	return nil, false
}

// serviceAccounts are the built-in service accounts with their role
// descriptors.
func serviceAccounts() map[string]*RoleDescriptor {
	accounts := map[string]*RoleDescriptor{
		"elastic/fleet-server": {
			Cluster: []string{"monitor", "manage_own_api_key"},
			Indices: []IndicesPrivileges{
				{Names: []string{"logs-*", "metrics-*", "traces-*", "synthetics-*", ".logs-endpoint.diagnostic.collection-*", ".logs-endpoint.action.responses-*"}, Privileges: []string{"write", "create_index", "auto_configure"}},
				{Names: []string{".fleet-*"}, Privileges: []string{"read", "write", "monitor", "create_index", "auto_configure", "maintenance"}, AllowRestrictedIndices: true},
			},
		},
		"elastic/dashboard": {
			Cluster: []string{"monitor", "manage_index_templates", "manage_token", "manage_own_api_key", "manage_ingest_pipelines", "manage_transform", "cluster:admin/xpack/monitoring/bulk"},
			Indices: []IndicesPrivileges{
				{Names: []string{".kibana*", ".reporting-*"}, Privileges: []string{"all"}, AllowRestrictedIndices: true},
				{Names: []string{".monitoring-*"}, Privileges: []string{"read", "read_cross_cluster"}},
				{Names: []string{".management-beats"}, Privileges: []string{"create_index", "read", "write"}},
			},
		},
	}
	for _, r := range accounts {
		r.normalize()
	}
	return accounts
}
