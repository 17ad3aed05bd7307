package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
	core "github.com/quarry-search/quarry/searchcore/cluster"
)

// ClusterGetSettings answers GET /_cluster/settings.
func (s *Server) ClusterGetSettings(c echo.Context, p cluster.ClusterGetSettingsParams) error {
	flat := boolParam(p.FlatSettings, false)
	out := orderedJSON{
		{"persistent", searchcore.RenderSettings(s.core.ClusterSettings(core.Persistent), flat)},
		{"transient", searchcore.RenderSettings(s.core.ClusterSettings(core.Transient), flat)},
	}
	if boolParam(p.IncludeDefaults, false) {
		defaults := s.core.ClusterSettingDefaults()
		// A setting that is set is not a default any more.
		for _, scope := range []core.Scope{core.Persistent, core.Transient} {
			for k := range s.core.ClusterSettings(scope) {
				delete(defaults, k)
			}
		}
		out = append(out, kvPair{"defaults", searchcore.RenderSettings(defaults, flat)})
	}
	return writeJSON(c, http.StatusOK, out)
}

// ClusterPutSettings answers PUT /_cluster/settings.
func (s *Server) ClusterPutSettings(c echo.Context, p cluster.ClusterPutSettingsParams) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return searchcore.Errorf(searchcore.Invalid, "action_request_validation_exception", "Validation Failed: 1: no settings to update;")
	}
	members, err := decodeMembers(body)
	if err != nil {
		return err
	}
	for k := range members {
		if k != "persistent" && k != "transient" {
			return searchcore.IllegalArgument("request body contains unknown key [%s]; expected [persistent] or [transient]", k)
		}
	}
	if isEmptySettings(members["persistent"]) && isEmptySettings(members["transient"]) {
		return searchcore.Errorf(searchcore.Invalid, "action_request_validation_exception", "Validation Failed: 1: no settings to update;")
	}
	applied, err := s.core.UpdateClusterSettings(c.Request().Context(), members["persistent"], members["transient"])
	if err != nil {
		return err
	}
	flat := boolParam(p.FlatSettings, false)
	return writeJSON(c, http.StatusOK, orderedJSON{
		{"acknowledged", true},
		{"persistent", searchcore.RenderSettings(applied[core.Persistent], flat)},
		{"transient", searchcore.RenderSettings(applied[core.Transient], flat)},
	})
}

func isEmptySettings(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	return t == "" || t == "null" || t == "{}"
}

// ClusterRemoteInfo answers GET /_remote/info. Quarry has no transport
// layer yet, so no remote cluster is connected.
func (s *Server) ClusterRemoteInfo(c echo.Context, _ cluster.ClusterRemoteInfoParams) error {
	out := orderedJSON{}
	for _, rc := range s.core.RemoteClusters() {
		info := orderedJSON{{"connected", false}, {"mode", rc.Mode}}
		if rc.Mode == "proxy" {
			info = append(info,
				kvPair{"proxy_address", rc.ProxyAddress},
				kvPair{"num_proxy_sockets_connected", 0},
				kvPair{"max_proxy_socket_connections", rc.ProxySockets})
		} else {
			info = append(info,
				kvPair{"seeds", append([]string{}, rc.Seeds...)},
				kvPair{"num_nodes_connected", 0},
				kvPair{"max_connections_per_cluster", rc.NodeConnections})
		}
		info = append(info, kvPair{"initial_connect_timeout", "30s"}, kvPair{"skip_unavailable", rc.SkipUnavailable})
		out = append(out, kvPair{rc.Alias, info})
	}
	return writeJSON(c, http.StatusOK, out)
}

// clusterStateMetrics are the parts of the cluster state, in output order.
var clusterStateMetrics = []string{"version", "master_node", "blocks", "nodes", "metadata", "routing_table", "routing_nodes"}

// ClusterState answers GET /_cluster/state.
func (s *Server) ClusterState(c echo.Context, p cluster.ClusterStateParams) error {
	return s.clusterState(c, "_all", "", p)
}

// ClusterStateMetric answers GET /_cluster/state/{metric}.
func (s *Server) ClusterStateMetric(c echo.Context, metric cluster.ClusterStateMetricPath, p cluster.ClusterStateMetricParams) error {
	return s.clusterState(c, string(metric), "", cluster.ClusterStateParams(p))
}

// ClusterStateMetricIndex answers GET /_cluster/state/{metric}/{index}.
func (s *Server) ClusterStateMetricIndex(c echo.Context, metric cluster.ClusterStateMetricPath, index cluster.IndexListPath, p cluster.ClusterStateMetricIndexParams) error {
	return s.clusterState(c, string(metric), string(index), cluster.ClusterStateParams(p))
}

func (s *Server) clusterState(c echo.Context, metric, index string, p cluster.ClusterStateParams) error {
	want, err := parseStatsList(c, metric, "metric", clusterStateMetrics, nil)
	if err != nil {
		return err
	}
	indices := s.core.IndicesWithClosed()
	if index != "" {
		o, err := resolveOptions(p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards, true)
		if err != nil {
			return err
		}
		o.AllowClosed = true
		if indices, err = s.core.Resolve(index, o); err != nil {
			return err
		}
	}
	flat := boolParam(p.FlatSettings, false)
	local := s.core.LocalNode()
	master, hasMaster := s.core.MasterNode()
	out := orderedJSON{{"cluster_name", s.core.ClusterName()}, {"cluster_uuid", s.core.ClusterUUID()}}
	if want["version"] {
		out = append(out, kvPair{"version", s.core.ClusterStateVersion()})
	}
	if want["master_node"] {
		if hasMaster {
			out = append(out, kvPair{"master_node", master.ID})
		} else {
			out = append(out, kvPair{"master_node", nil})
		}
	}
	if want["blocks"] {
		blocks := orderedJSON{}
		for _, ix := range indices {
			if ix.IsClosed() {
				blocks = append(blocks, kvPair{ix.Name(), orderedJSON{{"4", orderedJSON{
					{"description", "index closed"}, {"retryable", false}, {"levels", []string{"read", "write"}},
				}}}})
			}
		}
		if len(blocks) > 0 {
			out = append(out, kvPair{"blocks", orderedJSON{{"indices", blocks}}})
		} else {
			out = append(out, kvPair{"blocks", orderedJSON{}})
		}
	}
	if want["nodes"] {
		nodes := orderedJSON{}
		for _, n := range s.core.Nodes() {
			nodes = append(nodes, kvPair{n.ID, orderedJSON{
				{"name", n.Name},
				{"ephemeral_id", n.ID},
				{"transport_address", n.TransportAddress},
				{"attributes", n.Attributes},
				{"roles", append([]string{}, n.Roles...)},
			}})
		}
		out = append(out, kvPair{"nodes", nodes})
	}
	if want["metadata"] {
		var voters []string
		for _, n := range s.core.Nodes() {
			if n.Master {
				voters = append(voters, n.ID)
			}
		}
		if voters == nil {
			voters = []string{}
		}
		exclusions := []orderedJSON{}
		for _, ex := range s.core.VotingExclusions() {
			exclusions = append(exclusions, orderedJSON{{"node_id", ex.NodeID}, {"node_name", ex.NodeName}})
		}
		metaIndices := orderedJSON{}
		for _, ix := range indices {
			aliases := []string{}
			for name := range ix.Aliases() {
				aliases = append(aliases, name)
			}
			sort.Strings(aliases)
			state := "open"
			if ix.IsClosed() {
				state = "close"
			}
			metaIndices = append(metaIndices, kvPair{ix.Name(), orderedJSON{
				{"state", state},
				{"settings", searchcore.RenderSettings(ix.SettingsFlat(), flat)},
				{"mappings", typedMappingsJSON(ix)},
				{"aliases", aliases},
			}})
		}
		out = append(out, kvPair{"metadata", orderedJSON{
			{"cluster_uuid", s.core.ClusterUUID()},
			{"cluster_uuid_committed", true},
			{"cluster_coordination", orderedJSON{
				{"term", 1},
				{"last_committed_config", voters},
				{"last_accepted_config", voters},
				{"voting_config_exclusions", exclusions},
			}},
			{"templates", legacyTemplatesJSON(s.core.Templates(true), "", flat)},
			{"indices", metaIndices},
			{"index_template", orderedJSON{{"index_template", s.namedTemplates(s.core.Templates(false), flat, indexTemplateJSON)}}},
			{"component_template", orderedJSON{{"component_template", s.namedTemplates(s.core.ComponentTemplates(), flat, componentTemplateJSON)}}},
		}})
	}
	if want["routing_table"] || want["routing_nodes"] {
		table := orderedJSON{}
		var assigned, unassigned []orderedJSON
		for _, ix := range indices {
			shards := orderedJSON{}
			set := ix.Settings()
			for i := 0; i < set.NumberOfShards; i++ {
				copies := []orderedJSON{}
				primary := orderedJSON{{"state", "STARTED"}, {"primary", true}, {"node", local.ID}, {"relocating_node", nil}, {"shard", i}, {"index", ix.Name()}}
				copies = append(copies, primary)
				assigned = append(assigned, primary)
				for r := 0; r < set.NumberOfReplicas; r++ {
					replica := orderedJSON{{"state", "UNASSIGNED"}, {"primary", false}, {"node", nil}, {"relocating_node", nil}, {"shard", i}, {"index", ix.Name()}}
					copies = append(copies, replica)
					unassigned = append(unassigned, replica)
				}
				shards = append(shards, kvPair{strconv.Itoa(i), copies})
			}
			table = append(table, kvPair{ix.Name(), orderedJSON{{"shards", shards}}})
		}
		if want["routing_table"] {
			out = append(out, kvPair{"routing_table", orderedJSON{{"indices", table}}})
		}
		if want["routing_nodes"] {
			if assigned == nil {
				assigned = []orderedJSON{}
			}
			if unassigned == nil {
				unassigned = []orderedJSON{}
			}
			out = append(out, kvPair{"routing_nodes", orderedJSON{
				{"unassigned", unassigned},
				{"nodes", orderedJSON{{local.ID, assigned}}},
			}})
		}
	}
	return writeJSON(c, http.StatusOK, out)
}

// ClusterPostVotingConfigExclusions answers POST /_cluster/voting_config_exclusions.
func (s *Server) ClusterPostVotingConfigExclusions(c echo.Context, p cluster.ClusterPostVotingConfigExclusionsParams) error {
	if err := s.core.AddVotingExclusions(c.Request().Context(), splitList(str(p.NodeNames)), splitList(str(p.NodeIds))); err != nil {
		return err
	}
	return c.NoContent(http.StatusOK)
}

// votingDeprecation is the warning of the deprecated exclusions path.
const votingDeprecation = "POST /_cluster/voting_config_exclusions/{node_name} will be removed in a future version. " +
	"Please use POST /_cluster/voting_config_exclusions?node_ids=... or POST /_cluster/voting_config_exclusions?node_names=... instead."

// ClusterPostVotingConfigExclusionsNodeName answers the deprecated
// POST /_cluster/voting_config_exclusions/{node_name}.
func (s *Server) ClusterPostVotingConfigExclusionsNodeName(c echo.Context, nodeName string, _ cluster.ClusterPostVotingConfigExclusionsNodeNameParams) error {
	s.deprecationWarning(c, votingDeprecation)
	if err := s.core.AddVotingExclusions(c.Request().Context(), splitList(nodeName), nil); err != nil {
		return err
	}
	return c.NoContent(http.StatusOK)
}

// ClusterDeleteVotingConfigExclusions answers DELETE /_cluster/voting_config_exclusions.
func (s *Server) ClusterDeleteVotingConfigExclusions(c echo.Context, p cluster.ClusterDeleteVotingConfigExclusionsParams) error {
	if err := s.core.ClearVotingExclusions(c.Request().Context(), boolParam(p.WaitForRemoval, true)); err != nil {
		return err
	}
	return c.NoContent(http.StatusOK)
}

// namedTemplates renders templates keyed by name, as the cluster state's
// index_template and component_template metadata do.
func (s *Server) namedTemplates(list []*core.Template, flat bool, render func(*core.Template, bool) orderedJSON) orderedJSON {
	o := orderedJSON{}
	for _, t := range list {
		o = append(o, kvPair{t.Name, render(t, flat)})
	}
	return o
}
