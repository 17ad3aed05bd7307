package store

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// Default values of the Options memory knobs. They are the low-memory badger
// settings measured in STACK.md §5 (about 260 MB RSS for 1M small documents
// instead of about 590 MB with badger's defaults, for 30–50% less write
// throughput).
const (
	DefaultMemTableSize     = 8 << 20
	DefaultNumMemtables     = 2
	DefaultBlockCacheSize   = 8 << 20
	DefaultIndexCacheSize   = 4 << 20
	DefaultValueLogFileSize = 64 << 20
	DefaultGCInterval       = 5 * time.Minute
)

// Options configures Open. The zero value is a usable on-disk configuration
// with the low-memory defaults.
//
// Durability is not configurable: CommitDocs, PutMeta, DeleteMeta and
// DropIndex return only once their changes are fsync'd.
type Options struct {
	// InMemory keeps everything in memory (badger WithInMemory) and
	// nothing survives Close. For tests; the path given to Open is ignored.
	InMemory bool

	// Logger receives badger's messages: errors at Error, warnings at Warn,
	// informational and debug messages at Debug. Nil discards them.
	Logger *slog.Logger

	// MemTableSize is the size of one memtable (default 8 MiB). It also
	// bounds one badger transaction to 15% of it, which is why large
	// CommitDocs calls are split (see CommitDocs). In memory, where every
	// value lives in the LSM, a document's source is limited to 1 MiB
	// (badger's maximum value threshold) or 13% of it, whichever is less.
	MemTableSize int64
	// NumMemtables is the number of memtables kept in memory (default 2).
	NumMemtables int
	// BlockCacheSize is the size of the table block cache (default 8 MiB).
	BlockCacheSize int64
	// IndexCacheSize is the size of the table index/bloom cache (default 4 MiB).
	IndexCacheSize int64
	// ValueLogFileSize is the size of one value log file (default 64 MiB).
	// It is also the largest document source the store accepts.
	ValueLogFileSize int64

	// GCInterval is how often the background value-log GC runs (default 5
	// minutes); a negative value disables the background loop (RunGC can
	// still be called). Ignored when InMemory.
	GCInterval time.Duration
}

// withDefaults returns o with every zero knob set to its default.
func (o Options) withDefaults() Options {
	if o.MemTableSize <= 0 {
		o.MemTableSize = DefaultMemTableSize
	}
	if o.NumMemtables <= 0 {
		o.NumMemtables = DefaultNumMemtables
	}
	if o.BlockCacheSize <= 0 {
		o.BlockCacheSize = DefaultBlockCacheSize
	}
	if o.IndexCacheSize <= 0 {
		o.IndexCacheSize = DefaultIndexCacheSize
	}
	if o.ValueLogFileSize <= 0 {
		o.ValueLogFileSize = DefaultValueLogFileSize
	}
	if o.GCInterval == 0 {
		o.GCInterval = DefaultGCInterval
	}
	return o
}

// badgerOptions translates o (with defaults applied) into badger options.
func (o Options) badgerOptions(path string) badger.Options {
	bo := badger.DefaultOptions(path)
	if o.InMemory {
		bo = badger.DefaultOptions("").WithInMemory(true)
	}
	bo = bo.
		// Every write fsyncs the memtable WAL (and the value log) before the
		// commit returns. The committer groups concurrent CommitDocs calls into
		// one transaction, so this costs one sync per group. Unlike
		// SyncWrites(false)+DB.Sync(), it also covers a memtable that is
		// rotated between the write and the sync (DB.Sync only syncs the
		// current memtable's WAL).
		WithSyncWrites(true).
		// The store never reads and writes the same keys in one
		// transaction; ordering comes from the committer.
		WithDetectConflicts(false).
		WithMemTableSize(o.MemTableSize).
		WithNumMemtables(o.NumMemtables).
		WithNumLevelZeroTables(2).
		WithNumLevelZeroTablesStall(4).
		WithBlockCacheSize(o.BlockCacheSize).
		WithIndexCacheSize(o.IndexCacheSize).
		WithValueLogFileSize(o.ValueLogFileSize).
		WithBaseTableSize(1 << 20).
		WithNumCompactors(2).
		WithNumGoroutines(2).
		WithMetricsEnabled(false).
		// Records are mostly JSON sources: zstd over 16 KiB blocks keeps
		// them in about half the space snappy over 4 KiB blocks does
		// (cities: 17 → 11 MB), at no measurable cost to a load. Reads
		// decompress a block at most once while it stays in the block
		// cache.
		WithCompression(options.ZSTD).
		WithBlockSize(16 << 10).
		WithLogger(nil)
	// Badger refuses a value threshold above the transaction limit (15% of
	// a memtable); keep values up to half of it in the LSM so one document's
	// entries always fit a transaction.
	maxBatch := o.MemTableSize * 15 / 100
	if bo.ValueThreshold > maxBatch/2 {
		bo = bo.WithValueThreshold(maxBatch / 2)
	}
	if o.InMemory {
		// No value log: the threshold is the largest value badger accepts.
		bo = bo.WithValueThreshold(min(1<<20, maxBatch*9/10))
	}
	if o.Logger != nil {
		bo = bo.WithLogger(slogAdapter{o.Logger})
	}
	return bo
}

// slogAdapter routes badger's logger to slog.
type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) log(level slog.Level, format string, args []any) {
	ctx := context.Background()
	if !a.l.Enabled(ctx, level) {
		return
	}
	a.l.Log(ctx, level, strings.TrimSpace(fmt.Sprintf(format, args...)), "component", "badger")
}

func (a slogAdapter) Errorf(f string, args ...any)   { a.log(slog.LevelError, f, args) }
func (a slogAdapter) Warningf(f string, args ...any) { a.log(slog.LevelWarn, f, args) }
func (a slogAdapter) Infof(f string, args ...any)    { a.log(slog.LevelDebug, f, args) }
func (a slogAdapter) Debugf(f string, args ...any)   { a.log(slog.LevelDebug, f, args) }
