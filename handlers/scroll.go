package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
)

// ScrollGet answers GET /_search/scroll.
func (s *Server) ScrollGet(c echo.Context, p cluster.ScrollGetParams) error {
	return s.scroll(c, p.ScrollId, p.Scroll, p.RestTotalHitsAsInt)
}

// Scroll answers POST /_search/scroll.
func (s *Server) Scroll(c echo.Context, p cluster.ScrollParams) error {
	return s.scroll(c, p.ScrollId, p.Scroll, p.RestTotalHitsAsInt)
}

// ScrollIDGet answers GET /_search/scroll/{scroll_id}.
func (s *Server) ScrollIDGet(c echo.Context, id cluster.ScrollIDPath, p cluster.ScrollIDGetParams) error {
	return s.scroll(c, &id, p.Scroll, p.RestTotalHitsAsInt)
}

// ScrollID answers POST /_search/scroll/{scroll_id}.
func (s *Server) ScrollID(c echo.Context, id cluster.ScrollIDPath, p cluster.ScrollIDParams) error {
	return s.scroll(c, &id, p.Scroll, p.RestTotalHitsAsInt)
}

// scroll returns the next page of a scroll. Body members win over the
// query string and the path; without scroll the context is freed after
// this page.
func (s *Server) scroll(c echo.Context, id, keepAlive *string, asInt *cluster.RestTotalHitsAsIntParam) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	scrollID := ""
	if id != nil {
		scrollID = *id
	}
	ka := ""
	if keepAlive != nil {
		ka = *keepAlive
	}
	if b := bytes.TrimSpace(body); len(b) > 0 {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return searchcore.ParsingError("Failed to parse request body")
		}
		for k, v := range m {
			var sv string
			if err := json.Unmarshal(v, &sv); err != nil || (k != "scroll" && k != "scroll_id") {
				return searchcore.IllegalArgument("Unknown parameter [%s] in request body or parameter is of the wrong type[%s] ", k, searchcore.TokenName(v))
			}
			if k == "scroll" {
				ka = sv
			} else {
				scrollID = sv
			}
		}
	}
	if scrollID == "" {
		return searchcore.ValidationError("scrollId is missing")
	}
	keep, err := parseKeepAlive(ka, "scroll")
	if err != nil {
		return err
	}
	res, req, err := s.core.Scroll(c.Request().Context(), scrollID, keep)
	if err != nil {
		return err
	}
	return writeRaw(c, http.StatusOK, encodeSearch(res, req, boolParam((*cluster.EsBoolean)(asInt), false)))
}

// ClearScroll answers DELETE /_search/scroll.
func (s *Server) ClearScroll(c echo.Context, p cluster.ClearScrollParams) error {
	return s.clearScroll(c, nil)
}

// ClearScrollID answers DELETE /_search/scroll/{scroll_id}.
func (s *Server) ClearScrollID(c echo.Context, id cluster.ScrollIDPath, p cluster.ClearScrollIDParams) error {
	return s.clearScroll(c, splitIDs(id))
}

// clearScroll frees scroll contexts; ids in the body win over the path.
func (s *Server) clearScroll(c echo.Context, ids []string) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if b := bytes.TrimSpace(body); len(b) > 0 {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return searchcore.ParsingError("Failed to parse request body")
		}
		for k, v := range m {
			if k != "scroll_id" {
				return searchcore.IllegalArgument("Unknown parameter [%s] in request body or parameter is of the wrong type[%s] ", k, searchcore.TokenName(v))
			}
			var one string
			var list []string
			switch {
			case json.Unmarshal(v, &one) == nil:
				ids = splitIDs(one)
			case json.Unmarshal(v, &list) == nil:
				ids = list
			default:
				return searchcore.IllegalArgument("Unknown parameter [%s] in request body or parameter is of the wrong type[%s] ", k, searchcore.TokenName(v))
			}
		}
	}
	if len(ids) == 0 {
		return searchcore.ValidationError("no scroll ids specified")
	}
	n, err := s.core.ClearScroll(ids)
	if err != nil {
		return err
	}
	return writeFreed(c, n)
}

// writeFreed writes {succeeded, num_freed}: 404 when nothing was freed.
func writeFreed(c echo.Context, n int) error {
	status := http.StatusOK
	if n == 0 {
		status = http.StatusNotFound
	}
	return writeJSON(c, status, orderedJSON{{"succeeded", true}, {"num_freed", n}})
}

func splitIDs(s string) []string {
	var out []string
	for _, id := range strings.Split(s, ",") {
		if id = strings.TrimSpace(id); id != "" {
			out = append(out, id)
		}
	}
	return out
}
