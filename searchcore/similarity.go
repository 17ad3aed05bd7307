package searchcore

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/index"
	"github.com/blugelabs/bluge/search"
	segment "github.com/blugelabs/bluge_segment_api"

	"github.com/quarry-search/quarry/searchcore/query"
)

// Scoring the way Elasticsearch 7 does: Lucene 8's BM25 under ES's
// LegacyBM25Similarity (the query boost carries the (k1 + 1) factor), the
// document length read back through Lucene's one-byte norm encoding, and
// float32 arithmetic. bluge's own BM25 differs (its idf misplaces a
// parenthesis and it drops the (k1 + 1) factor), so every search runs with
// this similarity, through a reader wrapper that also names the term being
// scored (for explanations) and can substitute statistics gathered over all
// shards (dfs_query_then_fetch).

const (
	bm25K1 = float32(1.2)
	bm25B  = float32(0.75)
)

// explainDocMarker stands for the document number in a term weight
// description until the hit's number is known.
const explainDocMarker = "\x00doc\x00"

// numFreeNorms is Lucene SmallFloat's NUM_FREE_VALUES.
const numFreeNorms = 24

// longToInt4 is Lucene's SmallFloat.longToInt4.
func longToInt4(i uint64) int {
	numBits := 64 - bits.LeadingZeros64(i)
	if numBits < 4 {
		return int(i)
	}
	shift := numBits - 4
	encoded := int(i>>uint(shift)) & 0x07
	return encoded | (shift+1)<<3
}

// int4ToLong is Lucene's SmallFloat.int4ToLong.
func int4ToLong(i int) uint64 {
	b := uint64(i & 0x07)
	shift := (i >> 3) - 1
	if shift == -1 {
		return b
	}
	return (b | 0x08) << uint(shift)
}

// normLength is the field length Lucene scores with: the length encoded in
// one byte (SmallFloat.intToByte4) and decoded again (byte4ToInt).
func normLength(n uint32) (float32, bool) {
	if n < numFreeNorms {
		return float32(n), false
	}
	enc := numFreeNorms + longToInt4(uint64(n-numFreeNorms))
	dec := numFreeNorms + int4ToLong(enc-numFreeNorms)
	if dec > math.MaxInt32 {
		dec = math.MaxInt32
	}
	// Lucene marks lengths decoded from norm bytes above 39 as approximate.
	return float32(dec), enc > 39
}

// bm25 is the per-search similarity; rd names the term being scored.
type bm25 struct {
	rd *statsReader
}

func (s *bm25) ComputeNorm(numTerms int) float32 {
	return math.Float32frombits(uint32(numTerms))
}

func (s *bm25) Scorer(boost float64, cs segment.CollectionStats, ts segment.TermStats) search.Scorer {
	var docCount, sumTTF uint64
	if cs != nil {
		docCount, sumTTF = cs.DocumentCount(), cs.SumTotalTermFrequency()
	}
	df := ts.DocumentFrequency()
	idf := float32(math.Log(1 + (float64(docCount)-float64(df)+0.5)/(float64(df)+0.5)))
	avgdl := float32(1)
	if docCount > 0 {
		avgdl = float32(float64(sumTTF) / float64(docCount))
	}
	// LegacyBM25Similarity scores with boost * (1 + k1).
	b := float32(boost) * (1 + bm25K1)
	sc := &bm25Scorer{boost: b, idf: idf, weight: b * idf, avgdl: avgdl, df: df, docCount: docCount}
	if s.rd != nil {
		sc.field, sc.term = s.rd.lastField, s.rd.lastTerm
	}
	return sc
}

type bm25Scorer struct {
	boost, idf, weight, avgdl float32
	df, docCount              uint64
	field, term               string
	// inverses holds normInverse by encoded norm byte, as Lucene's
	// BM25Scorer caches it; filled on the first Score (a scorer serves
	// one searcher, on one goroutine).
	inverses *[256]float32
}

// normByte is the one-byte encoding of a field length
// (SmallFloat.intToByte4), beyond 255 for lengths a byte cannot hold.
func normByte(n uint32) int {
	if n < numFreeNorms {
		return int(n)
	}
	return numFreeNorms + longToInt4(uint64(n-numFreeNorms))
}

// fillInverses computes normInverse for every norm byte.
func (s *bm25Scorer) fillInverses() {
	s.inverses = new([256]float32)
	for b := range s.inverses {
		dec := uint64(b)
		if b >= numFreeNorms {
			dec = numFreeNorms + int4ToLong(b-numFreeNorms)
		}
		dl := float32(min(dec, math.MaxInt32))
		s.inverses[b] = 1 / (bm25K1 * ((1 - bm25B) + bm25B*dl/s.avgdl))
	}
}

func (s *bm25Scorer) normInverse(norm float64) (float32, float32, bool) {
	dl, approx := normLength(math.Float32bits(float32(norm)))
	return 1 / (bm25K1 * ((1 - bm25B) + bm25B*dl/s.avgdl)), dl, approx
}

// MaxScore implements query.MaxScorer: Score is weight - weight/(1 +
// freq*normInverse), at most weight for any frequency and length when
// weight is not negative (a negative weight, from a negative boost, is
// returned as it is; query.Pruner then does not prune).
func (s *bm25Scorer) MaxScore() float64 { return float64(s.weight) }

func (s *bm25Scorer) Score(freq int, norm float64) float64 {
	var ni float32
	if b := normByte(math.Float32bits(float32(norm))); b < len(s.inverses) {
		if s.inverses == nil {
			s.fillInverses()
		}
		ni = s.inverses[b]
	} else {
		ni, _, _ = s.normInverse(norm)
	}
	return float64(s.weight - s.weight/(1+float32(freq)*ni))
}

func (s *bm25Scorer) Explain(freq int, norm float64) *search.Explanation {
	_, dl, approx := s.normInverse(norm)
	f := float32(freq)
	dlDesc := "dl, length of field"
	if approx {
		dlDesc += " (approximate)"
	}
	normValue := bm25K1 * ((1 - bm25B) + bm25B*dl/s.avgdl)
	tf := float32(float64(f) / (float64(f) + float64(normValue)))
	tfExp := search.NewExplanation(float64(tf), "tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:",
		search.NewExplanation(float64(f), "freq, occurrences of term within document"),
		search.NewExplanation(float64(bm25K1), "k1, term saturation parameter"),
		search.NewExplanation(float64(bm25B), "b, length normalization parameter"),
		search.NewExplanation(float64(dl), dlDesc),
		search.NewExplanation(float64(s.avgdl), "avgdl, average length of field"))
	idfExp := search.NewExplanation(float64(s.idf), "idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:",
		search.NewExplanation(float64(s.df), "n, number of documents containing term"),
		search.NewExplanation(float64(s.docCount), "N, total number of documents with field"))
	score := s.Score(freq, norm)
	inner := search.NewExplanation(score, "score(freq="+javaFloat(f)+"), computed as boost * idf * tf from:",
		search.NewExplanation(float64(s.boost), "boost"), idfExp, tfExp)
	return search.NewExplanation(score,
		fmt.Sprintf("weight(%s:%s in %s) [PerFieldSimilarity], result of:", s.field, s.term, explainDocMarker), inner)
}

// javaFloat renders f as Java's Float.toString does for ordinary values.
func javaFloat(f float32) string {
	s := strconv.FormatFloat(float64(f), 'f', -1, 32)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// globalStats holds term statistics summed over every shard of a search
// (dfs_query_then_fetch). It is filled lazily and is safe for concurrent use.
type globalStats struct {
	readers []search.Reader
	mu      sync.Mutex
	coll    map[string]segment.CollectionStats
	df      map[string]uint64
}

// collection returns the merged collection statistics of field.
func (g *globalStats) collection(field string) (segment.CollectionStats, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if cs, ok := g.coll[field]; ok {
		return cs, nil
	}
	sum := &mergedCollStats{}
	for _, r := range g.readers {
		cs, err := r.CollectionStats(field)
		if err != nil {
			return nil, err
		}
		if cs != nil {
			sum.total += cs.TotalDocumentCount()
			sum.docs += cs.DocumentCount()
			sum.sumTTF += cs.SumTotalTermFrequency()
		}
	}
	g.coll[field] = sum
	return sum, nil
}

// docFreq returns the number of documents of all shards holding term.
func (g *globalStats) docFreq(field string, term []byte) (uint64, error) {
	key := field + "\x00" + string(term)
	g.mu.Lock()
	defer g.mu.Unlock()
	if n, ok := g.df[key]; ok {
		return n, nil
	}
	var n uint64
	for _, r := range g.readers {
		pi, err := r.PostingsIterator(term, field, false, false, false)
		if err != nil {
			return 0, err
		}
		n += pi.Count()
		_ = pi.Close()
	}
	g.df[key] = n
	return n, nil
}

type mergedCollStats struct{ total, docs, sumTTF uint64 }

func (m *mergedCollStats) TotalDocumentCount() uint64    { return m.total }
func (m *mergedCollStats) DocumentCount() uint64         { return m.docs }
func (m *mergedCollStats) SumTotalTermFrequency() uint64 { return m.sumTTF }
func (m *mergedCollStats) Merge(o segment.CollectionStats) {
	m.total += o.TotalDocumentCount()
	m.docs += o.DocumentCount()
	m.sumTTF += o.SumTotalTermFrequency()
}

// statsReader is the shard reader a search runs on: it remembers the last
// term whose postings were opened (the similarity names it in
// explanations), substitutes global statistics when dfs is set, and
// carries the shard's profiler.
type statsReader struct {
	search.Reader
	dfs                 *globalStats
	prof                *shardProfile
	points              *query.PointsScope
	lastField, lastTerm string
}

// direct tells whether searches may read the snapshot's segments
// directly: not when every postings read must go through
// PostingsIterator (global statistics, profiling).
func (r *statsReader) direct() bool { return r.dfs == nil && r.prof == nil }

// PointsScope gives range queries the shard's numeric points
// (query.PointsReader) when they may read segments directly.
func (r *statsReader) PointsScope() *query.PointsScope {
	if !r.direct() {
		return nil
	}
	return r.points
}

// Segments exposes the snapshot's segments (query.SegmentedReader) when
// searches may read them directly.
func (r *statsReader) Segments() []index.SegmentSnapshot {
	if !r.direct() {
		return nil
	}
	if sr, ok := r.Reader.(query.SegmentedReader); ok {
		return sr.Segments()
	}
	return nil
}

func (r *statsReader) CollectionStats(field string) (segment.CollectionStats, error) {
	if r.dfs != nil {
		return r.dfs.collection(field)
	}
	return r.Reader.CollectionStats(field)
}

func (r *statsReader) PostingsIterator(term []byte, field string, freq, norm, vectors bool) (segment.PostingsIterator, error) {
	r.lastField, r.lastTerm = field, string(term)
	pi, err := query.GuardPostings(r.Reader, term, field, freq, norm, vectors)
	if err != nil || r.dfs == nil {
		return pi, err
	}
	n, err := r.dfs.docFreq(field, term)
	if err != nil {
		return nil, err
	}
	return &globalCountPostings{PostingsIterator: pi, count: n}, nil
}

// globalCountPostings reports the all-shard document frequency as Count
// (which bluge's term searcher reads as the term's statistics).
type globalCountPostings struct {
	segment.PostingsIterator
	count uint64
}

func (p *globalCountPostings) Count() uint64 { return p.count }

// shardSearch runs a bluge top-N search on one shard with the ES similarity
// and the shard's statsReader.
type shardSearch struct {
	*bluge.TopNSearch
	dfs  *globalStats
	prof *shardProfile
	// points are the shard's numeric points (nil: none).
	points *query.PointsScope
	// got is the shard's reader once the search started.
	got search.Reader
	// coll, when set, collects instead of bluge's TopNCollector.
	coll *topNCollector
}

// Collector implements bluge.SearchRequest.
func (s *shardSearch) Collector() search.Collector {
	if s.coll != nil {
		return s.coll
	}
	return s.TopNSearch.Collector()
}

func (s *shardSearch) Searcher(i search.Reader, config bluge.Config) (search.Searcher, error) {
	s.got = i
	if s.coll != nil {
		s.coll.reader = i
	}
	r := &statsReader{Reader: i, dfs: s.dfs, prof: s.prof, points: s.points}
	config.DefaultSimilarity = &bm25{rd: r}
	config.PerFieldSimilarity = nil
	return s.TopNSearch.Searcher(r, config)
}

// readerCapture is a search that only captures the shard's search.Reader;
// with coll set, coll collects (instead of bluge's TopNCollector).
type readerCapture struct {
	*bluge.TopNSearch
	got  search.Reader
	coll *topNCollector
	// points are the shard's numeric points (nil: none).
	points *query.PointsScope
}

// Collector implements bluge.SearchRequest.
func (c *readerCapture) Collector() search.Collector {
	if c.coll != nil {
		return c.coll
	}
	return c.TopNSearch.Collector()
}

func (c *readerCapture) Searcher(i search.Reader, config bluge.Config) (search.Searcher, error) {
	c.got = i
	return c.TopNSearch.Searcher(query.GuardReaderWithPoints(i, c.points), config)
}

// newGlobalStats prepares dfs statistics over the given shards.
func newGlobalStats(ctx context.Context, shards []ctxShard) (*globalStats, error) {
	g := &globalStats{coll: map[string]segment.CollectionStats{}, df: map[string]uint64{}}
	for _, sh := range shards {
		r, err := shardReader(ctx, sh)
		if err != nil {
			return nil, err
		}
		if r != nil {
			g.readers = append(g.readers, r)
		}
	}
	return g, nil
}

// shardReader returns the search.Reader of a shard's held snapshot (for
// term statistics, dictionaries and doc values); it stays valid while the
// shard is acquired.
func shardReader(ctx context.Context, sh ctxShard) (search.Reader, error) {
	c := &readerCapture{TopNSearch: bluge.NewTopNSearch(0, bluge.NewMatchNoneQuery())}
	if _, _, err := runShard(ctx, sh.rr.r, c); err != nil {
		return nil, err
	}
	return c.got, nil
}

// runShard runs req on one shard's reader and returns all its matches and
// the drained iterator (for its aggregations).
func runShard(ctx context.Context, r *bluge.Reader, req bluge.SearchRequest) ([]*search.DocumentMatch, search.DocumentMatchIterator, error) {
	it, err := r.Search(ctx, req)
	if err != nil {
		return nil, nil, searchError(ctx, err)
	}
	var out []*search.DocumentMatch
	for {
		dm, err := it.Next()
		if err != nil {
			return nil, nil, searchError(ctx, err)
		}
		if dm == nil {
			return out, it, nil
		}
		out = append(out, dm)
	}
}

// segmentLocal turns a shard document number into its number within its
// segment (what Lucene's explanations print), when r exposes segments.
func segmentLocal(r search.Reader, n uint64) uint64 {
	sr, ok := r.(interface {
		Segments() []index.SegmentSnapshot
	})
	if !ok {
		return n
	}
	var base uint64
	for _, seg := range sr.Segments() {
		ws, ok := seg.(interface{ Segment() segment.Segment })
		if !ok {
			return n
		}
		c := ws.Segment().Count()
		if n < base+c {
			return n - base
		}
		base += c
	}
	return n
}
