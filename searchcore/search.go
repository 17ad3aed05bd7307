package searchcore

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/aggregations"

	"github.com/quarry-search/quarry/searchcore/query"
)

// TrackTotalHits is the track_total_hits mode: a limit, with 0 meaning "do
// not track" and math.MaxInt meaning "exact".
type TrackTotalHits int

// DefaultTrackTotalHits is Elasticsearch's default accuracy limit.
const DefaultTrackTotalHits TrackTotalHits = 10000

// SearchRequest is a parsed search (body merged with URL parameters).
type SearchRequest struct {
	Query            json.RawMessage
	From             int
	Size             int
	Sort             []query.SortField
	HasSort          bool
	Source           *query.SourceFilter
	TrackTotalHits   TrackTotalHits
	TrackScores      bool
	MinScore         *float64
	PostFilter       json.RawMessage
	Version          bool
	SeqNoPrimaryTerm bool
	Explain          bool
	StoredFields     []string
	// StoredFieldsNone is stored_fields: _none_ (no _id/_source).
	StoredFieldsNone bool
	TerminateAfter   int
	Timeout          time.Duration
	SearchAfter      []json.RawMessage
}

// NewSearchRequest returns a request with Elasticsearch's defaults.
func NewSearchRequest() *SearchRequest {
	return &SearchRequest{From: 0, Size: 10, TrackTotalHits: DefaultTrackTotalHits}
}

// searchBodyKeys are the top-level search body members this node executes.
var searchBodyKeys = map[string]bool{
	"query": true, "from": true, "size": true, "sort": true, "_source": true, "track_total_hits": true,
	"track_scores": true, "min_score": true, "post_filter": true, "version": true, "seq_no_primary_term": true,
	"explain": true, "stored_fields": true, "terminate_after": true, "timeout": true, "search_after": true,
}

// ParseSearchBody parses a search body into req (which carries the URL
// parameters' values already; the body wins like in Elasticsearch).
func ParseSearchBody(raw []byte, req *SearchRequest) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	members, err := decodeObject(raw)
	if err != nil {
		return err
	}
	for _, m := range members {
		if !searchBodyKeys[m.key] {
			return ParsingError("Unknown key for a %s in [%s].", tokenName(m.value), m.key)
		}
		v := m.value
		switch m.key {
		case "query":
			req.Query = v
		case "from":
			if req.From, err = intMember("from", v); err != nil {
				return err
			}
		case "size":
			if req.Size, err = intMember("size", v); err != nil {
				return err
			}
		case "sort":
			if req.Sort, err = query.ParseSort(v); err != nil {
				return err
			}
			req.HasSort = true
		case "_source":
			if req.Source, err = query.ParseSourceFilter(v); err != nil {
				return err
			}
		case "track_total_hits":
			if req.TrackTotalHits, err = parseTrackTotalHitsJSON(v); err != nil {
				return err
			}
		case "track_scores":
			if req.TrackScores, err = boolMember("track_scores", v); err != nil {
				return err
			}
		case "min_score":
			var f float64
			if err := json.Unmarshal(v, &f); err != nil {
				return ParsingError("[min_score] failed to parse field: %s", err.Error())
			}
			req.MinScore = &f
		case "post_filter":
			req.PostFilter = v
		case "version":
			if req.Version, err = boolMember("version", v); err != nil {
				return err
			}
		case "seq_no_primary_term":
			if req.SeqNoPrimaryTerm, err = boolMember("seq_no_primary_term", v); err != nil {
				return err
			}
		case "explain":
			if req.Explain, err = boolMember("explain", v); err != nil {
				return err
			}
		case "stored_fields":
			var list []string
			if err := json.Unmarshal(v, &list); err != nil {
				var one string
				if err2 := json.Unmarshal(v, &one); err2 != nil {
					return ParsingError("[stored_fields] must be a string or an array of strings")
				}
				list = []string{one}
			}
			req.SetStoredFields(list)
		case "terminate_after":
			if req.TerminateAfter, err = intMember("terminate_after", v); err != nil {
				return err
			}
		case "timeout":
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return ParsingError("[timeout] must be a time value string")
			}
			if req.Timeout, err = ParseTimeValue(s, "timeout"); err != nil {
				return err
			}
		case "search_after":
			var list []json.RawMessage
			if err := json.Unmarshal(v, &list); err != nil {
				return ParsingError("[search_after] must be an array")
			}
			req.SearchAfter = list
		}
	}
	return nil
}

// SetStoredFields applies a stored_fields list (_none_ disables fetching).
func (r *SearchRequest) SetStoredFields(list []string) {
	r.StoredFields = nil
	r.StoredFieldsNone = false
	for _, f := range list {
		if f == "_none_" {
			r.StoredFieldsNone = true
			continue
		}
		r.StoredFields = append(r.StoredFields, f)
	}
}

// ParseTrackTotalHits parses the URL form ("true", "false", or a number).
func ParseTrackTotalHits(v string) (TrackTotalHits, error) {
	switch v {
	case "true", "":
		return TrackTotalHits(math.MaxInt), nil
	case "false":
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, IllegalArgument("Failed to parse value [%s] as only [true] or [false] are allowed.", v)
	}
	return trackFromInt(n)
}

func trackFromInt(n int) (TrackTotalHits, error) {
	if n < -1 {
		return 0, IllegalArgument("[track_total_hits] parameter must be positive or equals to -1, got %d", n)
	}
	if n == -1 {
		return TrackTotalHits(math.MaxInt), nil
	}
	return TrackTotalHits(n), nil
}

func parseTrackTotalHitsJSON(v json.RawMessage) (TrackTotalHits, error) {
	var b bool
	if err := json.Unmarshal(v, &b); err == nil {
		if b {
			return TrackTotalHits(math.MaxInt), nil
		}
		return 0, nil
	}
	var n int
	if err := json.Unmarshal(v, &n); err == nil {
		return trackFromInt(n)
	}
	return 0, ParsingError("[track_total_hits] must be a boolean or an integer")
}

// Validate checks the request-level rules Elasticsearch enforces.
func (r *SearchRequest) Validate() error {
	if r.From < 0 {
		return IllegalArgument("[from] parameter cannot be negative")
	}
	if r.Size < 0 {
		return IllegalArgument("[size] parameter cannot be negative, found [%d]", r.Size)
	}
	if r.TerminateAfter < 0 {
		return IllegalArgument("terminateAfter must be positive")
	}
	return nil
}

// Hit is one search hit.
type Hit struct {
	Index       string
	ID          string
	Score       float64 // NaN when not computed
	Routing     string
	Source      []byte // nil when not returned
	Sort        []any
	Version     int64
	SeqNo       int64
	PrimaryTerm int64
	Fields      map[string][]any
}

// SearchResult is the outcome of a search.
type SearchResult struct {
	Took            time.Duration
	TimedOut        bool
	TerminatedEarly *bool
	ShardsTotal     int
	Total           int64
	TotalRelation   string // "eq" or "gte"; empty when not tracked
	MaxScore        float64
	Hits            []Hit
}

// shardHit is a hit before fetching, tagged with its shard for merging.
type shardHit struct {
	dm     *search.DocumentMatch
	shard  int // global shard ordinal across indices
	idx    *Index
	reader *readerRef
}

// searchTarget is one shard with the compiled query.
type searchTarget struct {
	idx    *Index
	shard  *shard
	ord    int
	query  bluge.Query
	sort   search.SortOrder
	decode []query.SortDecoder
}

// Search executes req over the given indices.
func (e *Engine) Search(ctx context.Context, indices []*Index, req *SearchRequest) (*SearchResult, error) {
	start := time.Now()
	if err := req.Validate(); err != nil {
		return nil, err
	}
	// A sort on _score alone (descending) is the default order: ES drops it,
	// so hits carry no sort values.
	if len(req.Sort) == 1 && req.Sort[0].Field == "_score" && req.Sort[0].Desc() {
		req.HasSort = false
	}
	for _, idx := range indices {
		if err := query.ValidateWindow(req.From, req.Size, idx.Settings().MaxResultWindow); err != nil {
			return nil, err
		}
	}
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	rawQuery := req.Query
	if len(bytes.TrimSpace(req.PostFilter)) > 0 {
		// post_filter narrows hits without scoring: a bool filter clause.
		if len(bytes.TrimSpace(rawQuery)) == 0 {
			rawQuery = json.RawMessage(`{"match_all":{}}`)
		}
		rawQuery = json.RawMessage(`{"bool":{"must":[` + string(rawQuery) + `],"filter":[` + string(req.PostFilter) + `]}}`)
	}
	node, err := parseQueryOrMatchAll(rawQuery)
	if err != nil {
		return nil, err
	}
	now := e.now()
	var targets []searchTarget
	var decoders []query.SortDecoder
	ord := 0
	for _, idx := range indices {
		qctx := idx.queryContext(now)
		q, err := node.Compile(qctx)
		if err != nil {
			return nil, err
		}
		order, dec, err := query.CompileSort(req.Sort, qctx)
		if err != nil {
			return nil, err
		}
		decoders = dec
		for _, sh := range idx.shards {
			targets = append(targets, searchTarget{idx: idx, shard: sh, ord: ord, query: q, sort: order, decode: dec})
			ord++
		}
	}
	res := &SearchResult{ShardsTotal: len(targets), MaxScore: math.NaN()}
	window := req.From + req.Size
	var all []shardHit
	var total int64
	maxScore := math.Inf(-1)
	sortByScore := !req.HasSort || sortsByScore(req.Sort)
	var held []*readerRef
	defer func() {
		for _, rr := range held {
			rr.release()
		}
	}()
	var order search.SortOrder
	for _, t := range targets {
		rr := t.shard.acquire()
		held = append(held, rr)
		order = t.sort
		n := window
		if n == 0 {
			n = 1
		}
		sreq := bluge.NewTopNSearch(n, t.query).SortByCustom(t.sort)
		sreq.AddAggregation("count", aggregations.CountMatches())
		if sortByScore || req.TrackScores {
			sreq.AddAggregation("max_score", aggregations.MaxStartingAt(search.DocumentScore(), math.Inf(-1)))
		}
		it, err := rr.r.Search(ctx, sreq)
		if err != nil {
			return nil, searchError(ctx, err)
		}
		for {
			dm, err := it.Next()
			if err != nil {
				return nil, searchError(ctx, err)
			}
			if dm == nil {
				break
			}
			if req.MinScore != nil && dm.Score < *req.MinScore {
				continue
			}
			all = append(all, shardHit{dm: dm, shard: t.ord, idx: t.idx, reader: rr})
		}
		aggs := it.Aggregations()
		total += int64(aggs.Count())
		if sortByScore || req.TrackScores {
			if m := aggs.Metric("max_score"); m > maxScore {
				maxScore = m
			}
		}
	}
	if req.MinScore != nil {
		// min_score also filters the count: recount from what passed.
		total = int64(len(all))
	}
	if (sortByScore || req.TrackScores) && total > 0 && !math.IsInf(maxScore, -1) {
		res.MaxScore = maxScore
	}
	// Merge shard results: sort values, then shard ordinal, then doc number.
	if len(targets) > 1 {
		sort.SliceStable(all, func(i, j int) bool {
			a, b := all[i], all[j]
			ha, hb := a.dm.HitNumber, b.dm.HitNumber
			a.dm.HitNumber, b.dm.HitNumber = 0, 0
			c := order.Compare(a.dm, b.dm)
			a.dm.HitNumber, b.dm.HitNumber = ha, hb
			if c != 0 {
				return c < 0
			}
			if a.shard != b.shard {
				return a.shard < b.shard
			}
			return a.dm.Number < b.dm.Number
		})
	}
	res.Total, res.TotalRelation = applyTrack(total, req.TrackTotalHits)
	if req.From < len(all) {
		all = all[req.From:]
	} else {
		all = nil
	}
	if len(all) > req.Size {
		all = all[:req.Size]
	}
	res.Hits = make([]Hit, 0, len(all))
	for _, sh := range all {
		h, err := fetchHit(sh, req, decoders, sortByScore || req.TrackScores)
		if err != nil {
			return nil, err
		}
		res.Hits = append(res.Hits, h)
	}
	res.Took = time.Since(start)
	return res, nil
}

// applyTrack applies track_total_hits to an exact count.
func applyTrack(total int64, track TrackTotalHits) (int64, string) {
	switch {
	case track == 0:
		return 0, ""
	case int64(track) < total:
		return int64(track), "gte"
	default:
		return total, "eq"
	}
}

func sortsByScore(fields []query.SortField) bool {
	return len(fields) > 0 && fields[0].Field == "_score"
}

func parseQueryOrMatchAll(raw json.RawMessage) (query.Node, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return query.Parse(json.RawMessage(`{"match_all":{}}`))
	}
	return query.Parse(raw)
}

func searchError(ctx context.Context, err error) error {
	if _, ok := AsError(err); ok {
		return err
	}
	if ctx.Err() != nil {
		return Errorf(Unavailable, "search_timeout_exception", "Time exceeded")
	}
	return Internalf(err, "search failed")
}

// fetchHit loads the stored fields of a hit and shapes it.
func fetchHit(sh shardHit, req *SearchRequest, dec []query.SortDecoder, scored bool) (Hit, error) {
	h := Hit{Index: sh.idx.Name(), Score: math.NaN()}
	if scored {
		h.Score = sh.dm.Score
	}
	var src, meta []byte
	err := sh.dm.VisitStoredFields(func(field string, value []byte) bool {
		switch field {
		case "_id":
			h.ID = string(value)
		case sourceFieldName:
			src = append([]byte(nil), value...)
		case metaFieldName:
			meta = append([]byte(nil), value...)
		}
		return true
	})
	if err != nil {
		return h, Internalf(err, "failed to load hit")
	}
	if meta != nil {
		h.SeqNo, h.PrimaryTerm, h.Version, h.Routing = decodeMeta(meta)
	}
	if req.HasSort {
		h.Sort = make([]any, len(sh.dm.SortValue))
		for i, v := range sh.dm.SortValue {
			if i < len(dec) {
				h.Sort[i] = dec[i].Decode(v)
			}
		}
	}
	if !req.StoredFieldsNone && (req.StoredFields == nil || containsString(req.StoredFields, "_source") || req.Source != nil) {
		mp := sh.idx.Mapping()
		if mp.Source == nil || mp.Source.Enabled == nil || *mp.Source.Enabled {
			out, ok, err := req.Source.Apply(src)
			if err != nil {
				return h, err
			}
			if ok {
				h.Source = out
			}
		}
	}
	if len(req.StoredFields) > 0 {
		vals, err := sh.idx.Mapping().StoredFieldValues(src, req.StoredFields)
		if err != nil {
			return h, err
		}
		if len(vals) > 0 {
			h.Fields = vals
		}
	}
	return h, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Count counts the documents matching a query over the given indices.
func (e *Engine) Count(ctx context.Context, indices []*Index, rawQuery json.RawMessage, terminateAfter int) (int64, int, bool, error) {
	if terminateAfter < 0 {
		return 0, 0, false, IllegalArgument("terminateAfter must be positive")
	}
	node, err := parseQueryOrMatchAll(rawQuery)
	if err != nil {
		return 0, 0, false, err
	}
	now := e.now()
	var total int64
	shards := 0
	for _, idx := range indices {
		qctx := idx.queryContext(now)
		q, err := node.Compile(qctx)
		if err != nil {
			return 0, 0, false, err
		}
		for _, sh := range idx.shards {
			shards++
			rr := sh.acquire()
			sreq := bluge.NewTopNSearch(0, q)
			sreq.AddAggregation("count", aggregations.CountMatches())
			it, err := rr.r.Search(ctx, sreq)
			if err != nil {
				rr.release()
				return 0, 0, false, searchError(ctx, err)
			}
			for {
				dm, err := it.Next()
				if err != nil {
					rr.release()
					return 0, 0, false, searchError(ctx, err)
				}
				if dm == nil {
					break
				}
			}
			total += int64(it.Aggregations().Count())
			rr.release()
		}
	}
	terminated := false
	if terminateAfter > 0 && total > int64(terminateAfter)*int64(shards) {
		total = int64(terminateAfter) * int64(shards)
		terminated = true
	}
	return total, shards, terminated, nil
}

// queryContext is what compiling a query against this index needs.
func (ix *Index) queryContext(now time.Time) *query.Context {
	st := ix.Settings()
	return &query.Context{
		Mapping:        ix.Mapping(),
		Analyzers:      ix.Analyzers(),
		Now:            now,
		MaxClauseCount: 1024,
		MaxTermsCount:  st.MaxTermsCount,
		MaxRegexLength: st.MaxRegexLength,
		Index:          ix.Name(),
		IndexUUID:      ix.UUID(),
	}
}
