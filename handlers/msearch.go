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
)

// MsearchGet answers GET /_msearch.
func (s *Server) MsearchGet(c echo.Context, p cluster.MsearchGetParams) error {
	return s.msearch(c, "", cluster.MsearchParams(p))
}

// Msearch answers POST /_msearch.
func (s *Server) Msearch(c echo.Context, p cluster.MsearchParams) error {
	return s.msearch(c, "", p)
}

// MsearchIndexGet answers GET /{index}/_msearch.
func (s *Server) MsearchIndexGet(c echo.Context, index string, p cluster.MsearchIndexGetParams) error {
	return s.msearch(c, index, cluster.MsearchParams(p))
}

// MsearchIndex answers POST /{index}/_msearch.
func (s *Server) MsearchIndex(c echo.Context, index string, p cluster.MsearchIndexParams) error {
	return s.msearch(c, index, cluster.MsearchParams(p))
}

// ndjsonPair is one search of a multi search: its header and body lines.
type ndjsonPair struct {
	header []byte
	body   []byte
}

// parseNDJSON splits a multi search body into header/body pairs the way
// Elasticsearch does: lines end with \n (optionally \r\n), a leading empty
// line is skipped, an empty header line means {}, a header without a body
// at the end is ignored, and a last line without its newline is an error.
func parseNDJSON(data []byte, api string) ([]ndjsonPair, error) {
	var out []ndjsonPair
	from := 0
	next := func() (int, error) {
		i := bytes.IndexByte(data[from:], '\n')
		if i >= 0 {
			return from + i, nil
		}
		if from != len(data) {
			return -1, searchcore.IllegalArgument("The %s request must be terminated by a newline [\\n]", api)
		}
		return -1, nil
	}
	for {
		end, err := next()
		if err != nil {
			return nil, err
		}
		if end < 0 {
			break
		}
		if end == 0 {
			from = 1 // a first empty line is skipped
			continue
		}
		header := trimCR(data[from:end])
		from = end + 1
		end, err = next()
		if err != nil {
			return nil, err
		}
		if end < 0 {
			break // a header without a body is ignored
		}
		out = append(out, ndjsonPair{header: header, body: trimCR(data[from:end])})
		from = end + 1
	}
	return out, nil
}

func trimCR(b []byte) []byte {
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// msearchHeader is a parsed header line.
type msearchHeader struct {
	index             *string
	searchType        *cluster.SearchType
	routing           *string
	preference        *string
	requestCache      *cluster.EsBoolean
	ignoreUnavailable *cluster.EsBoolean
	allowNoIndices    *cluster.EsBoolean
	ignoreThrottled   *cluster.EsBoolean
	expandWildcards   *[]cluster.ExpandWildcards
}

// parseHeader parses a header line ({} or empty for the defaults). An
// unknown key or a malformed value fails the whole request, as in
// Elasticsearch.
func parseHeader(line []byte) (*msearchHeader, error) {
	h := &msearchHeader{}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return h, nil
	}
	members, err := orderedMembers(line)
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		switch m.K {
		case "index", "indices":
			list, err := stringList(m.K, m.V)
			if err != nil {
				return nil, err
			}
			joined := strings.Join(list, ",")
			h.index = &joined
		case "type", "types":
			if _, err := stringList(m.K, m.V); err != nil {
				return nil, err
			}
		case "search_type", "searchType":
			v, err := stringValue(m.K, m.V)
			if err != nil {
				return nil, err
			}
			st, err := parseSearchType(v)
			if err != nil {
				return nil, err
			}
			h.searchType = &st
		case "ccs_minimize_roundtrips", "ccsMinimizeRoundtrips", "allow_partial_search_results":
			if _, err := boolValue(m.V); err != nil {
				return nil, err
			}
		case "request_cache", "requestCache":
			if h.requestCache, err = boolValue(m.V); err != nil {
				return nil, err
			}
		case "preference":
			v, err := stringValue(m.K, m.V)
			if err != nil {
				return nil, err
			}
			h.preference = &v
		case "routing":
			v, err := stringValue(m.K, m.V)
			if err != nil {
				return nil, err
			}
			h.routing = &v
		case "expand_wildcards", "expandWildcards":
			list, err := stringList(m.K, m.V)
			if err != nil {
				return nil, err
			}
			var ew []cluster.ExpandWildcards
			for _, x := range list {
				for _, part := range strings.Split(x, ",") {
					ew = append(ew, cluster.ExpandWildcards(strings.TrimSpace(part)))
				}
			}
			h.expandWildcards = &ew
		case "ignore_unavailable", "ignoreUnavailable":
			if h.ignoreUnavailable, err = boolValue(m.V); err != nil {
				return nil, err
			}
		case "allow_no_indices", "allowNoIndices":
			if h.allowNoIndices, err = boolValue(m.V); err != nil {
				return nil, err
			}
		case "ignore_throttled", "ignoreThrottled":
			if h.ignoreThrottled, err = boolValue(m.V); err != nil {
				return nil, err
			}
		default:
			return nil, searchcore.IllegalArgument("key [%s] is not supported in the metadata section", m.K)
		}
	}
	return h, nil
}

// orderedMembers decodes a JSON object's members in order; anything else
// is Elasticsearch's parse failure.
func orderedMembers(line []byte) (orderedJSON, error) {
	v, err := decodeOrdered(line)
	if err != nil {
		return nil, searchcore.Errorf(searchcore.Invalid, "json_parse_exception", "Failed to parse the multi search header [%s]: %s", truncateString(string(line), 200), err.Error())
	}
	o, ok := v.(orderedJSON)
	if !ok {
		return nil, searchcore.ParsingError("Failed to parse the multi search header: expected [START_OBJECT] but found [%s]", jsonTokenName(line))
	}
	return o, nil
}

// jsonTokenName is searchcore.TokenName, except that an empty line is
// reported as "null" like Elasticsearch's multi search parser does.
func jsonTokenName(b []byte) string {
	if len(bytes.TrimSpace(b)) == 0 {
		return "null"
	}
	return searchcore.TokenName(b)
}

func marshalValue(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func truncateString(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// stringValue reads a header value as a string (numbers and booleans as
// their text, like Elasticsearch's nodeStringValue).
func stringValue(key string, v any) (string, error) {
	switch t := v.(type) {
	case string:
		return t, nil
	case json.Number:
		return t.String(), nil
	case bool:
		return strconv.FormatBool(t), nil
	case nil:
		return "", nil
	}
	return "", searchcore.IllegalArgument("[%s] must be a string or an array of strings, got [%s]", key, jsonTokenName(marshalValue(v)))
}

// stringList reads a string or an array of strings (a string is split on
// commas).
func stringList(key string, v any) ([]string, error) {
	switch t := v.(type) {
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			s, err := stringValue(key, x)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	default:
		s, err := stringValue(key, v)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	}
}

// boolValue reads a header boolean (true/false or their strings).
func boolValue(v any) (*cluster.EsBoolean, error) {
	var b bool
	switch t := v.(type) {
	case bool:
		b = t
	case string:
		switch t {
		case "true":
			b = true
		case "false":
		default:
			return nil, searchcore.IllegalArgument("Failed to parse value [%s] as only [true] or [false] are allowed.", t)
		}
	default:
		return nil, searchcore.IllegalArgument("Failed to parse value [%v] as only [true] or [false] are allowed.", v)
	}
	e := cluster.EsBooleanFalse
	if b {
		e = cluster.EsBooleanTrue
	}
	return &e, nil
}

func parseSearchType(v string) (cluster.SearchType, error) {
	switch v {
	case "query_then_fetch", "dfs_query_then_fetch":
		return cluster.SearchType(v), nil
	}
	return "", searchcore.IllegalArgument("No search type for [%s]", v)
}

// msearchDefaults are the URL parameters every search of a multi search
// starts from.
type msearchDefaults struct {
	ignoreUnavailable, allowNoIndices, ignoreThrottled *cluster.EsBoolean
	expandWildcards                                    *[]cluster.ExpandWildcards
	routing                                            *string
	searchType                                         *cluster.SearchType
	typedKeys, restTotalHitsAsInt, ccs                 *cluster.EsBoolean
}

// itemParams merges the URL defaults and a header into the parameters of
// one search, and the target expression.
func (d msearchDefaults) itemParams(pathIndex string, h *msearchHeader) (string, cluster.SearchParams) {
	p := cluster.SearchParams{
		IgnoreUnavailable:     d.ignoreUnavailable,
		AllowNoIndices:        d.allowNoIndices,
		IgnoreThrottled:       d.ignoreThrottled,
		ExpandWildcards:       d.expandWildcards,
		Routing:               d.routing,
		SearchType:            d.searchType,
		TypedKeys:             d.typedKeys,
		RestTotalHitsAsInt:    d.restTotalHitsAsInt,
		CcsMinimizeRoundtrips: d.ccs,
	}
	target := pathIndex
	if h.index != nil {
		target = *h.index
	}
	if h.ignoreUnavailable != nil {
		p.IgnoreUnavailable = h.ignoreUnavailable
	}
	if h.allowNoIndices != nil {
		p.AllowNoIndices = h.allowNoIndices
	}
	if h.ignoreThrottled != nil {
		p.IgnoreThrottled = h.ignoreThrottled
	}
	if h.expandWildcards != nil {
		p.ExpandWildcards = h.expandWildcards
	}
	if h.routing != nil {
		p.Routing = h.routing
	}
	if h.preference != nil {
		p.Preference = h.preference
	}
	if h.searchType != nil {
		p.SearchType = h.searchType
	}
	if h.requestCache != nil {
		p.RequestCache = h.requestCache
	}
	return target, p
}

// maxConcurrent validates max_concurrent_searches (0: the default).
func maxConcurrent(v *int) (int, error) {
	if v == nil {
		return 0, nil
	}
	if *v < 1 {
		return 0, searchcore.IllegalArgument("maxConcurrentSearchRequests must be positive")
	}
	return *v, nil
}

// readMulti validates the parameters shared by _msearch and
// _msearch/template and splits the NDJSON body into header/body pairs.
func readMulti(c echo.Context, maxConcurrentSearches *int, searchType *cluster.SearchType) (int, []ndjsonPair, error) {
	limit, err := maxConcurrent(maxConcurrentSearches)
	if err != nil {
		return 0, nil, err
	}
	if searchType != nil {
		if _, err := parseSearchType(string(*searchType)); err != nil {
			return 0, nil, err
		}
	}
	data, err := readBody(c)
	if err != nil {
		return 0, nil, err
	}
	pairs, err := parseNDJSON(data, "msearch")
	return limit, pairs, err
}

func (s *Server) msearch(c echo.Context, pathIndex string, p cluster.MsearchParams) error {
	start := time.Now()
	limit, pairs, err := readMulti(c, p.MaxConcurrentSearches, p.SearchType)
	if err != nil {
		return err
	}
	if len(pairs) == 0 {
		return searchcore.ValidationError("no requests added")
	}
	defaults := msearchDefaults{
		ignoreUnavailable: p.IgnoreUnavailable, allowNoIndices: p.AllowNoIndices, ignoreThrottled: p.IgnoreThrottled,
		expandWildcards: p.ExpandWildcards, routing: p.Routing, searchType: p.SearchType,
		typedKeys: p.TypedKeys, restTotalHitsAsInt: p.RestTotalHitsAsInt, ccs: p.CcsMinimizeRoundtrips,
	}
	// Parse everything first: a malformed line fails the whole request.
	items := make([]searchcore.MultiSearchRequest, len(pairs))
	for i, pair := range pairs {
		h, err := parseHeader(pair.header)
		if err != nil {
			return err
		}
		target, sp := defaults.itemParams(pathIndex, h)
		if len(bytes.TrimSpace(pair.body)) == 0 {
			return searchcore.ParsingError("Expected [START_OBJECT] but found [null]")
		}
		req, err := parseSearch(pair.body, sp)
		if err != nil {
			return err
		}
		if err := checkQueries(req); err != nil {
			return err
		}
		o, err := resolveOptions(sp.IgnoreUnavailable, sp.AllowNoIndices, sp.ExpandWildcards, true)
		if err != nil {
			return err
		}
		items[i] = searchcore.MultiSearchRequest{Target: target, Options: o, Request: req}
	}
	results := s.core.MultiSearch(c.Request().Context(), items, limit)
	asInt := boolParam((*cluster.EsBoolean)(p.RestTotalHitsAsInt), false)
	return writeRaw(c, http.StatusOK, s.encodeMulti(start, items, results, asInt))
}

// encodeMulti renders {"took":N,"responses":[...]}: each search response
// with its status, each failure as {"error":{...},"status":N}.
func (s *Server) encodeMulti(start time.Time, items []searchcore.MultiSearchRequest, results []searchcore.MultiSearchResult, asInt bool) []byte {
	var b bytes.Buffer
	b.WriteString(`{"took":`)
	b.WriteString(strconv.FormatInt(time.Since(start).Milliseconds(), 10))
	b.WriteString(`,"responses":[`)
	for i, r := range results {
		if i > 0 {
			b.WriteByte(',')
		}
		if r.Err != nil {
			b.Write(s.entryError(r.Err))
			continue
		}
		enc := encodeSearch(r.Result, items[i].Request, asInt)
		b.Write(enc[:len(enc)-1])
		b.WriteString(`,"status":200}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// entryError renders the failure of one search in place of its response
// (internal errors are logged and shown generically, like the error handler).
func (s *Server) entryError(err error) []byte {
	e, status := s.clientError(err, "multi search item failed")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(esErrorBody(e, status)); err != nil {
		return []byte(`{"error":{"root_cause":[],"type":"exception","reason":"internal error"},"status":500}`)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}
