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

	"github.com/quarry-search/quarry/searchcore/aggs"
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
	// Aggs are the parsed aggregations (nil when none); TypedKeys prefixes
	// their names with their types (typed_keys).
	Aggs      *aggs.Request
	TypedKeys bool
	// PIT is the point in time searched (the search names no index then).
	PIT *PointInTime
	// Slice splits a scroll or point-in-time search.
	Slice *Slice
	// Scroll is the keep_alive of a scroll search (0: not a scroll).
	Scroll time.Duration
	// RequestCache is request_cache=true (refused for scrolls).
	RequestCache bool
	// FetchOptions are docvalue_fields, fields, script_fields and highlight
	// (fetch_fields.go).
	FetchOptions
	// IndicesBoost is indices_boost in request order; ResolveIndicesBoost
	// turns it into indexBoost (concrete index name → score factor).
	IndicesBoost []IndexBoost
	indexBoost   map[string]float32

	// Profile asks for the per-shard timing tree (profile: true).
	Profile bool
	// DFS is search_type=dfs_query_then_fetch: scores use term statistics
	// gathered over every shard searched.
	DFS bool
	// Rescore are the query rescorers, applied in order.
	Rescore []Rescorer
	// Collapse groups hits by a field (nil: no collapsing).
	Collapse *Collapse
	// Suggest are the suggesters (term suggester).
	Suggest []Suggester
	// collapseFetch is how many hits per shard a collapsing search reads.
	collapseFetch int
}

// PointInTime is the pit member of a search body.
type PointInTime struct {
	ID string
	// KeepAlive extends the point in time (0 keeps its current keep_alive).
	KeepAlive time.Duration
}

// NewSearchRequest returns a request with Elasticsearch's defaults.
func NewSearchRequest() *SearchRequest {
	return &SearchRequest{From: 0, Size: 10, TrackTotalHits: DefaultTrackTotalHits}
}

// searchBodyKeys are the top-level search body members this node executes.
var searchBodyKeys = map[string]bool{
	"query": true, "from": true, "size": true, "sort": true, "_source": true, "track_total_hits": true,
	"track_scores": true, "min_score": true, "post_filter": true, "version": true, "seq_no_primary_term": true,
	"explain": true, "stored_fields": true, "terminate_after": true, "timeout": true, "search_after": true, "aggs": true, "aggregations": true,
	"pit": true, "slice": true, "indices_boost": true,
	"profile": true, "rescore": true, "collapse": true, "suggest": true,
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
		if ok, err := req.parseSharedFetch(m.key, m.value); ok {
			if err != nil {
				return err
			}
			continue
		}
		if fetchBodyKeys[m.key] {
			if err := req.parseFetchMember(m.key, m.value); err != nil {
				return err
			}
			continue
		}
		if !searchBodyKeys[m.key] {
			return ParsingError("Unknown key for a %s in [%s].", TokenName(m.value), m.key)
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
		case "aggs", "aggregations":
			if req.Aggs != nil {
				return ParsingError("Found two aggregation type definitions in [%s]: [aggs] and [aggregations]", m.key)
			}
			a, err := aggs.Parse(v)
			if err != nil {
				return err
			}
			req.Aggs = a
		case "search_after":
			var list []json.RawMessage
			if err := json.Unmarshal(v, &list); err != nil {
				return ParsingError("[search_after] must be an array")
			}
			req.SearchAfter = list
		case "pit":
			if req.PIT, err = parsePIT(v); err != nil {
				return err
			}
		case "slice":
			if req.Slice, err = parseSlice(v); err != nil {
				return err
			}
		case "indices_boost":
			if req.IndicesBoost, err = parseIndicesBoost(v); err != nil {
				return err
			}
		case "profile":
			if req.Profile, err = boolMember("profile", v); err != nil {
				return err
			}
		case "rescore":
			if req.Rescore, err = ParseRescore(v); err != nil {
				return err
			}
		case "collapse":
			if req.Collapse, err = ParseCollapse(v); err != nil {
				return err
			}
		case "suggest":
			if req.Suggest, err = ParseSuggest(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// parsePIT parses {"id": ..., "keep_alive": ...}.
func parsePIT(v json.RawMessage) (*PointInTime, error) {
	members, err := decodeObject(v)
	if err != nil {
		return nil, ParsingError("[pit] must be an object")
	}
	p := &PointInTime{}
	for _, m := range members {
		var str string
		if err := json.Unmarshal(m.value, &str); err != nil {
			return nil, ParsingError("[point_in_time] %s doesn't support values of type: %s", m.key, TokenName(m.value))
		}
		switch m.key {
		case "id":
			p.ID = str
		case "keep_alive":
			if p.KeepAlive, err = ParseTimeValue(str, "keep_alive"); err != nil {
				return nil, err
			}
		default:
			return nil, ParsingError("[point_in_time] unknown field [%s]", m.key)
		}
	}
	if p.ID == "" {
		return nil, ParsingError("[point_in_time] requires [id]")
	}
	return p, nil
}

// parseSlice parses {"id": n, "max": n, "field": name} (ES SliceBuilder).
func parseSlice(v json.RawMessage) (*Slice, error) {
	members, err := decodeObject(v)
	if err != nil {
		return nil, ParsingError("[slice] must be an object")
	}
	sl := &Slice{ID: -1, Max: -1}
	for _, m := range members {
		switch m.key {
		case "id":
			if sl.ID, err = intMember("id", m.value); err != nil {
				return nil, err
			}
			if sl.ID < 0 {
				return nil, IllegalArgument("id must be greater than or equal to 0")
			}
		case "max":
			if sl.Max, err = intMember("max", m.value); err != nil {
				return nil, err
			}
			if sl.Max <= 1 {
				return nil, IllegalArgument("max must be greater than 1")
			}
		case "field":
			if err := json.Unmarshal(m.value, &sl.Field); err != nil {
				return nil, ParsingError("[slice] field doesn't support values of type: %s", TokenName(m.value))
			}
		default:
			return nil, ParsingError("[slice] unknown field [%s]", m.key)
		}
	}
	if sl.ID < 0 || sl.Max < 0 {
		return nil, ParsingError("[slice] requires [id] and [max]")
	}
	if sl.ID >= sl.Max {
		return nil, IllegalArgument("max must be greater than id")
	}
	return sl, nil
}

// parseStoredFields parses stored_fields: a name or an array of names.
func parseStoredFields(v json.RawMessage) ([]string, error) {
	var list []string
	if err := json.Unmarshal(v, &list); err != nil {
		var one string
		if err2 := json.Unmarshal(v, &one); err2 != nil {
			return nil, ParsingError("[stored_fields] must be a string or an array of strings")
		}
		list = []string{one}
	}
	return list, nil
}

// SetStoredFields applies a stored_fields list (_none_ disables fetching).
func (r *SearchRequest) SetStoredFields(list []string) {
	r.StoredFields = nil
	r.StoredFieldsNone = false
	r.StoredFieldsSet = true
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
	// Strings are read like Elasticsearch's parser does: "true"/"false" or a number.
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		switch s {
		case "true":
			return TrackTotalHits(math.MaxInt), nil
		case "false":
			return 0, nil
		}
		if n, err := strconv.Atoi(s); err == nil {
			return trackFromInt(n)
		}
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
	// Highlight holds the highlighted fragments per field (nil when none).
	Highlight map[string][]string
	// InnerHits are the inner hits of the query's nested queries.
	InnerHits []InnerHits

	// Explanation is the score explanation (explain: true); Shard and Node
	// then name where the hit came from ("[index][n]" and the node id).
	Explanation *Explanation
	Shard, Node string
	// MatchedQueries are the _name of the named queries the hit matches.
	MatchedQueries []string
	// CollapseInnerHits are the inner hits of the hit's collapse group.
	CollapseInnerHits []InnerHitsResult
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
	// ScrollID is the id of the scroll this page belongs to.
	ScrollID string
	// PitID is the point in time searched.
	PitID string
	// Aggregations is the rendered "aggregations" object (nil when none).
	Aggregations json.RawMessage
	// Profile is the per-shard profile (profile: true), Suggest the
	// suggesters' answers.
	Profile []ShardProfile
	Suggest []SuggestResult
	// ShardFailures are the shards that failed while others answered
	// (_shards.failures); their hits and aggregations are missing.
	ShardFailures []ShardFailure
}

// DefaultMaxBuckets is search.max_buckets's default (ES 7.17: 65,535).
const DefaultMaxBuckets = aggs.DefaultMaxBuckets

// maxBuckets is the search.max_buckets cluster setting (transient, then
// persistent), else DefaultMaxBuckets.
func (e *Engine) maxBuckets() int {
	if v := e.clusterSetting("search.max_buckets"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			return n
		}
	}
	return DefaultMaxBuckets
}

// shardHit is a hit before fetching, tagged with its shard for merging.
type shardHit struct {
	dm    *search.DocumentMatch
	shard int // global shard ordinal across indices
	idx   *Index
	r     *bluge.Reader // the snapshot the hit comes from
}

// scrollState is what a scroll remembers between pages.
type scrollState struct {
	req *SearchRequest
	// after is the raw sort key (with the hidden _shard_doc tiebreaker) of
	// the last hit returned; nil before the first hit.
	after [][]byte
	// total is the exact hit count, known from the first page.
	total int64
}

// tiebreak is how the _shard_doc tiebreaker joins the sort.
type tiebreak uint8

const (
	tieNone   tiebreak = iota
	tiePIT             // appended (and rendered) unless search_after omits it
	tieScroll          // appended, never rendered
)

// Search executes req over the given indices, or over req.PIT's snapshot
// (indices must then be empty). With req.Scroll it opens a scroll context
// whose id the result carries.
func (e *Engine) Search(ctx context.Context, indices []*Index, req *SearchRequest) (*SearchResult, error) {
	if len(req.SearchAfter) > 0 && req.From == -1 {
		req.From = 0
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if err := req.validateContexts(len(indices)); err != nil {
		return nil, err
	}
	// A sort on _score alone (descending) is the default order: ES drops it,
	// so hits carry no sort values.
	if len(req.Sort) == 1 && req.Sort[0].Field == "_score" && req.Sort[0].Desc() {
		req.HasSort = false
	}
	if req.Scroll > 0 {
		return e.openScroll(ctx, indices, req)
	}
	if req.PIT != nil {
		if err := e.checkKeepAlive(req.PIT.KeepAlive); err != nil {
			return nil, err
		}
		_, shards, err := e.contexts.use(req.PIT.ID, kindPIT, req.PIT.KeepAlive)
		if err != nil {
			return nil, err
		}
		defer releaseShards(shards)
		res, _, err := e.execute(ctx, shards, req, tiePIT, nil)
		if err != nil {
			return nil, err
		}
		res.PitID = req.PIT.ID
		return res, nil
	}
	shards := acquireShards(indices)
	defer releaseShards(shards)
	res, _, err := e.execute(ctx, shards, req, tieNone, nil)
	return res, err
}

// validateContexts checks the scroll, point-in-time, slice and search_after
// combinations like SearchRequest.validate (all messages in one error).
func (r *SearchRequest) validateContexts(numIndices int) error {
	var msgs []string
	if r.Scroll > 0 {
		if r.RequestCache {
			msgs = append(msgs, "[request_cache] cannot be used in a scroll context")
		}
		if r.Size == 0 {
			msgs = append(msgs, "[size] cannot be [0] in a scroll context")
		}
		if len(r.SearchAfter) > 0 {
			msgs = append(msgs, "`search_after` cannot be used in a scroll context.")
		}
		if r.PIT != nil {
			msgs = append(msgs, "using [point in time] is not allowed in a scroll context")
		}
		if r.TrackTotalHits != DefaultTrackTotalHits && r.TrackTotalHits != TrackTotalHits(math.MaxInt) {
			msgs = append(msgs, "disabling [track_total_hits] is not allowed in a scroll context")
		}
	}
	if len(r.SearchAfter) > 0 && r.From != 0 {
		msgs = append(msgs, "`from` parameter must be set to 0 when `search_after` is used.")
	}
	if r.Slice != nil && r.Scroll == 0 && r.PIT == nil {
		msgs = append(msgs, "[slice] can only be used with [scroll] or [point-in-time] requests")
	}
	if r.PIT != nil && numIndices > 0 {
		msgs = append(msgs, "[indices] cannot be used with point in time. Do not specify any index with point in time.")
	}
	if len(msgs) > 0 {
		return ValidationError(msgs...)
	}
	return nil
}

// openScroll runs the first page of a scroll and registers its context.
func (e *Engine) openScroll(ctx context.Context, indices []*Index, req *SearchRequest) (*SearchResult, error) {
	if err := e.checkKeepAlive(req.Scroll); err != nil {
		return nil, err
	}
	req.TrackTotalHits = TrackTotalHits(math.MaxInt)
	if err := e.contexts.reserveScroll(e.maxOpenScrolls()); err != nil {
		return nil, err
	}
	shards := acquireShards(indices)
	res, last, err := e.execute(ctx, shards, req, tieScroll, nil)
	if err != nil {
		releaseShards(shards)
		e.contexts.unreserveScroll()
		return nil, err
	}
	c := &searchContext{kind: kindScroll, shards: shards, scroll: &scrollState{req: req, after: last, total: res.Total}}
	e.contexts.add(c, req.Scroll)
	res.ScrollID = c.id
	return res, nil
}

// Scroll returns the next page of the scroll id and the request that opened
// it (for rendering). A keepAlive > 0 extends the context; keepAlive 0 frees
// it once this page is returned.
func (e *Engine) Scroll(ctx context.Context, id string, keepAlive time.Duration) (*SearchResult, *SearchRequest, error) {
	if err := e.checkKeepAlive(keepAlive); err != nil {
		return nil, nil, err
	}
	c, shards, err := e.contexts.use(id, kindScroll, keepAlive)
	if err != nil {
		return nil, nil, err
	}
	defer releaseShards(shards)
	if keepAlive == 0 {
		defer e.contexts.free(kindScroll, []string{id})
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.scroll
	// Later pages repeat the opening request from the last hit on; they
	// never carry aggregations (ES returns those with the first page only).
	page := *st.req
	page.From = 0
	// The total does not change within the snapshot: later pages skip
	// counting (which enables the doc-order fast path).
	page.TrackTotalHits = 0
	page.Aggs = nil
	page.Suggest = nil
	start := time.Now()
	res, last, err := e.execute(ctx, shards, &page, tieScroll, st.after)
	if err != nil {
		return nil, nil, err
	}
	res.Total, res.TotalRelation = st.total, "eq"
	if last != nil {
		st.after = last
	}
	res.ScrollID = id
	res.Took = time.Since(start)
	return res, st.req, nil
}

// compiledIndex is the query and sort of one index of a search.
type compiledIndex struct {
	query bluge.Query
	// named are the named queries of the tree (matched_queries), rescore
	// the compiled rescorers, rewrite the time compiling took (profile).
	named   []namedQuery
	rescore []compiledRescorer
	rewrite time.Duration
	order   search.SortOrder
	dec     []query.SortDecoder
	after   [][]byte
	// aggRoot collects the aggregations; aggQuery is the query they run
	// over when it differs from query (post_filter narrows hits only).
	aggRoot  *aggs.Root
	aggQuery bluge.Query
	// fetch is the fetch phase resolved against the index.
	fetch *fetchPlan
	// innerHits are the inner_hits of the query's nested queries, with
	// their fetch phases.
	innerHits  []*query.InnerHitsSpec
	innerFetch innerFetches
}

// execute runs one page of req over shards. scrollAfter continues a scroll.
// It returns the page and the raw sort key of its last hit.
func (e *Engine) execute(ctx context.Context, shards []ctxShard, req *SearchRequest, tie tiebreak, scrollAfter [][]byte) (*SearchResult, [][]byte, error) {
	start := time.Now()
	// The sort clauses: the user's, the default _score, the tiebreaker.
	hasSort := req.HasSort
	fields := append([]query.SortField(nil), req.Sort...)
	if !hasSort {
		fields = []query.SortField{{Field: "_score"}}
	}
	var shardDocAt []int
	for i, f := range fields {
		if f.Field == "_shard_doc" {
			if tie != tiePIT {
				return nil, nil, IllegalArgument("[_shard_doc] sort field cannot be used without [point in time]")
			}
			shardDocAt = append(shardDocAt, i)
		}
	}
	if tie == tiePIT {
		hasSort = true
		if len(shardDocAt) == 0 && (len(req.SearchAfter) == 0 || len(req.SearchAfter) == len(fields)+1) {
			fields = append(fields, query.SortField{Field: "_shard_doc"})
			shardDocAt = append(shardDocAt, len(fields)-1)
		}
	}
	nUser := len(fields)
	if tie == tieScroll {
		fields = append(fields, query.SortField{Field: "_shard_doc"})
		shardDocAt = append(shardDocAt, len(fields)-1)
	}
	compileFields := append([]query.SortField(nil), fields...)
	for _, i := range shardDocAt {
		compileFields[i] = query.SortField{Field: "_doc", Order: fields[i].Order}
	}
	var afterValues []any
	if len(req.SearchAfter) > 0 {
		afterValues = make([]any, len(req.SearchAfter))
		for i, raw := range req.SearchAfter {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if err := dec.Decode(&afterValues[i]); err != nil {
				return nil, nil, ParsingError("[search_after] failed to parse value: %s", err.Error())
			}
		}
	}

	rawQuery := req.Query
	var aggNode query.Node
	if req.Aggs != nil && len(bytes.TrimSpace(req.PostFilter)) > 0 {
		n, err := parseQueryOrMatchAll(req.Query)
		if err != nil {
			return nil, nil, err
		}
		aggNode = n
	}
	if len(bytes.TrimSpace(req.PostFilter)) > 0 {
		// post_filter narrows hits without scoring: a bool filter clause.
		if len(bytes.TrimSpace(rawQuery)) == 0 {
			rawQuery = json.RawMessage(`{"match_all":{}}`)
		}
		rawQuery = json.RawMessage(`{"bool":{"must":[` + string(rawQuery) + `],"filter":[` + string(req.PostFilter) + `]}}`)
	}
	node, err := parseQueryOrMatchAll(rawQuery)
	if err != nil {
		return nil, nil, err
	}
	if len(req.Rescore) > 0 && hasSort && !sortsOnlyByScore(fields[:nUser]) {
		return nil, nil, IllegalArgument("Cannot use [sort] option in conjunction with [rescore].")
	}
	var dfs *globalStats
	if req.DFS {
		if dfs, err = newGlobalStats(ctx, shards); err != nil {
			return nil, nil, err
		}
	}
	now := e.now()
	lookup := e.termsLookup(ctx)
	compiled := map[*Index]*compiledIndex{}
	// compileIndex prepares req against one index's mapping and settings;
	// its errors are failures of the index's shards (shardfail.go).
	compileIndex := func(idx *Index) (*compiledIndex, error) {
		if req.Scroll > 0 {
			if err := query.ValidateScrollSize(req.Size, idx.Settings().MaxResultWindow); err != nil {
				return nil, err
			}
		} else if err := query.ValidateWindow(req.From, req.Size, idx.Settings().MaxResultWindow); err != nil {
			return nil, err
		}
		if req.Slice != nil {
			if err := req.Slice.validate(idx); err != nil {
				return nil, err
			}
		}
		if err := validateRescore(req, idx.Settings()); err != nil {
			return nil, err
		}
		if req.Collapse != nil {
			if err := validateCollapse(req, idx); err != nil {
				return nil, err
			}
		}
		qctx := idx.queryContext(now, lookup)
		restrictFields(ctx, qctx)
		var named []namedQuery
		qctx.Wrap = func(n query.Node, q bluge.Query) bluge.Query {
			if n.Name() != "" {
				named = append(named, namedQuery{name: n.Name(), q: q})
			}
			if req.Profile {
				return profileWrap(n, q)
			}
			return q
		}
		compileStart := time.Now()
		q, err := qctx.CompileNode(node)
		if err != nil {
			return nil, err
		}
		rewrite := time.Since(compileStart)
		qctx.Wrap = nil
		if b, ok := req.indexBoost[idx.Name()]; ok {
			q = query.Boosted(q, b)
		}
		nested := idx.Mapping().HasNested()
		if nested {
			q = query.ExcludeNested(q)
		}
		order, dec, err := query.CompileSort(compileFields, qctx)
		if err != nil {
			return nil, err
		}
		q = qctx.PrepareSorts(q)
		ci := &compiledIndex{query: q, order: order, dec: dec, innerHits: qctx.InnerHits, named: named, rewrite: rewrite}
		if ci.fetch, err = req.prepareFetch(idx, qctx, ""); err != nil {
			return nil, err
		}
		if ci.innerFetch, err = prepareInnerFetches(ci.innerHits, idx, qctx); err != nil {
			return nil, err
		}
		for _, r := range req.Rescore {
			rq, err := r.Query.Compile(qctx)
			if err != nil {
				return nil, err
			}
			ci.rescore = append(ci.rescore, compiledRescorer{Rescorer: r, query: rq})
		}
		if req.Aggs != nil {
			if ci.aggRoot, err = req.Aggs.Prepare(qctx, order.Fields()); err != nil {
				return nil, err
			}
			ci.aggRoot.Profile = req.Profile
			if aggNode != nil {
				if ci.aggQuery, err = aggNode.Compile(qctx); err != nil {
					return nil, err
				}
				if nested {
					ci.aggQuery = query.ExcludeNested(ci.aggQuery)
				}
			}
		}
		if afterValues != nil {
			if ci.after, err = query.EncodeSearchAfter(afterValues, dec[:nUser]); err != nil {
				return nil, err
			}
		}
		return ci, nil
	}
	fails := &shardFailures{}
	for _, sh := range shards {
		if compiled[sh.idx] != nil || fails.indexFailed(sh.idx) {
			continue
		}
		ci, err := compileIndex(sh.idx)
		if err != nil {
			if !fails.addIndex(sh.idx, err) {
				return nil, nil, err
			}
			continue
		}
		compiled[sh.idx] = ci
	}
	if err := fails.allFailed(shards, req.DFS, e.LocalNode().ID); err != nil {
		return nil, nil, err
	}
	if tie == tieScroll && scrollAfter != nil {
		for _, ci := range compiled {
			ci.after = scrollAfter
		}
	}
	nRender := 0
	if hasSort {
		nRender = nUser
	}

	res := &SearchResult{ShardsTotal: len(shards), MaxScore: math.NaN(), ShardFailures: fails.list(shards, e.LocalNode().ID)}
	window := req.From + req.Size
	var all []shardHit
	var total int64
	maxScore := math.Inf(-1)
	sortByScore := !hasSort || sortsByScore(fields)
	// scoreOnly: the order is _score descending alone (query.CompileSort's
	// score clause), the collector's fast path.
	scoreOnly := len(fields) == 1 && fields[0].Field == "_score" && fields[0].Desc() &&
		fields[0].Geo == nil && len(shardDocAt) == 0
	countHits := req.TrackTotalHits != 0 || req.MinScore != nil
	// doc-order fast path (see docorder.go)
	docLed := len(fields) > 0 && (fields[0].Field == "_doc" || fields[0].Field == "_shard_doc") && !fields[0].Desc() &&
		!countHits && !req.TrackScores && req.MinScore == nil && req.Aggs == nil
	var order search.SortOrder
	var aggParts []*search.Bucket
	// shardNum numbers each shard within its index (_shard, profile ids).
	shardNum := make(map[int]int, len(shards))
	perIndex := map[*Index]int{}
	for _, sh := range shards {
		shardNum[sh.ord] = perIndex[sh.idx]
		perIndex[sh.idx]++
	}
	if req.Collapse != nil && req.collapseFetch == 0 {
		req.collapseFetch = max(8*window, 64)
	}
	var deadline time.Time
	if req.Timeout > 0 {
		deadline = start.Add(req.Timeout)
	}
	stop := &stopState{}
	shardReaders := map[int]search.Reader{}
	shardFull := false
	nodeID := e.LocalNode().ID
	for _, sh := range shards {
		ci := compiled[sh.idx]
		if ci == nil {
			continue // a failed shard
		}
		order = ci.order
		if len(shardDocAt) > 0 {
			order = append(search.SortOrder(nil), ci.order...)
			for _, i := range shardDocAt {
				s := search.SortBy(query.ShardDocSource{Base: query.ShardDocBase(sh.ord)})
				if fields[i].Desc() {
					s.Desc()
				}
				order[i] = s
			}
		}
		q := ci.query
		var shardAggTimings []aggs.AggTiming
		if req.Slice != nil {
			q = sliceQuery(q, req.Slice, sh.ord, len(shards))
		}
		n := window
		if n == 0 {
			n = 1
		}
		n = max(n, rescoreWindow(req))
		if req.Collapse != nil {
			n = req.collapseFetch
		}
		if req.TerminateAfter > 0 || !deadline.IsZero() || req.MinScore != nil {
			q = &limitQuery{inner: q, limit: req.TerminateAfter, deadline: deadline, minScore: req.MinScore, st: stop}
		}
		if docLed {
			start, ok := docOrderStart(ci.after, ci.dec[0].Decode, fields[0].Field == "_shard_doc",
				len(fields) > 1 && fields[1].Field == "_shard_doc", sh.ord)
			if !ok {
				continue
			}
			q = &docRangeQuery{inner: q, start: start, limit: n + 1}
		}
		// The collector sorts, applies search_after and keeps the hit total
		// and max_score (collector.go); sreq carries the query and options.
		sreq := bluge.NewTopNSearch(n, q)
		coll := newTopNCollector(n, 0, order, ci.after, scoreOnly)
		// Profiles and explanations describe every match.
		coll.prune = !req.Profile && !req.Explain
		if len(shardDocAt) == 0 {
			coll.useDirect(ci.dec)
		}
		if ci.aggRoot != nil {
			root := ci.aggRoot
			if root.NeedsBind() {
				if root, err = root.Bind(ctx, sh.rr.r); err != nil {
					return nil, nil, searchError(ctx, err)
				}
			}
			if fr, ok := root.Fast(); ok {
				root = fr
			}
			if ci.aggQuery == nil {
				sreq.AddAggregation(aggs.RootName, root)
			} else {
				// post_filter: the aggregations see the unfiltered query.
				part, err := collectAggs(ctx, sh.rr, ci.aggQuery, root, order)
				if err != nil {
					return nil, nil, err
				}
				aggParts = append(aggParts, part)
				shardAggTimings = aggs.PartialOf(part).Timings()
			}
		}
		if req.Explain {
			sreq.ExplainScores()
		}
		var prof *shardProfile
		if req.Profile {
			prof = &shardProfile{}
		}
		collectStart := time.Now()
		ss := &shardSearch{TopNSearch: sreq, dfs: dfs, prof: prof, coll: coll, points: sh.rr.points}
		it, err := sh.rr.r.Search(ctx, ss)
		if err != nil {
			return nil, nil, searchError(ctx, err)
		}
		var shardHits []shardHit
		for {
			dm, err := it.Next()
			if err != nil {
				return nil, nil, searchError(ctx, err)
			}
			if dm == nil {
				break
			}
			shardHits = append(shardHits, shardHit{dm: dm, shard: sh.ord, idx: sh.idx, r: sh.rr.r})
		}
		collectTime := time.Since(collectStart)
		shardReaders[sh.ord] = ss.got
		if len(shardHits) >= n {
			shardFull = true
		}
		if len(ci.rescore) > 0 {
			if err := rescoreShard(ctx, sh, shardHits, ci.rescore, dfs, req.Explain); err != nil {
				return nil, nil, err
			}
		}
		all = append(all, shardHits...)
		if prof != nil {
			res.Profile = append(res.Profile, ShardProfile{
				ID:           "[" + nodeID + "][" + sh.idx.Name() + "][" + strconv.Itoa(shardNum[sh.ord]) + "]",
				Query:        prof.roots,
				RewriteNanos: int64(ci.rewrite),
				Collector:    []ProfileCollector{profileCollector(sortByScore, ci.aggRoot != nil && ci.aggQuery == nil, collectTime)},
			})
		}
		shardAggs := it.Aggregations()
		if countHits {
			total += coll.count
		}
		if sortByScore || req.TrackScores {
			maxScore = math.Max(maxScore, coll.maxScore)
		}
		if ci.aggRoot != nil && ci.aggQuery == nil {
			aggParts = append(aggParts, shardAggs)
			if p := aggs.PartialOf(shardAggs); p != nil {
				if err := p.Complete(ss.got, sh.rr.cols); err != nil {
					return nil, nil, searchError(ctx, err)
				}
				shardAggTimings = p.Timings()
			}
		}
		if prof != nil {
			res.Profile[len(res.Profile)-1].Aggregations = shardAggTimings
		}
	}
	if len(req.Rescore) > 0 {
		// Rescoring changed the window's scores: the best one is the maximum.
		maxScore = math.Inf(-1)
		for _, h := range all {
			maxScore = math.Max(maxScore, h.dm.Score)
		}
	}
	// size 0 collects no top documents: ES reports no max_score (NaN → null).
	if (sortByScore || req.TrackScores) && req.Size > 0 && len(all) > 0 && !math.IsInf(maxScore, -1) {
		res.MaxScore = maxScore
	}
	res.TimedOut = stop.timedOut
	if req.TerminateAfter > 0 {
		te := stop.terminated
		res.TerminatedEarly = &te
	}
	// Merge shard results: sort values, then shard ordinal, then doc number.
	if len(shards) > 1 {
		mixed := newMixedDateOrder(compiled, fields)
		sort.SliceStable(all, func(i, j int) bool {
			a, b := all[i], all[j]
			ha, hb := a.dm.HitNumber, b.dm.HitNumber
			a.dm.HitNumber, b.dm.HitNumber = 0, 0
			var c int
			if mixed != nil {
				c = mixed.compare(a, b)
			} else {
				c = order.Compare(a.dm, b.dm)
			}
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
	if len(req.Rescore) > 0 {
		// Shards merge rescored hits by their new scores.
		sort.SliceStable(all, func(i, j int) bool {
			a, b := all[i], all[j]
			if a.dm.Score != b.dm.Score {
				return a.dm.Score > b.dm.Score
			}
			if a.shard != b.shard {
				return a.shard < b.shard
			}
			return a.dm.Number < b.dm.Number
		})
	}
	var collapseValues []any
	if req.Collapse != nil {
		readers := map[int]*collapseReader{}
		for _, sh := range shards {
			if compiled[sh.idx] == nil {
				continue // a failed shard
			}
			if readers[sh.ord], err = newCollapseReader(ctx, sh, req.Collapse.Field); err != nil {
				return nil, nil, err
			}
		}
		grouped, vals, err := collapseHits(all, readers, window)
		if err != nil {
			return nil, nil, err
		}
		if len(grouped) < window && shardFull {
			// Some shard may hold more groups past what it returned.
			more := *req
			more.collapseFetch = req.collapseFetch * 4
			return e.execute(ctx, shards, &more, tie, scrollAfter)
		}
		all, collapseValues = grouped, vals
	}
	res.Total, res.TotalRelation = applyTrack(total, req.TrackTotalHits)
	if req.Aggs != nil {
		req.Aggs.MaxBuckets = e.maxBuckets()
		if res.Aggregations, err = req.Aggs.Reduce(aggParts, req.TypedKeys); err != nil {
			return nil, nil, err
		}
	}
	if req.From < len(all) {
		all = all[req.From:]
		if collapseValues != nil {
			collapseValues = collapseValues[req.From:]
		}
	} else {
		all = nil
	}
	if len(all) > req.Size {
		all = all[:req.Size]
	}
	var last [][]byte
	if len(all) > 0 {
		lv := all[len(all)-1].dm.SortValue
		last = make([][]byte, len(lv))
		for i, v := range lv {
			last[i] = append([]byte(nil), v...)
		}
	}
	res.Hits = make([]Hit, 0, len(all))
	for i, sh := range all {
		// each index renders its own sort values (a field may be a date in
		// one index and a date_nanos or a double in another)
		ci := compiled[sh.idx]
		h, err := fetchHit(sh, req, ci.fetch, ci.dec[:nRender], nRender > 0, sortByScore || req.TrackScores || len(req.Rescore) > 0)
		if err != nil {
			return nil, nil, err
		}
		if len(ci.innerHits) > 0 {
			shard := shardName(sh.idx.Name(), shardNum[sh.shard])
			if h.InnerHits, err = fetchInnerHits(ctx, sh.r, sh.idx, &h, shard, nodeID, ci.innerHits, ci.innerFetch); err != nil {
				return nil, nil, err
			}
		}
		if req.Explain {
			h.Explanation = newExplanation(sh.dm.Explanation, segmentLocal(shardReaders[sh.shard], sh.dm.Number))
			h.Shard, h.Node = shardName(sh.idx.Name(), shardNum[sh.shard]), nodeID
		}
		if req.Collapse != nil {
			if h.Fields == nil {
				h.Fields = map[string][]any{}
			}
			h.Fields[req.Collapse.Field] = []any{collapseValues[i]}
			if len(req.Collapse.InnerHits) > 0 {
				if h.CollapseInnerHits, err = e.collapseInnerHits(ctx, shards, req, collapseValues[i]); err != nil {
					return nil, nil, err
				}
			}
		}
		res.Hits = append(res.Hits, h)
	}
	if err := matchNamedQueries(ctx, shards, compiled, all, res.Hits); err != nil {
		return nil, nil, err
	}
	if len(req.Suggest) > 0 {
		if res.Suggest, err = runSuggest(ctx, shards, req.Suggest); err != nil {
			return nil, nil, err
		}
	}
	res.Took = time.Since(start)
	return res, last, nil
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

// sortsOnlyByScore reports whether the sort is the score alone (descending).
func sortsOnlyByScore(fields []query.SortField) bool {
	return len(fields) == 1 && fields[0].Field == "_score" && fields[0].Desc()
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
func fetchHit(sh shardHit, req *SearchRequest, fp *fetchPlan, dec []query.SortDecoder, hasSort, scored bool) (Hit, error) {
	h := Hit{Index: sh.idx.Name(), Score: math.NaN()}
	if scored {
		h.Score = sh.dm.Score
	}
	var src, meta []byte
	var srcErr error
	err := sh.dm.VisitStoredFields(func(field string, value []byte) bool {
		switch field {
		case "_id":
			h.ID = string(value)
		case metaFieldName:
			meta = append([]byte(nil), value...)
		default:
			if s, ok, err := sh.idx.storedSource(field, value); ok {
				src, srcErr = s, err
			}
		}
		return true
	})
	if err == nil {
		err = srcErr
	}
	if err != nil {
		return h, Internalf(err, "failed to load hit")
	}
	if meta != nil {
		h.SeqNo, h.PrimaryTerm, h.Version, h.Routing = decodeMeta(meta)
	}
	if req.StoredFieldsNone {
		// stored_fields: _none_ loads no stored field: no _id, no _routing.
		h.ID, h.Routing = "", ""
	}
	if hasSort {
		h.Sort = make([]any, len(dec))
		for i := range dec {
			if i < len(sh.dm.SortValue) {
				h.Sort[i] = dec[i].Decode(sh.dm.SortValue[i])
			}
		}
	}
	if req.fetchesSource() {
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
		vals, err := sh.idx.Mapping().StoredFieldValues(src, req.StoredFields, "")
		if err != nil {
			return h, err
		}
		if len(vals) > 0 {
			h.Fields = vals
		}
	}
	if err := fp.apply(&h, sh.idx, src); err != nil {
		return h, err
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

// CountResult is the outcome of a count.
type CountResult struct {
	// Count is the number of matching documents of the shards that answered.
	Count int64
	// Shards is the number of shards searched, failed ones included.
	Shards int
	// TerminatedEarly is set when terminate_after cut the count.
	TerminatedEarly bool
	// ShardFailures are the shards that failed while others answered.
	ShardFailures []ShardFailure
}

// Count counts the documents matching a query over the given indices.
func (e *Engine) Count(ctx context.Context, indices []*Index, rawQuery json.RawMessage, terminateAfter int) (*CountResult, error) {
	if terminateAfter < 0 {
		return nil, IllegalArgument("terminateAfter must be positive")
	}
	node, err := parseQueryOrMatchAll(rawQuery)
	if err != nil {
		return nil, err
	}
	now := e.now()
	lookup := e.termsLookup(ctx)
	res := &CountResult{}
	var all []ctxShard
	fails := &shardFailures{}
	for _, idx := range indices {
		for range idx.shards {
			all = append(all, ctxShard{idx: idx})
		}
		qctx := idx.queryContext(now, lookup)
		restrictFields(ctx, qctx)
		q, err := node.Compile(qctx)
		if err != nil {
			if !fails.addIndex(idx, err) {
				return nil, err
			}
			continue
		}
		if idx.Mapping().HasNested() {
			q = query.ExcludeNested(q)
		}
		for _, sh := range idx.shards {
			n, err := countShard(ctx, sh, q)
			if err != nil {
				return nil, err
			}
			res.Count += n
		}
	}
	node0 := e.LocalNode().ID
	if err := fails.allFailed(all, false, node0); err != nil {
		return nil, err
	}
	res.Shards, res.ShardFailures = len(all), fails.list(all, node0)
	if ok := len(all) - len(res.ShardFailures); terminateAfter > 0 && res.Count > int64(terminateAfter)*int64(ok) {
		res.Count = int64(terminateAfter) * int64(ok)
		res.TerminatedEarly = true
	}
	return res, nil
}

// countShard counts the documents of one shard matching q.
func countShard(ctx context.Context, sh *shard, q bluge.Query) (int64, error) {
	rr := sh.acquire()
	defer rr.release()
	coll := newTopNCollector(0, 0, nil, nil, false)
	it, err := rr.r.Search(ctx, &readerCapture{TopNSearch: bluge.NewTopNSearch(0, q), coll: coll, points: rr.points})
	if err != nil {
		return 0, searchError(ctx, err)
	}
	for {
		dm, err := it.Next()
		if err != nil {
			return 0, searchError(ctx, err)
		}
		if dm == nil {
			break
		}
	}
	return coll.count, nil
}

// queryContext is what compiling a query against this index needs.
func (ix *Index) queryContext(now time.Time, lookup func(index, id, path, routing string) ([]any, error)) *query.Context {
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
		TermsLookup:    lookup,

		MaxInnerResultWindow: st.MaxInnerResultWindow,
		StoredSource:         ix.storedSource,
	}
}

// collectAggs runs the aggregations alone over q on one shard (used when a
// post_filter narrows the hits but not the aggregations).
func collectAggs(ctx context.Context, rr *readerRef, q bluge.Query, root *aggs.Root, order search.SortOrder) (*search.Bucket, error) {
	// root was prepared for a search sorting by order, which loads the
	// sort's doc values the aggregations read too (aggs.Request.Prepare):
	// load them here as well, though nothing is sorted.
	sreq := &readerCapture{TopNSearch: bluge.NewTopNSearch(0, q), coll: newTopNCollector(0, 0, order, nil, false), points: rr.points}
	sreq.AddAggregation(aggs.RootName, root)
	_, it, err := runShard(ctx, rr.r, sreq)
	if err != nil {
		return nil, err
	}
	if err := aggs.PartialOf(it.Aggregations()).Complete(sreq.got, rr.cols); err != nil {
		return nil, searchError(ctx, err)
	}
	return it.Aggregations(), nil
}
