package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/query"
)

// SearchGet answers GET /_search.
func (s *Server) SearchGet(c echo.Context, p cluster.SearchGetParams) error {
	return s.search(c, allIndices(c, ""), cluster.SearchParams(p))
}

// Search answers POST /_search.
func (s *Server) Search(c echo.Context, p cluster.SearchParams) error {
	return s.search(c, allIndices(c, ""), p)
}

// SearchIndexGet answers GET /{index}/_search.
func (s *Server) SearchIndexGet(c echo.Context, index string, p cluster.SearchIndexGetParams) error {
	return s.search(c, index, cluster.SearchParams(p))
}

// SearchIndex answers POST /{index}/_search.
func (s *Server) SearchIndex(c echo.Context, index string, p cluster.SearchIndexParams) error {
	return s.search(c, index, cluster.SearchParams(p))
}

// uriQuery turns q= URI search parameters into a query_string query.
func uriQuery(q, df, op, analyzer string, lenient *cluster.EsBoolean) json.RawMessage {
	qs := map[string]any{"query": q}
	if df != "" {
		qs["default_field"] = df
	}
	if op != "" {
		qs["default_operator"] = op
	}
	if analyzer != "" {
		qs["analyzer"] = analyzer
	}
	if lenient != nil {
		qs["lenient"] = boolParam(lenient, false)
	}
	b, _ := json.Marshal(map[string]any{"query_string": qs})
	return b
}

// searchRequest merges URL parameters and body into a core request: the
// body first, then the URL parameters, which win over the body's values
// (and whose sort keys follow the body's) as in Elasticsearch's
// RestSearchAction.
func searchRequest(body []byte, p cluster.SearchParams) (*searchcore.SearchRequest, error) {
	req := searchcore.NewSearchRequest()
	if err := searchcore.ParseSearchBody(body, req); err != nil {
		return nil, err
	}
	if p.From != nil {
		req.From = *p.From
	}
	if p.Size != nil {
		req.Size = *p.Size
	}
	if p.TrackTotalHits != nil {
		t, err := searchcore.ParseTrackTotalHits(*p.TrackTotalHits)
		if err != nil {
			return nil, err
		}
		req.TrackTotalHits = t
	}
	if p.TerminateAfter != nil {
		req.TerminateAfter = *p.TerminateAfter
	}
	if p.Version != nil {
		req.Version = boolParam((*cluster.EsBoolean)(p.Version), false)
	}
	if p.SeqNoPrimaryTerm != nil {
		req.SeqNoPrimaryTerm = boolParam((*cluster.EsBoolean)(p.SeqNoPrimaryTerm), false)
	}
	if p.TrackScores != nil {
		req.TrackScores = boolParam((*cluster.EsBoolean)(p.TrackScores), false)
	}
	if p.Explain != nil {
		req.Explain = boolParam((*cluster.EsBoolean)(p.Explain), false)
	}
	if p.Timeout != nil {
		d, err := searchcore.ParseTimeValue(*p.Timeout, "timeout")
		if err != nil {
			return nil, err
		}
		req.Timeout = d
	}
	if p.Sort != nil && len(*p.Sort) > 0 {
		sortJSON, err := sortParamJSON(*p.Sort)
		if err != nil {
			return nil, err
		}
		urlSort, err := query.ParseSort(sortJSON)
		if err != nil {
			return nil, err
		}
		if req.HasSort {
			req.Sort = append(req.Sort, urlSort...)
		} else {
			req.Sort = urlSort
		}
		req.HasSort = true
	}
	if p.Q != nil {
		req.Query = uriQuery(*p.Q, str(p.Df), str(p.DefaultOperator), str(p.Analyzer), (*cluster.EsBoolean)(p.Lenient))
	}
	if p.Scroll != nil {
		d, err := searchcore.ParseTimeValue(*p.Scroll, "scroll")
		if err != nil {
			return nil, err
		}
		req.Scroll = d
	}
	req.RequestCache = boolParam((*cluster.EsBoolean)(p.RequestCache), false)
	req.DFS = p.SearchType != nil && *p.SearchType == cluster.SearchTypeParam(cluster.SearchTypeDfsQueryThenFetch)
	if p.SuggestField != nil || p.SuggestText != nil {
		size := 0
		if p.SuggestSize != nil {
			size = *p.SuggestSize
		}
		sg, err := searchcore.URLSuggester(str(p.SuggestField), str(p.SuggestText), str((*string)(p.SuggestMode)), size)
		if err != nil {
			return nil, err
		}
		req.Suggest = []searchcore.Suggester{sg}
	}
	if err := applyFetchParams(req, p); err != nil {
		return nil, err
	}
	return req, nil
}

// sortParamJSON turns sort=field:desc,other URL values into sort JSON.
func sortParamJSON(list []string) (json.RawMessage, error) {
	var out []any
	for _, item := range list {
		for _, part := range strings.Split(item, ",") {
			if part == "" {
				continue
			}
			field, order, ok := strings.Cut(part, ":")
			if ok {
				out = append(out, map[string]any{field: map[string]any{"order": order}})
			} else {
				out = append(out, field)
			}
		}
	}
	return json.Marshal(out)
}

// search serves the search operations; index is "" for the paths without
// an index (all indices, or the point in time's).
func (s *Server) search(c echo.Context, index string, p cluster.SearchParams) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	req, err := parseSearch(body, p)
	if err != nil {
		return err
	}
	s.fetchDeprecations(c, req)
	out, err := s.execSearch(c.Request().Context(), index, p, req)
	if err != nil {
		return err
	}
	return writeRaw(c, http.StatusOK, out)
}

// parseSearch parses one search (URL parameters and body) the way the
// search APIs share it (_search, _msearch, the search templates), including
// the rest_total_hits_as_int rule.
func parseSearch(body []byte, p cluster.SearchParams) (*searchcore.SearchRequest, error) {
	req, err := searchRequest(body, p)
	if err != nil {
		return nil, err
	}
	req.TypedKeys = boolParam((*cluster.EsBoolean)(p.TypedKeys), false)
	if boolParam((*cluster.EsBoolean)(p.RestTotalHitsAsInt), false) {
		if err := checkRestTotalHits(req); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// checkRestTotalHits is Elasticsearch's rule for rest_total_hits_as_int:
// the total is counted exactly unless the request disabled it, and any
// other limit is an error.
func checkRestTotalHits(req *searchcore.SearchRequest) error {
	switch req.TrackTotalHits {
	case searchcore.DefaultTrackTotalHits:
		req.TrackTotalHits = searchcore.TrackTotalHits(math.MaxInt)
	case searchcore.TrackTotalHits(math.MaxInt), 0:
	default:
		return searchcore.IllegalArgument("[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got %d", int(req.TrackTotalHits))
	}
	return nil
}

// execSearch resolves the indices of a parsed search (index is "" for the
// paths without one), runs it and encodes the response.
func (s *Server) execSearch(ctx context.Context, index string, p cluster.SearchParams, req *searchcore.SearchRequest) ([]byte, error) {
	var indices []*searchcore.Index
	if req.PIT == nil || index != "" {
		// With a point in time an index in the path is an error the core
		// reports (it needs the resolved indices to say so).
		if index == "" {
			index = "_all"
		}
		o, err := resolveOptions(p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards, true)
		if err != nil {
			return nil, err
		}
		if indices, err = s.core.Resolve(index, o); err != nil {
			return nil, err
		}
		if err := s.core.ResolveIndicesBoost(req, o); err != nil {
			return nil, err
		}
		if req.PIT != nil && len(indices) == 0 {
			return nil, searchcore.ValidationError("[indices] cannot be used with point in time. Do not specify any index with point in time.")
		}
	}
	res, err := s.core.Search(ctx, indices, req)
	if err != nil {
		return nil, err
	}
	asInt := boolParam((*cluster.EsBoolean)(p.RestTotalHitsAsInt), false)
	return encodeSearch(res, req, asInt), nil
}

// encodeSearch renders a search response.
func encodeSearch(res *searchcore.SearchResult, req *searchcore.SearchRequest, totalAsInt bool) []byte {
	var b bytes.Buffer
	b.Grow(256 + 512*len(res.Hits))
	b.WriteByte('{')
	if res.ScrollID != "" {
		b.WriteString(`"_scroll_id":`)
		writeString(&b, res.ScrollID)
		b.WriteByte(',')
	}
	if res.PitID != "" {
		b.WriteString(`"pit_id":`)
		writeString(&b, res.PitID)
		b.WriteByte(',')
	}
	b.WriteString(`"took":`)
	b.WriteString(strconv.FormatInt(res.Took.Milliseconds(), 10))
	b.WriteString(`,"timed_out":`)
	b.WriteString(strconv.FormatBool(res.TimedOut))
	if res.TerminatedEarly != nil {
		b.WriteString(`,"terminated_early":`)
		b.WriteString(strconv.FormatBool(*res.TerminatedEarly))
	}
	b.WriteString(`,"_shards":`)
	if len(res.ShardFailures) == 0 {
		// every shard answered (the common case): no encoder needed
		b.WriteString(`{"total":`)
		b.WriteString(strconv.Itoa(res.ShardsTotal))
		b.WriteString(`,"successful":`)
		b.WriteString(strconv.Itoa(res.ShardsTotal))
		b.WriteString(`,"skipped":0,"failed":0}`)
	} else {
		shb, _ := json.Marshal(searchShards(res.ShardsTotal, res.ShardFailures))
		b.Write(shb)
	}
	b.WriteString(`,"hits":{`)
	if res.TotalRelation != "" {
		if totalAsInt {
			b.WriteString(`"total":`)
			b.WriteString(strconv.FormatInt(res.Total, 10))
		} else {
			b.WriteString(`"total":{"value":`)
			b.WriteString(strconv.FormatInt(res.Total, 10))
			b.WriteString(`,"relation":"`)
			b.WriteString(res.TotalRelation)
			b.WriteString(`"}`)
		}
		b.WriteByte(',')
	} else if totalAsInt {
		b.WriteString(`"total":-1,`)
	}
	b.WriteString(`"max_score":`)
	writeFloat(&b, res.MaxScore)
	b.WriteString(`,"hits":[`)
	for i, h := range res.Hits {
		if i > 0 {
			b.WriteByte(',')
		}
		writeHit(&b, &h, req, totalAsInt, nil)
	}
	b.WriteString(`]}`)
	if res.Aggregations != nil {
		b.WriteString(`,"aggregations":`)
		b.Write(res.Aggregations)
	}
	writeSearchExtras(&b, res)
	b.WriteByte('}')
	return b.Bytes()
}

// writeHit renders one hit as Elasticsearch's SearchHit does; nested is
// the _nested identity of a nested inner hit (nil otherwise), and req the
// search (or inner_hits definition) whose fetch options shape it.
func writeHit(b *bytes.Buffer, h *searchcore.Hit, req *searchcore.SearchRequest, totalAsInt bool, nested []byte) {
	b.WriteString(`{"_index":`)
	writeString(b, h.Index)
	b.WriteString(`,"_type":"_doc"`)
	if h.ID != "" {
		b.WriteString(`,"_id":`)
		writeString(b, h.ID)
	}
	if nested != nil {
		b.WriteString(`,"_nested":`)
		b.Write(nested)
	}
	if req.Version {
		b.WriteString(`,"_version":`)
		b.WriteString(strconv.FormatInt(h.Version, 10))
	}
	if req.SeqNoPrimaryTerm {
		b.WriteString(`,"_seq_no":`)
		b.WriteString(strconv.FormatInt(h.SeqNo, 10))
		b.WriteString(`,"_primary_term":`)
		b.WriteString(strconv.FormatInt(h.PrimaryTerm, 10))
	}
	b.WriteString(`,"_score":`)
	writeFloat(b, h.Score)
	if h.Routing != "" {
		b.WriteString(`,"_routing":`)
		writeString(b, h.Routing)
	}
	if h.Source != nil {
		b.WriteString(`,"_source":`)
		b.Write(h.Source)
	}
	if len(h.Fields) > 0 {
		b.WriteString(`,"fields":`)
		fb, _ := json.Marshal(h.Fields)
		b.Write(fb)
	}
	if len(h.Highlight) > 0 {
		b.WriteString(`,"highlight":`)
		b.Write(marshalUnescaped(h.Highlight))
	}
	if h.Sort != nil {
		b.WriteString(`,"sort":`)
		sb, _ := json.Marshal(h.Sort)
		b.Write(sb)
	}
	writeHitExtras(b, h, req, totalAsInt)
	if len(h.InnerHits) > 0 {
		writeInnerHits(b, h.InnerHits, totalAsInt)
	}
	b.WriteByte('}')
}

func writeFloat(b *bytes.Buffer, f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		b.WriteString("null")
		return
	}
	b.WriteString(strconv.FormatFloat(f, 'g', -1, 32))
}

func writeString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s)
	b.Write(enc)
}

// CountGet answers GET /_count.
func (s *Server) CountGet(c echo.Context, p cluster.CountGetParams) error {
	return s.count(c, allIndices(c, "_all"), cluster.CountParams(p))
}

// Count answers POST /_count.
func (s *Server) Count(c echo.Context, p cluster.CountParams) error {
	return s.count(c, allIndices(c, "_all"), p)
}

// CountIndexGet answers GET /{index}/_count.
func (s *Server) CountIndexGet(c echo.Context, index string, p cluster.CountIndexGetParams) error {
	return s.count(c, index, cluster.CountParams(p))
}

// CountIndex answers POST /{index}/_count.
func (s *Server) CountIndex(c echo.Context, index string, p cluster.CountIndexParams) error {
	return s.count(c, index, cluster.CountParams(p))
}

func (s *Server) count(c echo.Context, index string, p cluster.CountParams) error {
	if p.TerminateAfter != nil && *p.TerminateAfter < 0 {
		return searchcore.IllegalArgument("terminateAfter must be positive")
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var rawQuery json.RawMessage
	if len(bytes.TrimSpace(body)) > 0 {
		var b map[string]json.RawMessage
		if err := json.Unmarshal(body, &b); err != nil {
			return searchcore.ParsingError("request body or source parameter is required")
		}
		for k, v := range b {
			if k != "query" {
				return searchcore.ParsingError("request does not support [%s]", k)
			}
			rawQuery = v
		}
	}
	if p.Q != nil {
		rawQuery = uriQuery(*p.Q, str(p.Df), str(p.DefaultOperator), str(p.Analyzer), (*cluster.EsBoolean)(p.Lenient))
	}
	o, err := resolveOptions(p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards, true)
	if err != nil {
		return err
	}
	indices, err := s.core.Resolve(index, o)
	if err != nil {
		return err
	}
	terminate := 0
	if p.TerminateAfter != nil {
		terminate = *p.TerminateAfter
	}
	res, err := s.core.Count(c.Request().Context(), indices, rawQuery, terminate)
	if err != nil {
		return err
	}
	out := orderedJSON{{"count", res.Count}}
	if res.TerminatedEarly {
		out = append(out, kvPair{"terminated_early", true})
	}
	out = append(out, kvPair{"_shards", searchShards(res.Shards, res.ShardFailures)})
	return writeJSON(c, http.StatusOK, out)
}
