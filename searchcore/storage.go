package searchcore

import "context"

// DocRecord is the durable state of one document of one index, the source of
// truth from which the bluge shards are derived. A deleted document is kept as
// a tombstone (Deleted true, Source nil) so versions keep increasing.
type DocRecord struct {
	ID          string
	Shard       int
	Source      []byte
	SeqNo       int64
	PrimaryTerm int64
	Version     int64
	Routing     string
	Deleted     bool
}

// DocWrite is one document change inside an atomic CommitDocs call.
// PrevSeqNo is the sequence number of the record being replaced (-1 when the
// document did not exist), so the store can drop its old sequence-log entry.
type DocWrite struct {
	Record    DocRecord
	PrevSeqNo int64
	PrevShard int
}

// DocStore is the persistence the search core needs for documents. All
// methods are safe for concurrent use.
type DocStore interface {
	// GetDoc returns the record of id in the index with the given uuid,
	// tombstones included. Returns ErrNotFound if there is no record.
	GetDoc(ctx context.Context, indexUUID, id string) (*DocRecord, error)
	// CommitDocs writes all records atomically and durably (fsync'd, grouped
	// with concurrent callers) and returns only once they survive a crash.
	CommitDocs(ctx context.Context, indexUUID string, writes []DocWrite) error
	// ReplayDocs calls fn, in ascending sequence order, for every current
	// record (tombstones included) of the shard whose SeqNo is > afterSeq.
	ReplayDocs(ctx context.Context, indexUUID string, shard int, afterSeq int64, fn func(*DocRecord) error) error
	// MaxSeqNo returns the highest sequence number recorded for the shard,
	// or -1 when the shard has none.
	MaxSeqNo(ctx context.Context, indexUUID string, shard int) (int64, error)
	// SetCheckpoint records that the shard's bluge index durably holds every
	// operation up to and including seq. Need not be fsync'd.
	SetCheckpoint(ctx context.Context, indexUUID string, shard int, seq int64) error
	// Checkpoint returns the last recorded checkpoint, or -1 when none.
	Checkpoint(ctx context.Context, indexUUID string, shard int) (int64, error)
	// DropIndex removes every document, sequence entry and checkpoint of the index.
	DropIndex(ctx context.Context, indexUUID string) error
}

// MetaStore is a small durable key/value store for metadata (index
// definitions, cluster settings, scripts, security objects, ...).
type MetaStore interface {
	// PutMeta durably stores value under key.
	PutMeta(ctx context.Context, key string, value []byte) error
	// GetMeta returns the value under key. Returns ErrNotFound if absent.
	GetMeta(ctx context.Context, key string) ([]byte, error)
	// DeleteMeta removes key; deleting a missing key is not an error.
	DeleteMeta(ctx context.Context, key string) error
	// ListMeta calls fn for every key with the prefix, in key order.
	ListMeta(ctx context.Context, prefix string, fn func(key string, value []byte) error) error
}

// Storage is everything the core persists.
type Storage interface {
	DocStore
	MetaStore
}
