package aggs

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// DefaultMaxBuckets is the default of the search.max_buckets cluster setting.
const DefaultMaxBuckets = 65535

// Request is a parsed "aggs" object. It is immutable after Parse except for
// MaxBuckets, which the caller sets from search.max_buckets before Reduce.
type Request struct {
	// MaxBuckets is search.max_buckets: Parse sets DefaultMaxBuckets, and 0
	// is a real limit (no bucket at all) as in ES.
	MaxBuckets int
	aggs       []*def
	prepared   []*node
}

// def is one parsed aggregation: its name, type, body and sub-aggregations.
type def struct {
	name string
	typ  string
	body []member
	meta json.RawMessage
	subs []*def
}

// member is one key of a JSON object, in document order.
type member struct {
	key string
	val json.RawMessage
}

// knownTypes lists the aggregation types Parse accepts.
var knownTypes = map[string]bool{
	"min": true, "max": true, "sum": true, "avg": true, "value_count": true, "stats": true,
	"extended_stats": true, "cardinality": true, "weighted_avg": true, "median_absolute_deviation": true,
	"percentiles": true, "percentile_ranks": true,
	"geo_bounds": true, "geo_centroid": true, "geohash_grid": true, "geotile_grid": true,
	"auto_date_histogram": true, "composite": true, "top_hits": true, "filter": true, "filters": true, "global": true,
	"nested": true, "reverse_nested": true,
	"terms": true, "significant_terms": true, "range": true, "date_range": true, "histogram": true, "date_histogram": true, "missing": true,
	"avg_bucket": true, "max_bucket": true, "min_bucket": true, "sum_bucket": true, "stats_bucket": true,
	"cumulative_sum": true, "derivative": true, "bucket_sort": true,
}

// unsupportedTypes are ES aggregation types that are recognised but refused
// with a clear error.
var unsupportedTypes = map[string]string{
	"bucket_selector": "scripts are not supported: [bucket_selector] aggregation [%s] cannot be used",
	"bucket_script":   "scripts are not supported: [bucket_script] aggregation [%s] cannot be used",
	"scripted_metric": "scripts are not supported: [scripted_metric] aggregation [%s] cannot be used",
}

// pipelineTypes are the pipeline aggregations (they take no sub-aggregations).
var pipelineTypes = map[string]bool{
	"avg_bucket": true, "max_bucket": true, "min_bucket": true, "sum_bucket": true, "stats_bucket": true,
	"cumulative_sum": true, "derivative": true, "bucket_sort": true,
}

// Parse parses an "aggs"/"aggregations" object, nested to any depth. Errors
// are parsing_exception / illegal_argument_exception *eserr.Error values.
func Parse(raw json.RawMessage) (*Request, error) {
	defs, err := parseLevel(raw, 0)
	if err != nil {
		return nil, err
	}
	return &Request{MaxBuckets: DefaultMaxBuckets, aggs: defs}, nil
}

func parseLevel(raw json.RawMessage, depth int) ([]*def, error) {
	if depth > 100 {
		return nil, eserr.ParsingError("aggregations nested too deeply")
	}
	ms, err := objectMembers(raw)
	if err != nil {
		return nil, eserr.ParsingError("Found two aggregation type definitions in [aggs]: expected an object of aggregations")
	}
	seen := map[string]bool{}
	var out []*def
	for _, m := range ms {
		if seen[m.key] {
			return nil, eserr.ParsingError("Two sibling aggregations cannot have the same name: [%s]", m.key)
		}
		seen[m.key] = true
		d, err := parseDef(m.key, m.val, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func parseDef(name string, raw json.RawMessage, depth int) (*def, error) {
	ms, err := objectMembers(raw)
	if err != nil {
		return nil, eserr.ParsingError("Aggregation definition for [%s starts with a [%s], expected a [START_OBJECT].", name, tokenName(raw))
	}
	d := &def{name: name}
	var subsRaw json.RawMessage
	for _, m := range ms {
		switch m.key {
		case "meta":
			if _, err := objectMembers(m.val); err != nil {
				return nil, eserr.ParsingError("Expected [START_OBJECT] under [meta], but got a [%s] in [%s]", tokenName(m.val), name)
			}
			d.meta = m.val
		case "aggs", "aggregations":
			if subsRaw != nil {
				return nil, eserr.ParsingError("Found two sub aggregation definitions under [%s]", name)
			}
			subsRaw = m.val
		default:
			if d.typ != "" {
				return nil, eserr.ParsingError("Found two aggregation type definitions in [%s]: [%s] and [%s]", name, d.typ, m.key)
			}
			if msg, ok := unsupportedTypes[m.key]; ok {
				return nil, eserr.ParsingError(msg, name)
			}
			if !knownTypes[m.key] {
				if s := suggest(m.key); s != "" {
					return nil, eserr.ParsingError("Unknown aggregation type [%s] did you mean [%s]?", m.key, s)
				}
				return nil, eserr.ParsingError("Unknown aggregation type [%s]", m.key)
			}
			body, err := objectMembers(m.val)
			if err != nil {
				return nil, eserr.ParsingError("Expected [START_OBJECT] under [%s], but got a [%s] in [%s]", m.key, tokenName(m.val), name)
			}
			d.typ, d.body = m.key, body
		}
	}
	if d.typ == "" {
		return nil, eserr.ParsingError("Missing definition for aggregation [%s]", name)
	}
	if subsRaw != nil {
		if pipelineTypes[d.typ] {
			return nil, eserr.ParsingError("Aggregator [%s] of type [%s] cannot accept sub-aggregations", name, d.typ)
		}
		subs, err := parseLevel(subsRaw, depth+1)
		if err != nil {
			return nil, err
		}
		d.subs = subs
	}
	return d, nil
}

// objectMembers decodes a JSON object keeping key order.
func objectMembers(raw json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if dl, ok := t.(json.Delim); !ok || dl != '{' {
		return nil, errNotObject
	}
	var out []member
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{kt.(string), v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errNotObject
	}
	if _, err := dec.Token(); err == nil {
		return nil, errNotObject
	}
	return out, nil
}

type parseErr string

func (e parseErr) Error() string { return string(e) }

const errNotObject = parseErr("not an object")

func tokenName(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" {
		return "END_OBJECT"
	}
	switch s[0] {
	case '[':
		return "START_ARRAY"
	case '{':
		return "START_OBJECT"
	case '"':
		return "VALUE_STRING"
	case 't', 'f':
		return "VALUE_BOOLEAN"
	case 'n':
		return "VALUE_NULL"
	}
	return "VALUE_NUMBER"
}

// suggest returns the closest known aggregation type within edit distance 2.
func suggest(s string) string {
	names := make([]string, 0, len(knownTypes))
	for k := range knownTypes {
		names = append(names, k)
	}
	sort.Strings(names)
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// params is a decoded aggregation body with typed accessors that produce
// ES-style errors.
type params struct {
	agg, typ string
	m        map[string]json.RawMessage
	used     map[string]bool
}

func newParams(d *def) *params {
	p := &params{agg: d.name, typ: d.typ, m: map[string]json.RawMessage{}, used: map[string]bool{}}
	for _, mb := range d.body {
		p.m[mb.key] = mb.val
	}
	return p
}

func (p *params) has(k string) bool { _, ok := p.m[k]; p.used[k] = true; return ok }

func (p *params) raw(k string) json.RawMessage { p.used[k] = true; return p.m[k] }

func (p *params) str(k, def string) (string, error) {
	r, ok := p.m[k]
	p.used[k] = true
	if !ok || string(r) == "null" {
		return def, nil
	}
	var s string
	if err := json.Unmarshal(r, &s); err != nil {
		var n json.Number
		if json.Unmarshal(r, &n) == nil {
			return n.String(), nil
		}
		return "", p.bad(k, r)
	}
	return s, nil
}

func (p *params) num(k string, def float64) (float64, bool, error) {
	r, ok := p.m[k]
	p.used[k] = true
	if !ok || string(r) == "null" {
		return def, false, nil
	}
	var f float64
	if err := json.Unmarshal(r, &f); err != nil {
		var s string
		if json.Unmarshal(r, &s) == nil {
			if v, err := parseJavaDouble(s); err == nil {
				return v, true, nil
			}
		}
		return 0, false, p.bad(k, r)
	}
	return f, true, nil
}

func (p *params) integer(k string, def int) (int, error) {
	f, _, err := p.num(k, float64(def))
	if err != nil {
		return 0, err
	}
	return int(f), nil
}

func (p *params) boolean(k string, def bool) (bool, error) {
	r, ok := p.m[k]
	p.used[k] = true
	if !ok || string(r) == "null" {
		return def, nil
	}
	var b bool
	if err := json.Unmarshal(r, &b); err != nil {
		var s string
		if json.Unmarshal(r, &s) == nil && (s == "true" || s == "false") {
			return s == "true", nil
		}
		return false, p.bad(k, r)
	}
	return b, nil
}

func (p *params) bad(k string, r json.RawMessage) error {
	return eserr.ParsingError("[%s] failed to parse field [%s]", p.typ, k)
}

// unknown fails on the first body key that no accessor asked for.
func (p *params) unknown(d *def) error {
	for _, mb := range d.body {
		if !p.used[mb.key] {
			return eserr.ParsingError("[%s] unknown field [%s]", d.typ, mb.key)
		}
	}
	return nil
}
