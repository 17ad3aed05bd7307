package handlers

import (
	"bytes"
	"encoding/json"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
)

// applyFetchParams applies the URL parameters of the fetch phase after the
// body was parsed, as RestSearchAction does: _source, _source_includes,
// _source_excludes and stored_fields replace the body's values, and
// docvalue_fields adds to the body's list.
func applyFetchParams(req *searchcore.SearchRequest, p cluster.SearchParams) error {
	if p.StoredFields != nil {
		req.SetStoredFields(*p.StoredFields)
	}
	if p.Source != nil || p.SourceIncludes != nil || p.SourceExcludes != nil {
		f, err := sourceFilterFromParams((*string)(p.Source), p.SourceIncludes, p.SourceExcludes)
		if err != nil {
			return err
		}
		req.Source = f
	}
	if p.DocvalueFields != nil {
		req.AddDocValueFieldParams(*p.DocvalueFields)
	}
	return nil
}

// fetchDeprecations emits the deprecation warnings of the fetch options:
// the use_field_mapping docvalue format, the default since 7.0.
func (s *Server) fetchDeprecations(c echo.Context, req *searchcore.SearchRequest) {
	for _, f := range req.DocValueFields {
		if f.Format == "use_field_mapping" {
			s.deprecationWarning(c, "[use_field_mapping] is a special format that was only used to ease the transition to 7.x. "+
				"It has become the default and shouldn't be set explicitly anymore.")
			return
		}
	}
}

// marshalUnescaped encodes v as JSON without escaping <, > and & (the
// highlight tags appear as Elasticsearch writes them).
func marshalUnescaped(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("null")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}
