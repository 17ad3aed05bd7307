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

// ---------------------------------------------------------------- composable templates

// IndicesPutIndexTemplate answers PUT /_index_template/{name}.
func (s *Server) IndicesPutIndexTemplate(c echo.Context, name cluster.TemplateNamePath, p cluster.IndicesPutIndexTemplateParams) error {
	return s.putTemplate(c, false, string(name), boolParam(p.Create, false), nil)
}

// IndicesPutIndexTemplatePost answers POST /_index_template/{name}.
func (s *Server) IndicesPutIndexTemplatePost(c echo.Context, name cluster.TemplateNamePath, p cluster.IndicesPutIndexTemplatePostParams) error {
	return s.putTemplate(c, false, string(name), boolParam(p.Create, false), nil)
}

// IndicesGetIndexTemplateAll answers GET /_index_template.
func (s *Server) IndicesGetIndexTemplateAll(c echo.Context, p cluster.IndicesGetIndexTemplateAllParams) error {
	return s.getIndexTemplates(c, "", boolParam(p.FlatSettings, false))
}

// IndicesGetIndexTemplate answers GET /_index_template/{name}.
func (s *Server) IndicesGetIndexTemplate(c echo.Context, name cluster.TemplateNamePath, p cluster.IndicesGetIndexTemplateParams) error {
	return s.getIndexTemplates(c, string(name), boolParam(p.FlatSettings, false))
}

// IndicesExistsIndexTemplate answers HEAD /_index_template/{name}.
func (s *Server) IndicesExistsIndexTemplate(c echo.Context, name cluster.TemplateNamePath, _ cluster.IndicesExistsIndexTemplateParams) error {
	return templateExists(c, s.core.Templates(false), string(name))
}

// IndicesDeleteIndexTemplate answers DELETE /_index_template/{name}.
func (s *Server) IndicesDeleteIndexTemplate(c echo.Context, name cluster.TemplateNamePath, _ cluster.IndicesDeleteIndexTemplateParams) error {
	if err := s.core.DeleteTemplates(c.Request().Context(), false, string(name)); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

func (s *Server) getIndexTemplates(c echo.Context, names string, flat bool) error {
	list := []orderedJSON{}
	for _, t := range s.core.Templates(false) {
		if !core.NameMatches(names, t.Name) {
			continue
		}
		list = append(list, orderedJSON{{"name", t.Name}, {"index_template", indexTemplateJSON(t, flat)}})
	}
	if len(list) == 0 && names != "" && !strings.Contains(names, "*") {
		return searchcore.Errorf(searchcore.NotFound, "resource_not_found_exception", "index template matching [%s] not found", names)
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"index_templates", list}})
}

// indexTemplateJSON renders a composable template: {index_patterns,
// template, composed_of, priority, version, _meta}.
func indexTemplateJSON(t *core.Template, flat bool) orderedJSON {
	body := orderedJSON{{"index_patterns", t.IndexPatterns}}
	if inner := templateParts(t, flat, false); len(inner) > 0 {
		body = append(body, kvPair{"template", inner})
	}
	body = append(body, kvPair{"composed_of", append([]string{}, t.ComposedOf...)})
	if t.Priority != nil {
		body = append(body, kvPair{"priority", *t.Priority})
	}
	if t.Version != nil {
		body = append(body, kvPair{"version", *t.Version})
	}
	if len(t.Meta) > 0 {
		body = append(body, kvPair{"_meta", t.Meta})
	}
	return body
}

// templateParts renders settings, mappings and aliases (always all three
// for legacy templates, only the present ones for composable ones).
func templateParts(t *core.Template, flat, all bool) orderedJSON {
	o := orderedJSON{}
	if len(t.Settings) > 0 || all {
		o = append(o, kvPair{"settings", searchcore.RenderSettings(t.Settings, flat)})
	}
	if len(t.Mappings) > 0 {
		o = append(o, kvPair{"mappings", t.Mappings})
	} else if all {
		o = append(o, kvPair{"mappings", orderedJSON{}})
	}
	if len(t.Aliases) > 0 || all {
		names := make([]string, 0, len(t.Aliases))
		for a := range t.Aliases {
			names = append(names, a)
		}
		sort.Strings(names)
		aliases := orderedJSON{}
		for _, a := range names {
			aliases = append(aliases, kvPair{a, t.Aliases[a]})
		}
		o = append(o, kvPair{"aliases", aliases})
	}
	return o
}

func templateExists(c echo.Context, list []*core.Template, names string) error {
	for _, t := range list {
		if core.NameMatches(names, t.Name) {
			return c.NoContent(http.StatusOK)
		}
	}
	return c.NoContent(http.StatusNotFound)
}

func (s *Server) putTemplate(c echo.Context, legacy bool, name string, create bool, order *int64) error {
	return s.putTemplateBody(c, func(body json.RawMessage) error {
		return s.core.PutTemplate(c.Request().Context(), legacy, name, body, create, order)
	})
}

// putTemplateBody reads a required template body, stores it with put and
// acknowledges.
func (s *Server) putTemplateBody(c echo.Context, put func(json.RawMessage) error) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return searchcore.Errorf(searchcore.Invalid, "parse_exception", "request body is required")
	}
	if err := put(json.RawMessage(body)); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

// ---------------------------------------------------------------- legacy templates

// IndicesPutTemplate answers PUT /_template/{name}.
func (s *Server) IndicesPutTemplate(c echo.Context, name cluster.TemplateNamePath, p cluster.IndicesPutTemplateParams) error {
	s.typeNameParam(c, p.IncludeTypeName, templateTypeNameWarning)
	return s.putTemplate(c, true, string(name), boolParam(p.Create, false), p.Order)
}

// IndicesPutTemplatePost answers POST /_template/{name}.
func (s *Server) IndicesPutTemplatePost(c echo.Context, name cluster.TemplateNamePath, p cluster.IndicesPutTemplatePostParams) error {
	s.typeNameParam(c, p.IncludeTypeName, templateTypeNameWarning)
	return s.putTemplate(c, true, string(name), boolParam(p.Create, false), p.Order)
}

// IndicesGetTemplateAll answers GET /_template.
func (s *Server) IndicesGetTemplateAll(c echo.Context, p cluster.IndicesGetTemplateAllParams) error {
	s.typeNameParam(c, p.IncludeTypeName, templateTypeNameWarning)
	return s.getLegacyTemplates(c, "", boolParam(p.FlatSettings, false))
}

// IndicesGetTemplate answers GET /_template/{name}.
func (s *Server) IndicesGetTemplate(c echo.Context, name cluster.TemplateNamePath, p cluster.IndicesGetTemplateParams) error {
	s.typeNameParam(c, p.IncludeTypeName, templateTypeNameWarning)
	return s.getLegacyTemplates(c, string(name), boolParam(p.FlatSettings, false))
}

// IndicesExistsTemplate answers HEAD /_template/{name}.
func (s *Server) IndicesExistsTemplate(c echo.Context, name cluster.TemplateNamePath, _ cluster.IndicesExistsTemplateParams) error {
	return templateExists(c, s.core.Templates(true), string(name))
}

// IndicesDeleteTemplate answers DELETE /_template/{name}.
func (s *Server) IndicesDeleteTemplate(c echo.Context, name cluster.TemplateNamePath, _ cluster.IndicesDeleteTemplateParams) error {
	if err := s.core.DeleteTemplates(c.Request().Context(), true, string(name)); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

// templateTypeNameWarning is ES's warning for include_type_name on the
// legacy index template APIs.
const templateTypeNameWarning = "[types removal] Using include_type_name in put/get index template requests is deprecated. The parameter will be removed in the next major version."

// typeNameParam reads include_type_name (default false), adding warning,
// Elasticsearch's deprecation warning of the API, whenever it is given.
func (s *Server) typeNameParam(c echo.Context, p *cluster.EsBoolean, warning string) bool {
	if p != nil {
		s.deprecationWarning(c, warning)
	}
	return boolParam(p, false)
}

func (s *Server) getLegacyTemplates(c echo.Context, names string, flat bool) error {
	out := legacyTemplatesJSON(s.core.Templates(true), names, flat)
	if len(out) == 0 && names != "" {
		return writeJSON(c, http.StatusNotFound, orderedJSON{})
	}
	return writeJSON(c, http.StatusOK, out)
}

// legacyTemplatesJSON renders legacy templates keyed by name.
func legacyTemplatesJSON(list []*core.Template, names string, flat bool) orderedJSON {
	out := orderedJSON{}
	for _, t := range list {
		if !core.NameMatches(names, t.Name) {
			continue
		}
		body := orderedJSON{{"order", t.Order}}
		if t.Version != nil {
			body = append(body, kvPair{"version", *t.Version})
		}
		body = append(body, kvPair{"index_patterns", t.IndexPatterns})
		body = append(body, templateParts(t, flat, true)...)
		out = append(out, kvPair{t.Name, body})
	}
	return out
}

// ---------------------------------------------------------------- _cat/templates

var catTemplatesCols = []catColumn{
	{"name", []string{"n"}, "template name", true, catText},
	{"index_patterns", []string{"t"}, "template index patterns", true, catText},
	{"order", []string{"o", "p"}, "template application order/priority number", true, catNumber},
	{"version", []string{"v"}, "version", true, catText},
	{"composed_of", []string{"c"}, "component templates comprising index template", true, catText},
}

// CatTemplates answers GET /_cat/templates.
func (s *Server) CatTemplates(c echo.Context, p cluster.CatTemplatesParams) error {
	return s.catTemplates(c, "", p)
}

// CatTemplatesName answers GET /_cat/templates/{name}.
func (s *Server) CatTemplatesName(c echo.Context, name cluster.TemplateNamePath, p cluster.CatTemplatesNameParams) error {
	return s.catTemplates(c, string(name), cluster.CatTemplatesParams(p))
}

func (s *Server) catTemplates(c echo.Context, names string, p cluster.CatTemplatesParams) error {
	t := &catTable{cols: catTemplatesCols}
	for _, legacy := range []bool{true, false} {
		for _, tpl := range s.core.Templates(legacy) {
			if !core.NameMatches(names, tpl.Name) {
				continue
			}
			var version any
			if tpl.Version != nil {
				version = strconv.FormatInt(*tpl.Version, 10)
			}
			order := tpl.Order
			composed := ""
			if !legacy {
				if tpl.Priority != nil {
					order = *tpl.Priority
				} else {
					order = 0
				}
				composed = "[" + strings.Join(tpl.ComposedOf, ", ") + "]"
			}
			t.rows = append(t.rows, []any{tpl.Name, "[" + strings.Join(tpl.IndexPatterns, ", ") + "]", order, version, composed})
		}
	}
	return writeCat(c, t, newCatParams(p.Format, p.H, p.Help, p.S, p.V, nil, nil))
}
