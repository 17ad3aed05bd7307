package aggs

import (
	"context"
	"sort"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/numeric"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// sigTermsImpl is significant_terms with ES 7.17's default JLH heuristic:
// the foreground is the documents of the owning bucket (or of the query),
// the background the whole shard (every document, as Lucene's maxDoc, and
// each term's document frequency from its postings, read by Bind).
type sigTermsImpl struct {
	src              *source
	ie               *termsImpl // include / exclude
	size, shardSize  int        // shardSize 0 = ES's default (2 × (size×1.5+10))
	minDocCount      int64
	shardMinDocCount int64
}

func (m *sigTermsImpl) fields() []string { return m.src.fields() }

func (m *sigTermsImpl) typedKey() string {
	if m.src.kind == kindNumeric {
		return "siglterms"
	}
	return "sigsterms"
}

func newSigTerms(cm *ctxMapping, p *params) (impl, error) {
	src, err := newSource(cm, p, false)
	if err != nil {
		return nil, err
	}
	if src.kind == kindNumeric && !src.integral && !src.date && !src.boolean {
		return nil, eserr.Errorf(eserr.Internal, "unsupported_operation_exception", "No support for examining floating point numerics")
	}
	m := &sigTermsImpl{src: src, ie: &termsImpl{src: src}}
	bc, err := parseBucketCounts(p, 3)
	if err != nil {
		return nil, err
	}
	m.size, m.shardSize, m.minDocCount, m.shardMinDocCount = bc.size, bc.shardSize, bc.minDocCount, bc.shardMinDocCount
	if r := p.raw("jlh"); r != nil {
		if ms, err := objectMembers(r); err != nil || len(ms) > 0 {
			return nil, eserr.ParsingError("[jlh] unknown field [%s]", firstKey(ms))
		}
	}
	for _, k := range []string{"execution_hint", "value_type", "format"} {
		if _, err := p.str(k, ""); err != nil {
			return nil, err
		}
	}
	if err := m.ie.parseIncludeExclude(p); err != nil {
		return nil, err
	}
	return m, nil
}

func firstKey(ms []member) string {
	if len(ms) == 0 {
		return ""
	}
	return ms[0].key
}

// effectiveShardSize is ES's SignificantTermsAggregatorFactory default: the
// terms default doubled, since significance is hard to judge per shard.
func (m *sigTermsImpl) effectiveShardSize() int {
	if m.shardSize > 0 {
		return max(m.shardSize, m.size)
	}
	return 2 * int(float64(m.size)*1.5+10)
}

// background is one shard's background set: its document count, and the
// document frequency of the terms the foreground found, read from the
// shard's reader when first asked for (the reader outlives the reduce).
type background struct {
	size  int64
	r     search.Reader // nil: an unmapped field, no term has documents
	field string
	str   map[string]int64
	num   map[float64]int64
}

// loadBackground reads the shard's document count and prepares the
// document frequencies of a significant_terms field.
func loadBackground(ctx context.Context, r *bluge.Reader, src *source) (*background, error) {
	n, err := r.Count()
	if err != nil {
		return nil, err
	}
	bg := &background{size: int64(n), field: src.field, str: map[string]int64{}, num: map[float64]int64{}}
	if src.kind == kindNone {
		return bg, nil
	}
	loader, err := newDocLoader(ctx, r, nil)
	if err != nil {
		return nil, err
	}
	bg.r = loader.r
	return bg, nil
}

// strDf returns the document frequency of a keyword term. Frequencies come
// from the term's postings: the dictionary's own counts are wrong in ice
// (a postings list read after a one-hit term keeps counting 1).
func (bg *background) strDf(term string) (int64, error) {
	df, ok := bg.str[term]
	if ok || bg.r == nil {
		return df, nil
	}
	df, err := docFreq(bg.r, bg.field, term)
	bg.str[term] = df
	return df, err
}

// numDf returns the document frequency of a numeric value (its shift-0
// term, as eachFieldTerm decodes it).
func (bg *background) numDf(v float64) (int64, error) {
	df, ok := bg.num[v]
	if ok || bg.r == nil {
		return df, nil
	}
	df, err := docFreq(bg.r, bg.field, string(numeric.MustNewPrefixCodedInt64(numeric.Float64ToInt64(v), 0)))
	bg.num[v] = df
	return df, err
}

// docFreq is the number of live documents of r holding term in field.
func docFreq(r search.Reader, field, term string) (int64, error) {
	pi, err := r.PostingsIterator([]byte(term), field, false, false, false)
	if err != nil {
		return 0, err
	}
	defer pi.Close()
	return int64(pi.Count()), nil
}

// sigPart is one shard's foreground: the documents of the owning bucket
// and each term's count among them (collected as a terms aggregation).
type sigPart struct {
	bg     *background
	subset int64
	terms  *termsColl
}

// sigColl collects a significant_terms aggregation. Merging collectors of
// different shards keeps their parts apart, because ES scores and truncates
// each shard's terms against that shard's background before the reduce.
type sigColl struct {
	parts []*sigPart
}

func (m *sigTermsImpl) newColl(n *node, e *env) coll {
	c := &sigColl{}
	if e != nil && e.bg[n] != nil {
		tc := &termsColl{m: m.ie, n: n, e: e, str: map[string]*tbucket{}, num: map[float64]*tbucket{}}
		c.parts = []*sigPart{{bg: e.bg[n], terms: tc}}
	}
	return c
}

func (c *sigColl) collect(d *search.DocumentMatch) {
	if len(c.parts) == 0 {
		return
	}
	p := c.parts[0]
	p.subset++
	p.terms.collect(d)
}

func (c *sigColl) merge(o coll) {
	for _, x := range o.(*sigColl).parts {
		var into *sigPart
		for _, p := range c.parts {
			if p.bg == x.bg {
				into = p
			}
		}
		if into == nil {
			c.parts = append(c.parts, &sigPart{bg: x.bg, subset: x.subset, terms: x.terms})
			continue
		}
		into.subset += x.subset
		into.terms.merge(x.terms)
	}
}

// jlh is ES's JLHScore: the absolute times the relative change of a term's
// probability from the background to the foreground, 0 when it does not
// rise (a term absent from the background counts once there).
func jlh(subsetFreq, subsetSize, supersetFreq, supersetSize int64) float64 {
	if subsetSize == 0 || supersetSize == 0 {
		return 0
	}
	if supersetFreq == 0 {
		supersetFreq = 1
	}
	sub := float64(subsetFreq) / float64(subsetSize)
	super := float64(supersetFreq) / float64(supersetSize)
	abs := sub - super
	if abs <= 0 {
		return 0
	}
	return abs * (sub / super)
}

// sigBucket is a term's counts while reducing.
type sigBucket struct {
	key      any
	keyNum   float64
	subsetDf int64
	bgDf     int64
	score    float64
	colls    []coll
}

// bySignificance orders buckets by score, descending; ES leaves ties to
// its priority queue, here they go by key.
func bySignificance(bs []*sigBucket) {
	sort.SliceStable(bs, func(i, j int) bool {
		a, b := bs[i], bs[j]
		if a.score != b.score {
			return a.score > b.score
		}
		as, aStr := a.key.(string)
		bs2, bStr := b.key.(string)
		if aStr && bStr {
			return as < bs2
		}
		return a.keyNum < b.keyNum
	})
}

// result reduces the parts as ES's InternalSignificantTerms.reduce: each
// shard keeps its shard_size best terms (scored against its own
// background, at least shard_min_doc_count documents), then the counts add
// up and the terms are rescored against the summed sizes, keeping those
// scoring above 0 with min_doc_count documents, best first.
func (c *sigColl) result(n *node, r *reducer) (result, error) {
	m := n.impl.(*sigTermsImpl)
	var subsetSize, supersetSize int64
	merged := map[any]*sigBucket{}
	var order []any
	for _, p := range c.parts {
		subsetSize += p.subset
		supersetSize += p.bg.size
		var bs []*sigBucket
		for k, b := range p.terms.str {
			df, err := p.bg.strDf(k)
			if err != nil {
				return nil, err
			}
			bs = append(bs, &sigBucket{key: k, subsetDf: b.count, bgDf: df, colls: b.subs})
		}
		for k, b := range p.terms.num {
			df, err := p.bg.numDf(k)
			if err != nil {
				return nil, err
			}
			bs = append(bs, &sigBucket{key: k, keyNum: k, subsetDf: b.count, bgDf: df, colls: b.subs})
		}
		kept := bs[:0]
		for _, b := range bs {
			if b.subsetDf >= m.shardMinDocCount {
				b.score = jlh(b.subsetDf, p.subset, b.bgDf, p.bg.size)
				kept = append(kept, b)
			}
		}
		bySignificance(kept)
		if ss := m.effectiveShardSize(); len(kept) > ss {
			kept = kept[:ss]
		}
		for _, b := range kept {
			if a := merged[b.key]; a != nil {
				a.subsetDf += b.subsetDf
				a.bgDf += b.bgDf
				mergeAll(a.colls, b.colls)
				continue
			}
			merged[b.key] = &sigBucket{key: b.key, keyNum: b.keyNum, subsetDf: b.subsetDf, bgDf: b.bgDf, colls: cloneColls(n.subs, b.colls)}
			order = append(order, b.key)
		}
	}
	var all []*sigBucket
	for _, k := range order {
		b := merged[k]
		b.score = jlh(b.subsetDf, subsetSize, b.bgDf, supersetSize)
		if b.score > 0 && b.subsetDf >= m.minDocCount {
			all = append(all, b)
		}
	}
	bySignificance(all)
	if len(all) > m.size {
		all = all[:m.size]
	}
	if err := r.addEach(len(all)); err != nil {
		return nil, err
	}
	res := &sigTermsResult{m: m, subsetSize: subsetSize, supersetSize: supersetSize}
	for _, sb := range all {
		subs, err := r.subResults(n.subs, sb.colls)
		if err != nil {
			return nil, err
		}
		b := &bucket{key: sb.key, keyNum: sb.keyNum, docCount: sb.subsetDf, subs: subs,
			post: []kvp{{"score", sb.score}, {"bg_count", sb.bgDf}}}
		m.src.decorateKey(b)
		res.buckets = append(res.buckets, b)
	}
	if err := r.parentPipelines(n, res); err != nil {
		return nil, err
	}
	return res, nil
}

type sigTermsResult struct {
	m                        *sigTermsImpl
	subsetSize, supersetSize int64
	buckets                  []*bucket
}

func (s *sigTermsResult) typedKey() string              { return s.m.typedKey() }
func (s *sigTermsResult) bucketList() []*bucket         { return s.buckets }
func (s *sigTermsResult) setBuckets(bs []*bucket)       { s.buckets = bs }
func (s *sigTermsResult) metric(string) (float64, bool) { return 0, false }

func (s *sigTermsResult) write(w *jw, n *node, r *reducer) {
	w.kv("doc_count", s.subsetSize)
	w.kv("bg_count", s.supersetSize)
	writeBuckets(w, n, r, s.buckets, false)
}
