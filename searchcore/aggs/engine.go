package aggs

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/RoaringBitmap/roaring"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/query"
)

// RootName is the name under which the root wrapper is registered in the
// bluge request; Reduce reads each shard's partial from it.
const RootName = "_quarry_aggs"

// node is one compiled aggregation.
type node struct {
	d    *def
	impl impl
	subs []*node
}

// impl is the type-specific part of a compiled aggregation.
type impl interface {
	// fields are the doc-value fields the aggregation itself reads.
	fields() []string
	// newColl returns an empty per-shard collector (nil for pipelines).
	newColl(n *node, e *env) coll
	// typedKey is the typed_keys prefix ("sterms", "avg", ...).
	typedKey() string
}

// coll is a per-shard collector; merging two collectors of the same node
// gives the collector of the union of their documents.
type coll interface {
	collect(d *search.DocumentMatch)
	merge(o coll)
	// result finishes the reduced collector.
	result(n *node, r *reducer) (result, error)
}

// result is a reduced aggregation ready to render.
type result interface {
	// write renders the aggregation's JSON object body members.
	write(w *jw, n *node, r *reducer)
	// metric resolves a buckets_path metric name ("" = the single value).
	metric(name string) (float64, bool)
}

// multiBucket is a result with buckets (pipelines iterate them).
type multiBucket interface {
	result
	bucketList() []*bucket
	setBuckets([]*bucket)
}

// Prepare compiles the request against one index (mapping and query
// compilation) and returns the root aggregation to add to each shard's bluge
// request under RootName. sortFields are the doc-value fields the request's
// sort already loads; they are left out of the root's Fields() so that bluge
// loads each field exactly once (see STACK.md §4: duplicated fields are
// loaded, and so counted, twice).
func (r *Request) Prepare(ctx *query.Context, sortFields []string) (*Root, error) {
	cm := &ctxMapping{}
	if ctx != nil {
		cm.m, cm.nowTime, cm.qctx = ctx.Mapping, ctx.Now, ctx
	}
	nodes, err := compileLevel(cm, r.aggs, nil)
	if err != nil {
		return nil, err
	}
	r.prepared = nodes
	fields := treeFields(nodes, sortFields)
	return &Root{nodes: nodes, fieldList: fields, excludeNested: ctx != nil && ctx.Mapping != nil && ctx.Mapping.HasNested()}, nil
}

func compileLevel(cm *ctxMapping, defs []*def, parent *def) ([]*node, error) {
	var out []*node
	for _, d := range defs {
		n := &node{d: d}
		im, err := compile(cm, d, parent)
		if err != nil {
			return nil, err
		}
		n.impl = im
		if len(d.subs) > 0 {
			if _, ok := im.(metricImpl); ok {
				return nil, eserr.Errorf(eserr.Invalid, "aggregation_initialization_exception",
					"Aggregator [%s] of type [%s] cannot accept sub-aggregations", d.name, d.typ)
			}
		}
		outer := cm.nestedPath
		switch x := im.(type) {
		case *nestedImpl:
			cm.nestedPath = x.path
		case *reverseNestedImpl:
			cm.nestedPath = x.path
		}
		n.subs, err = compileLevel(cm, d.subs, d)
		cm.nestedPath = outer
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// metricImpl marks metric aggregations (no sub-aggregations).
type metricImpl interface{ isMetric() }

// Root is the one bluge aggregation wrapping all user aggregations.
type Root struct {
	nodes     []*node
	fieldList []string
	env       *env // set by Bind
	// excludeNested keeps the global aggregation off nested documents.
	excludeNested bool
	// Profile times each top-level aggregation's collection (profile: true).
	Profile bool
	// fast marks a root of the column-wise path (see Fast).
	fast bool
}

// Fields implements search.Aggregation: the de-duplicated doc-value fields
// minus the sort fields.
func (a *Root) Fields() []string { return a.fieldList }

// Calculator implements search.Aggregation.
func (a *Root) Calculator() search.Calculator {
	e := a.env
	if e == nil {
		e = &env{}
	}
	if a.Profile {
		return newProfiledPartial(a.nodes, e)
	}
	p := &Partial{colls: newColls(a.nodes, e), env: e}
	if a.fast {
		p.docs = roaring.New()
	}
	return p
}

// Partial is one shard's collected state (the search.Calculator of Root).
type Partial struct {
	colls []coll
	env   *env
	// prof holds the per-aggregation timings when profiling.
	prof []AggTiming
	// docs are the matches of a fast partial until Complete.
	docs     *roaring.Bitmap
	overflow bool
}

func newColls(nodes []*node, e *env) []coll {
	cs := make([]coll, len(nodes))
	for i, n := range nodes {
		cs[i] = n.impl.newColl(n, e)
	}
	return cs
}

func collectAll(cs []coll, d *search.DocumentMatch) {
	for _, c := range cs {
		if c != nil {
			c.collect(d)
		}
	}
}

func mergeAll(a, b []coll) {
	for i, c := range a {
		if c != nil {
			c.merge(b[i])
		}
	}
}

// Consume implements search.Calculator.
func (p *Partial) Consume(d *search.DocumentMatch) {
	if p.prof != nil {
		p.consumeProfiled(d)
		return
	}
	if p.docs != nil {
		p.consumeFast(d)
		return
	}
	collectAll(p.colls, d)
}

// Finish implements search.Calculator.
func (p *Partial) Finish() {}

// Merge implements search.Calculator (used by bluge's multi-searcher).
func (p *Partial) Merge(o search.Calculator) {
	if op, ok := o.(*Partial); ok {
		if p.docs != nil && op.docs != nil {
			p.docs.Or(op.docs)
			p.overflow = p.overflow || op.overflow
			return
		}
		mergeAll(p.colls, op.colls)
	}
}

// PartialOf extracts the Partial from a shard's it.Aggregations() bucket.
func PartialOf(b *search.Bucket) *Partial {
	if b == nil {
		return nil
	}
	p, _ := b.Aggregation(RootName).(*Partial)
	return p
}

// reducer carries reduce-wide state.
type reducer struct {
	shards     int
	typedKeys  bool
	maxBuckets int
	buckets    int
}

// scratch is a reducer for intermediate results (ordering by
// sub-aggregations) whose buckets do not count against max_buckets.
func (r *reducer) scratch() *reducer {
	return &reducer{shards: r.shards, typedKeys: r.typedKeys, maxBuckets: math.MaxInt}
}

// addEach counts n buckets that ES's reduce consumes one at a time (terms,
// composite, geo grids, auto_date_histogram): on overflow the error reports
// the limit plus one, the count at which ES's MultiBucketConsumer fails.
func (r *reducer) addEach(n int) error {
	if r.buckets+n > r.maxBuckets {
		n = max(r.maxBuckets+1-r.buckets, 1)
	}
	return r.addBuckets(n)
}

// addBuckets counts created buckets against search.max_buckets, n at once
// (range and filters consume all their buckets in one call in ES). As in
// ES 7.17 only multi-bucket aggregations count: single-bucket ones (filter,
// missing, global, nested, reverse_nested) consume nothing in their reduce.
func (r *reducer) addBuckets(n int) error {
	r.buckets += n
	if r.buckets > r.maxBuckets {
		return eserr.Errorf(eserr.Invalid, "too_many_buckets_exception",
			"Trying to create too many buckets. Must be less than or equal to: [%d] but was [%d]. This limit can be set by changing the [search.max_buckets] cluster level setting.",
			r.maxBuckets, r.buckets).With("max_buckets", r.maxBuckets)
	}
	return nil
}

// Reduce merges the shard results (each shard's it.Aggregations()) and
// renders the ES "aggregations" object. Prepare must have been called.
func (r *Request) Reduce(shards []*search.Bucket, typedKeys bool) (json.RawMessage, error) {
	parts := make([]*Partial, 0, len(shards))
	for _, b := range shards {
		if p := PartialOf(b); p != nil {
			parts = append(parts, p)
		}
	}
	if len(parts) != len(shards) {
		return nil, eserr.Internalf(nil, "aggregation results missing from %d of %d shards", len(shards)-len(parts), len(shards))
	}
	return r.ReducePartials(parts, typedKeys)
}

// ReducePartials is Reduce over already extracted partials.
func (r *Request) ReducePartials(parts []*Partial, typedKeys bool) (json.RawMessage, error) {
	rd := &reducer{shards: len(parts), typedKeys: typedKeys, maxBuckets: r.MaxBuckets}
	if rd.maxBuckets < 0 {
		rd.maxBuckets = DefaultMaxBuckets
	}
	needsBind := (&Root{nodes: r.prepared}).NeedsBind()
	var shardColls [][]coll
	for _, p := range parts {
		if needsBind && (p.env == nil || !p.env.bound) {
			return nil, eserr.Internalf(nil, "filter, filters and global aggregations need Root.Bind for each shard")
		}
		shardColls = append(shardColls, p.colls)
	}
	if len(shardColls) == 0 {
		shardColls = append(shardColls, newColls(r.prepared, &env{bound: true}))
	}
	res, err := rd.level(r.prepared, shardColls)
	if err != nil {
		return nil, err
	}
	w := &jw{}
	w.begin('{')
	rd.writeLevel(w, r.prepared, res)
	w.end('}')
	return json.RawMessage(w.b.Bytes()), nil
}

// shardAware collectors reduce from the per-shard collectors themselves
// (terms: shard_size truncation and error bounds).
type shardAware interface {
	reduceShards(n *node, r *reducer, shards []coll) (result, error)
}

// level reduces one level of sibling aggregations from per-shard collectors
// (shards[i] is shard i's collectors for nodes) and runs sibling pipelines.
func (r *reducer) level(nodes []*node, shards [][]coll) ([]result, error) {
	res := make([]result, len(nodes))
	for i, n := range nodes {
		if _, ok := n.impl.(*pipelineImpl); ok {
			continue
		}
		per := make([]coll, len(shards))
		for s := range shards {
			per[s] = shards[s][i]
		}
		for _, c := range per[1:] {
			if fmt.Sprintf("%T", c) != fmt.Sprintf("%T", per[0]) || !sameKind(per[0], c) {
				return nil, eserr.IllegalArgument("Merging/Reducing the aggregations failed when computing the aggregation [%s] because the field you gave in the aggregation query existed as two different types in two different indices", n.d.name)
			}
		}
		var err error
		if sa, ok := per[0].(shardAware); ok {
			res[i], err = sa.reduceShards(n, r, per)
		} else {
			for _, c := range per[1:] {
				per[0].merge(c)
			}
			res[i], err = per[0].result(n, r)
		}
		if err != nil {
			return nil, err
		}
	}
	return res, r.siblingPipelines(nodes, res)
}

// sameKind reports whether two collectors of one aggregation read the same
// kind of values (a field can be keyword in one index and long in another).
func sameKind(a, b coll) bool {
	ta, ok1 := a.(*termsColl)
	tb, ok2 := b.(*termsColl)
	if ok1 && ok2 && ta.m.src.kind != kindNone && tb.m.src.kind != kindNone {
		return ta.m.typedKey() == tb.m.typedKey()
	}
	return true
}

// subResults reduces a bucket's (already merged) sub-collectors.
func (r *reducer) subResults(nodes []*node, colls []coll) ([]result, error) {
	if len(nodes) == 0 {
		return nil, nil
	}
	return r.level(nodes, [][]coll{colls})
}

// writeLevel renders sibling aggregations as object members.
func (r *reducer) writeLevel(w *jw, nodes []*node, res []result) {
	for i, n := range nodes {
		if res[i] == nil {
			continue
		}
		name := n.d.name
		if r.typedKeys {
			name = n.impl.typedKey() + "#" + name
			if tk, ok := res[i].(interface{ typedKey() string }); ok {
				name = tk.typedKey() + "#" + n.d.name
			}
		}
		w.key(name)
		w.begin('{')
		if n.d.meta != nil {
			w.kv("meta", compactJSON(n.d.meta))
		}
		res[i].write(w, n, r)
		w.end('}')
	}
}

func compactJSON(raw json.RawMessage) json.RawMessage {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return raw
	}
	w := &jw{}
	writeAny(w, v, raw)
	return json.RawMessage(w.b.Bytes())
}

// writeAny writes a decoded JSON value keeping object key order from raw.
func writeAny(w *jw, v any, raw json.RawMessage) {
	switch v.(type) {
	case map[string]any:
		ms, _ := objectMembers(raw)
		w.begin('{')
		for _, m := range ms {
			var sv any
			dec := json.NewDecoder(strings.NewReader(string(m.val)))
			dec.UseNumber()
			_ = dec.Decode(&sv)
			w.key(m.key)
			writeAny(w, sv, m.val)
		}
		w.end('}')
	case []any:
		var elems []json.RawMessage
		_ = json.Unmarshal(raw, &elems)
		w.begin('[')
		for _, e := range elems {
			var sv any
			dec := json.NewDecoder(strings.NewReader(string(e)))
			dec.UseNumber()
			_ = dec.Decode(&sv)
			writeAny(w, sv, e)
		}
		w.end(']')
	case json.Number:
		w.value(json.RawMessage(v.(json.Number).String()))
	default:
		w.value(v)
	}
}

// bucket is one reduced bucket of a multi-bucket aggregation.
type bucket struct {
	key       any // string, int64 or float64
	keyNum    float64
	keyString string // key_as_string ("" = none)
	hasKeyStr bool
	strFirst  bool // key_as_string before key (histograms, as ES renders them)
	docCount  int64
	docErr    int64 // per-bucket doc_count_error_upper_bound (terms)
	showErr   bool
	pre       []kvp // members written before doc_count (range from/to)
	post      []kvp // members written after doc_count (significant_terms score, bg_count)
	subs      []result
	colls     []coll
}

type kvp struct {
	k string
	v any
}

// writeBucket renders a bucket object (without the key when keyed).
func (r *reducer) writeBucket(w *jw, n *node, b *bucket, withKey bool) {
	w.begin('{')
	if b.hasKeyStr && b.strFirst {
		w.kv("key_as_string", b.keyString)
	}
	if withKey {
		w.kv("key", b.key)
	}
	if b.hasKeyStr && !b.strFirst {
		w.kv("key_as_string", b.keyString)
	}
	for _, p := range b.pre {
		w.kv(p.k, p.v)
	}
	w.kv("doc_count", b.docCount)
	if b.showErr {
		w.kv("doc_count_error_upper_bound", b.docErr)
	}
	for _, p := range b.post {
		w.kv(p.k, p.v)
	}
	r.writeLevel(w, n.subs, b.subs)
	w.end('}')
}

// resolveBucketPath resolves a buckets_path (relative to a bucket) to a value.
func resolveBucketPath(nodes []*node, b *bucket, path string) (float64, bool) {
	switch path {
	case "_count":
		return float64(b.docCount), true
	case "_key":
		return b.keyNum, true
	}
	head, rest, more := strings.Cut(path, ">")
	name, metric := head, ""
	if !more {
		if i := strings.IndexAny(head, ".["); i >= 0 {
			name, metric = head[:i], strings.Trim(head[i:], ".[]")
		}
	}
	for i, n := range nodes {
		if n.d.name != name || b.subs == nil || b.subs[i] == nil {
			continue
		}
		if more {
			if sb, ok := b.subs[i].(*singleBucket); ok {
				return resolveBucketPath(n.subs, sb.b, rest)
			}
			return 0, false
		}
		if sb, ok := b.subs[i].(*singleBucket); ok && (metric == "" || metric == "_count" || metric == "doc_count") {
			return float64(sb.b.docCount), true
		}
		return b.subs[i].metric(metric)
	}
	return 0, false
}

// singleBucket is the result of single-bucket aggregations (missing).
type singleBucket struct {
	b   *bucket
	key string
}

func (s *singleBucket) write(w *jw, n *node, r *reducer) {
	w.kv("doc_count", s.b.docCount)
	r.writeLevel(w, n.subs, s.b.subs)
}

func (s *singleBucket) metric(name string) (float64, bool) {
	if name == "" || name == "_count" || name == "doc_count" {
		return float64(s.b.docCount), true
	}
	return 0, false
}

// orderKey is one criterion of a bucket order.
type orderKey struct {
	path string // "_count", "_key" or a sub-aggregation path
	desc bool
}

// parseOrder parses "order": {"_count":"desc"} or a list of those.
func parseOrder(p *params, def []orderKey) ([]orderKey, error) {
	raw := p.raw("order")
	if raw == nil {
		return def, nil
	}
	var objs []json.RawMessage
	if err := json.Unmarshal(raw, &objs); err != nil {
		objs = []json.RawMessage{raw}
	}
	var out []orderKey
	for _, o := range objs {
		ms, err := objectMembers(o)
		if err != nil {
			return nil, eserr.ParsingError("Order value must be an object, found [%s]", tokenName(o))
		}
		for _, m := range ms {
			var dir string
			if err := json.Unmarshal(m.val, &dir); err != nil {
				return nil, eserr.ParsingError("Unexpected token %s for [order]", tokenName(m.val))
			}
			switch strings.ToLower(dir) {
			case "asc", "desc":
			default:
				return nil, eserr.ParsingError("Unknown order direction [%s]", dir)
			}
			path := m.key
			if path == "_term" {
				path = "_key"
			}
			out = append(out, orderKey{path: path, desc: strings.EqualFold(dir, "desc")})
		}
	}
	return out, nil
}

// validateOrderPaths checks that sub-aggregation order paths exist.
func validateOrderPaths(d *def, order []orderKey) error {
	for _, o := range order {
		if o.path == "_count" || o.path == "_key" {
			continue
		}
		if msg := orderPathProblem(d, o.path); msg != "" {
			return eserr.Errorf(eserr.Invalid, "aggregation_execution_exception", "Invalid aggregation order path [%s]. %s", o.path, msg)
		}
	}
	return nil
}

// Aggregation kinds an order path may end on or go through (ES's
// Aggregator.resolveSortPath and bucketComparator).
var (
	singleBucketTypes = map[string]bool{"filter": true, "missing": true, "global": true, "nested": true, "reverse_nested": true}
	multiValueMetrics = map[string]bool{"stats": true, "extended_stats": true, "percentiles": true, "percentile_ranks": true}
	numericMetrics    = map[string]bool{"min": true, "max": true, "sum": true, "avg": true, "value_count": true, "cardinality": true,
		"weighted_avg": true, "median_absolute_deviation": true}
)

// orderPathProblem returns ES's reason why path (name>name...[.key]) cannot
// order the buckets of d, or "".
func orderPathProblem(d *def, path string) string {
	const bucketsOnly = "Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket " +
		"aggregations within the path and a final single-bucket or a metrics aggregation at the path end."
	elems := strings.Split(path, ">")
	for i, e := range elems {
		name, key := e, ""
		if i == len(elems)-1 {
			if j := strings.IndexAny(e, ".["); j >= 0 {
				name, key = e[:j], strings.Trim(e[j:], ".[]")
			}
		}
		var sub *def
		for _, s := range d.subs {
			if s.name == name && !pipelineTypes[s.typ] {
				sub = s
			}
		}
		if sub == nil {
			return fmt.Sprintf("The provided aggregation [%s] either does not exist, or is a pipeline aggregation and cannot be used to sort the buckets.", name)
		}
		last := i == len(elems)-1
		switch {
		case !last && !singleBucketTypes[sub.typ]:
			return fmt.Sprintf("%s [%s] is not single-bucket.", bucketsOnly, name)
		case !last:
			d = sub
		case multiValueMetrics[sub.typ] && key == "":
			return "When ordering on a multi-value metrics aggregation a metric name must be specified."
		case !multiValueMetrics[sub.typ] && !numericMetrics[sub.typ] && !singleBucketTypes[sub.typ]:
			return bucketsOnly
		}
	}
	return ""
}

// orderValue is the value terms and histograms order a bucket by for a
// sub-aggregation path, as ES's Comparators.compareDiscardNaN over the
// metric: an empty min or max orders as its aggregator's initial value
// (+Inf, -Inf), in the order's direction; other missing values (NaN) are
// not ok and sort last in both directions.
func orderValue(nodes []*node, b *bucket, path string) (float64, bool) {
	v, ok := resolveBucketPath(nodes, b, path)
	if !ok && math.IsInf(v, 0) {
		return v, true
	}
	return v, ok && !math.IsNaN(v)
}

// sortBuckets orders buckets by order, reading sub-aggregation paths with
// value (values not ok sort last in both directions); ties fall back to
// cmpKey.
func sortBuckets(nodes []*node, bs []*bucket, order []orderKey, cmpKey func(a, b *bucket) int) {
	sort.SliceStable(bs, func(i, j int) bool {
		a, b := bs[i], bs[j]
		for _, o := range order {
			var c int
			switch o.path {
			case "_count":
				c = cmp64(a.docCount, b.docCount)
			case "_key":
				c = cmpKey(a, b)
			default:
				va, oka := orderValue(nodes, a, o.path)
				vb, okb := orderValue(nodes, b, o.path)
				switch {
				case !oka && !okb:
				case !oka:
					c = 1
				case !okb:
					c = -1
				default:
					c = cmpF(va, vb)
				}
				if !oka || !okb {
					if c != 0 {
						return c < 0 // missing values sort last in both directions
					}
				}
			}
			if o.desc {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return cmpKey(a, b) < 0
	})
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
