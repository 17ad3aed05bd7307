package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/dgraph-io/badger/v4"

	"github.com/quarry-search/quarry/searchcore"
)

// GetDoc returns the record of id, tombstones included, or
// searchcore.ErrNotFound.
func (db *DB) GetDoc(ctx context.Context, indexUUID, id string) (*searchcore.DocRecord, error) {
	if err := checkUUID(indexUUID); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := docKey(make([]byte, 0, docKeyLen(indexUUID, id)), indexUUID, id)
	var rec *searchcore.DocRecord
	err := db.view(func(txn *badger.Txn) error {
		var err error
		rec, err = getRecord(txn, key, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// getRecord reads and decodes the record under key.
func getRecord(txn *badger.Txn, key []byte, id string) (*searchcore.DocRecord, error) {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, searchcore.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: get document %q: %w", id, err)
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return nil, fmt.Errorf("store: read document %q: %w", id, err)
	}
	rec := &searchcore.DocRecord{ID: id}
	if err := decodeRecord(v, rec); err != nil {
		return nil, fmt.Errorf("store: document %q: %w", id, err)
	}
	return rec, nil
}

// ReplayDocs calls fn in ascending seq order for every current record
// (tombstones included) of the shard whose SeqNo is > afterSeq. It walks the
// shard's sequence log and skips entries whose document has since been
// rewritten with another seq (or shard).
//
// The log is read in chunks, each in its own snapshot, and fn runs between
// chunks outside any transaction, so fn may call the store (SetCheckpoint,
// for example). A write committed during the replay is seen if its seq
// sorts after the chunk being read.
func (db *DB) ReplayDocs(ctx context.Context, indexUUID string, shard int, afterSeq int64, fn func(*searchcore.DocRecord) error) error {
	if err := checkUUID(indexUUID); err != nil {
		return err
	}
	if err := checkShard(shard); err != nil {
		return err
	}
	if afterSeq == math.MaxInt64 {
		return nil
	}
	prefix := shardSeqPrefix(nil, indexUUID, shard)
	start := seqKey(nil, indexUUID, shard, max(afterSeq+1, 0))
	dkey := uuidPrefix(nil, prefixDoc, indexUUID)
	dlen := len(dkey)
	return scan(ctx, db, prefix, start, func(txn *badger.Txn, item *badger.Item) (*searchcore.DocRecord, int, bool, error) {
		seq, err := seqFromKey(item.Key())
		if err != nil {
			return nil, 0, false, err
		}
		var id string
		if err := item.Value(func(v []byte) error { id = string(v); return nil }); err != nil {
			return nil, 0, false, fmt.Errorf("store: read sequence entry %d: %w", seq, err)
		}
		dkey = append(dkey[:dlen], id...)
		rec, err := getRecord(txn, dkey, id)
		if errors.Is(err, searchcore.ErrNotFound) {
			return nil, 0, false, nil // stale entry of a dropped document
		}
		if err != nil {
			return nil, 0, false, err
		}
		if rec.SeqNo != seq || rec.Shard != shard {
			return nil, 0, false, nil // stale entry
		}
		return rec, len(rec.Source) + len(id), true, nil
	}, fn)
}

// MaxSeqNo returns the highest seq in the shard's sequence log, or -1.
func (db *DB) MaxSeqNo(ctx context.Context, indexUUID string, shard int) (int64, error) {
	if err := checkUUID(indexUUID); err != nil {
		return 0, err
	}
	if err := checkShard(shard); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	prefix := shardSeqPrefix(nil, indexUUID, shard)
	seek := binary.BigEndian.AppendUint64(prefix[:len(prefix):len(prefix)], math.MaxUint64)
	seq := int64(-1)
	err := db.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, Reverse: true})
		defer it.Close()
		it.Seek(seek)
		if !it.Valid() {
			return nil
		}
		var err error
		seq, err = seqFromKey(it.Item().Key())
		return err
	})
	if err != nil {
		return 0, err
	}
	return seq, nil
}

// SetCheckpoint records the shard's checkpoint. It is a plain badger write
// (not grouped with CommitDocs); it is synced like every badger write, which
// the contract does not require.
func (db *DB) SetCheckpoint(ctx context.Context, indexUUID string, shard int, seq int64) error {
	if err := checkUUID(indexUUID); err != nil {
		return err
	}
	if err := checkShard(shard); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	key := checkpointKey(nil, indexUUID, shard)
	val := binary.BigEndian.AppendUint64(nil, uint64(seq))
	if err := db.update(func(txn *badger.Txn) error { return txn.Set(key, val) }); err != nil {
		return fmt.Errorf("store: set checkpoint: %w", err)
	}
	return nil
}

// Checkpoint returns the shard's checkpoint, or -1 when none was set.
func (db *DB) Checkpoint(ctx context.Context, indexUUID string, shard int) (int64, error) {
	if err := checkUUID(indexUUID); err != nil {
		return 0, err
	}
	if err := checkShard(shard); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	key := checkpointKey(nil, indexUUID, shard)
	seq := int64(-1)
	err := db.view(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			if len(v) != 8 {
				return fmt.Errorf("store: corrupt checkpoint of %d bytes", len(v))
			}
			seq = int64(binary.BigEndian.Uint64(v))
			return nil
		})
	})
	if err != nil {
		return 0, err
	}
	return seq, nil
}

// DropIndex removes every document, sequence entry and checkpoint of the
// index with badger's DropPrefix, which flushes the memtables, so the drop
// is durable when it returns. Writes (all indices) wait while it runs.
func (db *DB) DropIndex(ctx context.Context, indexUUID string) error {
	if err := checkUUID(indexUUID); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := db.acquire(); err != nil {
		return err
	}
	defer db.life.RUnlock()
	db.writes.Lock()
	defer db.writes.Unlock()
	err := db.bdb.DropPrefix(
		uuidPrefix(nil, prefixDoc, indexUUID),
		uuidPrefix(nil, prefixSeq, indexUUID),
		uuidPrefix(nil, prefixCheckpoint, indexUUID),
	)
	if err != nil {
		return fmt.Errorf("store: drop index %s: %w", indexUUID, err)
	}
	return nil
}

// ScanDocs calls fn for every live document (tombstones skipped) of the
// index in id (byte) order. Like ReplayDocs it reads in chunks and calls fn
// outside badger transactions.
func (db *DB) ScanDocs(ctx context.Context, indexUUID string, fn func(*searchcore.DocRecord) error) error {
	if err := checkUUID(indexUUID); err != nil {
		return err
	}
	prefix := uuidPrefix(nil, prefixDoc, indexUUID)
	return scan(ctx, db, prefix, nil, func(_ *badger.Txn, item *badger.Item) (*searchcore.DocRecord, int, bool, error) {
		id := string(item.Key()[len(prefix):])
		v, err := item.ValueCopy(nil)
		if err != nil {
			return nil, 0, false, fmt.Errorf("store: read document %q: %w", id, err)
		}
		rec := &searchcore.DocRecord{ID: id}
		if err := decodeRecord(v, rec); err != nil {
			return nil, 0, false, fmt.Errorf("store: document %q: %w", id, err)
		}
		if rec.Deleted {
			return nil, 0, false, nil
		}
		return rec, len(v) + len(id), true, nil
	}, fn)
}
