package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/quarry-search/quarry/gen/cluster"
)

// IndicesClose closes indices (POST /{index}/_close).
func (s *Server) IndicesClose(c echo.Context, index cluster.IndexListPath, p cluster.IndicesCloseParams) error {
	o, err := resolveOptions(p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards, true)
	if err != nil {
		return err
	}
	o.AllowClosed = true
	indices, err := s.core.Resolve(string(index), o)
	if err != nil {
		return err
	}
	closed, err := s.core.CloseIndices(c.Request().Context(), indices)
	if err != nil {
		return err
	}
	per := orderedJSON{}
	for _, name := range closed {
		per = append(per, kvPair{name, orderedJSON{{"closed", true}}})
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}, {"shards_acknowledged", len(closed) > 0}, {"indices", per}})
}

// IndicesOpen reopens closed indices (POST /{index}/_open); wildcards
// expand to closed indices unless expand_wildcards says otherwise.
func (s *Server) IndicesOpen(c echo.Context, index cluster.IndexListPath, p cluster.IndicesOpenParams) error {
	o, err := resolveOptions(p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards, true)
	if err != nil {
		return err
	}
	if p.ExpandWildcards == nil || len(*p.ExpandWildcards) == 0 {
		o.ExpandOpen, o.ExpandClosed = false, true
	}
	o.AllowClosed = true
	indices, err := s.core.Resolve(string(index), o)
	if err != nil {
		return err
	}
	if err := s.core.OpenIndices(c.Request().Context(), indices); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}, {"shards_acknowledged", true}})
}
