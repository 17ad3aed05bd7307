package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/quarry-search/quarry/searchcore"
)

// PutMeta durably stores value under key. It goes through the group
// committer, so it is fsync'd before returning.
func (db *DB) PutMeta(ctx context.Context, key string, value []byte) error {
	if len(prefixMeta)+len(key)+8 > maxKeySize {
		return fmt.Errorf("store: meta key of %d bytes is too long", len(key))
	}
	if int64(len(value)) > db.maxValueSize {
		return fmt.Errorf("store: meta value of %d bytes exceeds the %d byte limit", len(value), db.maxValueSize)
	}
	// Copy: badger may read the buffer after a cancelled caller has returned.
	buf := make([]byte, 0, len(prefixMeta)+len(key)+len(value))
	buf = metaKey(buf, key)
	k := tail(buf, 0)
	buf = append(buf, value...)
	req := &commitReq{}
	req.add(db, op{key: k, val: tail(buf, len(k))})
	req.endUnit()
	if err := db.submit(ctx, req); err != nil {
		return fmt.Errorf("store: put meta %q: %w", key, err)
	}
	return nil
}

// GetMeta returns the value under key, or searchcore.ErrNotFound.
func (db *DB) GetMeta(ctx context.Context, key string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k := metaKey(nil, key)
	var v []byte
	err := db.view(func(txn *badger.Txn) error {
		item, err := txn.Get(k)
		if err != nil {
			return err
		}
		v, err = item.ValueCopy(nil)
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, searchcore.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: get meta %q: %w", key, err)
	}
	return v, nil
}

// DeleteMeta durably removes key (through the group committer); deleting a
// missing key is not an error.
func (db *DB) DeleteMeta(ctx context.Context, key string) error {
	if len(prefixMeta)+len(key)+8 > maxKeySize {
		return nil // such a key cannot have been stored
	}
	req := &commitReq{}
	req.add(db, op{key: metaKey(nil, key), del: true})
	req.endUnit()
	if err := db.submit(ctx, req); err != nil {
		return fmt.Errorf("store: delete meta %q: %w", key, err)
	}
	return nil
}

// ListMeta calls fn for every key with the prefix, in (byte) key order,
// with its value. fn runs outside badger transactions and may call the
// store; the listing is read in chunks, each a consistent snapshot.
func (db *DB) ListMeta(ctx context.Context, prefix string, fn func(key string, value []byte) error) error {
	p := metaKey(nil, prefix)
	type kv struct {
		k string
		v []byte
	}
	return scan(ctx, db, p, nil, func(_ *badger.Txn, item *badger.Item) (kv, int, bool, error) {
		k := string(item.Key()[len(prefixMeta):])
		v, err := item.ValueCopy(nil)
		if err != nil {
			return kv{}, 0, false, fmt.Errorf("store: read meta %q: %w", k, err)
		}
		return kv{k, v}, len(k) + len(v), true, nil
	}, func(e kv) error { return fn(e.k, e.v) })
}
