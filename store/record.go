package store

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/quarry-search/quarry/searchcore"
)

// recordV1 is the first (and current) document record format:
//
//	byte    format version (1)
//	byte    flags (bit 0: deleted)
//	uvarint shard
//	varint  seq_no
//	varint  primary_term
//	varint  version
//	uvarint len(routing), routing bytes
//	...     source bytes (the rest of the value; absent for a tombstone)
//
// The id is not stored: it is the remainder of the d/ key.
const recordV1 = 1

const flagDeleted = 1 << 0

var errCorruptRecord = errors.New("store: corrupt document record")

// recordSize is an upper bound of len(appendRecord(nil, r)).
func recordSize(r *searchcore.DocRecord) int {
	n := 2 + 3*binary.MaxVarintLen64 + binary.MaxVarintLen16 + binary.MaxVarintLen64 + len(r.Routing)
	if !r.Deleted {
		n += len(r.Source)
	}
	return n
}

// appendRecord appends the encoding of r to b.
func appendRecord(b []byte, r *searchcore.DocRecord) []byte {
	var flags byte
	if r.Deleted {
		flags |= flagDeleted
	}
	b = append(b, recordV1, flags)
	b = binary.AppendUvarint(b, uint64(r.Shard))
	b = binary.AppendVarint(b, r.SeqNo)
	b = binary.AppendVarint(b, r.PrimaryTerm)
	b = binary.AppendVarint(b, r.Version)
	b = binary.AppendUvarint(b, uint64(len(r.Routing)))
	b = append(b, r.Routing...)
	if !r.Deleted {
		b = append(b, r.Source...)
	}
	return b
}

// decodeRecord decodes v into r, leaving r.ID alone. r.Source aliases v, so v
// must be owned by the caller (not a badger buffer). A live document always
// gets a non-nil Source, a tombstone a nil one.
func decodeRecord(v []byte, r *searchcore.DocRecord) error {
	if len(v) < 2 {
		return errCorruptRecord
	}
	if v[0] != recordV1 {
		return fmt.Errorf("store: unknown document record format %d", v[0])
	}
	flags := v[1]
	v = v[2:]
	bad := false
	uv := func() uint64 {
		x, n := binary.Uvarint(v)
		if n <= 0 {
			bad = true
			return 0
		}
		v = v[n:]
		return x
	}
	sv := func() int64 {
		x, n := binary.Varint(v)
		if n <= 0 {
			bad = true
			return 0
		}
		v = v[n:]
		return x
	}
	shard := uv()
	r.SeqNo = sv()
	r.PrimaryTerm = sv()
	r.Version = sv()
	rlen := uv()
	if bad || shard > maxShard || rlen > uint64(len(v)) {
		return errCorruptRecord
	}
	r.Shard = int(shard)
	r.Routing = string(v[:rlen])
	v = v[rlen:]
	r.Deleted = flags&flagDeleted != 0
	r.Source = nil
	if !r.Deleted {
		r.Source = v[:len(v):len(v)]
	}
	return nil
}
