package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
)

// IndicesCreate creates an index (PUT /{index}).
func (s *Server) IndicesCreate(c echo.Context, index string, p cluster.IndicesCreateParams) error {
	typed := s.typeNameParam(c, p.IncludeTypeName, createIndexTypeNameWarning)
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var req searchcore.CreateIndexRequest
	if len(strings.TrimSpace(string(body))) > 0 {
		members, err := decodeMembers(body)
		if err != nil {
			return err
		}
		for k, v := range members {
			switch k {
			case "settings":
				req.Settings = v
			case "mappings":
				if err := typedMappings(v, index, typed, &req); err != nil {
					return err
				}
			case "aliases":
				req.Aliases = v
			default:
				// ES treats unknown top-level keys as settings in 7.x only
				// when they look like index.*; anything else is an error.
				return searchcore.ParsingError("unknown key [%s] for create index", k)
			}
		}
	}
	idx, err := s.core.CreateIndex(c.Request().Context(), index, req)
	if err != nil {
		return err
	}
	if len(req.DefaultMapping) > 0 {
		s.deprecationWarning(c, defaultMappingWarning)
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}, {"shards_acknowledged", true}, {"index", idx.Name()}})
}

// decodeMembers decodes a JSON object into raw members.
func decodeMembers(body []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, searchcore.Errorf(searchcore.Invalid, "parsing_exception", "Failed to parse request body").
			With("caused_by_reason", err.Error())
	}
	return m, nil
}

// IndicesDelete deletes indices (DELETE /{index}).
func (s *Server) IndicesDelete(c echo.Context, index string, p cluster.IndicesDeleteParams) error {
	for _, part := range strings.Split(index, ",") {
		if !strings.Contains(part, "*") && part != "_all" && s.core.IsAlias(part) {
			return searchcore.IllegalArgument("The provided expression [%s] matches an alias, specify the corresponding concrete indices instead.", part)
		}
	}
	// DELETE expands wildcards to open and closed indices and deletes
	// closed ones like open ones.
	o, err := resolveOptions(p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards, true)
	if err != nil {
		return err
	}
	if p.ExpandWildcards == nil || len(*p.ExpandWildcards) == 0 {
		o.ExpandClosed = true
	}
	o.AllowClosed = true
	indices, err := s.core.Resolve(index, o)
	if err != nil {
		return err
	}
	names := make([]string, len(indices))
	for i, idx := range indices {
		names[i] = idx.Name()
	}
	if err := s.core.DeleteIndex(c.Request().Context(), names); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

// IndicesGet returns aliases, mappings and settings of indices.
//
// Closed indices are listed as Elasticsearch lists them: when named, or
// when expand_wildcards includes closed.
func (s *Server) IndicesGet(c echo.Context, index string, p cluster.IndicesGetParams) error {
	o, err := resolveOptions(p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards, true)
	if err != nil {
		return err
	}
	o.AllowClosed = true
	indices, err := s.core.Resolve(index, o)
	if err != nil {
		return err
	}
	typed := s.typeNameParam(c, p.IncludeTypeName, getIndexTypeNameWarning)
	flat := boolParam(p.FlatSettings, false)
	out := orderedJSON{}
	for _, idx := range indices {
		out = append(out, kvPair{idx.Name(), orderedJSON{
			{"aliases", aliasesJSON(idx.Aliases(), "")},
			{"mappings", mappingsJSON(idx, typed)},
			{"settings", searchcore.RenderSettings(idx.SettingsFlat(), flat)},
		}})
	}
	return writeJSON(c, http.StatusOK, out)
}

// IndicesExists answers HEAD /{index}.
func (s *Server) IndicesExists(c echo.Context, index string, p cluster.IndicesExistsParams) error {
	o, err := resolveOptions(p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards, true)
	if err != nil {
		return c.NoContent(http.StatusNotFound)
	}
	o.AllowClosed = true // a closed index exists, as GET /{index} shows it
	indices, err := s.core.Resolve(index, o)
	if err != nil || (len(indices) == 0 && !strings.Contains(index, "*")) {
		return c.NoContent(http.StatusNotFound)
	}
	return c.NoContent(http.StatusOK)
}

// IndicesGetMappingAll returns every index's mapping.
func (s *Server) IndicesGetMappingAll(c echo.Context, p cluster.IndicesGetMappingAllParams) error {
	return s.getMapping(c, "_all", cluster.IndicesGetMappingParams(p))
}

// IndicesGetMapping returns the mappings of indices.
func (s *Server) IndicesGetMapping(c echo.Context, index string, p cluster.IndicesGetMappingParams) error {
	return s.getMapping(c, index, p)
}

func (s *Server) getMapping(c echo.Context, index string, p cluster.IndicesGetMappingParams) error {
	indices, err := s.resolve(index, p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards)
	if err != nil {
		return err
	}
	typed := s.typeNameParam(c, p.IncludeTypeName, getMappingTypeNameWarning)
	out := orderedJSON{}
	for _, idx := range indices {
		out = append(out, kvPair{idx.Name(), orderedJSON{{"mappings", mappingsJSON(idx, typed)}}})
	}
	return writeJSON(c, http.StatusOK, out)
}

// IndicesPutMapping updates mappings (PUT /{index}/_mapping).
func (s *Server) IndicesPutMapping(c echo.Context, index string, p cluster.IndicesPutMappingParams) error {
	if s.typeNameParam(c, p.IncludeTypeName, putMappingTypeNameWarning) {
		// The typed form needs the type in the path.
		return searchcore.ValidationError("mapping type is missing")
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return searchcore.ValidationError("mapping source is empty")
	}
	indices, err := s.resolve(index, p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards)
	if err != nil {
		return err
	}
	if len(indices) == 0 {
		return searchcore.IndexNotFound(index)
	}
	if err := s.core.PutMapping(c.Request().Context(), indices, body); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

// IndicesPutMappingPost is the POST form of IndicesPutMapping.
func (s *Server) IndicesPutMappingPost(c echo.Context, index string, p cluster.IndicesPutMappingPostParams) error {
	return s.IndicesPutMapping(c, index, cluster.IndicesPutMappingParams(p))
}

// IndicesGetSettingsAll returns the settings of every index.
func (s *Server) IndicesGetSettingsAll(c echo.Context, p cluster.IndicesGetSettingsAllParams) error {
	return s.getSettings(c, "_all", "", cluster.IndicesGetSettingsParams(p))
}

// IndicesGetSettings returns index settings.
func (s *Server) IndicesGetSettings(c echo.Context, index string, p cluster.IndicesGetSettingsParams) error {
	return s.getSettings(c, index, "", p)
}

// IndicesGetSettingsNamed returns the named settings of indices.
func (s *Server) IndicesGetSettingsNamed(c echo.Context, index string, name string, p cluster.IndicesGetSettingsNamedParams) error {
	return s.getSettings(c, index, name, cluster.IndicesGetSettingsParams(p))
}

func (s *Server) getSettings(c echo.Context, index, names string, p cluster.IndicesGetSettingsParams) error {
	indices, err := s.resolve(index, p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards)
	if err != nil {
		return err
	}
	flatForm := boolParam(p.FlatSettings, false)
	out := orderedJSON{}
	for _, idx := range indices {
		flat := idx.SettingsFlat()
		if names != "" && names != "_all" {
			for k := range flat {
				keep := false
				for _, n := range strings.Split(names, ",") {
					if matchSetting(n, k) {
						keep = true
					}
				}
				if !keep {
					delete(flat, k)
				}
			}
			if len(flat) == 0 {
				continue
			}
		}
		entry := orderedJSON{{"settings", searchcore.RenderSettings(flat, flatForm)}}
		if boolParam(p.IncludeDefaults, false) {
			entry = append(entry, kvPair{"defaults", searchcore.RenderSettings(defaultIndexSettings(flat), flatForm)})
		}
		out = append(out, kvPair{idx.Name(), entry})
	}
	return writeJSON(c, http.StatusOK, out)
}

// matchSetting matches a settings name pattern with * wildcards.
func matchSetting(pat, key string) bool {
	if !strings.Contains(pat, "*") {
		return pat == key || "index."+pat == key
	}
	parts := strings.Split(pat, "*")
	rest := key
	if !strings.HasPrefix(rest, parts[0]) {
		return false
	}
	rest = rest[len(parts[0]):]
	for _, p := range parts[1:] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return strings.HasSuffix(pat, "*") || rest == ""
}

// defaultIndexSettings are the defaults not set explicitly (include_defaults).
func defaultIndexSettings(set map[string]any) map[string]any {
	defs := map[string]any{
		"index.refresh_interval":        "1s",
		"index.max_result_window":       "10000",
		"index.max_inner_result_window": "100",
		"index.max_terms_count":         "65536",
		"index.max_regex_length":        "1000",
		"index.max_slices_per_scroll":   "1024",
		"index.hidden":                  "false",
	}
	for k := range set {
		delete(defs, k)
	}
	return defs
}

// IndicesPutSettings updates dynamic index settings.
func (s *Server) IndicesPutSettings(c echo.Context, index string, p cluster.IndicesPutSettingsParams) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	indices, err := s.resolve(index, p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards)
	if err != nil {
		return err
	}
	if len(indices) == 0 {
		return searchcore.IndexNotFound(index)
	}
	if err := s.core.UpdateSettings(c.Request().Context(), indices, body); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

// IndicesRefreshAll refreshes every index.
func (s *Server) IndicesRefreshAll(c echo.Context, p cluster.IndicesRefreshAllParams) error {
	return s.refresh(c, "_all", cluster.IndicesRefreshParams(p))
}

// IndicesRefreshAllGet is the GET form of IndicesRefreshAll.
func (s *Server) IndicesRefreshAllGet(c echo.Context, p cluster.IndicesRefreshAllGetParams) error {
	return s.refresh(c, "_all", cluster.IndicesRefreshParams(p))
}

// IndicesRefresh refreshes indices.
func (s *Server) IndicesRefresh(c echo.Context, index string, p cluster.IndicesRefreshParams) error {
	return s.refresh(c, index, p)
}

// IndicesRefreshGet is the GET form of IndicesRefresh.
func (s *Server) IndicesRefreshGet(c echo.Context, index string, p cluster.IndicesRefreshGetParams) error {
	return s.refresh(c, index, cluster.IndicesRefreshParams(p))
}

func (s *Server) refresh(c echo.Context, index string, p cluster.IndicesRefreshParams) error {
	indices, err := s.resolve(index, p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards)
	if err != nil {
		return err
	}
	total, ok := 0, 0
	for _, idx := range indices {
		if err := idx.Refresh(c.Request().Context()); err != nil {
			return err
		}
		st := idx.Settings()
		total += st.NumberOfShards * (1 + st.NumberOfReplicas)
		ok += st.NumberOfShards
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"_shards", shardsHeader{Total: total, Successful: ok}}})
}

// ClusterHealth reports the cluster health.
func (s *Server) ClusterHealth(c echo.Context, p cluster.ClusterHealthParams) error {
	return s.health(c, nil, true, p)
}

// ClusterHealthIndex reports the health of some indices.
func (s *Server) ClusterHealthIndex(c echo.Context, index string, p cluster.ClusterHealthIndexParams) error {
	indices, err := s.core.Resolve(index, searchcore.ResolveOptions{AllowNoIndices: true, ExpandOpen: true, IgnoreUnavailable: false})
	if err != nil {
		return err
	}
	return s.health(c, indices, false, cluster.ClusterHealthParams(p))
}

func (s *Server) health(c echo.Context, indices []*searchcore.Index, all bool, p cluster.ClusterHealthParams) error {
	timeout := 30 * time.Second
	if p.Timeout != nil {
		d, err := searchcore.ParseTimeValue(*p.Timeout, "timeout")
		if err != nil {
			return err
		}
		timeout = d
	}
	req := searchcore.HealthRequest{Indices: indices, AllIndices: all, Timeout: timeout, Level: str(p.Level), WaitForStatus: str(p.WaitForStatus)}
	ctx, cancel := context.WithTimeout(c.Request().Context(), timeout+time.Second)
	defer cancel()
	h := s.core.Health(ctx, req)
	out := orderedJSON{
		{"cluster_name", h.ClusterName},
		{"status", h.Status},
		{"timed_out", h.TimedOut},
		{"number_of_nodes", h.NumberOfNodes},
		{"number_of_data_nodes", h.NumberOfDataNodes},
		{"active_primary_shards", h.ActivePrimaryShards},
		{"active_shards", h.ActiveShards},
		{"relocating_shards", h.RelocatingShards},
		{"initializing_shards", h.InitializingShards},
		{"unassigned_shards", h.UnassignedShards},
		{"delayed_unassigned_shards", h.DelayedUnassignedShards},
		{"number_of_pending_tasks", h.NumberOfPendingTasks},
		{"number_of_in_flight_fetch", h.NumberOfInFlightFetch},
		{"task_max_waiting_in_queue_millis", h.TaskMaxWaitingInQueue},
		{"active_shards_percent_as_number", h.ActiveShardsPercent},
	}
	if h.Indices != nil {
		names := make([]string, 0, len(h.Indices))
		for n := range h.Indices {
			names = append(names, n)
		}
		sort.Strings(names)
		idxOut := orderedJSON{}
		for _, n := range names {
			ih := h.Indices[n]
			entry := orderedJSON{
				{"status", ih.Status},
				{"number_of_shards", ih.NumberOfShards},
				{"number_of_replicas", ih.NumberOfReplicas},
				{"active_primary_shards", ih.ActivePrimaryShards},
				{"active_shards", ih.ActiveShards},
				{"relocating_shards", ih.RelocatingShards},
				{"initializing_shards", ih.InitializingShards},
				{"unassigned_shards", ih.UnassignedShards},
			}
			if ih.Shards != nil {
				shards := orderedJSON{}
				for i := 0; i < ih.NumberOfShards; i++ {
					sh := ih.Shards[i]
					shards = append(shards, kvPair{itoa(i), orderedJSON{
						{"status", sh.Status},
						{"primary_active", sh.PrimaryActive},
						{"active_shards", sh.ActiveShards},
						{"relocating_shards", sh.RelocatingShards},
						{"initializing_shards", sh.InitializingShards},
						{"unassigned_shards", sh.UnassignedShards},
					}})
				}
				entry = append(entry, kvPair{"shards", shards})
			}
			idxOut = append(idxOut, kvPair{n, entry})
		}
		out = append(out, kvPair{"indices", idxOut})
	}
	status := http.StatusOK
	if h.TimedOut {
		status = http.StatusRequestTimeout
	}
	return writeJSON(c, status, out)
}

// resolve expands an index expression with the common index options
// (ignore_unavailable, allow_no_indices, expand_wildcards).
func (s *Server) resolve(index string, ignoreUnavailable, allowNoIndices *cluster.EsBoolean, expand *[]cluster.ExpandWildcards) ([]*searchcore.Index, error) {
	o, err := resolveOptions(ignoreUnavailable, allowNoIndices, expand, true)
	if err != nil {
		return nil, err
	}
	return s.core.Resolve(index, o)
}
