package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/query"
)

// Bulk answers POST /_bulk.
func (s *Server) Bulk(c echo.Context, p cluster.BulkParams) error {
	return s.bulk(c, "", p)
}

// BulkPut answers PUT /_bulk.
func (s *Server) BulkPut(c echo.Context, p cluster.BulkPutParams) error {
	return s.bulk(c, "", cluster.BulkParams(p))
}

// BulkIndex answers POST /{index}/_bulk.
func (s *Server) BulkIndex(c echo.Context, index string, p cluster.BulkIndexParams) error {
	return s.bulk(c, index, cluster.BulkParams(p))
}

// BulkIndexPut answers PUT /{index}/_bulk.
func (s *Server) BulkIndexPut(c echo.Context, index string, p cluster.BulkIndexPutParams) error {
	return s.bulk(c, index, cluster.BulkParams(p))
}

func (s *Server) bulk(c echo.Context, index string, p cluster.BulkParams) error {
	start := time.Now()
	refresh, err := refreshPolicy(p.Refresh)
	if err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	items, err := searchcore.ParseBulk(body, searchcore.BulkDefaults{
		Index: index, Routing: str(p.Routing), Pipeline: str(p.Pipeline), RequireAlias: boolParam(p.RequireAlias, false),
		FetchSource: sourceParamJSON((*string)(p.Source), p.SourceIncludes, p.SourceExcludes),
	})
	if err != nil {
		return err
	}
	s.authorizeBulkItems(c, items)
	results := s.core.ExecBulk(c.Request().Context(), items, refresh)
	errorsFound := false
	for _, r := range results {
		if r.Err != nil {
			errorsFound = true
			break
		}
	}
	var buf bytes.Buffer
	buf.Grow(160 * len(results))
	buf.WriteString(`{"took":`)
	buf.WriteString(strconv.FormatInt(time.Since(start).Milliseconds(), 10))
	buf.WriteString(`,"errors":`)
	buf.WriteString(strconv.FormatBool(errorsFound))
	buf.WriteString(`,"items":[`)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i, r := range results {
		if i > 0 {
			buf.WriteByte(',')
		}
		op := string(items[i].Req.Op)
		buf.WriteString(`{"`)
		buf.WriteString(op)
		buf.WriteString(`":`)
		var item orderedJSON
		if r.Err != nil {
			e, status := s.clientError(r.Err, "bulk item failed", "index", r.Index, "id", r.ID)
			item = orderedJSON{{"_index", r.Index}, {"_type", "_doc"}, {"_id", r.ID}, {"status", status}, {"error", esErrorObject(e)}}
		} else {
			item = writeResultJSON(r)
			item = append(item, kvPair{"status", r.Status})
			if fs := items[i].Req.FetchSource; items[i].Req.Op == searchcore.OpUpdate && len(fs) > 0 {
				get, err := updateGet(fs, r)
				if err != nil {
					return err
				}
				if get != nil {
					item = append(item, kvPair{"get", get})
				}
			}
		}
		if err := enc.Encode(item); err != nil {
			return err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
		buf.WriteByte('}')
	}
	buf.WriteString("]}")
	return writeRaw(c, http.StatusOK, buf.Bytes())
}

// sourceParamJSON turns the _source URL parameters into the JSON form of a
// source filter (nil when none is given).
func sourceParamJSON(src *string, inc, exc *[]string) json.RawMessage {
	if src == nil && inc == nil && exc == nil {
		return nil
	}
	obj := map[string]any{}
	if src != nil {
		switch *src {
		case "", "true":
			if inc == nil && exc == nil {
				return json.RawMessage("true")
			}
		case "false":
			return json.RawMessage("false")
		default:
			obj["includes"] = strings.Split(*src, ",")
		}
	}
	if inc != nil {
		obj["includes"] = *inc
	}
	if exc != nil {
		obj["excludes"] = *exc
	}
	b, _ := json.Marshal(obj)
	return b
}

// updateGet renders the "get" member of an update result for a _source option.
func updateGet(fetch json.RawMessage, r searchcore.DocResult) (orderedJSON, error) {
	filter, err := query.ParseSourceFilter(fetch)
	if err != nil {
		return nil, err
	}
	src, ok, err := filter.Apply(r.Source)
	if err != nil {
		return nil, err
	}
	get := orderedJSON{{"_seq_no", r.SeqNo}, {"_primary_term", r.PrimaryTerm}, {"found", true}}
	if !ok {
		if string(bytes.TrimSpace(fetch)) == "false" {
			return nil, nil
		}
		return get, nil
	}
	return append(get, kvPair{"_source", json.RawMessage(src)}), nil
}
