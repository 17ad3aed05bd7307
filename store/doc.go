// Package store is Quarry's badger persistence: it implements
// searchcore.Storage (documents, the per-shard sequence log, checkpoints and
// metadata). Badger is the source of truth; the bluge shards are derived
// from it and replayed from the sequence log past their checkpoint.
//
// # Key layout
//
// Every key starts with a one-letter namespace and '/'. Index uuids never
// contain '/', so "<ns>/<uuid>/" is an unambiguous, prefix-iterable prefix of
// an index (uuid "ab" does not prefix "abc"); ids may contain any byte, '/'
// included, because a document id is always the whole remainder of its key.
// Numbers are fixed-width big-endian so byte order is numeric order.
//
//	m/<key>                                   metadata value (PutMeta)
//	d/<uuid>/<id>                             document record (see below)
//	s/<uuid>/<shard:2 BE>/<seq:8 BE>          sequence log entry → id
//	c/<uuid>/<shard:2 BE>                     checkpoint → seq (8 BE, two's complement)
//
// A shard's sequence log is the key range s/<uuid>/<shard>/: ReplayDocs is a
// forward scan from the seq after the checkpoint and MaxSeqNo a reverse seek.
// Replacing a document deletes the sequence entry of the record it replaces
// in the same transaction, so the log holds one entry per current record
// (plus none of the history); a stale entry, should one exist, is skipped
// because its seq differs from the record's.
//
// # Document records
//
// The hot path of _bulk writes one record per document, so records are a
// compact binary encoding rather than JSON:
//
//	byte     format version (1)
//	byte     flags (bit 0: deleted)
//	uvarint  shard
//	varint   seq_no, primary_term, version
//	uvarint  routing length, routing bytes
//	...      source bytes, the rest of the value (none for a tombstone)
//
// The version byte lets the format evolve: a reader switches on it.
//
// # Durability
//
// CommitDocs, PutMeta and DeleteMeta go through one committer goroutine
// (group commit): the calls queued while the previous group was being
// written become one badger transaction, committed with SyncWrites (the
// memtable WAL and value log are msync'd before the commit returns), and
// each caller is then woken with the result. An acknowledged write survives
// kill -9 and, as far as msync/fsync guarantee it, power loss. A call is
// atomic unless it is larger than one badger transaction (15% of a memtable,
// about 1.2 MB by default); such a call is split at document boundaries (see
// DB.CommitDocs). SetCheckpoint is a plain write, DropIndex uses badger's
// DropPrefix and blocks writes while it runs.
//
// # Example
//
//	db, err := store.Open(dir, store.Options{Logger: logger})
//	if err != nil {
//		return err
//	}
//	defer db.Close()
//	engine, err := searchcore.Open(ctx, searchcore.Config{Storage: db, ...})
//
// The contract every searchcore.Storage must meet is tested by
// store/storetest.Run, which db_test.go runs against badger on disk and in
// memory.
package store
