package handlers

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/query"
)

// writeParams are the URL parameters shared by the single-document writes.
type writeParams struct {
	refresh       *cluster.Refresh
	routing       string
	version       *int64
	versionType   string
	ifSeqNo       *int64
	ifPrimaryTerm *int64
	opType        string
	pipeline      string
	requireAlias  bool
}

func refreshPolicy(p *cluster.Refresh) (searchcore.Refresh, error) {
	if p == nil {
		return searchcore.RefreshFalse, nil
	}
	return searchcore.ParseRefresh(string(*p), true)
}

// indexDoc executes one index/create request.
func (s *Server) indexDoc(c echo.Context, index, id string, op searchcore.Op, wp writeParams) error {
	if id == "" && c.Request().Method == http.MethodPut {
		return searchcore.ValidationError("id is missing")
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return searchcore.ValidationError("source is missing")
	}
	switch wp.opType {
	case "create":
		op = searchcore.OpCreate
	case "index", "":
	default:
		return searchcore.IllegalArgument("opType must be 'create' or 'index', found: [%s]", wp.opType)
	}
	refresh, err := refreshPolicy(wp.refresh)
	if err != nil {
		return err
	}
	req := &searchcore.DocRequest{
		Op: op, Index: index, ID: id, Routing: wp.routing, Source: body,
		IfSeqNo: wp.ifSeqNo, IfPrimaryTerm: wp.ifPrimaryTerm, Version: wp.version,
		VersionType: searchcore.VersionType(wp.versionType), RequireAlias: wp.requireAlias, Pipeline: wp.pipeline,
	}
	if wp.pipeline != "" && wp.pipeline != "_none" {
		return searchcore.IllegalArgument("pipeline with id [%s] does not exist", wp.pipeline)
	}
	res := s.core.ExecDocs(c.Request().Context(), []*searchcore.DocRequest{req}, refresh)[0]
	if res.Err != nil {
		return res.Err
	}
	return writeJSON(c, res.Status, writeResultJSON(res))
}

// writeResultJSON renders an index/create/delete/update result.
func writeResultJSON(r searchcore.DocResult) orderedJSON {
	out := orderedJSON{
		{"_index", r.Index},
		{"_type", "_doc"},
		{"_id", r.ID},
		{"_version", r.Version},
		{"result", r.Result},
	}
	if r.ForcedRefresh {
		out = append(out, kvPair{"forced_refresh", true})
	}
	if r.Result == "noop" {
		out = append(out, kvPair{"_shards", shardsHeader{}})
	} else {
		out = append(out, kvPair{"_shards", shardsHeader{Total: r.ShardsTotal, Successful: r.ShardsSuccessful}})
	}
	out = append(out, kvPair{"_seq_no", r.SeqNo}, kvPair{"_primary_term", r.PrimaryTerm})
	return out
}

func optInt64[T ~int64](p *T) *int64 {
	if p == nil {
		return nil
	}
	v := int64(*p)
	return &v
}

// Index answers PUT /{index}/_doc/{id}.
func (s *Server) Index(c echo.Context, index string, id string, p cluster.IndexParams) error {
	return s.indexDoc(c, index, id, searchcore.OpIndex, writeParams{
		refresh: p.Refresh, routing: str(p.Routing), version: optInt64(p.Version), versionType: str(p.VersionType),
		ifSeqNo: optInt64(p.IfSeqNo), ifPrimaryTerm: optInt64(p.IfPrimaryTerm), opType: str(p.OpType),
		pipeline: str(p.Pipeline), requireAlias: boolParam(p.RequireAlias, false),
	})
}

// IndexPost answers POST /{index}/_doc/{id}.
func (s *Server) IndexPost(c echo.Context, index string, id string, p cluster.IndexPostParams) error {
	return s.Index(c, index, id, cluster.IndexParams(p))
}

// IndexAutoId answers POST /{index}/_doc (the id is generated).
func (s *Server) IndexAutoId(c echo.Context, index string, p cluster.IndexAutoIdParams) error {
	wp := writeParams{
		refresh: p.Refresh, routing: str(p.Routing), version: optInt64(p.Version), versionType: str(p.VersionType),
		ifSeqNo: optInt64(p.IfSeqNo), ifPrimaryTerm: optInt64(p.IfPrimaryTerm), opType: str(p.OpType),
		pipeline: str(p.Pipeline), requireAlias: boolParam(p.RequireAlias, false),
	}
	return s.indexDoc(c, index, "", searchcore.OpIndex, wp)
}

// Create answers PUT /{index}/_create/{id}.
func (s *Server) Create(c echo.Context, index string, id string, p cluster.CreateParams) error {
	return s.indexDoc(c, index, id, searchcore.OpCreate, writeParams{
		refresh: p.Refresh, routing: str(p.Routing), version: optInt64(p.Version), versionType: str(p.VersionType),
		pipeline: str(p.Pipeline),
	})
}

// CreatePost answers POST /{index}/_create/{id}.
func (s *Server) CreatePost(c echo.Context, index string, id string, p cluster.CreatePostParams) error {
	return s.Create(c, index, id, cluster.CreateParams(p))
}

// Delete answers DELETE /{index}/_doc/{id}.
func (s *Server) Delete(c echo.Context, index string, id string, p cluster.DeleteParams) error {
	refresh, err := refreshPolicy(p.Refresh)
	if err != nil {
		return err
	}
	req := &searchcore.DocRequest{
		Op: searchcore.OpDelete, Index: index, ID: id, Routing: str(p.Routing),
		IfSeqNo: optInt64(p.IfSeqNo), IfPrimaryTerm: optInt64(p.IfPrimaryTerm), Version: optInt64(p.Version),
		VersionType: searchcore.VersionType(str(p.VersionType)),
	}
	res := s.core.ExecDocs(c.Request().Context(), []*searchcore.DocRequest{req}, refresh)[0]
	if res.Err != nil {
		return res.Err
	}
	return writeJSON(c, res.Status, writeResultJSON(res))
}

// Update answers POST /{index}/_update/{id}.
func (s *Server) Update(c echo.Context, index string, id string, p cluster.UpdateParams) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return searchcore.ValidationError("script or doc is missing")
	}
	u, err := searchcore.ParseUpdateBody(body)
	if err != nil {
		return err
	}
	refresh, err := refreshPolicy(p.Refresh)
	if err != nil {
		return err
	}
	req := &searchcore.DocRequest{
		Op: searchcore.OpUpdate, Index: index, ID: id, Routing: str(p.Routing), Update: u,
		IfSeqNo: optInt64(p.IfSeqNo), IfPrimaryTerm: optInt64(p.IfPrimaryTerm), RequireAlias: boolParam(p.RequireAlias, false),
	}
	if u.IfSeqNo != nil && req.IfSeqNo == nil {
		req.IfSeqNo, req.IfPrimaryTerm = u.IfSeqNo, u.IfPrimaryTerm
	}
	res := s.core.ExecDocs(c.Request().Context(), []*searchcore.DocRequest{req}, refresh)[0]
	if res.Err != nil {
		return res.Err
	}
	out := writeResultJSON(res)
	filter, err := updateSourceFilter(u.Source, (*string)(p.Source), p.SourceIncludes, p.SourceExcludes)
	if err != nil {
		return err
	}
	if filter != nil {
		src, ok, err := filter.Apply(res.Source)
		if err != nil {
			return err
		}
		get := orderedJSON{{"_seq_no", res.SeqNo}, {"_primary_term", res.PrimaryTerm}, {"found", true}}
		if ok {
			get = append(get, kvPair{"_source", json.RawMessage(src)})
		}
		out = append(out, kvPair{"get", get})
	}
	status := http.StatusOK
	if res.Result == "created" {
		status = http.StatusCreated
	}
	return writeJSON(c, status, out)
}

// updateSourceFilter returns the filter of the update's "get" member, or
// nil when the source is not requested.
func updateSourceFilter(body json.RawMessage, src *string, inc, exc *[]string) (*query.SourceFilter, error) {
	if len(body) > 0 {
		return query.ParseSourceFilter(body)
	}
	if src == nil && inc == nil && exc == nil {
		return nil, nil
	}
	return sourceFilterFromParams(src, inc, exc)
}

// sourceFilterFromParams builds a filter from _source, _source_includes and
// _source_excludes URL parameters.
func sourceFilterFromParams(src *string, inc, exc *[]string) (*query.SourceFilter, error) {
	var includes, excludes []string
	var enabled *bool
	if src != nil {
		switch *src {
		case "true", "":
			t := true
			enabled = &t
		case "false":
			f := false
			enabled = &f
		default:
			includes = strings.Split(*src, ",")
		}
	}
	if inc != nil {
		includes = append(includes, *inc...)
	}
	if exc != nil {
		excludes = append(excludes, *exc...)
	}
	return query.NewSourceFilter(includes, excludes, enabled), nil
}

// Get answers GET /{index}/_doc/{id}.
func (s *Server) Get(c echo.Context, index string, id string, p cluster.GetParams) error {
	return s.get(c, index, id, p, false)
}

// Exists answers HEAD /{index}/_doc/{id}.
func (s *Server) Exists(c echo.Context, index string, id string, p cluster.ExistsParams) error {
	_, rec, err := s.core.Get(c.Request().Context(), index, id, searchcore.GetOptions{
		Routing: str(p.Routing), Realtime: boolParam(p.Realtime, true), Refresh: boolParam((*cluster.EsBoolean)(p.Refresh), false),
		Version: optInt64(p.Version), VersionType: searchcore.VersionType(str(p.VersionType)),
	})
	if err != nil {
		if searchcore.StatusOf(err) == http.StatusConflict {
			return c.NoContent(http.StatusConflict)
		}
		return c.NoContent(http.StatusNotFound)
	}
	if rec == nil {
		return c.NoContent(http.StatusNotFound)
	}
	return c.NoContent(http.StatusOK)
}

func (s *Server) get(c echo.Context, index, id string, p cluster.GetParams, sourceOnly bool) error {
	idx, rec, err := s.core.Get(c.Request().Context(), index, id, searchcore.GetOptions{
		Routing: str(p.Routing), Realtime: boolParam(p.Realtime, true), Refresh: boolParam((*cluster.EsBoolean)(p.Refresh), false),
		Version: optInt64(p.Version), VersionType: searchcore.VersionType(str(p.VersionType)),
	})
	if err != nil {
		return err
	}
	if rec == nil {
		if sourceOnly {
			return searchcore.Errorf(searchcore.NotFound, "resource_not_found_exception", "Document not found [%s]/[_doc]/[%s]", idx.Name(), id)
		}
		return writeJSON(c, http.StatusNotFound, orderedJSON{{"_index", idx.Name()}, {"_type", "_doc"}, {"_id", id}, {"found", false}})
	}
	filter, err := sourceFilterFromParams((*string)(p.Source), p.SourceIncludes, p.SourceExcludes)
	if err != nil {
		return err
	}
	var stored []string
	if p.StoredFields != nil {
		stored = *p.StoredFields
		if filter == nil || (p.Source == nil && p.SourceIncludes == nil && p.SourceExcludes == nil) {
			// stored_fields without _source drops the source unless listed.
			want := false
			for _, f := range stored {
				if f == "_source" {
					want = true
				}
			}
			if !want {
				f := false
				filter = query.NewSourceFilter(nil, nil, &f)
			}
		}
	}
	mp := idx.Mapping()
	sourceEnabled := mp.Source == nil || mp.Source.Enabled == nil || *mp.Source.Enabled
	var src []byte
	hasSource := false
	if sourceEnabled {
		src, hasSource, err = filter.Apply(rec.Source)
		if err != nil {
			return err
		}
	}
	if sourceOnly {
		if !hasSource {
			return searchcore.Errorf(searchcore.NotFound, "resource_not_found_exception", "Source not found [%s]/[_doc]/[%s]", idx.Name(), id)
		}
		return writeRaw(c, http.StatusOK, src)
	}
	out := orderedJSON{
		{"_index", idx.Name()},
		{"_type", "_doc"},
		{"_id", id},
		{"_version", rec.Version},
		{"_seq_no", rec.SeqNo},
		{"_primary_term", rec.PrimaryTerm},
		{"found", true},
	}
	if rec.Routing != "" {
		out = append(out, kvPair{"_routing", rec.Routing})
	}
	if hasSource {
		out = append(out, kvPair{"_source", json.RawMessage(src)})
	}
	if len(stored) > 0 {
		vals, err := mp.StoredFieldValues(rec.Source, stored, "")
		if err != nil {
			return err
		}
		if len(vals) > 0 {
			out = append(out, kvPair{"fields", vals})
		}
	}
	return writeJSON(c, http.StatusOK, out)
}

// GetSource answers GET /{index}/_source/{id}.
func (s *Server) GetSource(c echo.Context, index string, id string, p cluster.GetSourceParams) error {
	gp := cluster.GetParams{
		Preference: p.Preference, Realtime: p.Realtime, Refresh: p.Refresh, Routing: p.Routing,
		Source: p.Source, SourceExcludes: p.SourceExcludes, SourceIncludes: p.SourceIncludes,
		Version: p.Version, VersionType: p.VersionType,
	}
	return s.get(c, index, id, gp, true)
}

// ExistsSource answers HEAD /{index}/_source/{id}.
func (s *Server) ExistsSource(c echo.Context, index string, id string, p cluster.ExistsSourceParams) error {
	idx, rec, err := s.core.Get(c.Request().Context(), index, id, searchcore.GetOptions{
		Routing: str(p.Routing), Realtime: boolParam(p.Realtime, true),
	})
	if err != nil || rec == nil {
		return c.NoContent(http.StatusNotFound)
	}
	mp := idx.Mapping()
	if mp.Source != nil && mp.Source.Enabled != nil && !*mp.Source.Enabled {
		return c.NoContent(http.StatusNotFound)
	}
	return c.NoContent(http.StatusOK)
}
