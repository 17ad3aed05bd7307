package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	asgen "github.com/quarry-search/quarry/gen/appsearch"
	"github.com/quarry-search/quarry/searchcore/appsearch"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// engineView is the API form of an engine.
type engineView struct {
	Name                        string         `json:"name"`
	Type                        string         `json:"type"`
	Language                    *string        `json:"language"`
	DocumentCount               int64          `json:"document_count"`
	IndexCreateSettingsOverride map[string]any `json:"index_create_settings_override"`
	SourceEngines               *[]string      `json:"source_engines,omitempty"`
}

func (h *appSearchServer) engineView(c echo.Context, e *appsearch.Engine) (engineView, error) {
	n, err := h.svc.DocumentCount(c.Request().Context(), e)
	if err != nil {
		return engineView{}, err
	}
	v := engineView{Name: e.Name, Type: string(e.Type), Language: e.Language, DocumentCount: n, IndexCreateSettingsOverride: map[string]any{}}
	if e.Type == appsearch.EngineMeta {
		src := append([]string{}, e.SourceEngines...)
		v.SourceEngines = &src
	}
	return v, nil
}

// ListEngines lists the engines the caller may see (page size at most 25).
func (h *appSearchServer) ListEngines(c echo.Context, _ asgen.ListEnginesParams) error {
	req, err := readASRequest(c)
	if err != nil {
		return err
	}
	page, err := pageParams(req.Params, 25, 25)
	if err != nil {
		return err
	}
	p := asPrincipal(c)
	var visible []*appsearch.Engine
	for _, e := range h.svc.Engines() {
		if p.CanSee(e.Name) {
			visible = append(visible, e)
		}
	}
	results := []engineView{}
	for i := (page.Current - 1) * page.Size; i < len(visible) && i < page.Current*page.Size; i++ {
		v, err := h.engineView(c, visible[i])
		if err != nil {
			return err
		}
		results = append(results, v)
	}
	return writeJSON(c, http.StatusOK, map[string]any{
		"meta":    map[string]any{"page": appsearch.NewPageMeta(page, int64(len(visible)))},
		"results": results,
	})
}

// CreateEngine creates an engine from the JSON body or the ?name= parameter.
func (h *appSearchServer) CreateEngine(c echo.Context, _ asgen.CreateEngineParams) error {
	req, err := readASRequest(c)
	if err != nil {
		return err
	}
	if req.Array != nil {
		return decodingError()
	}
	var spec appsearch.EngineSpec
	var msgs []string
	for k, v := range req.Params {
		switch k {
		case "name":
			s, ok := asString(v)
			if !ok {
				msgs = append(msgs, "Name must be a string")
			}
			spec.Name = s
		case "language":
			if v == nil {
				continue
			}
			s, ok := asString(v)
			if !ok {
				msgs = append(msgs, "Language must be a string or null")
				continue
			}
			spec.Language = &s
		case "type":
			s, ok := asString(v)
			if !ok {
				msgs = append(msgs, "Type must be a string")
			}
			spec.Type = s
		case "source_engines":
			l, ok := asStringList(v)
			if !ok {
				msgs = append(msgs, "Source engines must be an array of engine names")
			}
			spec.SourceEngines = l
		case "revision":
			s, ok := asString(v)
			if !ok {
				msgs = append(msgs, "Revision must be a string")
			}
			spec.Revision = s
		case "index_create_settings_override":
		default:
			msgs = append(msgs, "Options contains invalid key: "+k)
		}
	}
	if len(msgs) > 0 {
		return appsearch.Errors(eserr.Invalid, msgs...)
	}
	e, err := h.svc.CreateEngine(c.Request().Context(), spec)
	return h.writeEngine(c, e, err)
}

// writeEngine answers with an engine (or the error that produced none).
func (h *appSearchServer) writeEngine(c echo.Context, e *appsearch.Engine, err error) error {
	if err != nil {
		return err
	}
	v, err := h.engineView(c, e)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, v)
}

// GetEngine returns an engine.
func (h *appSearchServer) GetEngine(c echo.Context, name asgen.EngineNamePath) error {
	e, err := h.svc.Engine(name)
	return h.writeEngine(c, e, err)
}

// DeleteEngine deletes an engine.
func (h *appSearchServer) DeleteEngine(c echo.Context, name asgen.EngineNamePath) error {
	if err := h.svc.DeleteEngine(c.Request().Context(), name); err != nil {
		return err
	}
	// The engine's search settings, synonyms, curations and analytics go
	// with it.
	if err := h.search.DropEngine(c.Request().Context(), name); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]bool{"deleted": true})
}

// sourceNames reads the JSON array of engine names of the source-engine
// endpoints (also accepted as source_engines[]=… parameters).
func sourceNames(req *asRequest) ([]string, error) {
	if req.Array != nil {
		names, ok := rawStrings(req.Array)
		if !ok {
			return nil, appsearch.Errors(eserr.Invalid, "Source engines must be an array of engine names")
		}
		return names, nil
	}
	if v, ok := req.Params["source_engines"]; ok {
		if names, ok := asStringList(v); ok {
			return names, nil
		}
	}
	return nil, appsearch.Errors(eserr.Invalid, "Source engines are required")
}

// AddMetaEngineSource adds source engines to a meta engine.
func (h *appSearchServer) AddMetaEngineSource(c echo.Context, name asgen.EngineNamePath) error {
	return h.changeSources(c, name, h.svc.AddSourceEngines)
}

// DeleteMetaEngineSource removes source engines from a meta engine.
func (h *appSearchServer) DeleteMetaEngineSource(c echo.Context, name asgen.EngineNamePath) error {
	return h.changeSources(c, name, h.svc.RemoveSourceEngines)
}

func (h *appSearchServer) changeSources(c echo.Context, name string, f func(ctx context.Context, name string, names []string) (*appsearch.Engine, error)) error {
	if _, err := h.svc.Engine(name); err != nil {
		return err
	}
	req, err := readASRequest(c)
	if err != nil {
		return err
	}
	names, err := sourceNames(req)
	if err != nil {
		return err
	}
	for _, n := range names {
		if !asPrincipal(c).CanSee(n) {
			return appsearch.Errors(eserr.Invalid, "Source engine does not exist: "+n)
		}
	}
	e, err := f(c.Request().Context(), name, names)
	return h.writeEngine(c, e, err)
}
