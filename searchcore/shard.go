package searchcore

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blugelabs/bluge"

	"github.com/blugelabs/bluge/index"
	"github.com/quarry-search/quarry/searchcore/aggs"
	"github.com/quarry-search/quarry/searchcore/query"
)

// shardOp is one change waiting to be applied to a shard's bluge index.
// A nil doc is a delete of id.
type shardOp struct {
	id  string
	seq int64
	doc *parsedDoc
	// dropNested deletes the nested documents the id had.
	dropNested bool
	// skip marks a sequence number whose store commit failed: it only
	// advances the applied sequence number.
	skip bool
}

// slot is an operation in the shard's sequencer: it gets its sequence number
// before the store commit and reaches bluge only once every lower sequence
// number has been committed (or has failed), so bluge sees operations in
// sequence order and never sees an operation the store does not hold.
type slot struct {
	op    shardOp
	state int // 0 pending, 1 committed, 2 failed
}

// readerRef is a ref-counted searchable snapshot.
type readerRef struct {
	r       *bluge.Reader
	refs    atomic.Int32
	visible int64
	// cols caches decoded numeric columns of r for aggregations.
	cols *aggs.Columns
	// points are the shard's numeric points (range queries); nil
	// disables them.
	points *query.PointsScope
}

func (rr *readerRef) release() {
	if rr.refs.Add(-1) == 0 {
		_ = rr.r.Close()
	}
}

// shard is one bluge index of an index. A single writer goroutine applies
// operations in batches; searches use the snapshot of the last refresh.
type shard struct {
	num       int
	indexUUID string
	store     DocStore
	log       *slog.Logger
	writer    *bluge.Writer
	points    *query.PointsScope

	ops    chan shardOp
	stopCh chan struct{}
	doneCh chan struct{}

	// writeMu serialises version resolution and sequence assignment.
	writeMu sync.Mutex
	nextSeq int64
	// pending holds the newest resolved record per id while its store commit
	// is in flight, so concurrent writers resolve versions against it.
	pending map[string]*DocRecord

	seqMu sync.Mutex
	queue []*slot

	mu      sync.Mutex
	cond    *sync.Cond
	applied int64 // highest seq applied to the writer
	current *readerRef
	failed  error

	refreshMu sync.Mutex
	// closed is set when the shard stops (index deleted or node closing).
	closed atomic.Bool

	stats shardStats
}

// shardStats are counters reported by stats APIs.
type shardStats struct {
	indexTotal  atomic.Int64
	deleteTotal atomic.Int64
	refreshes   atomic.Int64
	getTotal    atomic.Int64
}

// docBuilder rebuilds the bluge document of a stored record (replay).
type docBuilder func(rec *DocRecord) (*parsedDoc, error)

// openShard opens (or creates) the bluge index at dir, replays the store's
// sequence log past the checkpoint and starts the writer goroutine.
// hasNested tells whether the index maps nested fields (replayed operations
// then drop the nested documents of the ids they replace).
// points (nil disables them) caches the numeric points of its segments.
func openShard(ctx context.Context, num int, indexUUID, dir string, st DocStore, build docBuilder, hasNested func() bool, points *query.PointsScope, log *slog.Logger) (*shard, error) {
	w, err := bluge.OpenWriter(bluge.DefaultConfig(dir))
	if err != nil {
		return nil, fmt.Errorf("open shard %d writer: %w", num, err)
	}
	s := &shard{
		num:       num,
		indexUUID: indexUUID,
		store:     st,
		log:       log,
		writer:    w,
		ops:       make(chan shardOp, maxBatchOps),
		stopCh:    make(chan struct{}),
		doneCh:    make(chan struct{}),
		pending:   make(map[string]*DocRecord),
		points:    points,
	}
	s.cond = sync.NewCond(&s.mu)
	fail := func(err error) (*shard, error) {
		_ = w.Close()
		return nil, err
	}
	maxSeq, err := st.MaxSeqNo(ctx, indexUUID, num)
	if err != nil {
		return fail(err)
	}
	ckpt, err := st.Checkpoint(ctx, indexUUID, num)
	if err != nil {
		return fail(err)
	}
	if err := s.replay(ctx, ckpt, build, hasNested()); err != nil {
		return fail(err)
	}
	if ckpt > maxSeq {
		maxSeq = ckpt
	}
	s.nextSeq = maxSeq + 1
	s.applied = maxSeq
	r, err := w.Reader()
	if err != nil {
		return fail(fmt.Errorf("open shard %d reader: %w", num, err))
	}
	s.current = &readerRef{r: r, visible: maxSeq, cols: aggs.NewColumns(), points: points}
	s.current.refs.Store(1)
	go s.run()
	return s, nil
}

// replay re-applies every store operation past the checkpoint.
func (s *shard) replay(ctx context.Context, ckpt int64, build docBuilder, nested bool) error {
	batch := index.NewBatch()
	n := 0
	last := ckpt
	// ReplayDocs yields each id at most once (its current record), so a
	// replay batch never holds two operations on one id.
	flush := func() error {
		if n == 0 {
			return nil
		}
		if err := s.writer.Batch(batch); err != nil {
			return fmt.Errorf("replay shard %d: %w", s.num, err)
		}
		if err := s.store.SetCheckpoint(ctx, s.indexUUID, s.num, last); err != nil {
			return err
		}
		batch.Reset()
		n = 0
		return nil
	}
	err := s.store.ReplayDocs(ctx, s.indexUUID, s.num, ckpt, func(rec *DocRecord) error {
		if rec.Deleted {
			addToBatch(batch, rec.ID, nil, nested)
		} else if doc, err := build(rec); err != nil {
			// A stored document parsed when it was stored; if it no longer
			// does, it is left out of the index rather than blocking start-up.
			s.log.Warn("replay: skipping document", "shard", s.num, "id", rec.ID, "err", err)
			addToBatch(batch, rec.ID, nil, nested)
		} else {
			addToBatch(batch, rec.ID, doc, nested)
		}
		last = rec.SeqNo
		n++
		if n >= 1000 {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	if last > ckpt {
		s.log.Info("replayed shard operations", "index_uuid", s.indexUUID, "shard", s.num, "from", ckpt+1, "to", last)
	}
	return nil
}

// reserve appends a sequencer slot for op; call with writeMu held so
// sequence numbers enter the queue in order.
func (s *shard) reserve(op shardOp) *slot {
	sl := &slot{op: op}
	s.seqMu.Lock()
	s.queue = append(s.queue, sl)
	s.seqMu.Unlock()
	return sl
}

// settle marks slots committed or failed and hands every leading settled
// slot to the writer, in sequence order.
func (s *shard) settle(slots []*slot, ok bool) {
	s.seqMu.Lock()
	defer s.seqMu.Unlock()
	state := 2
	if ok {
		state = 1
	}
	for _, sl := range slots {
		sl.state = state
	}
	i := 0
	for ; i < len(s.queue) && s.queue[i].state != 0; i++ {
		op := s.queue[i].op
		op.skip = s.queue[i].state == 2
		if !s.closed.Load() {
			s.ops <- op
		}
		s.queue[i] = nil
	}
	s.queue = s.queue[i:]
}

// run is the writer goroutine: it drains queued operations into one bluge
// batch, applies it, records the checkpoint and wakes waiters.
func (s *shard) run() {
	defer close(s.doneCh)
	var pb pendingBatch
	for {
		var op shardOp
		select {
		case op = <-s.ops:
		case <-s.stopCh:
			for {
				select {
				case op = <-s.ops:
					pb.add(op)
					continue
				default:
				}
				break
			}
			s.apply(&pb)
			return
		}
		pb.add(op)
	drain:
		for n := 1; n < maxBatchOps; n++ {
			select {
			case op = <-s.ops:
				pb.add(op)
			default:
				break drain
			}
		}
		s.apply(&pb)
	}
}

// pendingBatch collects operations for one bluge batch. bluge applies a
// batch's deletes only to older segments, so two operations on one id in a
// batch would leave both documents: only the last operation per id is kept.
type pendingBatch struct {
	ops    []shardOp
	byID   map[string]int
	maxSeq int64
}

func (pb *pendingBatch) add(op shardOp) {
	if pb.byID == nil {
		pb.byID = make(map[string]int)
		pb.maxSeq = -1
	}
	pb.maxSeq = max(pb.maxSeq, op.seq)
	if op.skip {
		return
	}
	if i, ok := pb.byID[op.id]; ok {
		pb.ops[i] = op
	} else {
		pb.byID[op.id] = len(pb.ops)
		pb.ops = append(pb.ops, op)
	}
}

func (pb *pendingBatch) reset() {
	// Drop the references to the applied documents: the backing array
	// outlives the batch and would keep a whole batch of analysed
	// documents (their token frequencies) alive until overwritten.
	clear(pb.ops)
	pb.ops = pb.ops[:0]
	clear(pb.byID)
	pb.maxSeq = -1
}

// apply writes the batch to bluge and advances the applied sequence number.
func (s *shard) apply(pb *pendingBatch) {
	maxSeq := pb.maxSeq
	if len(pb.ops) == 0 {
		// Only skipped sequence numbers: advance without a bluge batch.
		if maxSeq >= 0 {
			s.mu.Lock()
			s.applied = max(s.applied, maxSeq)
			s.cond.Broadcast()
			s.mu.Unlock()
			pb.reset()
		}
		return
	}
	b := index.NewBatch()
	for _, op := range pb.ops {
		addToBatch(b, op.id, op.doc, op.dropNested)
	}
	pb.reset()
	err := s.writer.Batch(b)
	if err != nil {
		s.log.Error("shard batch failed", "index_uuid", s.indexUUID, "shard", s.num, "err", err)
	} else if err := s.store.SetCheckpoint(context.Background(), s.indexUUID, s.num, maxSeq); err != nil {
		s.log.Warn("checkpoint failed", "index_uuid", s.indexUUID, "shard", s.num, "err", err)
	}
	s.mu.Lock()
	if err != nil && s.failed == nil {
		s.failed = err
	}
	if maxSeq > s.applied {
		s.applied = maxSeq
	}
	s.cond.Broadcast()
	s.mu.Unlock()
}

// waitApplied blocks until every operation up to seq is in the writer.
func (s *shard) waitApplied(ctx context.Context, seq int64) error {
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.applied < seq && s.failed == nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.closed.Load() {
			return errShardClosed
		}
		s.cond.Wait()
	}
	return s.failed
}

// refresh publishes a new searchable snapshot if anything was applied
// since the last one. It reports whether a new snapshot was opened.
func (s *shard) refresh() (bool, error) {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	s.mu.Lock()
	applied, visible := s.applied, s.current.visible
	s.mu.Unlock()
	if applied <= visible {
		return false, nil
	}
	r, err := s.writer.Reader()
	if err != nil {
		return false, fmt.Errorf("refresh shard %d: %w", s.num, err)
	}
	next := &readerRef{r: r, visible: applied, cols: aggs.NewColumns(), points: s.points}
	next.refs.Store(1)
	s.mu.Lock()
	old := s.current
	s.current = next
	s.mu.Unlock()
	old.release()
	s.stats.refreshes.Add(1)
	return true, nil
}

// refreshTo makes every operation up to seq searchable.
func (s *shard) refreshTo(ctx context.Context, seq int64) error {
	if err := s.waitApplied(ctx, seq); err != nil {
		return err
	}
	_, err := s.refresh()
	return err
}

// acquire returns the current snapshot; the caller must release it.
func (s *shard) acquire() *readerRef {
	s.mu.Lock()
	rr := s.current
	rr.refs.Add(1)
	s.mu.Unlock()
	return rr
}

// close stops the writer after applying everything queued.
func (s *shard) close() error {
	s.seqMu.Lock()
	s.closed.Store(true)
	s.seqMu.Unlock()
	close(s.stopCh)
	<-s.doneCh
	s.mu.Lock()
	s.cond.Broadcast()
	s.mu.Unlock()
	s.mu.Lock()
	cur := s.current
	s.mu.Unlock()
	cur.release()
	if s.points != nil {
		s.points.Drop()
	}
	return s.writer.Close()
}

// waitTimeout is a helper to bound waits on refresh in request paths.
const waitTimeout = 5 * time.Minute

// maxBatchOps bounds one bluge batch and the queue of operations waiting
// for the writer (which applies backpressure to the writers once full).
// bluge analyses a whole batch before it builds the batch's segment, so
// every queued or batched document is live heap: with 2,000 (and a 2,048
// queue) a cities bulk load held ~4,000 parsed documents plus one
// batch's token frequencies, kept the heap at the soft memory limit and
// spent over half its CPU in the garbage collector. 1,000 halves the
// load's CPU time and lowers its peak RSS; smaller batches cost more in
// per-segment work and merges than they save (measured in issue 9).
const maxBatchOps = 1000

// errShardClosed fails waits on a shard that stopped (its index was deleted).
var errShardClosed = Errorf(Unavailable, "already_closed_exception", "shard is closed: its index was deleted or the node is stopping")
