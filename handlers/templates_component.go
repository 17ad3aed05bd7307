package handlers

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
	core "github.com/quarry-search/quarry/searchcore/cluster"
)

// ClusterPutComponentTemplate answers PUT /_component_template/{name}.
func (s *Server) ClusterPutComponentTemplate(c echo.Context, name cluster.TemplateNamePath, p cluster.ClusterPutComponentTemplateParams) error {
	return s.putComponentTemplate(c, string(name), boolParam(p.Create, false))
}

// ClusterPutComponentTemplatePost answers POST /_component_template/{name}.
func (s *Server) ClusterPutComponentTemplatePost(c echo.Context, name cluster.TemplateNamePath, p cluster.ClusterPutComponentTemplatePostParams) error {
	return s.putComponentTemplate(c, string(name), boolParam(p.Create, false))
}

func (s *Server) putComponentTemplate(c echo.Context, name string, create bool) error {
	return s.putTemplateBody(c, func(body json.RawMessage) error {
		return s.core.PutComponentTemplate(c.Request().Context(), name, body, create)
	})
}

// ClusterGetComponentTemplateAll answers GET /_component_template.
func (s *Server) ClusterGetComponentTemplateAll(c echo.Context, p cluster.ClusterGetComponentTemplateAllParams) error {
	return s.getComponentTemplates(c, "", boolParam(p.FlatSettings, false))
}

// ClusterGetComponentTemplate answers GET /_component_template/{name}.
func (s *Server) ClusterGetComponentTemplate(c echo.Context, name cluster.TemplateNamePath, p cluster.ClusterGetComponentTemplateParams) error {
	return s.getComponentTemplates(c, string(name), boolParam(p.FlatSettings, false))
}

// ClusterExistsComponentTemplate answers HEAD /_component_template/{name}.
func (s *Server) ClusterExistsComponentTemplate(c echo.Context, name cluster.TemplateNamePath, _ cluster.ClusterExistsComponentTemplateParams) error {
	return templateExists(c, s.core.ComponentTemplates(), string(name))
}

// ClusterDeleteComponentTemplate answers DELETE /_component_template/{name}.
func (s *Server) ClusterDeleteComponentTemplate(c echo.Context, name cluster.TemplateNamePath, _ cluster.ClusterDeleteComponentTemplateParams) error {
	if err := s.core.DeleteComponentTemplates(c.Request().Context(), string(name)); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

func (s *Server) getComponentTemplates(c echo.Context, names string, flat bool) error {
	list := []orderedJSON{}
	for _, t := range s.core.ComponentTemplates() {
		if core.NameMatches(names, t.Name) {
			list = append(list, orderedJSON{{"name", t.Name}, {"component_template", componentTemplateJSON(t, flat)}})
		}
	}
	if len(list) == 0 && names != "" && !strings.Contains(names, "*") {
		return searchcore.Errorf(searchcore.NotFound, "resource_not_found_exception", "component template matching [%s] not found", names)
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"component_templates", list}})
}

// componentTemplateJSON renders {template:{settings, mappings, aliases},
// version, _meta} with only the parts present, like Elasticsearch.
func componentTemplateJSON(t *core.Template, flat bool) orderedJSON {
	body := orderedJSON{{"template", templateParts(t, flat, false)}}
	if t.Version != nil {
		body = append(body, kvPair{"version", *t.Version})
	}
	if len(t.Meta) > 0 {
		body = append(body, kvPair{"_meta", t.Meta})
	}
	return body
}
