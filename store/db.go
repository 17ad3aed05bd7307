package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/quarry-search/quarry/searchcore"
)

var _ searchcore.Storage = (*DB)(nil)

// ErrClosed is returned by every method called after Close.
var ErrClosed = errors.New("store: closed")

// DB is the badger-backed implementation of searchcore.Storage. All methods
// are safe for concurrent use.
type DB struct {
	bdb      *badger.DB
	path     string
	inMemory bool
	log      *slog.Logger

	// Transaction limits (badger's, with a safety margin) and the value
	// threshold, used to split commits before badger says ErrTxnTooBig.
	maxTxnSize, maxTxnCount int64
	valueThreshold          int64
	maxValueSize            int64

	// life guards closed. Every operation holds it (read) while it touches
	// badger; Close takes it (write) so nothing runs on a closed badger.
	life   sync.RWMutex
	closed bool

	// writes guards badger writes against DropIndex: badger rejects writes
	// with ErrBlockedWrites while DropPrefix runs, so writers hold it (read)
	// and DropIndex holds it (write).
	writes sync.RWMutex

	// The group-commit queue, drained by one committer goroutine.
	qmu        sync.Mutex
	qcond      *sync.Cond
	queue      []*commitReq
	qclosed    bool
	commitDone chan struct{}
	// Counters for tests and benchmarks: requests committed, and groups
	// (batches taken off the queue at once).
	statRequests, statGroups atomic.Int64

	gcInterval time.Duration
	gcStop     chan struct{}
	gcDone     chan struct{}
}

// Open opens (creating it if needed) the store in the directory path. With
// opts.InMemory the path is ignored and nothing is persisted.
//
// Open starts the group-commit goroutine and, on disk, the background
// value-log GC loop; Close stops both.
func Open(path string, opts Options) (*DB, error) {
	opts = opts.withDefaults()
	if !opts.InMemory && path == "" {
		return nil, errors.New("store: empty path")
	}
	bdb, err := badger.Open(opts.badgerOptions(path))
	if err != nil {
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	bo := bdb.Opts()
	db := &DB{
		bdb:      bdb,
		path:     path,
		inMemory: opts.InMemory,
		log:      opts.Logger,
		// 5% margin below badger's limits so our estimate (which mirrors
		// badger's Txn.checkSize) never trips ErrTxnTooBig.
		maxTxnSize:     bdb.MaxBatchSize() * 95 / 100,
		maxTxnCount:    bdb.MaxBatchCount() * 95 / 100,
		valueThreshold: bo.ValueThreshold,
		maxValueSize:   bo.ValueLogFileSize,
		commitDone:     make(chan struct{}),
		gcInterval:     opts.GCInterval,
		gcStop:         make(chan struct{}),
		gcDone:         make(chan struct{}),
	}
	if opts.InMemory {
		db.maxValueSize = bo.ValueThreshold
	}
	db.qcond = sync.NewCond(&db.qmu)
	go db.runCommitter()
	if !opts.InMemory && opts.GCInterval > 0 {
		go db.gcLoop()
	} else {
		close(db.gcDone)
	}
	return db, nil
}

// Close waits for queued commits, stops the background goroutines and closes
// badger, which flushes the memtables: a clean Close followed by Open loses
// nothing. Calling Close again returns nil.
func (db *DB) Close() error {
	db.life.Lock()
	if db.closed {
		db.life.Unlock()
		return nil
	}
	db.closed = true
	db.life.Unlock()

	// New calls now fail with ErrClosed; drain what is queued.
	db.qmu.Lock()
	db.qclosed = true
	db.qmu.Unlock()
	db.qcond.Broadcast()
	<-db.commitDone

	close(db.gcStop)
	<-db.gcDone
	if err := db.bdb.Close(); err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return nil
}

// acquire takes the life lock for an operation; release with db.life.RUnlock.
func (db *DB) acquire() error {
	db.life.RLock()
	if db.closed {
		db.life.RUnlock()
		return ErrClosed
	}
	return nil
}

// view runs fn in a read-only badger transaction.
func (db *DB) view(fn func(txn *badger.Txn) error) error {
	if err := db.acquire(); err != nil {
		return err
	}
	defer db.life.RUnlock()
	return db.bdb.View(fn)
}

// update runs fn in a read-write badger transaction (fsync'd on commit).
func (db *DB) update(fn func(txn *badger.Txn) error) error {
	if err := db.acquire(); err != nil {
		return err
	}
	defer db.life.RUnlock()
	db.writes.RLock()
	defer db.writes.RUnlock()
	return db.bdb.Update(fn)
}

// Size returns the on-disk bytes of the LSM tree (SST files and manifest)
// and of the value log, counted like badger's own Size (which needs metrics,
// turned off here): file sizes, so the value log file being written counts
// with its preallocation, and memtable WALs are not counted. For an
// in-memory store lsm is the size of the in-memory tables and vlog 0.
func (db *DB) Size() (lsm, vlog int64) {
	if db.acquire() != nil {
		return 0, 0
	}
	defer db.life.RUnlock()
	if db.inMemory {
		for _, t := range db.bdb.Tables() {
			lsm += int64(t.OnDiskSize)
		}
		return lsm, 0
	}
	entries, err := os.ReadDir(db.path)
	if err != nil {
		return 0, 0
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		switch filepath.Ext(e.Name()) {
		case ".sst":
			lsm += info.Size()
		case ".vlog":
			vlog += info.Size()
		default:
			if strings.HasPrefix(e.Name(), "MANIFEST") {
				lsm += info.Size()
			}
		}
	}
	return lsm, vlog
}

// RunGC runs badger's value-log garbage collection (discard ratio 0.5) until
// no file is worth rewriting. It returns nil when it ran to completion or
// the store is in memory. The background loop started by Open calls it every
// Options.GCInterval.
func (db *DB) RunGC() error {
	if db.inMemory {
		return nil
	}
	for {
		err := db.gcOnce()
		switch {
		case err == nil:
			continue
		case errors.Is(err, badger.ErrNoRewrite):
			return nil
		case errors.Is(err, ErrClosed):
			return err
		default:
			return fmt.Errorf("store: value log gc: %w", err)
		}
	}
}

// gcOnce rewrites at most one value-log file. The locks are taken per file
// so Close and DropIndex wait for one rewrite, not a whole GC run.
func (db *DB) gcOnce() error {
	if err := db.acquire(); err != nil {
		return err
	}
	defer db.life.RUnlock()
	db.writes.RLock() // GC rewrites entries: keep clear of DropIndex
	defer db.writes.RUnlock()
	return db.bdb.RunValueLogGC(0.5)
}

// gcLoop runs RunGC every gcInterval until Close.
func (db *DB) gcLoop() {
	defer close(db.gcDone)
	t := time.NewTicker(db.gcInterval)
	defer t.Stop()
	for {
		select {
		case <-db.gcStop:
			return
		case <-t.C:
			if err := db.RunGC(); err != nil && !errors.Is(err, ErrClosed) && !errors.Is(err, badger.ErrRejected) {
				if db.log != nil {
					db.log.Warn("store: value log gc failed", "err", err)
				}
			}
		}
	}
}
