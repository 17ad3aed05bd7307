package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
)

// OpenPointInTime answers POST /{index}/_pit?keep_alive=.
func (s *Server) OpenPointInTime(c echo.Context, index cluster.IndexListPath, p cluster.OpenPointInTimeParams) error {
	keep, err := parseKeepAlive(p.KeepAlive, "keep_alive")
	if err != nil {
		return err
	}
	if keep == 0 {
		return searchcore.ValidationError("[keep_alive] is missing")
	}
	o, err := resolveOptions(p.IgnoreUnavailable, nil, p.ExpandWildcards, true)
	if err != nil {
		return err
	}
	indices, err := s.core.Resolve(index, o)
	if err != nil {
		return err
	}
	id, err := s.core.OpenPointInTime(indices, keep)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"id", id}})
}

// ClosePointInTime answers DELETE /_pit with {"id": ...}.
func (s *Server) ClosePointInTime(c echo.Context, p cluster.ClosePointInTimeParams) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var id string
	if b := bytes.TrimSpace(body); len(b) > 0 {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return searchcore.ParsingError("Failed to parse request body")
		}
		for k, v := range m {
			if k != "id" || json.Unmarshal(v, &id) != nil {
				return searchcore.ParsingError("[close_point_in_time] unknown field [%s]", k)
			}
		}
	}
	if id == "" {
		return searchcore.ValidationError("point in time id is not provided")
	}
	n, err := s.core.ClosePointInTime(id)
	if err != nil {
		return err
	}
	return writeFreed(c, n)
}

// parseKeepAlive parses a keep_alive/scroll time value ("" is 0).
func parseKeepAlive(v, name string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	return searchcore.ParseTimeValue(v, name)
}
