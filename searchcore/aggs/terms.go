package aggs

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"

	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// termsImpl is the terms aggregation.
type termsImpl struct {
	src         *source
	size        int
	shardSize   int // 0 = default (size*1.5+10, or size for key order)
	minDocCount int64
	order       []orderKey
	showErr     bool
	inc, exc    *regexp.Regexp
	incVals     map[string]bool
	excVals     map[string]bool
	partition   int
	partitions  int
}

func (m *termsImpl) fields() []string { return m.src.fields() }

func (m *termsImpl) typedKey() string {
	switch {
	case m.src.kind == kindKeyword || m.src.kind == kindNone:
		return "sterms"
	case m.src.integral:
		return "lterms"
	}
	return "dterms"
}

// bucketCounts are the bucket count thresholds terms-like aggregations
// share (ES's BucketCountThresholds): size, shard_size (0: the default),
// min_doc_count and shard_min_doc_count.
type bucketCounts struct {
	size, shardSize               int
	minDocCount, shardMinDocCount int64
}

// parseBucketCounts reads and validates the bucket count thresholds with
// ES's messages; minDocCount is min_doc_count's default.
func parseBucketCounts(p *params, minDocCount int) (bucketCounts, error) {
	var bc bucketCounts
	var err error
	if bc.size, err = p.integer("size", 10); err != nil {
		return bc, err
	}
	if bc.size <= 0 {
		return bc, eserr.IllegalArgument("[size] must be greater than 0. Found [%d] in [%s]", bc.size, p.agg)
	}
	if bc.shardSize, err = p.integer("shard_size", 0); err != nil {
		return bc, err
	}
	if p.has("shard_size") && bc.shardSize <= 0 {
		return bc, eserr.IllegalArgument("[shardSize] must be greater than 0. Found [%d] in [%s]", bc.shardSize, p.agg)
	}
	mdc, err := p.integer("min_doc_count", minDocCount)
	if err != nil {
		return bc, err
	}
	if mdc < 0 {
		return bc, eserr.IllegalArgument("[minDocCount] must be greater than or equal to 0. Found [%d] in [%s]", mdc, p.agg)
	}
	smdc, err := p.integer("shard_min_doc_count", 0)
	if err != nil {
		return bc, err
	}
	if smdc < 0 {
		return bc, eserr.IllegalArgument("[shardMinDocCount] must be greater than or equal to 0. Found [%d] in [%s]", smdc, p.agg)
	}
	bc.minDocCount, bc.shardMinDocCount = int64(mdc), int64(smdc)
	return bc, nil
}

func newTerms(cm *ctxMapping, p *params, d *def) (impl, error) {
	src, err := newSource(cm, p, false)
	if err != nil {
		return nil, err
	}
	m := &termsImpl{src: src}
	bc, err := parseBucketCounts(p, 1)
	if err != nil {
		return nil, err
	}
	m.size, m.shardSize, m.minDocCount = bc.size, bc.shardSize, bc.minDocCount
	if m.showErr, err = p.boolean("show_term_doc_count_error", false); err != nil {
		return nil, err
	}
	if m.order, err = parseOrder(p, []orderKey{{"_count", true}}); err != nil {
		return nil, err
	}
	if err := validateOrderPaths(d, m.order); err != nil {
		return nil, err
	}
	for _, k := range []string{"execution_hint", "collect_mode", "value_type", "format"} {
		if _, err := p.str(k, ""); err != nil {
			return nil, err
		}
	}
	if err := m.parseIncludeExclude(p); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *termsImpl) parseIncludeExclude(p *params) error {
	if r := p.raw("include"); r != nil {
		var s string
		var vals []json.RawMessage
		var part struct {
			Partition     *int `json:"partition"`
			NumPartitions *int `json:"num_partitions"`
		}
		switch {
		case json.Unmarshal(r, &s) == nil:
			re, err := luceneRegexp(s)
			if err != nil {
				return err
			}
			m.inc = re
		case json.Unmarshal(r, &vals) == nil:
			m.incVals = rawSet(vals)
		case json.Unmarshal(r, &part) == nil && part.Partition != nil && part.NumPartitions != nil:
			if *part.NumPartitions <= 0 || *part.Partition < 0 || *part.Partition >= *part.NumPartitions {
				return eserr.IllegalArgument("Invalid partition [%d] for num_partitions [%d]", *part.Partition, *part.NumPartitions)
			}
			m.partition, m.partitions = *part.Partition, *part.NumPartitions
		default:
			return eserr.ParsingError("Unrecognized token for an include [%s]", tokenName(r))
		}
	}
	if r := p.raw("exclude"); r != nil {
		var s string
		var vals []json.RawMessage
		switch {
		case json.Unmarshal(r, &s) == nil:
			re, err := luceneRegexp(s)
			if err != nil {
				return err
			}
			m.exc = re
		case json.Unmarshal(r, &vals) == nil:
			m.excVals = rawSet(vals)
		default:
			return eserr.ParsingError("Unrecognized token for an exclude [%s]", tokenName(r))
		}
	}
	if (m.inc != nil || m.exc != nil) && m.src.kind == kindNumeric {
		return eserr.Errorf(eserr.Invalid, "aggregation_execution_exception",
			"Aggregation [%s] cannot support regular expression style include/exclude settings as they can only be applied to string fields. Use an array of numeric values for include/exclude clauses used to filter numeric fields", p.agg)
	}
	return nil
}

func rawSet(vals []json.RawMessage) map[string]bool {
	out := map[string]bool{}
	for _, v := range vals {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[s] = true
			continue
		}
		var f float64
		if json.Unmarshal(v, &f) == nil {
			out[strconv.FormatFloat(f, 'g', -1, 64)] = true
		}
	}
	return out
}

// luceneRegexp compiles an anchored regular expression (Lucene RegExp
// syntax is close enough to RE2 for the common operators).
func luceneRegexp(s string) (*regexp.Regexp, error) {
	re, err := regexp.Compile("^(?:" + s + ")$")
	if err != nil {
		return nil, eserr.IllegalArgument("invalid regular expression [%s]", s)
	}
	return re, nil
}

// acceptTerm applies include/exclude to a keyword term.
func (m *termsImpl) acceptTerm(t []byte) bool {
	if m.inc != nil && !m.inc.Match(t) {
		return false
	}
	if m.incVals != nil && !m.incVals[string(t)] {
		return false
	}
	if m.partitions > 0 && floorMod(int64(murmur3(t, 31)), int64(m.partitions)) != int64(m.partition) {
		return false
	}
	if m.exc != nil && m.exc.Match(t) {
		return false
	}
	return m.excVals == nil || !m.excVals[string(t)]
}

// acceptNum applies include/exclude to a numeric term.
func (m *termsImpl) acceptNum(v float64) bool {
	if m.incVals == nil && m.excVals == nil && m.partitions == 0 {
		return true
	}
	k := strconv.FormatFloat(v, 'g', -1, 64)
	if m.incVals != nil && !m.incVals[k] {
		return false
	}
	if m.partitions > 0 {
		var l int64
		if m.src.integral {
			l = int64(v)
		} else {
			l = sortableDoubleBits(v)
		}
		if floorMod(mix64(l), int64(m.partitions)) != int64(m.partition) {
			return false
		}
	}
	return m.excVals == nil || !m.excVals[k]
}

func floorMod(a, b int64) int64 { return ((a % b) + b) % b }

func mix64(k int64) int64 {
	u := uint64(k)
	u ^= u >> 33
	u *= 0xff51afd7ed558ccd
	u ^= u >> 33
	u *= 0xc4ceb9fe1a85ec53
	u ^= u >> 33
	return int64(u)
}

func sortableDoubleBits(v float64) int64 {
	b := int64(math.Float64bits(v))
	return b ^ (b>>63)&0x7fffffffffffffff
}

// murmur3 is Lucene's StringHelper.murmurhash3_x86_32.
func murmur3(data []byte, seed uint32) int32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := seed
	n := len(data) &^ 3
	for i := 0; i < n; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= c1
		k = k<<15 | k>>17
		k *= c2
		h ^= k
		h = h<<13 | h>>19
		h = h*5 + 0xe6546b64
	}
	var k uint32
	switch len(data) & 3 {
	case 3:
		k = uint32(data[n+2]) << 16
		fallthrough
	case 2:
		k |= uint32(data[n+1]) << 8
		fallthrough
	case 1:
		k |= uint32(data[n])
		k *= c1
		k = k<<15 | k>>17
		k *= c2
		h ^= k
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return int32(h)
}

// tbucket is one term's per-shard state.
type tbucket struct {
	count int64
	subs  []coll
}

type termsColl struct {
	m    *termsImpl
	n    *node
	e    *env
	str  map[string]*tbucket
	num  map[float64]*tbucket
	seen map[string]struct{}
	buf  []float64
	// sumOther / docErr are set on reduced shard partials.
}

func (m *termsImpl) newColl(n *node, e *env) coll {
	c := &termsColl{m: m, n: n, e: e, str: map[string]*tbucket{}, num: map[float64]*tbucket{}}
	// min_doc_count 0: every term of the field gets a bucket (Bind lists them)
	if e != nil && e.zero != nil {
		if z := e.zero[n]; z != nil {
			for _, t := range z.str {
				if m.acceptTerm([]byte(t)) {
					c.str[t] = &tbucket{subs: newColls(n.subs, e)}
				}
			}
			for _, v := range z.num {
				if m.acceptNum(v) {
					c.num[v] = &tbucket{subs: newColls(n.subs, e)}
				}
			}
		}
	}
	return c
}

func (c *termsColl) strBucket(t []byte) *tbucket {
	b := c.str[string(t)]
	if b == nil {
		b = &tbucket{subs: newColls(c.n.subs, c.e)}
		c.str[string(t)] = b
	}
	return b
}

func (c *termsColl) collect(d *search.DocumentMatch) {
	m := c.m
	if m.src.kind == kindKeyword || m.src.kind == kindNone {
		ts := m.src.terms(d)
		for i, t := range ts {
			if i > 0 && string(ts[i-1]) == string(t) {
				continue
			}
			if !m.acceptTerm(t) {
				continue
			}
			b := c.strBucket(t)
			b.count++
			collectAll(b.subs, d)
		}
		return
	}
	c.buf = m.src.numbers(d, c.buf)
	for i, v := range c.buf {
		if i > 0 && c.buf[i-1] == v {
			continue
		}
		if !m.acceptNum(v) {
			continue
		}
		b := c.num[v]
		if b == nil {
			b = &tbucket{subs: newColls(c.n.subs, c.e)}
			c.num[v] = b
		}
		b.count++
		collectAll(b.subs, d)
	}
}

func (c *termsColl) merge(o coll) {
	x := o.(*termsColl)
	for k, b := range x.str {
		if a := c.str[k]; a != nil {
			a.count += b.count
			mergeAll(a.subs, b.subs)
		} else {
			c.str[k] = b
		}
	}
	for k, b := range x.num {
		if a := c.num[k]; a != nil {
			a.count += b.count
			mergeAll(a.subs, b.subs)
		} else {
			c.num[k] = b
		}
	}
}

func (c *termsColl) result(n *node, r *reducer) (result, error) {
	return c.reduceShards(n, r, []coll{c})
}

// shardBuckets returns the shard's buckets in order (with sub results for
// sub-aggregation orders).
func (c *termsColl) shardBuckets(r *reducer, withSubs bool) ([]*bucket, error) {
	out := make([]*bucket, 0, len(c.str)+len(c.num))
	for k, b := range c.str {
		out = append(out, &bucket{key: k, docCount: b.count, colls: b.subs})
	}
	for k, b := range c.num {
		out = append(out, &bucket{key: k, keyNum: k, docCount: b.count, colls: b.subs})
	}
	if withSubs {
		for _, b := range out {
			subs, err := r.subResults(c.n.subs, cloneColls(c.n.subs, b.colls))
			if err != nil {
				return nil, err
			}
			b.subs = subs
		}
	}
	sortBuckets(c.n.subs, out, c.m.order, compareBucketKeys)
	return out, nil
}

// cloneColls returns fresh collectors holding the merge of cs (so that shard
// level sub results do not consume the collectors).
func cloneColls(nodes []*node, cs []coll) []coll {
	fresh := newColls(nodes, nil)
	mergeAll(fresh, cs)
	return fresh
}

func (m *termsImpl) needsSubsForOrder() bool {
	for _, o := range m.order {
		if o.path != "_count" && o.path != "_key" {
			return true
		}
	}
	return false
}

func (m *termsImpl) isKeyOrder() bool { return len(m.order) > 0 && m.order[0].path == "_key" }

func (m *termsImpl) isCountDesc() bool {
	return len(m.order) > 0 && m.order[0].path == "_count" && m.order[0].desc
}

func (m *termsImpl) effectiveShardSize(shards int) int {
	ss := m.shardSize
	if ss == 0 {
		if m.isKeyOrder() || shards == 1 {
			ss = m.size
		} else {
			ss = int(float64(m.size)*1.5 + 10)
		}
	}
	return max(ss, m.size)
}

// reduceShards truncates each shard to shard_size like an ES shard would,
// then merges, orders and truncates to size, tracking the error bounds.
func (c *termsColl) reduceShards(n *node, r *reducer, shards []coll) (result, error) {
	m := c.m
	// across indices the field may be unmapped in some: render with a
	// mapped shard's field kind
	for _, sc := range shards {
		if tc := sc.(*termsColl); tc.m.src.kind != kindNone {
			c = tc
			break
		}
	}
	ss := m.effectiveShardSize(len(shards))
	var otherDocs, sumErr int64
	merged := map[any]*bucket{}
	var order []any
	for _, sc := range shards {
		tc := sc.(*termsColl)
		bs, err := tc.shardBuckets(r.scratch(), m.needsSubsForOrder())
		if err != nil {
			return nil, err
		}
		shardErr := int64(0)
		if len(bs) > ss {
			for _, b := range bs[ss:] {
				otherDocs += b.docCount
			}
			bs = bs[:ss]
		}
		if len(bs) > 0 && len(bs) >= ss && !m.isKeyOrder() {
			if m.isCountDesc() {
				shardErr = bs[len(bs)-1].docCount
			} else {
				shardErr = -1
			}
		}
		if sumErr != -1 {
			if shardErr == -1 {
				sumErr = -1
			} else {
				sumErr += shardErr
			}
		}
		for _, b := range bs {
			if a := merged[b.key]; a != nil {
				a.docCount += b.docCount
				mergeAll(a.colls, b.colls)
			} else {
				nb := &bucket{key: b.key, keyNum: b.keyNum, docCount: b.docCount, colls: b.colls}
				merged[b.key] = nb
				order = append(order, b.key)
			}
		}
	}
	if len(shards) == 1 {
		sumErr = 0
	}
	all := make([]*bucket, 0, len(merged))
	for _, k := range order {
		b := merged[k]
		if b.docCount < m.minDocCount {
			continue
		}
		all = append(all, b)
	}
	if m.needsSubsForOrder() {
		for _, b := range all {
			subs, err := r.scratch().subResults(n.subs, cloneColls(n.subs, b.colls))
			if err != nil {
				return nil, err
			}
			b.subs = subs
		}
	}
	sortBuckets(n.subs, all, m.order, compareBucketKeys)
	if len(all) > m.size {
		for _, b := range all[m.size:] {
			otherDocs += b.docCount
		}
		all = all[:m.size]
	}
	if err := r.addEach(len(all)); err != nil {
		return nil, err
	}
	for _, b := range all {
		subs, err := r.subResults(n.subs, b.colls)
		if err != nil {
			return nil, err
		}
		b.subs = subs
		c.m.src.decorateKey(b)
		if m.showErr {
			b.showErr = true
			if sumErr == -1 {
				b.docErr = -1
			} else {
				b.docErr = sumErr
			}
		}
	}
	res := &termsResult{m: c.m, buckets: all, docErr: sumErr, other: otherDocs}
	if err := r.parentPipelines(n, res); err != nil {
		return nil, err
	}
	return res, nil
}

// decorateKey sets the rendered key of a terms-like bucket of src's field
// from its numeric key (keyword keys stay as they are).
func (src *source) decorateKey(b *bucket) {
	if _, ok := b.key.(string); ok {
		return
	}
	v := b.keyNum
	switch {
	case src.date:
		b.key = int64(v)
		b.keyString, b.hasKeyStr = src.formatValue(v), true
	case src.boolean:
		b.key = int64(v)
		b.keyString, b.hasKeyStr = src.formatValue(v), true
	case src.integral:
		b.key = int64(v)
	default:
		b.key = v
	}
	if src.decimal != nil {
		b.keyString, b.hasKeyStr = src.decimal(v), true
	}
}

type termsResult struct {
	m       *termsImpl
	buckets []*bucket
	docErr  int64
	other   int64
}

// typedKey is the typed_keys prefix; unmapped everywhere is "umterms".
func (t *termsResult) typedKey() string {
	if t.m.src.kind == kindNone && !t.m.src.hasMissing {
		return "umterms"
	}
	return t.m.typedKey()
}

func (t *termsResult) bucketList() []*bucket         { return t.buckets }
func (t *termsResult) setBuckets(bs []*bucket)       { t.buckets = bs }
func (t *termsResult) metric(string) (float64, bool) { return 0, false }

func (t *termsResult) write(w *jw, n *node, r *reducer) {
	w.kv("doc_count_error_upper_bound", t.docErr)
	w.kv("sum_other_doc_count", t.other)
	writeBuckets(w, n, r, t.buckets, false)
}
