package appsearch

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"
)

// AnalyticsRetention is how long analytics events are kept (App Search
// keeps at least 180 days); older ones are dropped when an engine's state
// is loaded.
const AnalyticsRetention = 180 * 24 * time.Hour

// analyticsEvent is one recorded search or click.
type analyticsEvent struct {
	Kind    string    `json:"kind"` // "query" or "click"
	At      time.Time `json:"at"`
	Query   string    `json:"query"`
	Tags    []string  `json:"tags,omitempty"`
	Results int64     `json:"results,omitempty"`
	DocID   string    `json:"document_id,omitempty"`
}

// analyticsLog holds an engine's events in time order; each event is also
// its own MetaStore record, so counts survive restarts.
type analyticsLog struct {
	events []analyticsEvent
	seq    int64
}

// normalizeQuery is how queries are counted: trimmed, lower case.
func normalizeQuery(q string) string { return strings.ToLower(strings.TrimSpace(q)) }

// record stores one event durably, then counts it. The write happens
// outside the lock so that concurrent searches share the store's group
// commits.
func (ss *Searches) record(ctx context.Context, engine string, st *engineSearch, ev analyticsEvent) error {
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	ss.mu.Lock()
	st.analytics.seq++
	seq := st.analytics.seq
	ss.mu.Unlock()
	key := metaSearchPrefix + engine + "/event/" + strconv.FormatInt(ev.At.UnixNano(), 36) + "-" + strconv.FormatInt(seq, 36)
	if err := ss.store.PutMeta(ctx, key, b); err != nil {
		return err
	}
	ss.mu.Lock()
	st.analytics.events = append(st.analytics.events, ev)
	ss.mu.Unlock()
	return nil
}

// Click records a click: {query, document_id, request_id?, tags?}.
func (ss *Searches) Click(ctx context.Context, engine string, body []byte) error {
	st, e, err := ss.engineState(ctx, engine)
	if err != nil {
		return err
	}
	v, err := decodeBody(body)
	if err != nil {
		return err
	}
	if v.kind != jObject {
		return RequestErrors("Click must be a JSON object")
	}
	errs := onlyKeys(v, "query", "document_id", "request_id", "tags")
	if err := errs.err(); err != nil {
		return err
	}
	for _, k := range []string{"query", "document_id"} {
		if v.get(k) == nil {
			return MissingParameter(k)
		}
	}
	q, ok1 := v.get("query").scalarString()
	doc, ok2 := v.get("document_id").scalarString()
	if !ok1 || !ok2 {
		return RequestErrors("Query and document_id must be strings")
	}
	tags := stringList(v, "tags", "Tags", &errs)
	if len(tags) > MaxTags {
		errs.add("Analytics tags must contain %d tags or fewer", MaxTags)
	}
	if err := errs.err(); err != nil {
		return err
	}
	return ss.record(ctx, e.Name, st, analyticsEvent{Kind: "click", At: ss.now().UTC(), Query: normalizeQuery(q), DocID: doc, Tags: tags})
}

// analyticsFilter selects events: a date range, tags, and (for the click
// report) a query.
type analyticsFilter struct {
	from, to time.Time
	tags     []string
}

// parseAnalyticsFilters reads {date:{from,to}}, {tag: t|[...]} or
// {all: [...]} combining them. The date range defaults to the last 7 days.
func parseAnalyticsFilters(v *jvalue, now time.Time, errs *errList) analyticsFilter {
	f := analyticsFilter{from: now.AddDate(0, 0, -7), to: now.Add(time.Nanosecond)}
	if v == nil {
		return f
	}
	var walk func(v *jvalue)
	walk = func(v *jvalue) {
		if v.kind != jObject {
			errs.add("Filters must be an object")
			return
		}
		for _, m := range v.obj {
			switch m.key {
			case "all":
				list := m.val.arr
				if m.val.kind == jObject {
					list = []*jvalue{m.val}
				}
				for _, e := range list {
					walk(e)
				}
			case "date":
				for _, b := range m.val.obj {
					t, ok := ParseDate(b.val.str)
					if !ok || (b.key != "from" && b.key != "to") {
						errs.add("Filters date must be {from, to} with ISO 8601 dates")
						continue
					}
					if b.key == "from" {
						f.from = t
					} else {
						f.to = t
					}
				}
			case "tag", "tags":
				if m.val.kind == jString {
					f.tags = append(f.tags, m.val.str)
					continue
				}
				for _, t := range m.val.arr {
					f.tags = append(f.tags, t.str)
				}
			default:
				errs.add("Filters contains invalid key: %s", m.key)
			}
		}
	}
	walk(v)
	return f
}

func (f analyticsFilter) match(ev analyticsEvent) bool {
	if ev.At.Before(f.from) || !ev.At.Before(f.to) {
		return false
	}
	for _, want := range f.tags {
		found := false
		for _, t := range ev.Tags {
			found = found || t == want
		}
		if !found {
			return false
		}
	}
	return true
}

// analyticsRequest parses the common body of the analytics reports.
func (ss *Searches) analyticsRequest(ctx context.Context, engine string, body []byte, keys ...string) (*engineSearch, *jvalue, analyticsFilter, int, error) {
	st, _, err := ss.engineState(ctx, engine)
	if err != nil {
		return nil, nil, analyticsFilter{}, 0, err
	}
	v, err := decodeBody(body)
	if err != nil {
		return nil, nil, analyticsFilter{}, 0, err
	}
	if v.kind != jObject {
		return nil, nil, analyticsFilter{}, 0, RequestErrors("Analytics request must be a JSON object")
	}
	errs := onlyKeys(v, keys...)
	f := parseAnalyticsFilters(v.get("filters"), ss.now().UTC(), &errs)
	size := 10
	if p := v.get("page"); p != nil {
		for _, m := range p.obj {
			n, ok := m.val.asInt()
			if m.key != "size" || !ok || n < 1 || n > 100 {
				errs.add("Page size must be an integer between 1 and 100")
				continue
			}
			size = n
		}
	}
	return st, v, f, size, errs.err()
}

// TopQueries reports the most frequent queries with their click counts:
// {meta: {page: {current, size}}, results: [{term, queries, clicks}]}.
func (ss *Searches) TopQueries(ctx context.Context, engine string, body []byte) (json.Marshaler, error) {
	st, _, f, size, err := ss.analyticsRequest(ctx, engine, body, "filters", "page")
	if err != nil {
		return nil, err
	}
	type row struct {
		term            string
		queries, clicks int64
	}
	rows := map[string]*row{}
	ss.mu.Lock()
	for _, ev := range st.analytics.events {
		if !f.match(ev) {
			continue
		}
		r := rows[ev.Query]
		if r == nil {
			r = &row{term: ev.Query}
			rows[ev.Query] = r
		}
		if ev.Kind == "click" {
			r.clicks++
		} else {
			r.queries++
		}
	}
	ss.mu.Unlock()
	list := make([]*row, 0, len(rows))
	for _, r := range rows {
		if r.queries > 0 {
			list = append(list, r)
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].queries != list[j].queries {
			return list[i].queries > list[j].queries
		}
		return list[i].term < list[j].term
	})
	results := []any{}
	for i := 0; i < len(list) && i < size; i++ {
		results = append(results, obj{{"term", list[i].term}, {"queries", list[i].queries}, {"clicks", list[i].clicks}})
	}
	return obj{{"meta", obj{{"page", obj{{"current", 1}, {"size", len(results)}}}}}, {"results", results}}, nil
}

// TopClicks reports the most clicked documents (for one query when
// "query" is given): {meta, results: [{document_id, clicks}]}.
func (ss *Searches) TopClicks(ctx context.Context, engine string, body []byte) (json.Marshaler, error) {
	st, v, f, size, err := ss.analyticsRequest(ctx, engine, body, "filters", "page", "query")
	if err != nil {
		return nil, err
	}
	query, hasQuery := "", v.get("query") != nil
	if hasQuery {
		query = normalizeQuery(v.get("query").str)
	}
	counts := map[string]int64{}
	ss.mu.Lock()
	for _, ev := range st.analytics.events {
		if ev.Kind == "click" && f.match(ev) && (!hasQuery || ev.Query == query) {
			counts[ev.DocID]++
		}
	}
	ss.mu.Unlock()
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if counts[ids[i]] != counts[ids[j]] {
			return counts[ids[i]] > counts[ids[j]]
		}
		return ids[i] < ids[j]
	})
	results := []any{}
	for i := 0; i < len(ids) && i < size; i++ {
		results = append(results, obj{{"document_id", ids[i]}, {"clicks", counts[ids[i]]}})
	}
	return obj{{"meta", obj{{"page", obj{{"current", 1}, {"size", len(results)}}}}}, {"results", results}}, nil
}

// Counts reports queries and clicks per interval ("day", the default, or
// "hour") over the filtered date range: {results: [{from, to, queries,
// clicks}]}.
func (ss *Searches) Counts(ctx context.Context, engine string, body []byte) (json.Marshaler, error) {
	st, v, f, _, err := ss.analyticsRequest(ctx, engine, body, "filters", "interval")
	if err != nil {
		return nil, err
	}
	step := 24 * time.Hour
	if iv := v.get("interval"); iv != nil {
		switch iv.str {
		case "day":
		case "hour":
			step = time.Hour
		default:
			return nil, RequestErrors("Interval must be hour or day")
		}
	}
	start := f.from.UTC().Truncate(step)
	if n := f.to.Sub(start) / step; n > 24*366 {
		return nil, RequestErrors("The date range holds too many intervals")
	}
	type bucket struct {
		from, to        time.Time
		queries, clicks int64
	}
	var buckets []*bucket
	for t := start; t.Before(f.to); t = t.Add(step) {
		buckets = append(buckets, &bucket{from: t, to: t.Add(step)})
	}
	ss.mu.Lock()
	for _, ev := range st.analytics.events {
		if !f.match(ev) {
			continue
		}
		i := int(ev.At.Sub(start) / step)
		if i < 0 || i >= len(buckets) {
			continue
		}
		if ev.Kind == "click" {
			buckets[i].clicks++
		} else {
			buckets[i].queries++
		}
	}
	ss.mu.Unlock()
	results := []any{}
	for _, b := range buckets {
		results = append(results, obj{
			{"from", b.from.Format(DateLayout)}, {"to", b.to.Format(DateLayout)},
			{"queries", b.queries}, {"clicks", b.clicks},
		})
	}
	return obj{{"results", results}}, nil
}
