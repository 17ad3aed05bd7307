package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"

	"github.com/labstack/echo/v4"

	asgen "github.com/quarry-search/quarry/gen/appsearch"
	"github.com/quarry-search/quarry/searchcore/appsearch"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// readDocumentsBody reads the body of an index or patch request: an array
// of documents or one document object. Bodies over the payload limit are
// 413; an empty body or {} is "JSON must not be empty".
func (h *appSearchServer) readDocumentsBody(c echo.Context) ([]json.RawMessage, error) {
	limit := h.svc.Limits().PayloadBytes
	if c.Request().ContentLength > limit {
		return nil, payloadTooLarge(limit)
	}
	body, err := readBody(c)
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > limit {
		return nil, payloadTooLarge(limit)
	}
	req, err := mergeASRequest(map[string]any{}, body)
	if err != nil {
		return nil, err
	}
	if req.Array != nil {
		return req.Array, nil
	}
	if len(req.Params) == 0 {
		return nil, appsearch.Errors(eserr.Invalid, appsearch.MsgEmptyJSON)
	}
	return []json.RawMessage{json.RawMessage(body)}, nil
}

func payloadTooLarge(limit int64) error {
	return appsearch.Errorf(eserr.TooLarge, "Request body is too large (maximum is %d bytes)", limit)
}

// IndexDocuments creates or replaces documents.
func (h *appSearchServer) IndexDocuments(c echo.Context, engine asgen.EngineNamePath) error {
	return h.writeDocuments(c, engine, h.svc.IndexDocuments)
}

// UpdateDocuments patches documents.
func (h *appSearchServer) UpdateDocuments(c echo.Context, engine asgen.EngineNamePath) error {
	return h.writeDocuments(c, engine, h.svc.PatchDocuments)
}

// writeDocuments runs an index or patch request.
func (h *appSearchServer) writeDocuments(c echo.Context, engine string, f func(context.Context, string, []json.RawMessage) ([]appsearch.DocResult, error)) error {
	if _, err := h.svc.Engine(engine); err != nil {
		return err
	}
	docs, err := h.readDocumentsBody(c)
	if err != nil {
		return err
	}
	res, err := f(c.Request().Context(), engine, docs)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, res)
}

// documentIDs reads ids from a JSON array body, ids[]=… / ids=… parameters
// or an {"ids": [...]} body.
func documentIDs(req *asRequest) ([]string, error) {
	if req.Array != nil {
		ids, ok := rawStrings(req.Array)
		if !ok {
			return nil, appsearch.Errors(eserr.Invalid, "Ids must be an array of strings")
		}
		return ids, nil
	}
	for k := range req.Params {
		if k != "ids" {
			return nil, appsearch.Errors(eserr.Invalid, fmt.Sprintf("Options contains invalid key: %s", k))
		}
	}
	v, ok := req.Params["ids"]
	if !ok {
		return nil, appsearch.Errors(eserr.Invalid, "Missing required parameter: ids")
	}
	ids, ok := asStringList(v)
	if !ok {
		return nil, appsearch.Errors(eserr.Invalid, "Ids must be an array of strings")
	}
	return ids, nil
}

// GetDocuments returns documents by id.
func (h *appSearchServer) GetDocuments(c echo.Context, engine asgen.EngineNamePath, _ asgen.GetDocumentsParams) error {
	return h.byIDs(c, engine, func(ctx context.Context, ids []string) (any, error) {
		return h.svc.GetDocuments(ctx, engine, ids)
	})
}

// DeleteDocuments deletes documents by id.
func (h *appSearchServer) DeleteDocuments(c echo.Context, engine asgen.EngineNamePath) error {
	return h.byIDs(c, engine, func(ctx context.Context, ids []string) (any, error) {
		return h.svc.DeleteDocuments(ctx, engine, ids)
	})
}

// byIDs reads the ids of a documents request on an existing engine, runs
// f and writes its answer.
func (h *appSearchServer) byIDs(c echo.Context, engine string, f func(context.Context, []string) (any, error)) error {
	if _, err := h.svc.Engine(engine); err != nil {
		return err
	}
	req, err := readASRequest(c)
	if err != nil {
		return err
	}
	ids, err := documentIDs(req)
	if err != nil {
		return err
	}
	out, err := f(c.Request().Context(), ids)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, out)
}

// ListDocuments lists documents (GET).
func (h *appSearchServer) ListDocuments(c echo.Context, engine asgen.EngineNamePath, _ asgen.ListDocumentsParams) error {
	return h.listDocuments(c, engine)
}

// ListDocumentsPost lists documents (POST).
func (h *appSearchServer) ListDocumentsPost(c echo.Context, engine asgen.EngineNamePath, _ asgen.ListDocumentsPostParams) error {
	return h.listDocuments(c, engine)
}

func (h *appSearchServer) listDocuments(c echo.Context, engine string) error {
	if _, err := h.svc.Engine(engine); err != nil {
		return err
	}
	req, err := readASRequest(c)
	if err != nil {
		return err
	}
	for k := range req.Params {
		if k != "page" {
			return appsearch.Errors(eserr.Invalid, "Options contains invalid key: "+k)
		}
	}
	page, err := pageParams(req.Params, 100, 100)
	if err != nil {
		return err
	}
	docs, meta, err := h.svc.ListDocuments(c.Request().Context(), engine, page)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]any{"meta": map[string]any{"page": meta}, "results": docs})
}

// GetSchema returns the schema.
func (h *appSearchServer) GetSchema(c echo.Context, engine asgen.EngineNamePath) error {
	e, err := h.svc.Engine(engine)
	if err != nil {
		return err
	}
	sc := e.Schema
	if e.Type == appsearch.EngineMeta {
		sc = h.metaSchema(e)
	}
	return writeJSON(c, http.StatusOK, sc)
}

// metaSchema is the union of the source engines' schemas (a field typed
// differently by two sources is reported as text).
func (h *appSearchServer) metaSchema(e *appsearch.Engine) appsearch.Schema {
	out := appsearch.Schema{}
	for _, n := range e.SourceEngines {
		src, err := h.svc.Engine(n)
		if err != nil {
			continue
		}
		for f, t := range src.Schema {
			if cur, ok := out[f]; ok && cur != t {
				t = appsearch.Text
			}
			out[f] = t
		}
	}
	return out
}

// UpdateSchema changes the schema.
func (h *appSearchServer) UpdateSchema(c echo.Context, engine asgen.EngineNamePath) error {
	if _, err := h.svc.Engine(engine); err != nil {
		return err
	}
	req, err := readASRequest(c)
	if err != nil {
		return err
	}
	if req.Array != nil || len(req.Params) == 0 {
		return appsearch.Errors(eserr.Invalid, appsearch.MsgEmptyJSON)
	}
	changes := map[string]string{}
	var msgs []string
	keys := make([]string, 0, len(req.Params))
	for k := range req.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s, ok := req.Params[k].(string)
		if !ok {
			msgs = append(msgs, fmt.Sprintf("Invalid field type for field %s: must be one of text, number, date, geolocation", k))
			continue
		}
		changes[k] = s
	}
	if len(msgs) > 0 {
		return appsearch.Errors(eserr.Invalid, msgs...)
	}
	sc, err := h.svc.UpdateSchema(c.Request().Context(), engine, changes)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, sc)
}
