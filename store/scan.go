package store

import (
	"context"

	"github.com/dgraph-io/badger/v4"
)

// Chunk limits of scan: fn is called outside badger transactions, after each
// chunk has been read, so a slow fn holds no snapshot and may call the store.
const (
	scanChunkItems = 256
	scanChunkBytes = 4 << 20
)

// scan iterates the keys with prefix from start (or the prefix) in key order.
// decode turns an item into a value and its approximate size, or reports it
// skipped; fn is called for every decoded value. Each chunk is read in its own
// read transaction, so the iteration sees a consistent snapshot per chunk;
// keys written after a chunk was read are seen only if they sort later.
func scan[T any](ctx context.Context, db *DB, prefix, start []byte,
	decode func(txn *badger.Txn, item *badger.Item) (v T, size int, ok bool, err error),
	fn func(T) error,
) error {
	seek := start
	if seek == nil {
		seek = prefix
	}
	var batch []T
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		clear(batch)
		batch = batch[:0]
		var next []byte
		err := db.view(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
			defer it.Close()
			bytes := 0
			for it.Seek(seek); it.Valid(); it.Next() {
				item := it.Item()
				if len(batch) >= scanChunkItems || bytes >= scanChunkBytes {
					next = item.KeyCopy(nil)
					return nil
				}
				v, n, ok, err := decode(txn, item)
				if err != nil {
					return err
				}
				if ok {
					batch = append(batch, v)
					bytes += n
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, v := range batch {
			if err := fn(v); err != nil {
				return err
			}
		}
		if next == nil {
			return nil
		}
		seek = next
	}
}
