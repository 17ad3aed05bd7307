package store

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/quarry-search/quarry/searchcore"
)

func TestRecordRoundTrip(t *testing.T) {
	recs := []searchcore.DocRecord{
		{Shard: 0, Source: []byte(`{"a":1}`), SeqNo: 0, PrimaryTerm: 1, Version: 1},
		{Shard: maxShard, Source: []byte{}, SeqNo: math.MaxInt64, PrimaryTerm: math.MaxInt64, Version: math.MinInt64, Routing: "r/ü"},
		{Shard: 7, SeqNo: 9, PrimaryTerm: 2, Version: -3, Deleted: true, Routing: "x"},
		{Shard: 1, Source: bytes.Repeat([]byte{0, 0xff}, 1000), SeqNo: 1 << 40, Version: 12},
	}
	for _, want := range recs {
		b := appendRecord(nil, &want)
		if len(b) > recordSize(&want) {
			t.Errorf("encoding of %d bytes exceeds recordSize %d", len(b), recordSize(&want))
		}
		var got searchcore.DocRecord
		if err := decodeRecord(b, &got); err != nil {
			t.Fatalf("decodeRecord(%+v) = %v", want, err)
		}
		if got.Shard != want.Shard || got.SeqNo != want.SeqNo || got.PrimaryTerm != want.PrimaryTerm ||
			got.Version != want.Version || got.Routing != want.Routing || got.Deleted != want.Deleted ||
			!bytes.Equal(got.Source, want.Source) || (got.Source == nil) != want.Deleted {
			t.Errorf("round trip = %+v, want %+v", got, want)
		}
	}
}

func TestRecordCorrupt(t *testing.T) {
	good := appendRecord(nil, &searchcore.DocRecord{Shard: 3, SeqNo: 300, Version: 1, Routing: "routing", Source: []byte("src")})
	for _, b := range [][]byte{nil, {1}, {2, 0}, {1, 0, 0x80}, good[:len(good)-len("routingsrc")+2]} {
		var r searchcore.DocRecord
		if err := decodeRecord(b, &r); err == nil {
			t.Errorf("decodeRecord(%x) succeeded", b)
		}
	}
}

func FuzzDecodeRecord(f *testing.F) {
	f.Add(appendRecord(nil, &searchcore.DocRecord{Shard: 3, SeqNo: 300, Version: 1, Routing: "r", Source: []byte("{}")}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r searchcore.DocRecord
		if decodeRecord(b, &r) != nil {
			return
		}
		// What decodes survives a round trip (the bytes may differ: varints
		// decode leniently).
		var again searchcore.DocRecord
		if err := decodeRecord(appendRecord(nil, &r), &again); err != nil {
			t.Fatalf("re-decoding %+v: %v", r, err)
		}
		if again.Shard != r.Shard || again.SeqNo != r.SeqNo || again.PrimaryTerm != r.PrimaryTerm || again.Version != r.Version ||
			again.Routing != r.Routing || again.Deleted != r.Deleted || !bytes.Equal(again.Source, r.Source) {
			t.Errorf("round trip of %+v gave %+v", r, again)
		}
	})
}

func TestKeyOrder(t *testing.T) {
	// Sequence keys sort by (shard, seq) numerically.
	var keys [][]byte
	for _, shard := range []int{0, 1, 255, 256, maxShard} {
		for _, seq := range []int64{0, 1, 255, 256, 1 << 32, math.MaxInt64} {
			keys = append(keys, seqKey(nil, "u", shard, seq))
		}
	}
	if !slices.IsSortedFunc(keys, bytes.Compare) {
		t.Errorf("sequence keys are not in (shard, seq) order")
	}
	for _, k := range keys {
		if !bytes.HasPrefix(k, shardSeqPrefix(nil, "u", int(k[len("s/u/")])<<8|int(k[len("s/u/")+1]))) {
			t.Errorf("key %x lacks its shard prefix", k)
		}
	}
	// A uuid's prefix never covers another uuid.
	if bytes.HasPrefix(docKey(nil, "abc", "x"), uuidPrefix(nil, prefixDoc, "ab")) {
		t.Errorf("d/ab/ prefixes d/abc/x")
	}
	if got := docKey(nil, "u", "a/b"); string(got) != "d/u/a/b" {
		t.Errorf("docKey = %q", got)
	}
	if got := seqKey(nil, "u", 1, 2); !bytes.Equal(got, []byte("s/u/\x00\x01/\x00\x00\x00\x00\x00\x00\x00\x02")) || len(got) != seqKeyLen("u") {
		t.Errorf("seqKey = %q", got)
	}
}
