package searchcore

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/aggs"
	"github.com/quarry-search/quarry/searchcore/query"
)

// topNCollector is a search.Collector keeping the best size+skip matches of
// a shard like bluge's collector.TopNCollector: the same hits in the same
// order (sort values, then HitNumber, the match's position in the
// searcher's output), the same search_after cut and the same aggregation
// bucket. It is cheaper per match:
//
//   - sorting by score alone (the default) compares a match's score with
//     the worst kept one before computing any sort value, so a match that
//     cannot enter the top goes straight back to the pool;
//   - sort values are copied into the buffers the pooled match already
//     owns instead of a fresh allocation per match and clause;
//   - field sorts read their doc values directly (useDirect): no doc-value
//     map per match, and the exact field alone for most documents;
//   - with nothing to keep (size 0), no sort value is computed;
//   - without aggregations nothing is consumed; the column-wise
//     aggregation root (aggs.Root.Fast) gets the matching document numbers
//     in batches; other aggregations are consumed through a slice, not the
//     bucket's map;
//   - it counts the matches and keeps the best score itself (count,
//     maxScore), so the query needs no counting wrapper.
//
// It does not support bluge's Before (reversed search_after).
type topNCollector struct {
	size, skip int
	order      search.SortOrder
	// after is the search_after sort key (nil: none).
	after *search.DocumentMatch
	// scoreOnly: order is exactly [_score desc] (query.CompileSort's
	// score clause), compared through scoreKey.
	scoreOnly bool
	// count and maxScore are the matches Collect pulled and their best
	// score (-Inf for none): the hit total and max_score of a search.
	count    int64
	maxScore float64
	// needed are the doc-value fields the sort and aggregations read.
	needed []string
	// direct, when set, computes every field clause's value from doc
	// values the collector reads itself (see useDirect); reader is the
	// shard reader the search runs on (set by shardSearch.Searcher).
	direct   []directClause
	reader   search.Reader
	directOn bool
	// prune lets a searcher that can (query.Pruner) skip the matches
	// that cannot enter the top, when the collector sorts by score alone
	// with nothing else reading every match.
	prune bool

	heap []heapEntry // max-heap on the order: heap[0] is the worst kept
}

// heapEntry is one kept match; key is its score key when scoreOnly.
type heapEntry struct {
	dm  *search.DocumentMatch
	key uint64
}

// newTopNCollector returns a collector of the best size matches after
// skipping skip of them, in order, starting after the search_after key
// after (nil: from the start). scoreOnly tells that order sorts by score
// alone, descending.
func newTopNCollector(size, skip int, order search.SortOrder, after [][]byte, scoreOnly bool) *topNCollector {
	c := &topNCollector{size: size, skip: skip, order: order, scoreOnly: scoreOnly, maxScore: math.Inf(-1)}
	if after != nil {
		c.after = &search.DocumentMatch{SortValue: after}
	}
	return c
}

// scoreKey is the unsigned integer whose order is the byte order of
// query's ordered float encoding of score (the 8 bytes after the tag).
func scoreKey(score float64) uint64 {
	if score == 0 {
		score = 0 // -0 sorts with +0
	}
	bits := math.Float64bits(score)
	if bits&(1<<63) != 0 {
		return ^bits
	}
	return bits | 1<<63
}

// Size implements search.Collector (bluge's memory estimate).
func (c *topNCollector) Size() int { return 128 }

// BackingSize implements search.Collector: as bluge's TopNCollector.
func (c *topNCollector) BackingSize() int {
	if c.size+c.skip > 1000 {
		return 1001
	}
	return c.size + c.skip + 1
}

// worse reports whether a sorts after b (bluge's SortOrder.Compare > 0,
// with the score key standing for the score clause when scoreOnly).
func (c *topNCollector) worse(a, b *heapEntry) bool {
	if c.scoreOnly {
		if a.key != b.key {
			return a.key < b.key
		}
		return a.dm.HitNumber > b.dm.HitNumber
	}
	return c.order.Compare(a.dm, b.dm) > 0
}

func (c *topNCollector) up(i int) {
	h := c.heap
	for i > 0 {
		p := (i - 1) / 2
		if !c.worse(&h[i], &h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (c *topNCollector) down(i int) {
	h := c.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		w := l
		if r := l + 1; r < n && c.worse(&h[r], &h[l]) {
			w = r
		}
		if !c.worse(&h[w], &h[i]) {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// computeSort sets d's sort values like SortOrder.Compute, copying each
// value into the buffer d's slot already holds from an earlier match when
// it is large enough (the pool resets matches keeping those buffers).
func (c *topNCollector) computeSort(d *search.DocumentMatch) {
	for _, s := range c.order {
		appendSortValue(d, s.Value(d))
	}
}

// appendSortValue appends a copy of v to d's sort values, reusing the
// buffer d's next slot already holds from an earlier match when it is
// large enough.
func appendSortValue(d *search.DocumentMatch, v []byte) {
	i := len(d.SortValue)
	var buf []byte
	if i < cap(d.SortValue) {
		if b := d.SortValue[:i+1][i]; cap(b) >= len(v) {
			buf = b[:len(v)]
		}
	}
	if buf == nil {
		buf = make([]byte, len(v))
	}
	copy(buf, v)
	d.SortValue = append(d.SortValue, buf)
}

// sortValues loads the doc values d's sort and aggregations read and
// computes its sort values (on the direct path, reading them itself).
func (c *topNCollector) sortValues(sctx *search.Context, d *search.DocumentMatch) error {
	if c.directOn {
		return c.computeDirect(sctx, d)
	}
	if len(c.needed) > 0 {
		if err := d.LoadDocumentValues(sctx, c.needed); err != nil {
			return err
		}
	}
	c.computeSort(d)
	return nil
}

// fastBatch is how many document numbers the column-wise aggregation root
// gets at once.
const fastBatch = 1024

// Collect implements search.Collector.
func (c *topNCollector) Collect(ctx context.Context, aggregations search.Aggregations, searcher search.Collectible) (search.DocumentMatchIterator, error) {
	defer func() { _ = searcher.Close() }()
	sctx := search.NewSearchContext(c.BackingSize()+searcher.DocumentMatchPoolSize(), len(c.order))
	pool := sctx.DocumentMatchPool
	c.needed = append(c.order.Fields(), aggregations.Fields()...)
	bucket := search.NewBucket("", aggregations)
	var calcs []search.Calculator
	var fast *aggs.Partial
	for _, calc := range bucket.Aggregations() {
		calcs = append(calcs, calc)
	}
	if len(calcs) == 1 {
		if p, ok := calcs[0].(*aggs.Partial); ok && p.IsFast() {
			fast, calcs = p, nil
		}
	}
	var fastDocs []uint32
	if fast != nil {
		fastDocs = make([]uint32, 0, fastBatch)
	}
	keep := c.size + c.skip
	if cap(c.heap) < min(keep, 1000) {
		c.heap = make([]heapEntry, 0, min(keep, 1000))
	}
	// The direct path reads the sort's doc values itself when nothing
	// else needs them loaded.
	c.directOn = false
	if c.direct != nil && c.reader != nil && len(calcs) == 0 && len(aggregations.Fields()) == 0 {
		if err := c.openDirect(c.reader); err != nil {
			return nil, err
		}
		c.directOn = true
	}
	// The score fast path needs only the score to reject a match: no
	// search_after key, no aggregation reading the match's values.
	scoreFast := c.scoreOnly && c.after == nil && len(calcs) == 0
	checked := false // the score encoding was checked against the order
	count, maxScore := c.count, c.maxScore
	// A pruning searcher returns only the matches that may enter the top;
	// it counts them all.
	var pruner query.Pruner
	var pruned uint64
	if p, ok := searcher.(query.Pruner); ok && c.prune && scoreFast && keep > 0 && fast == nil {
		total, on, err := p.Prune(keep)
		if err != nil {
			return nil, err
		}
		if on {
			pruner, pruned = p, total
		}
	}

	var d *search.DocumentMatch
	var err error
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
		d, err = searcher.Next(sctx)
	}
	hitNumber := 0
	for err == nil && d != nil {
		if hitNumber%1024 == 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			default:
			}
		}
		hitNumber++
		d.HitNumber = hitNumber
		count++
		if d.Score > maxScore {
			maxScore = d.Score
		}
		if fast != nil {
			if d.Number > math.MaxUint32 {
				fast.Consume(d) // records the overflow
			} else {
				if len(fastDocs) == fastBatch {
					fast.AddFast(fastDocs)
					fastDocs = fastDocs[:0]
				}
				fastDocs = append(fastDocs, uint32(d.Number))
			}
		}
		if scoreFast && checked {
			if keep == 0 {
				pool.Put(d)
			} else if key := scoreKey(d.Score); len(c.heap) == keep && key <= c.heap[0].key {
				// not better than the worst kept (a later match loses ties)
				pool.Put(d)
			} else {
				if err = c.sortValues(sctx, d); err != nil {
					return nil, err
				}
				c.push(pool, heapEntry{dm: d, key: key}, keep)
			}
		} else if err = c.collectSingle(sctx, d, calcs, keep); err != nil {
			return nil, err
		} else if scoreFast && !checked {
			checked = true
			if !c.scoreEncodingAgrees(d) {
				scoreFast, c.scoreOnly = false, false
			}
		}
		if pruner != nil && scoreFast && len(c.heap) == keep {
			pruner.SetMinScore(c.heap[0].dm.Score) // the worst kept, once the top is full
		}
		d, err = searcher.Next(sctx)
	}
	if err != nil {
		return nil, err
	}
	if len(fastDocs) > 0 {
		fast.AddFast(fastDocs)
	}
	if pruner != nil {
		count = c.count + int64(pruned)
	}
	c.count, c.maxScore = count, maxScore
	bucket.Finish()
	return &topNIterator{results: c.final(), bucket: bucket}, nil
}

// scoreEncodingAgrees checks on a match whose sort values are computed
// that the score order's value is the tagged big-endian score key (the
// encoding scoreKey stands for); the fast path is off otherwise.
func (c *topNCollector) scoreEncodingAgrees(d *search.DocumentMatch) bool {
	if len(d.SortValue) != 1 || len(d.SortValue[0]) != 9 {
		return false
	}
	return binary.BigEndian.Uint64(d.SortValue[0][1:]) == scoreKey(d.Score)
}

// collectSingle is bluge's TopNCollector.collectSingle: load the doc
// values, compute the sort values (unless nothing is kept), feed the
// aggregations, apply search_after, then keep the match if it sorts before
// the worst kept.
func (c *topNCollector) collectSingle(sctx *search.Context, d *search.DocumentMatch, calcs []search.Calculator, keep int) error {
	if keep > 0 {
		if err := c.sortValues(sctx, d); err != nil {
			return err
		}
	} else if len(calcs) > 0 && len(c.needed) > 0 {
		// nothing is kept: the aggregations only need the doc values
		// (they never read sort values)
		if err := d.LoadDocumentValues(sctx, c.needed); err != nil {
			return err
		}
	}
	for _, calc := range calcs {
		calc.Consume(d)
	}
	if c.after != nil {
		// a match equal to the key is skipped: ties are not broken by
		// HitNumber here
		c.after.HitNumber = d.HitNumber
		if c.order.Compare(d, c.after) <= 0 {
			sctx.DocumentMatchPool.Put(d)
			return nil
		}
	}
	if keep == 0 {
		sctx.DocumentMatchPool.Put(d)
		return nil
	}
	e := heapEntry{dm: d}
	if c.scoreOnly {
		e.key = scoreKey(d.Score)
	}
	if len(c.heap) == keep && !c.worse(&c.heap[0], &e) {
		sctx.DocumentMatchPool.Put(d)
		return nil
	}
	c.push(sctx.DocumentMatchPool, e, keep)
	return nil
}

// push keeps e: it is added while fewer than keep matches are kept, and
// otherwise replaces the worst kept one (which the caller checked e sorts
// before), whose match goes back to pool.
func (c *topNCollector) push(pool *search.DocumentMatchPool, e heapEntry, keep int) {
	if len(c.heap) < keep {
		c.heap = append(c.heap, e)
		c.up(len(c.heap) - 1)
		return
	}
	pool.Put(c.heap[0].dm)
	c.heap[0] = e
	c.down(0)
}

// final returns the kept matches best first, without the skipped ones,
// completed like bluge's (term locations gathered).
func (c *topNCollector) final() search.DocumentMatchCollection {
	n := len(c.heap)
	out := make(search.DocumentMatchCollection, n)
	for i := n - 1; i >= 0; i-- {
		out[i] = c.heap[0].dm
		last := len(c.heap) - 1
		c.heap[0] = c.heap[last]
		c.heap = c.heap[:last]
		c.down(0)
	}
	if c.skip >= n {
		return search.DocumentMatchCollection{}
	}
	out = out[c.skip:]
	for _, d := range out {
		d.Complete(nil)
	}
	return out
}

// topNIterator returns a topNCollector's matches.
type topNIterator struct {
	results search.DocumentMatchCollection
	bucket  *search.Bucket
	i       int
}

// Next implements search.DocumentMatchIterator.
func (it *topNIterator) Next() (*search.DocumentMatch, error) {
	if it.i < len(it.results) {
		it.i++
		return it.results[it.i-1], nil
	}
	return nil, nil
}

// Aggregations implements search.DocumentMatchIterator.
func (it *topNIterator) Aggregations() *search.Bucket { return it.bucket }

// directClause is one sort clause of the direct path: a field clause (ok)
// and its sorter, or a clause reading no doc values.
type directClause struct {
	ds     query.DocValueSort
	ok     bool
	sorter *query.DocValueSorter
}

// useDirect sets the direct path up when every clause of the order (with
// its decoders decs) is a plain field sort or reads no doc values: bluge
// would load the fields into each match's doc-value map (an allocation per
// match) and read the field as well as its exact field; the direct path
// reads the exact field, and the field only for documents without it.
func (c *topNCollector) useDirect(decs []query.SortDecoder) {
	if len(decs) != len(c.order) {
		return
	}
	direct := make([]directClause, len(decs))
	anyField := false
	for i, d := range decs {
		if ds, ok := d.DocValueSort(); ok {
			direct[i] = directClause{ds: ds, ok: true}
			anyField = true
		} else if !d.ReadsNoDocValues() {
			return
		}
	}
	if anyField {
		c.direct = direct
	}
}

// openDirect opens the sorters of the direct path on r.
func (c *topNCollector) openDirect(r search.Reader) error {
	for i := range c.direct {
		if dc := &c.direct[i]; dc.ok {
			var err error
			if dc.sorter, err = dc.ds.Sorter(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// computeDirect is computeSort on the direct path; a clause value of nil
// (bluge's missing replacement applies) falls back to loading d's doc
// values for the order.
func (c *topNCollector) computeDirect(sctx *search.Context, d *search.DocumentMatch) error {
	loaded := false
	for k, s := range c.order {
		var v []byte
		dc := &c.direct[k]
		if dc.ok {
			var err error
			if v, err = dc.sorter.Value(d.Number); err != nil {
				return err
			}
			if v == nil {
				if !loaded {
					if err := d.LoadDocumentValues(sctx, c.needed); err != nil {
						return err
					}
					loaded = true
				}
				v = s.Value(d)
			}
		} else {
			v = s.Value(d)
		}
		appendSortValue(d, v)
	}
	return nil
}
