package handlers

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
)

func itoa(n int) string { return strconv.Itoa(n) }

// aliasesJSON renders an index's aliases, optionally only those matching pat.
func aliasesJSON(aliases map[string]*searchcore.AliasMeta, pat string) orderedJSON {
	names := make([]string, 0, len(aliases))
	for n := range aliases {
		if pat == "" || aliasMatches(pat, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := orderedJSON{}
	for _, n := range names {
		a := aliases[n]
		o := orderedJSON{}
		if len(a.Filter) > 0 {
			o = append(o, kvPair{"filter", a.Filter})
		}
		if a.IndexRouting != "" {
			o = append(o, kvPair{"index_routing", a.IndexRouting})
		}
		if a.SearchRouting != "" {
			o = append(o, kvPair{"search_routing", a.SearchRouting})
		}
		if a.IsWriteIndex != nil {
			o = append(o, kvPair{"is_write_index", *a.IsWriteIndex})
		}
		if a.IsHidden != nil {
			o = append(o, kvPair{"is_hidden", *a.IsHidden})
		}
		out = append(out, kvPair{n, o})
	}
	return out
}

func aliasMatches(patterns, name string) bool {
	for _, p := range strings.Split(patterns, ",") {
		p = strings.TrimSpace(p)
		if p == "_all" || p == "*" || p == name || (strings.Contains(p, "*") && matchSetting(p, name)) {
			return true
		}
	}
	return false
}

// getAliases renders GET alias responses; names restricts the aliases.
func (s *Server) getAliases(c echo.Context, index, names string, o searchcore.ResolveOptions) error {
	indices, err := s.core.Resolve(index, o)
	if err != nil {
		return err
	}
	out := orderedJSON{}
	found := map[string]bool{}
	for _, idx := range indices {
		al := aliasesJSON(idx.Aliases(), names)
		for _, kv := range al {
			found[kv.K] = true
		}
		if names != "" && len(al) == 0 {
			continue
		}
		out = append(out, kvPair{idx.Name(), orderedJSON{{"aliases", al}}})
	}
	if names != "" {
		var missing []string
		for _, n := range strings.Split(names, ",") {
			if n != "" && !strings.Contains(n, "*") && n != "_all" && !found[n] {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			msg := "alias [" + strings.Join(missing, ",") + "] missing"
			if len(missing) > 1 {
				msg = "aliases [" + strings.Join(missing, ",") + "] missing"
			}
			body := append(orderedJSON{{"error", msg}, {"status", http.StatusNotFound}}, out...)
			return writeJSON(c, http.StatusNotFound, body)
		}
	}
	return writeJSON(c, http.StatusOK, out)
}

func aliasResolve(p *cluster.EsBoolean, a *cluster.EsBoolean) searchcore.ResolveOptions {
	return searchcore.ResolveOptions{IgnoreUnavailable: boolParam(p, false), AllowNoIndices: boolParam(a, true), ExpandOpen: true}
}

// IndicesGetAliasAll answers GET /_alias.
func (s *Server) IndicesGetAliasAll(c echo.Context, p cluster.IndicesGetAliasAllParams) error {
	return s.getAliases(c, "_all", "", searchcore.ResolveOptions{AllowNoIndices: true, ExpandOpen: true})
}

// IndicesGetAliasByName answers GET /_alias/{name}.
func (s *Server) IndicesGetAliasByName(c echo.Context, name string, p cluster.IndicesGetAliasByNameParams) error {
	return s.getAliases(c, "_all", name, searchcore.ResolveOptions{AllowNoIndices: true, ExpandOpen: true})
}

// IndicesExistsAliasByName answers HEAD /_alias/{name}.
func (s *Server) IndicesExistsAliasByName(c echo.Context, name string, p cluster.IndicesExistsAliasByNameParams) error {
	return s.aliasExists(c, "_all", name)
}

// IndicesGetAlias answers GET /{index}/_alias.
func (s *Server) IndicesGetAlias(c echo.Context, index string, p cluster.IndicesGetAliasParams) error {
	return s.getAliases(c, index, "", aliasResolve(p.IgnoreUnavailable, p.AllowNoIndices))
}

// IndicesGetAliasNamed answers GET /{index}/_alias/{name}.
func (s *Server) IndicesGetAliasNamed(c echo.Context, index string, name string, p cluster.IndicesGetAliasNamedParams) error {
	return s.getAliases(c, index, name, aliasResolve(p.IgnoreUnavailable, p.AllowNoIndices))
}

// IndicesExistsAlias answers HEAD /{index}/_alias/{name}.
func (s *Server) IndicesExistsAlias(c echo.Context, index string, name string, p cluster.IndicesExistsAliasParams) error {
	return s.aliasExists(c, index, name)
}

func (s *Server) aliasExists(c echo.Context, index, name string) error {
	indices, err := s.core.Resolve(index, searchcore.ResolveOptions{AllowNoIndices: true, ExpandOpen: true})
	if err != nil {
		return c.NoContent(http.StatusNotFound)
	}
	for _, n := range strings.Split(name, ",") {
		found := false
		for _, idx := range indices {
			if len(aliasesJSON(idx.Aliases(), n)) > 0 {
				found = true
			}
		}
		if !found {
			return c.NoContent(http.StatusNotFound)
		}
	}
	return c.NoContent(http.StatusOK)
}

// IndicesPutAlias answers PUT /{index}/_alias/{name}.
func (s *Server) IndicesPutAlias(c echo.Context, index string, name string, p cluster.IndicesPutAliasParams) error {
	return s.putAlias(c, index, name)
}

// IndicesPutAliasPost answers POST /{index}/_alias/{name}.
func (s *Server) IndicesPutAliasPost(c echo.Context, index string, name string, p cluster.IndicesPutAliasPostParams) error {
	return s.putAlias(c, index, name)
}

// IndicesPutAliases answers PUT /{index}/_aliases/{name}.
func (s *Server) IndicesPutAliases(c echo.Context, index string, name string, p cluster.IndicesPutAliasesParams) error {
	return s.putAlias(c, index, name)
}

// IndicesPutAliasesPost answers POST /{index}/_aliases/{name}.
func (s *Server) IndicesPutAliasesPost(c echo.Context, index string, name string, p cluster.IndicesPutAliasesPostParams) error {
	return s.putAlias(c, index, name)
}

func (s *Server) putAlias(c echo.Context, index, name string) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	a, err := searchcore.ParseAliasBody(body)
	if err != nil {
		return err
	}
	indices, err := s.core.Resolve(index, searchcore.ResolveOptions{ExpandOpen: true})
	if err != nil {
		return err
	}
	if len(indices) == 0 {
		return searchcore.IndexNotFound(index)
	}
	if err := searchcore.ValidateIndexName(name); err != nil {
		return err
	}
	act := searchcore.AliasAction{Indices: indices, Aliases: []string{name}, Alias: a}
	if err := s.core.UpdateAliases(c.Request().Context(), []searchcore.AliasAction{act}); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

// IndicesDeleteAlias answers DELETE /{index}/_alias/{name}.
func (s *Server) IndicesDeleteAlias(c echo.Context, index string, name string, p cluster.IndicesDeleteAliasParams) error {
	return s.deleteAlias(c, index, name)
}

// IndicesDeleteAliases answers DELETE /{index}/_aliases/{name}.
func (s *Server) IndicesDeleteAliases(c echo.Context, index string, name string, p cluster.IndicesDeleteAliasesParams) error {
	return s.deleteAlias(c, index, name)
}

func (s *Server) deleteAlias(c echo.Context, index, name string) error {
	indices, err := s.core.Resolve(index, searchcore.ResolveOptions{ExpandOpen: true})
	if err != nil {
		return err
	}
	act := searchcore.AliasAction{Remove: true, MustExist: true, Indices: indices, Aliases: strings.Split(name, ",")}
	if err := s.core.UpdateAliases(c.Request().Context(), []searchcore.AliasAction{act}); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

// IndicesUpdateAliases answers POST /_aliases.
func (s *Server) IndicesUpdateAliases(c echo.Context, p cluster.IndicesUpdateAliasesParams) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var req struct {
		Actions []map[string]json.RawMessage `json:"actions"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return searchcore.ParsingError("[aliases] failed to parse field [actions]")
	}
	if len(req.Actions) == 0 {
		return searchcore.ValidationError("no actions specified")
	}
	var actions []searchcore.AliasAction
	for _, a := range req.Actions {
		if len(a) != 1 {
			return searchcore.ParsingError("Expected exactly one alias action, found %d", len(a))
		}
		for kind, raw := range a {
			var spec struct {
				Index     string   `json:"index"`
				Indices   []string `json:"indices"`
				Alias     string   `json:"alias"`
				Aliases   []string `json:"aliases"`
				MustExist *bool    `json:"must_exist"`
			}
			if err := json.Unmarshal(raw, &spec); err != nil {
				return searchcore.ParsingError("[%s] failed to parse alias action: %s", kind, err.Error())
			}
			exprs := spec.Indices
			if spec.Index != "" {
				exprs = append(exprs, spec.Index)
			}
			if len(exprs) == 0 {
				return searchcore.ValidationError("One of [index] or [indices] is required")
			}
			indices, err := s.core.Resolve(strings.Join(exprs, ","), searchcore.ResolveOptions{ExpandOpen: true})
			if err != nil {
				return err
			}
			names := spec.Aliases
			if spec.Alias != "" {
				names = append(names, spec.Alias)
			}
			switch kind {
			case "add":
				if len(names) == 0 {
					return searchcore.ValidationError("One of [alias] or [aliases] is required")
				}
				meta, err := searchcore.ParseAliasBody(stripAliasTargets(raw))
				if err != nil {
					return err
				}
				actions = append(actions, searchcore.AliasAction{Indices: indices, Aliases: names, Alias: meta})
			case "remove":
				must := spec.MustExist != nil && *spec.MustExist
				actions = append(actions, searchcore.AliasAction{Remove: true, Indices: indices, Aliases: names, MustExist: must})
			case "remove_index":
				actions = append(actions, searchcore.AliasAction{RemoveIndex: true, Indices: indices})
			default:
				return searchcore.ParsingError("Unknown alias action [%s]", kind)
			}
		}
	}
	if err := s.core.UpdateAliases(c.Request().Context(), actions); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

// stripAliasTargets removes index/alias selectors from an add action so the
// rest parses as an alias body.
func stripAliasTargets(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	for _, k := range []string{"index", "indices", "alias", "aliases", "must_exist"} {
		delete(m, k)
	}
	b, _ := json.Marshal(m)
	return b
}
