package store

import (
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/quarry-search/quarry/searchcore"
)

// op is one badger write of a commit request.
type op struct {
	key, val []byte
	del      bool
}

// commitReq is one atomic, durable write: one CommitDocs, PutMeta or
// DeleteMeta call.
type commitReq struct {
	ops []op
	// units[i] is the end (exclusive) in ops of the i-th unit that must stay
	// in one transaction (one document's record and sequence entries). Only
	// used to split a request too large for one transaction.
	units []int
	// size and count are badger's estimate of the whole request (see
	// Txn.checkSize).
	size, count int64
	done        chan error
}

// add appends an op and accounts for its size the way badger does.
func (r *commitReq) add(db *DB, o op) {
	r.ops = append(r.ops, o)
	r.size += db.entrySize(o)
	r.count++
}

// endUnit closes the current unit.
func (r *commitReq) endUnit() { r.units = append(r.units, len(r.ops)) }

// entrySize mirrors badger's Entry.estimateSizeAndSetThreshold plus the 10
// bytes Txn.checkSize adds per entry.
func (db *DB) entrySize(o op) int64 {
	v := int64(len(o.val))
	if v >= db.valueThreshold {
		v = 12 // a value pointer
	}
	return int64(len(o.key)) + v + 2 + 10
}

// fits reports whether size bytes in count entries fit one transaction.
func (db *DB) fits(size, count int64) bool {
	return size < db.maxTxnSize && count < db.maxTxnCount
}

// CommitDocs writes every record, its new sequence entry and the deletion of
// the sequence entry it replaces (PrevSeqNo/PrevShard, when PrevSeqNo >= 0),
// and returns once they are fsync'd.
//
// Group commit: the call is queued for the single committer goroutine, which
// takes every call queued while it was committing the previous group and
// writes them in one badger transaction with one fsync (SyncWrites), then
// wakes each caller with the result. There are no timers; groups form
// naturally under load.
//
// Atomicity: a call is written in one badger transaction whenever it fits
// one (15% of a memtable, about 1.2 MB with the default 8 MiB memtable,
// roughly 1 800 documents of 500 bytes). A larger call is split into several
// transactions at document boundaries: each document's record and sequence
// entries stay atomic, but a crash in the middle can persist a prefix of the
// call. The call had not been acknowledged, like a half-applied _bulk in
// Elasticsearch, and the sequence log stays consistent with the records.
// The same holds when badger fails part-way through such a call.
//
// If ctx is done before the call is queued nothing is written; if it is done
// while waiting, CommitDocs returns an error wrapping ctx.Err() but the write
// may still land.
func (db *DB) CommitDocs(ctx context.Context, indexUUID string, writes []searchcore.DocWrite) error {
	if err := checkUUID(indexUUID); err != nil {
		return err
	}
	if len(writes) == 0 {
		return nil
	}
	// Encode everything into one buffer on the caller's goroutine, so the
	// committer only hands slices to badger. The buffer is never reused:
	// badger may still read it after a cancelled caller has returned.
	n := 0
	for i := range writes {
		w := &writes[i]
		if err := db.checkWrite(indexUUID, w); err != nil {
			return err
		}
		n += docKeyLen(indexUUID, w.Record.ID) + recordSize(&w.Record) + seqKeyLen(indexUUID) + len(w.Record.ID)
		if w.PrevSeqNo >= 0 {
			n += seqKeyLen(indexUUID)
		}
	}
	buf := make([]byte, 0, n)
	req := &commitReq{
		ops:   make([]op, 0, 3*len(writes)),
		units: make([]int, 0, len(writes)),
	}
	for i := range writes {
		w := &writes[i]
		r := &w.Record
		start := len(buf)
		buf = docKey(buf, indexUUID, r.ID)
		k := tail(buf, start)
		start = len(buf)
		buf = appendRecord(buf, r)
		req.add(db, op{key: k, val: tail(buf, start)})
		if w.PrevSeqNo >= 0 && (w.PrevSeqNo != r.SeqNo || w.PrevShard != r.Shard) {
			start = len(buf)
			buf = seqKey(buf, indexUUID, w.PrevShard, w.PrevSeqNo)
			req.add(db, op{key: tail(buf, start), del: true})
		}
		start = len(buf)
		buf = seqKey(buf, indexUUID, r.Shard, r.SeqNo)
		sk := tail(buf, start)
		start = len(buf)
		buf = append(buf, r.ID...)
		req.add(db, op{key: sk, val: tail(buf, start)})
		req.endUnit()
	}
	return db.submit(ctx, req)
}

// tail returns b[start:], capped so later appends to b cannot write into it.
// (b is sized up front, so appends normally do not reallocate; if they did,
// earlier tails would keep the old array alive and stay valid.)
func tail(b []byte, start int) []byte { return b[start:len(b):len(b)] }

// checkWrite validates one write against the key layout and badger's limits,
// so that the committer never fails a whole group because of one bad call.
func (db *DB) checkWrite(uuid string, w *searchcore.DocWrite) error {
	r := &w.Record
	if r.ID == "" {
		return fmt.Errorf("store: empty document id")
	}
	if docKeyLen(uuid, r.ID)+8 > maxKeySize {
		return fmt.Errorf("store: document id of %d bytes is too long", len(r.ID))
	}
	if err := checkShard(r.Shard); err != nil {
		return err
	}
	if r.SeqNo < 0 {
		return fmt.Errorf("store: document %q: negative seq_no %d", r.ID, r.SeqNo)
	}
	if w.PrevSeqNo >= 0 {
		if err := checkShard(w.PrevShard); err != nil {
			return err
		}
	}
	if int64(recordSize(r)) > db.maxValueSize {
		return fmt.Errorf("store: document %q: source of %d bytes exceeds the %d byte limit", r.ID, len(r.Source), db.maxValueSize)
	}
	return nil
}

// submit queues req for the committer and waits for its result.
func (db *DB) submit(ctx context.Context, req *commitReq) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	req.done = make(chan error, 1)
	if err := db.acquire(); err != nil {
		return err
	}
	db.qmu.Lock()
	db.queue = append(db.queue, req)
	db.qmu.Unlock()
	db.qcond.Signal()
	db.life.RUnlock()

	select {
	case err := <-req.done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("store: commit not confirmed (it may still be applied): %w", ctx.Err())
	}
}

// runCommitter is the single committer goroutine. It takes every request
// queued since its last commit, writes them and wakes their callers. It
// returns once Close has been called and the queue is empty.
func (db *DB) runCommitter() {
	defer close(db.commitDone)
	var batch []*commitReq
	for {
		db.qmu.Lock()
		for len(db.queue) == 0 && !db.qclosed {
			db.qcond.Wait()
		}
		if len(db.queue) == 0 {
			db.qmu.Unlock()
			return
		}
		// Swap the queue with the (emptied) previous batch to reuse it.
		batch, db.queue = db.queue, batch[:0]
		db.qmu.Unlock()

		db.commitBatch(batch)
		db.statGroups.Add(1)
		db.statRequests.Add(int64(len(batch)))
		clear(batch)
	}
}

// commitBatch writes the requests in as few transactions as fit, each
// request whole in one transaction unless it is larger than a transaction.
func (db *DB) commitBatch(batch []*commitReq) {
	db.writes.RLock()
	defer db.writes.RUnlock()

	var group []*commitReq
	var size, count int64
	flush := func() {
		if len(group) == 0 {
			return
		}
		err := db.commitTxn(func(txn *badger.Txn) error {
			for _, r := range group {
				if err := setOps(txn, r.ops); err != nil {
					return err
				}
			}
			return nil
		})
		for _, r := range group {
			r.done <- err
		}
		group, size, count = group[:0], 0, 0
	}
	for _, r := range batch {
		if !db.fits(r.size, r.count) {
			flush()
			r.done <- db.commitLarge(r)
			continue
		}
		if !db.fits(size+r.size, count+r.count) {
			flush()
		}
		group = append(group, r)
		size += r.size
		count += r.count
	}
	flush()
}

// commitLarge writes a request too large for one transaction in several,
// split at unit boundaries. It stops at the first error.
func (db *DB) commitLarge(r *commitReq) error {
	start, ui := 0, 0 // first op and unit not yet committed
	for ui < len(r.units) {
		end := start
		var size, count int64
		for ui < len(r.units) {
			u := r.units[ui]
			var us, uc int64
			for _, o := range r.ops[end:u] {
				us += db.entrySize(o)
				uc++
			}
			if end > start && !db.fits(size+us, count+uc) {
				break
			}
			size, count, end = size+us, count+uc, u
			ui++
		}
		ops := r.ops[start:end]
		if err := db.commitTxn(func(txn *badger.Txn) error { return setOps(txn, ops) }); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// commitTxn runs fill in a new write transaction and commits it; with
// SyncWrites the commit returns after the fsync.
func (db *DB) commitTxn(fill func(txn *badger.Txn) error) error {
	txn := db.bdb.NewTransaction(true)
	defer txn.Discard()
	if err := fill(txn); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	if err := txn.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// setOps adds ops to txn.
func setOps(txn *badger.Txn, ops []op) error {
	for _, o := range ops {
		var err error
		if o.del {
			err = txn.Delete(o.key)
		} else {
			err = txn.Set(o.key, o.val)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
