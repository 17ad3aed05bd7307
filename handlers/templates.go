package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/query"
	"github.com/quarry-search/quarry/searchcore/template"
)

// ---------------------------------------------------------------------------
// Stored scripts: PUT/POST/GET/DELETE /_scripts/{id}[/{context}].

// PutScript answers PUT /_scripts/{id}.
func (s *Server) PutScript(c echo.Context, id string, p cluster.PutScriptParams) error {
	return s.putScript(c, id, str(p.Context))
}

// PutScriptPost answers POST /_scripts/{id}.
func (s *Server) PutScriptPost(c echo.Context, id string, p cluster.PutScriptPostParams) error {
	return s.putScript(c, id, str(p.Context))
}

// PutScriptContext answers PUT /_scripts/{id}/{context}.
func (s *Server) PutScriptContext(c echo.Context, id, context string, _ cluster.PutScriptContextParams) error {
	return s.putScript(c, id, context)
}

// PutScriptContextPost answers POST /_scripts/{id}/{context}.
func (s *Server) PutScriptContextPost(c echo.Context, id, context string, _ cluster.PutScriptContextPostParams) error {
	return s.putScript(c, id, context)
}

func (s *Server) putScript(c echo.Context, id, scriptContext string) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return searchcore.ParsingError("request body is required")
	}
	if err := s.core.PutScript(c.Request().Context(), id, scriptContext, body); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

// GetScript answers GET /_scripts/{id}: {"_id","found","script"}, or
// {"_id","found":false} with 404.
func (s *Server) GetScript(c echo.Context, id string, _ cluster.GetScriptParams) error {
	sc, found, err := s.core.Script(c.Request().Context(), id)
	if err != nil {
		return err
	}
	if !found {
		return writeJSON(c, http.StatusNotFound, orderedJSON{{"_id", id}, {"found", false}})
	}
	script := orderedJSON{{"lang", sc.Lang}, {"source", sc.Source}}
	if len(sc.Options) > 0 {
		script = append(script, kvPair{"options", sc.Options})
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"_id", id}, {"found", true}, {"script", script}})
}

// DeleteScript answers DELETE /_scripts/{id}.
func (s *Server) DeleteScript(c echo.Context, id string, _ cluster.DeleteScriptParams) error {
	if err := s.core.DeleteScript(c.Request().Context(), id); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

// ---------------------------------------------------------------------------
// The earlier revision's stored templates: /_search/template/{id}.

// PutSearchTemplate answers POST /_search/template/{id}.
func (s *Server) PutSearchTemplate(c echo.Context, id string, _ cluster.PutSearchTemplateParams) error {
	return s.putSearchTemplate(c, id)
}

// PutSearchTemplatePut answers PUT /_search/template/{id}.
func (s *Server) PutSearchTemplatePut(c echo.Context, id string, _ cluster.PutSearchTemplatePutParams) error {
	return s.putSearchTemplate(c, id)
}

func (s *Server) putSearchTemplate(c echo.Context, id string) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return searchcore.ParsingError("request body is required")
	}
	if err := s.core.PutSearchTemplate(c.Request().Context(), id, body); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

// GetSearchTemplate answers GET /_search/template/{id} with
// {"_id","found","lang","template"}: the template is the stored object (or
// the stored text when it is not a JSON object).
func (s *Server) GetSearchTemplate(c echo.Context, id string, _ cluster.GetSearchTemplateParams) error {
	sc, found, err := s.core.Script(c.Request().Context(), id)
	if err != nil {
		return err
	}
	if !found || sc.Lang != "mustache" {
		return writeJSON(c, http.StatusNotFound, orderedJSON{{"_id", id}, {"found", false}, {"lang", "mustache"}})
	}
	var tmpl any = sc.Source
	if t := bytes.TrimSpace([]byte(sc.Source)); len(t) > 0 && t[0] == '{' && json.Valid(t) {
		tmpl = json.RawMessage(t)
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"_id", id}, {"found", true}, {"lang", sc.Lang}, {"template", tmpl}})
}

// DeleteSearchTemplate answers DELETE /_search/template/{id}.
func (s *Server) DeleteSearchTemplate(c echo.Context, id string, _ cluster.DeleteSearchTemplateParams) error {
	if err := s.core.DeleteScript(c.Request().Context(), id); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

// ---------------------------------------------------------------------------
// Rendering: /_render/template[/{id}].

// RenderSearchTemplateGet answers GET /_render/template.
func (s *Server) RenderSearchTemplateGet(c echo.Context, _ cluster.RenderSearchTemplateGetParams) error {
	return s.renderTemplate(c, "")
}

// RenderSearchTemplate answers POST /_render/template.
func (s *Server) RenderSearchTemplate(c echo.Context, _ cluster.RenderSearchTemplateParams) error {
	return s.renderTemplate(c, "")
}

// RenderSearchTemplateIdGet answers GET /_render/template/{id}.
func (s *Server) RenderSearchTemplateIdGet(c echo.Context, id string, _ cluster.RenderSearchTemplateIdGetParams) error {
	return s.renderTemplate(c, id)
}

// RenderSearchTemplateId answers POST /_render/template/{id}.
func (s *Server) RenderSearchTemplateId(c echo.Context, id string, _ cluster.RenderSearchTemplateIdParams) error {
	return s.renderTemplate(c, id)
}

// renderTemplate answers {"template_output": <rendered JSON>}; a path id
// names a stored template (it wins over the body's source or id).
func (s *Server) renderTemplate(c echo.Context, id string) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	tr, err := searchcore.ParseTemplateRequest(body)
	if err != nil {
		return err
	}
	if id != "" {
		tr.ID, tr.Source, tr.File = id, nil, ""
	}
	out, err := s.core.RenderTemplate(c.Request().Context(), tr)
	if err != nil {
		return err
	}
	// Like Elasticsearch, the first JSON value of the output is copied.
	var first json.RawMessage
	if err := json.NewDecoder(bytes.NewReader([]byte(out))).Decode(&first); err != nil {
		return searchcore.Errorf(searchcore.Invalid, "json_parse_exception", "%s", err.Error())
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, first); err != nil {
		return searchcore.Errorf(searchcore.Invalid, "json_parse_exception", "%s", err.Error())
	}
	var b bytes.Buffer
	b.WriteString(`{"template_output":`)
	b.Write(compact.Bytes())
	b.WriteByte('}')
	return writeRaw(c, http.StatusOK, b.Bytes())
}

// ---------------------------------------------------------------------------
// Search templates: /_search/template and /{index}/_search/template.

// SearchTemplateGet answers GET /_search/template.
func (s *Server) SearchTemplateGet(c echo.Context, p cluster.SearchTemplateGetParams) error {
	return s.searchTemplate(c, allIndices(c, ""), cluster.SearchTemplateParams(p))
}

// SearchTemplate answers POST /_search/template.
func (s *Server) SearchTemplate(c echo.Context, p cluster.SearchTemplateParams) error {
	return s.searchTemplate(c, allIndices(c, ""), p)
}

// SearchTemplateIndexGet answers GET /{index}/_search/template.
func (s *Server) SearchTemplateIndexGet(c echo.Context, index string, p cluster.SearchTemplateIndexGetParams) error {
	return s.searchTemplate(c, index, cluster.SearchTemplateParams(p))
}

// SearchTemplateIndex answers POST /{index}/_search/template.
func (s *Server) SearchTemplateIndex(c echo.Context, index string, p cluster.SearchTemplateIndexParams) error {
	return s.searchTemplate(c, index, cluster.SearchTemplateParams(p))
}

// templateSearchParams are the search parameters of a search template.
func templateSearchParams(p cluster.SearchTemplateParams) cluster.SearchParams {
	return cluster.SearchParams{
		IgnoreUnavailable:     p.IgnoreUnavailable,
		IgnoreThrottled:       p.IgnoreThrottled,
		AllowNoIndices:        p.AllowNoIndices,
		ExpandWildcards:       p.ExpandWildcards,
		Preference:            p.Preference,
		Routing:               p.Routing,
		Scroll:                p.Scroll,
		SearchType:            p.SearchType,
		TypedKeys:             p.TypedKeys,
		RestTotalHitsAsInt:    p.RestTotalHitsAsInt,
		CcsMinimizeRoundtrips: p.CcsMinimizeRoundtrips,
	}
}

func (s *Server) searchTemplate(c echo.Context, index string, p cluster.SearchTemplateParams) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	tr, err := searchcore.ParseTemplateRequest(body)
	if err != nil {
		return err
	}
	tr.Explain = tr.Explain || boolParam((*cluster.EsBoolean)(p.Explain), false)
	tr.Profile = tr.Profile || boolParam((*cluster.EsBoolean)(p.Profile), false)
	ctx := c.Request().Context()
	sp := templateSearchParams(p)
	rendered, err := s.core.RenderTemplate(ctx, tr)
	if err != nil {
		return templateFailure(rendered, err, sp)
	}
	req, err := templateSearch(rendered, tr, sp)
	if err != nil {
		return err
	}
	out, err := s.execSearch(ctx, index, sp, req)
	if err != nil {
		return err
	}
	return writeRaw(c, http.StatusOK, out)
}

// templateFailure picks the error of a search template that did not render
// to JSON: Elasticsearch parses the output as a stream, so an error in a
// complete member before the syntax error (an unknown query) is the one
// reported.
func templateFailure(rendered string, err error, sp cluster.SearchParams) error {
	if rendered == "" {
		return err
	}
	prefix, ok := template.CompleteMembers(rendered)
	if !ok {
		return err
	}
	req, perr := parseSearch([]byte(prefix), sp)
	if perr != nil {
		return perr
	}
	if qerr := checkQueries(req); qerr != nil {
		return qerr
	}
	return err
}

// checkQueries parses the query and post_filter of a search (the core
// parses them again when it runs the search).
func checkQueries(req *searchcore.SearchRequest) error {
	for _, raw := range []json.RawMessage{req.Query, req.PostFilter} {
		if len(bytes.TrimSpace(raw)) > 0 {
			if _, err := query.Parse(raw); err != nil {
				return err
			}
		}
	}
	return nil
}

// templateSearch parses a rendered template as a search body; the
// request's explain replaces the template's, as in Elasticsearch.
func templateSearch(rendered string, tr *searchcore.TemplateRequest, sp cluster.SearchParams) (*searchcore.SearchRequest, error) {
	req, err := parseSearch([]byte(rendered), sp)
	if err != nil {
		return nil, err
	}
	req.Explain = tr.Explain
	req.Profile = tr.Profile
	return req, nil
}

// ---------------------------------------------------------------------------
// Multi search templates: /_msearch/template and /{index}/_msearch/template.

// MsearchTemplateGet answers GET /_msearch/template.
func (s *Server) MsearchTemplateGet(c echo.Context, p cluster.MsearchTemplateGetParams) error {
	return s.msearchTemplate(c, "", cluster.MsearchTemplateParams(p))
}

// MsearchTemplate answers POST /_msearch/template.
func (s *Server) MsearchTemplate(c echo.Context, p cluster.MsearchTemplateParams) error {
	return s.msearchTemplate(c, "", p)
}

// MsearchTemplateIndexGet answers GET /{index}/_msearch/template.
func (s *Server) MsearchTemplateIndexGet(c echo.Context, index string, p cluster.MsearchTemplateIndexGetParams) error {
	return s.msearchTemplate(c, index, cluster.MsearchTemplateParams(p))
}

// MsearchTemplateIndex answers POST /{index}/_msearch/template.
func (s *Server) MsearchTemplateIndex(c echo.Context, index string, p cluster.MsearchTemplateIndexParams) error {
	return s.msearchTemplate(c, index, cluster.MsearchTemplateParams(p))
}

func (s *Server) msearchTemplate(c echo.Context, pathIndex string, p cluster.MsearchTemplateParams) error {
	start := time.Now()
	limit, pairs, err := readMulti(c, p.MaxConcurrentSearches, p.SearchType)
	if err != nil {
		return err
	}
	defaults := msearchDefaults{
		searchType: p.SearchType, typedKeys: p.TypedKeys, restTotalHitsAsInt: p.RestTotalHitsAsInt,
		ccs: p.CcsMinimizeRoundtrips,
	}
	// Parse every line first (a malformed one fails the whole request),
	// then validate every template request, like Elasticsearch.
	type entry struct {
		target string
		params cluster.SearchParams
		opts   searchcore.ResolveOptions
		tr     *searchcore.TemplateRequest
	}
	entries := make([]entry, len(pairs))
	for i, pair := range pairs {
		h, err := parseHeader(pair.header)
		if err != nil {
			return err
		}
		target, sp := defaults.itemParams(pathIndex, h)
		o, err := resolveOptions(sp.IgnoreUnavailable, sp.AllowNoIndices, sp.ExpandWildcards, true)
		if err != nil {
			return err
		}
		tr, err := searchcore.ParseTemplateRequest(pair.body)
		if err != nil {
			return err
		}
		if tr.Source == nil && tr.ID == "" && tr.File == "" {
			return searchcore.IllegalArgument("Malformed search template")
		}
		entries[i] = entry{target: target, params: sp, opts: o, tr: tr}
	}
	if len(entries) == 0 {
		return searchcore.ValidationError("no requests added")
	}
	var problems []string
	for _, e := range entries {
		if err := e.tr.Validate(); err != nil {
			problems = append(problems, "template is missing")
		}
	}
	if len(problems) > 0 {
		return searchcore.ValidationError(problems...)
	}
	// Render each template; a template that fails fails its search only.
	ctx := c.Request().Context()
	items := make([]searchcore.MultiSearchRequest, len(entries))
	for i, e := range entries {
		items[i] = searchcore.MultiSearchRequest{Target: e.target, Options: e.opts}
		rendered, err := s.core.RenderTemplate(ctx, e.tr)
		if err != nil {
			items[i].Err = templateFailure(rendered, err, e.params)
			continue
		}
		req, err := templateSearch(rendered, e.tr, e.params)
		if err != nil {
			items[i].Err = err
			continue
		}
		items[i].Request = req
	}
	results := s.core.MultiSearch(ctx, items, limit)
	asInt := boolParam((*cluster.EsBoolean)(p.RestTotalHitsAsInt), false)
	return writeRaw(c, http.StatusOK, s.encodeMulti(start, items, results, asInt))
}
