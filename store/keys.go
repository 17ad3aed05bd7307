package store

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Key prefixes; see doc.go for the layout.
const (
	prefixMeta       = "m/"
	prefixDoc        = "d/"
	prefixSeq        = "s/"
	prefixCheckpoint = "c/"
)

// maxShard is the largest shard number the 2-byte key encoding holds.
const maxShard = math.MaxUint16

// maxKeySize is badger's key size limit.
const maxKeySize = 65000

// checkUUID rejects index uuids the key layout cannot represent.
func checkUUID(uuid string) error {
	if uuid == "" {
		return fmt.Errorf("store: empty index uuid")
	}
	if strings.IndexByte(uuid, '/') >= 0 {
		return fmt.Errorf("store: index uuid %q contains '/'", uuid)
	}
	return nil
}

// checkShard rejects shard numbers outside the 2-byte key encoding.
func checkShard(shard int) error {
	if shard < 0 || shard > maxShard {
		return fmt.Errorf("store: shard %d out of range [0, %d]", shard, maxShard)
	}
	return nil
}

// uuidPrefix appends "<p><uuid>/" to b.
func uuidPrefix(b []byte, p, uuid string) []byte {
	b = append(b, p...)
	b = append(b, uuid...)
	return append(b, '/')
}

// docKey appends d/<uuid>/<id> to b. The id is the whole remainder of the
// key, so it may contain any byte, '/' included.
func docKey(b []byte, uuid, id string) []byte {
	return append(uuidPrefix(b, prefixDoc, uuid), id...)
}

// docKeyLen is len(docKey(nil, uuid, id)).
func docKeyLen(uuid, id string) int { return len(prefixDoc) + len(uuid) + 1 + len(id) }

// shardSeqPrefix appends s/<uuid>/<shard:2 BE>/ to b.
func shardSeqPrefix(b []byte, uuid string, shard int) []byte {
	return append(binary.BigEndian.AppendUint16(uuidPrefix(b, prefixSeq, uuid), uint16(shard)), '/')
}

// seqKey appends s/<uuid>/<shard:2 BE>/<seq:8 BE> to b. Big-endian fixed-width
// numbers make badger's byte order the numeric order of (shard, seq).
func seqKey(b []byte, uuid string, shard int, seq int64) []byte {
	return binary.BigEndian.AppendUint64(shardSeqPrefix(b, uuid, shard), uint64(seq))
}

// seqKeyLen is len(seqKey(nil, uuid, shard, seq)).
func seqKeyLen(uuid string) int { return len(prefixSeq) + len(uuid) + 1 + 2 + 1 + 8 }

// seqFromKey decodes the sequence number at the end of a seq key.
func seqFromKey(k []byte) (int64, error) {
	if len(k) < 8 {
		return 0, fmt.Errorf("store: short sequence key %q", k)
	}
	return int64(binary.BigEndian.Uint64(k[len(k)-8:])), nil
}

// checkpointKey appends c/<uuid>/<shard:2 BE> to b.
func checkpointKey(b []byte, uuid string, shard int) []byte {
	return binary.BigEndian.AppendUint16(uuidPrefix(b, prefixCheckpoint, uuid), uint16(shard))
}

// metaKey appends m/<key> to b.
func metaKey(b []byte, key string) []byte {
	return append(append(b, prefixMeta...), key...)
}
