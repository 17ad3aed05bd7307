// Package storetest is the contract test suite of searchcore.Storage. Every
// implementation (badger on disk, badger in memory, fakes) runs it so they
// cannot drift apart:
//
//	func TestStorage(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) searchcore.Storage { return MustOpenDB(t) })
//	}
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/quarry-search/quarry/searchcore"
)

// Run runs the contract tests. open returns a new, empty store for each
// subtest and registers its Close with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) searchcore.Storage) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s searchcore.Storage)
	}{
		{"GetMissing", testGetMissing},
		{"CommitThenGet", testCommitThenGet},
		{"Replace", testReplace},
		{"Tombstone", testTombstone},
		{"ReplayOrderAndFilter", testReplayOrder},
		{"ReplayStaleEntries", testReplayStale},
		{"ReplayCallsBack", testReplayCallsBack},
		{"ShardMove", testShardMove},
		{"SameDocTwiceInOneCall", testSameDocTwice},
		{"Defaults", testDefaults},
		{"Checkpoint", testCheckpoint},
		{"DropIndex", testDropIndex},
		{"OddIDs", testOddIDs},
		{"OddUUIDs", testOddUUIDs},
		{"LargeCommit", testLargeCommit},
		{"CancelledContext", testCancelled},
		{"Meta", testMeta},
		{"MetaListOrder", testMetaListOrder},
		{"ConcurrentCommits", testConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, open(t))
		})
	}
}

// Doc builds a live record.
func Doc(id string, shard int, seq int64, source string) searchcore.DocRecord {
	return searchcore.DocRecord{ID: id, Shard: shard, Source: []byte(source), SeqNo: seq, PrimaryTerm: 1, Version: seq + 1}
}

// New wraps records as writes of new documents (PrevSeqNo -1).
func New(recs ...searchcore.DocRecord) []searchcore.DocWrite {
	ws := make([]searchcore.DocWrite, len(recs))
	for i, r := range recs {
		ws[i] = searchcore.DocWrite{Record: r, PrevSeqNo: -1}
	}
	return ws
}

func commit(t *testing.T, s searchcore.Storage, uuid string, ws []searchcore.DocWrite) {
	t.Helper()
	if err := s.CommitDocs(context.Background(), uuid, ws); err != nil {
		t.Fatalf("CommitDocs(%s, %d writes) = %v", uuid, len(ws), err)
	}
}

func get(t *testing.T, s searchcore.Storage, uuid, id string) *searchcore.DocRecord {
	t.Helper()
	r, err := s.GetDoc(context.Background(), uuid, id)
	if err != nil {
		t.Fatalf("GetDoc(%s, %q) = %v", uuid, id, err)
	}
	return r
}

func wantMissing(t *testing.T, s searchcore.Storage, uuid, id string) {
	t.Helper()
	r, err := s.GetDoc(context.Background(), uuid, id)
	if !errors.Is(err, searchcore.ErrNotFound) {
		t.Errorf("GetDoc(%s, %q) = %+v, %v; want ErrNotFound", uuid, id, r, err)
	}
}

func wantRecord(t *testing.T, got *searchcore.DocRecord, want searchcore.DocRecord) {
	t.Helper()
	if got.ID != want.ID || got.Shard != want.Shard || got.SeqNo != want.SeqNo || got.PrimaryTerm != want.PrimaryTerm ||
		got.Version != want.Version || got.Routing != want.Routing || got.Deleted != want.Deleted ||
		!bytes.Equal(got.Source, want.Source) {
		t.Errorf("record = %+v (source %q), want %+v (source %q)", *got, got.Source, want, want.Source)
	}
	if want.Deleted && got.Source != nil {
		t.Errorf("tombstone %q source = %q, want nil", got.ID, got.Source)
	}
	if !want.Deleted && got.Source == nil {
		t.Errorf("live record %q source = nil, want non-nil", got.ID)
	}
}

// Replay returns the records ReplayDocs yields.
func Replay(t *testing.T, s searchcore.Storage, uuid string, shard int, after int64) []*searchcore.DocRecord {
	t.Helper()
	var out []*searchcore.DocRecord
	err := s.ReplayDocs(context.Background(), uuid, shard, after, func(r *searchcore.DocRecord) error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatalf("ReplayDocs(%s, %d, %d) = %v", uuid, shard, after, err)
	}
	return out
}

func replaySeqs(t *testing.T, s searchcore.Storage, uuid string, shard int, after int64) []string {
	t.Helper()
	var out []string
	for _, r := range Replay(t, s, uuid, shard, after) {
		out = append(out, fmt.Sprintf("%s@%d", r.ID, r.SeqNo))
	}
	return out
}

func maxSeq(t *testing.T, s searchcore.Storage, uuid string, shard int) int64 {
	t.Helper()
	n, err := s.MaxSeqNo(context.Background(), uuid, shard)
	if err != nil {
		t.Fatalf("MaxSeqNo(%s, %d) = %v", uuid, shard, err)
	}
	return n
}

func testGetMissing(t *testing.T, s searchcore.Storage) {
	wantMissing(t, s, "idx1", "nope")
	commit(t, s, "idx1", New(Doc("a", 0, 0, `{}`)))
	wantMissing(t, s, "idx1", "b")
	wantMissing(t, s, "idx2", "a")
	wantMissing(t, s, "idx1", "a/")
	wantMissing(t, s, "idx1", "")
	if _, err := s.GetMeta(context.Background(), "nope"); !errors.Is(err, searchcore.ErrNotFound) {
		t.Errorf("GetMeta(missing) = %v, want ErrNotFound", err)
	}
}

func testCommitThenGet(t *testing.T, s searchcore.Storage) {
	a := searchcore.DocRecord{ID: "a", Shard: 3, Source: []byte(`{"x":1}`), SeqNo: 7, PrimaryTerm: 2, Version: 5, Routing: "r1"}
	b := Doc("b", 0, 0, `{"y":"z"}`)
	b.Version = 1 << 40
	b.PrimaryTerm = 1 << 33
	commit(t, s, "idx", New(a, b))
	wantRecord(t, get(t, s, "idx", "a"), a)
	wantRecord(t, get(t, s, "idx", "b"), b)
	if n := maxSeq(t, s, "idx", 3); n != 7 {
		t.Errorf("MaxSeqNo(shard 3) = %d, want 7", n)
	}
	if n := maxSeq(t, s, "idx", 0); n != 0 {
		t.Errorf("MaxSeqNo(shard 0) = %d, want 0", n)
	}
	// The store must not alias the caller's source.
	src := []byte(`{"v":1}`)
	c := Doc("c", 0, 1, "")
	c.Source = src
	commit(t, s, "idx", New(c))
	src[2] = 'X'
	if got := get(t, s, "idx", "c"); string(got.Source) != `{"v":1}` {
		t.Errorf("source after caller mutation = %q", got.Source)
	}
	// Nor may the caller's changes to a returned record reach the store.
	got := get(t, s, "idx", "c")
	got.Source[2] = 'Y'
	if again := get(t, s, "idx", "c"); string(again.Source) != `{"v":1}` {
		t.Errorf("source after mutating a returned record = %q", again.Source)
	}
	// Empty commits are fine.
	commit(t, s, "idx", nil)
}

func testReplace(t *testing.T, s searchcore.Storage) {
	commit(t, s, "idx", New(Doc("a", 0, 0, `{"v":0}`), Doc("b", 0, 1, `{}`)))
	a2 := Doc("a", 0, 2, `{"v":2}`)
	commit(t, s, "idx", []searchcore.DocWrite{{Record: a2, PrevSeqNo: 0, PrevShard: 0}})
	wantRecord(t, get(t, s, "idx", "a"), a2)
	if got, want := replaySeqs(t, s, "idx", 0, -1), []string{"b@1", "a@2"}; !slices.Equal(got, want) {
		t.Errorf("replay = %v, want %v", got, want)
	}
	a3 := Doc("a", 0, 3, `{"v":3}`)
	commit(t, s, "idx", []searchcore.DocWrite{{Record: a3, PrevSeqNo: 2, PrevShard: 0}})
	if got, want := replaySeqs(t, s, "idx", 0, -1), []string{"b@1", "a@3"}; !slices.Equal(got, want) {
		t.Errorf("replay = %v, want %v", got, want)
	}
	if n := maxSeq(t, s, "idx", 0); n != 3 {
		t.Errorf("MaxSeqNo = %d, want 3", n)
	}
}

func testTombstone(t *testing.T, s searchcore.Storage) {
	commit(t, s, "idx", New(Doc("a", 0, 0, `{}`), Doc("b", 0, 1, `{}`)))
	del := searchcore.DocRecord{ID: "a", Shard: 0, SeqNo: 2, PrimaryTerm: 1, Version: 2, Deleted: true, Source: []byte("ignored")}
	commit(t, s, "idx", []searchcore.DocWrite{{Record: del, PrevSeqNo: 0}})
	want := del
	want.Source = nil
	wantRecord(t, get(t, s, "idx", "a"), want)
	recs := Replay(t, s, "idx", 0, -1)
	if len(recs) != 2 || recs[1].ID != "a" || !recs[1].Deleted || recs[1].SeqNo != 2 {
		t.Fatalf("replay = %v, want b@1 and tombstone a@2", replaySeqs(t, s, "idx", 0, -1))
	}
	// Re-creating a deleted document replaces the tombstone.
	a := Doc("a", 0, 3, `{"back":true}`)
	commit(t, s, "idx", []searchcore.DocWrite{{Record: a, PrevSeqNo: 2}})
	wantRecord(t, get(t, s, "idx", "a"), a)
	if got, want := replaySeqs(t, s, "idx", 0, -1), []string{"b@1", "a@3"}; !slices.Equal(got, want) {
		t.Errorf("replay = %v, want %v", got, want)
	}
}

func testReplayOrder(t *testing.T, s searchcore.Storage) {
	// Seqs committed out of order across calls and shards.
	commit(t, s, "idx", New(Doc("s0-5", 0, 5, `{}`), Doc("s1-1", 1, 1, `{}`), Doc("s0-0", 0, 0, `{}`)))
	commit(t, s, "idx", New(Doc("s0-256", 0, 256, `{}`), Doc("s0-2", 0, 2, `{}`), Doc("s1-0", 1, 0, `{}`)))
	commit(t, s, "idx", New(Doc("s0-1<<40", 0, 1<<40, `{}`), Doc("s300-3", 300, 3, `{}`)))
	commit(t, s, "other", New(Doc("o", 0, 4, `{}`)))

	tests := []struct {
		shard int
		after int64
		want  []string
	}{
		{0, -1, []string{"s0-0@0", "s0-2@2", "s0-5@5", "s0-256@256", "s0-1<<40@1099511627776"}},
		{0, -5, []string{"s0-0@0", "s0-2@2", "s0-5@5", "s0-256@256", "s0-1<<40@1099511627776"}},
		{0, 0, []string{"s0-2@2", "s0-5@5", "s0-256@256", "s0-1<<40@1099511627776"}},
		{0, 2, []string{"s0-5@5", "s0-256@256", "s0-1<<40@1099511627776"}},
		{0, 3, []string{"s0-5@5", "s0-256@256", "s0-1<<40@1099511627776"}},
		{0, 255, []string{"s0-256@256", "s0-1<<40@1099511627776"}},
		{0, 1 << 40, nil},
		{0, 1<<63 - 1, nil},
		{1, -1, []string{"s1-0@0", "s1-1@1"}},
		{1, 0, []string{"s1-1@1"}},
		{2, -1, nil},
		{300, -1, []string{"s300-3@3"}},
	}
	for _, tt := range tests {
		if got := replaySeqs(t, s, "idx", tt.shard, tt.after); !slices.Equal(got, tt.want) {
			t.Errorf("ReplayDocs(shard %d, after %d) = %v, want %v", tt.shard, tt.after, got, tt.want)
		}
	}
	for shard, want := range map[int]int64{0: 1 << 40, 1: 1, 2: -1, 300: 3} {
		if n := maxSeq(t, s, "idx", shard); n != want {
			t.Errorf("MaxSeqNo(shard %d) = %d, want %d", shard, n, want)
		}
	}
	// More records than one internal chunk, interleaved with replacements.
	var ws []searchcore.DocWrite
	for i := range 1000 {
		ws = append(ws, New(Doc(fmt.Sprintf("many-%04d", i), 5, int64(i), `{}`))...)
	}
	commit(t, s, "idx", ws)
	for i := 0; i < 1000; i += 3 {
		commit(t, s, "idx", []searchcore.DocWrite{{Record: Doc(fmt.Sprintf("many-%04d", i), 5, int64(1000+i), `{"r":1}`), PrevSeqNo: int64(i), PrevShard: 5}})
	}
	recs := Replay(t, s, "idx", 5, -1)
	if len(recs) != 1000 {
		t.Fatalf("replay of shard 5 yielded %d records, want 1000", len(recs))
	}
	for i := 1; i < len(recs); i++ {
		if recs[i].SeqNo <= recs[i-1].SeqNo {
			t.Fatalf("replay out of order: %d after %d", recs[i].SeqNo, recs[i-1].SeqNo)
		}
	}
	if n := maxSeq(t, s, "idx", 5); n != 1999 {
		t.Errorf("MaxSeqNo(shard 5) = %d, want 1999", n)
	}
	// fn errors stop the replay and are returned.
	stop := errors.New("stop")
	calls := 0
	err := s.ReplayDocs(context.Background(), "idx", 5, -1, func(*searchcore.DocRecord) error {
		calls++
		if calls == 300 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 300 {
		t.Errorf("ReplayDocs with failing fn = %v after %d calls, want stop after 300", err, calls)
	}
}

func testReplayStale(t *testing.T, s searchcore.Storage) {
	// A write whose PrevSeqNo is wrong (-1) leaves the old sequence entry
	// behind; replay must still yield only the current record.
	commit(t, s, "idx", New(Doc("a", 0, 0, `{"v":0}`)))
	commit(t, s, "idx", New(Doc("a", 0, 1, `{"v":1}`)))
	if got, want := replaySeqs(t, s, "idx", 0, -1), []string{"a@1"}; !slices.Equal(got, want) {
		t.Errorf("replay = %v, want %v", got, want)
	}
}

func testReplayCallsBack(t *testing.T, s searchcore.Storage) {
	// fn may call the store (the engine sets checkpoints while replaying).
	var ws []searchcore.DocWrite
	for i := range 600 {
		ws = append(ws, New(Doc(fmt.Sprintf("d%03d", i), 0, int64(i), `{}`))...)
	}
	commit(t, s, "idx", ws)
	ctx := context.Background()
	n := 0
	err := s.ReplayDocs(ctx, "idx", 0, -1, func(r *searchcore.DocRecord) error {
		n++
		if err := s.SetCheckpoint(ctx, "idx", 0, r.SeqNo); err != nil {
			return err
		}
		_, err := s.GetDoc(ctx, "idx", r.ID)
		return err
	})
	if err != nil || n != 600 {
		t.Fatalf("ReplayDocs = %v after %d calls, want nil after 600", err, n)
	}
	if c, err := s.Checkpoint(ctx, "idx", 0); err != nil || c != 599 {
		t.Errorf("Checkpoint = %d, %v, want 599", c, err)
	}
}

func testShardMove(t *testing.T, s searchcore.Storage) {
	// A document re-routed to another shard: the old shard's entry goes.
	commit(t, s, "idx", New(Doc("a", 0, 0, `{}`)))
	moved := Doc("a", 1, 0, `{"moved":1}`)
	moved.Routing = "r"
	commit(t, s, "idx", []searchcore.DocWrite{{Record: moved, PrevSeqNo: 0, PrevShard: 0}})
	if got := replaySeqs(t, s, "idx", 0, -1); len(got) != 0 {
		t.Errorf("replay of old shard = %v, want none", got)
	}
	if got, want := replaySeqs(t, s, "idx", 1, -1), []string{"a@0"}; !slices.Equal(got, want) {
		t.Errorf("replay of new shard = %v, want %v", got, want)
	}
	if n := maxSeq(t, s, "idx", 0); n != -1 {
		t.Errorf("MaxSeqNo(old shard) = %d, want -1", n)
	}
}

func testSameDocTwice(t *testing.T, s searchcore.Storage) {
	// A _bulk may touch one document several times; the last write wins.
	ws := []searchcore.DocWrite{
		{Record: Doc("a", 0, 0, `{"v":0}`), PrevSeqNo: -1},
		{Record: Doc("a", 0, 1, `{"v":1}`), PrevSeqNo: 0},
		{Record: searchcore.DocRecord{ID: "a", SeqNo: 2, PrimaryTerm: 1, Version: 3, Deleted: true}, PrevSeqNo: 1},
		{Record: Doc("a", 0, 3, `{"v":3}`), PrevSeqNo: 2},
	}
	commit(t, s, "idx", ws)
	wantRecord(t, get(t, s, "idx", "a"), ws[3].Record)
	if got, want := replaySeqs(t, s, "idx", 0, -1), []string{"a@3"}; !slices.Equal(got, want) {
		t.Errorf("replay = %v, want %v", got, want)
	}
}

func testDefaults(t *testing.T, s searchcore.Storage) {
	ctx := context.Background()
	if n := maxSeq(t, s, "idx", 0); n != -1 {
		t.Errorf("MaxSeqNo(empty) = %d, want -1", n)
	}
	if c, err := s.Checkpoint(ctx, "idx", 0); err != nil || c != -1 {
		t.Errorf("Checkpoint(empty) = %d, %v, want -1", c, err)
	}
	if got := Replay(t, s, "idx", 0, -1); len(got) != 0 {
		t.Errorf("ReplayDocs(empty) yielded %d records", len(got))
	}
}

func testCheckpoint(t *testing.T, s searchcore.Storage) {
	ctx := context.Background()
	set := func(uuid string, shard int, seq int64) {
		t.Helper()
		if err := s.SetCheckpoint(ctx, uuid, shard, seq); err != nil {
			t.Fatalf("SetCheckpoint(%s, %d, %d) = %v", uuid, shard, seq, err)
		}
	}
	set("idx", 0, 10)
	set("idx", 1, 1<<40)
	set("idx", 0, 12)
	set("idx2", 0, 3)
	set("idx", 2, -1)
	for _, tt := range []struct {
		uuid  string
		shard int
		want  int64
	}{{"idx", 0, 12}, {"idx", 1, 1 << 40}, {"idx", 2, -1}, {"idx", 3, -1}, {"idx2", 0, 3}, {"idx3", 0, -1}} {
		if c, err := s.Checkpoint(ctx, tt.uuid, tt.shard); err != nil || c != tt.want {
			t.Errorf("Checkpoint(%s, %d) = %d, %v, want %d", tt.uuid, tt.shard, c, err, tt.want)
		}
	}
}

func testDropIndex(t *testing.T, s searchcore.Storage) {
	ctx := context.Background()
	// "ab" is a byte prefix of "abc": dropping one must not touch the other.
	for _, u := range []string{"ab", "abc"} {
		commit(t, s, u, New(Doc("x", 0, 0, `{"u":"`+u+`"}`), Doc("y/z", 1, 0, `{}`)))
		if err := s.SetCheckpoint(ctx, u, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutMeta(ctx, "index/ab", []byte("meta")); err != nil {
		t.Fatal(err)
	}
	if err := s.DropIndex(ctx, "ab"); err != nil {
		t.Fatalf("DropIndex = %v", err)
	}
	wantMissing(t, s, "ab", "x")
	wantMissing(t, s, "ab", "y/z")
	if n := maxSeq(t, s, "ab", 0); n != -1 {
		t.Errorf("MaxSeqNo(dropped) = %d, want -1", n)
	}
	if c, _ := s.Checkpoint(ctx, "ab", 0); c != -1 {
		t.Errorf("Checkpoint(dropped) = %d, want -1", c)
	}
	if got := Replay(t, s, "ab", 1, -1); len(got) != 0 {
		t.Errorf("ReplayDocs(dropped) yielded %d records", len(got))
	}
	if got := get(t, s, "abc", "x"); string(got.Source) != `{"u":"abc"}` {
		t.Errorf("other index doc = %q", got.Source)
	}
	get(t, s, "abc", "y/z")
	if c, _ := s.Checkpoint(ctx, "abc", 0); c != 0 {
		t.Errorf("Checkpoint(other) = %d, want 0", c)
	}
	if got := replaySeqs(t, s, "abc", 1, -1); len(got) != 1 {
		t.Errorf("ReplayDocs(other) = %v", got)
	}
	if v, err := s.GetMeta(ctx, "index/ab"); err != nil || string(v) != "meta" {
		t.Errorf("meta after DropIndex = %q, %v", v, err)
	}
	// Dropping a missing index is fine, and the uuid is reusable.
	if err := s.DropIndex(ctx, "never"); err != nil {
		t.Errorf("DropIndex(missing) = %v", err)
	}
	commit(t, s, "ab", New(Doc("x", 0, 0, `{"again":1}`)))
	if got := get(t, s, "ab", "x"); string(got.Source) != `{"again":1}` {
		t.Errorf("doc after re-create = %q", got.Source)
	}
}

func testOddIDs(t *testing.T, s searchcore.Storage) {
	ids := []string{"a/b", "/", "//x//", "a", "a/", "ü日本語🙂", "with space", "\x00", "nul\x00in", "\xff\xfe", "-", "a\n"}
	var ws []searchcore.DocWrite
	for i, id := range ids {
		src := fmt.Sprintf(`{"i":%d}`, i)
		if i == 3 {
			src = "" // empty source
		}
		ws = append(ws, New(Doc(id, 0, int64(i), src))...)
	}
	commit(t, s, "idx", ws)
	for i, id := range ids {
		wantRecord(t, get(t, s, "idx", id), ws[i].Record)
	}
	wantMissing(t, s, "idx", "a/b/")
	wantMissing(t, s, "idx", "\x00\x00")
	recs := Replay(t, s, "idx", 0, -1)
	if len(recs) != len(ids) {
		t.Fatalf("replay yielded %d records, want %d", len(recs), len(ids))
	}
	for i, r := range recs {
		if r.ID != ids[i] {
			t.Errorf("replay[%d] id = %q, want %q", i, r.ID, ids[i])
		}
	}
	if r := get(t, s, "idx", "a"); r.Source == nil || len(r.Source) != 0 {
		t.Errorf("empty source = %#v, want empty non-nil", r.Source)
	}
	// A long id (ES allows 512 bytes).
	long := string(bytes.Repeat([]byte("x/"), 256))
	commit(t, s, "idx", New(Doc(long, 0, 100, `{}`)))
	get(t, s, "idx", long)
}

func testOddUUIDs(t *testing.T, s searchcore.Storage) {
	ctx := context.Background()
	for _, u := range []string{"a", "A-1_b.c", "ü\x00\xff"} {
		commit(t, s, u, New(Doc("id", 0, 0, u)))
	}
	for _, u := range []string{"a", "A-1_b.c", "ü\x00\xff"} {
		if got := get(t, s, u, "id"); string(got.Source) != u {
			t.Errorf("GetDoc(%q) source = %q", u, got.Source)
		}
	}
	// A uuid the layout cannot hold is rejected, not mis-stored.
	if err := s.CommitDocs(ctx, "a/b", New(Doc("id", 0, 0, `{}`))); err == nil {
		t.Errorf("CommitDocs with '/' in uuid succeeded")
	}
	if err := s.CommitDocs(ctx, "", New(Doc("id", 0, 0, `{}`))); err == nil {
		t.Errorf("CommitDocs with empty uuid succeeded")
	}
}

func testLargeCommit(t *testing.T, s searchcore.Storage) {
	// Larger than one badger transaction at default settings (~1.2 MB).
	src := bytes.Repeat([]byte("x"), 1000)
	var ws []searchcore.DocWrite
	for i := range 5000 {
		r := Doc(fmt.Sprintf("big-%05d", i), i%3, int64(i/3), "")
		r.Source = src
		ws = append(ws, New(r)...)
	}
	commit(t, s, "idx", ws)
	n := 0
	for shard := range 3 {
		n += len(Replay(t, s, "idx", shard, -1))
	}
	if n != 5000 {
		t.Errorf("replayed %d records, want 5000", n)
	}
	get(t, s, "idx", "big-00000")
	get(t, s, "idx", "big-04999")
	// A single large document (900 KB, which in-memory badger still takes).
	huge := Doc("huge", 0, 5000, "")
	huge.Source = bytes.Repeat([]byte("y"), 900<<10)
	commit(t, s, "idx", New(huge))
	if got := get(t, s, "idx", "huge"); len(got.Source) != 900<<10 {
		t.Errorf("huge source is %d bytes", len(got.Source))
	}
}

func testCancelled(t *testing.T, s searchcore.Storage) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.CommitDocs(ctx, "idx", New(Doc("a", 0, 0, `{}`))); !errors.Is(err, context.Canceled) {
		t.Errorf("CommitDocs(cancelled) = %v, want context.Canceled", err)
	}
	if err := s.PutMeta(ctx, "k", []byte("v")); !errors.Is(err, context.Canceled) {
		t.Errorf("PutMeta(cancelled) = %v, want context.Canceled", err)
	}
}

func testMeta(t *testing.T, s searchcore.Storage) {
	ctx := context.Background()
	if err := s.PutMeta(ctx, "a", []byte("1")); err != nil {
		t.Fatalf("PutMeta = %v", err)
	}
	val := []byte("2")
	if err := s.PutMeta(ctx, "a", val); err != nil {
		t.Fatalf("PutMeta = %v", err)
	}
	val[0] = 'X' // the store must have copied it
	if v, err := s.GetMeta(ctx, "a"); err != nil || string(v) != "2" {
		t.Errorf("GetMeta = %q, %v, want 2", v, err)
	}
	if err := s.PutMeta(ctx, "empty", nil); err != nil {
		t.Fatalf("PutMeta(empty) = %v", err)
	}
	if v, err := s.GetMeta(ctx, "empty"); err != nil || len(v) != 0 {
		t.Errorf("GetMeta(empty) = %q, %v", v, err)
	}
	if err := s.DeleteMeta(ctx, "a"); err != nil {
		t.Fatalf("DeleteMeta = %v", err)
	}
	if _, err := s.GetMeta(ctx, "a"); !errors.Is(err, searchcore.ErrNotFound) {
		t.Errorf("GetMeta(deleted) = %v, want ErrNotFound", err)
	}
	if err := s.DeleteMeta(ctx, "a"); err != nil {
		t.Errorf("DeleteMeta(missing) = %v", err)
	}
	// Meta keys do not collide with documents of an index named like them.
	commit(t, s, "m", New(Doc("x", 0, 0, `{}`)))
	if _, err := s.GetMeta(ctx, "x"); !errors.Is(err, searchcore.ErrNotFound) {
		t.Errorf("GetMeta(x) = %v, want ErrNotFound", err)
	}
}

func testMetaListOrder(t *testing.T, s searchcore.Storage) {
	ctx := context.Background()
	keys := []string{"index/b", "index/a", "index/", "index/a/1", "indexes", "other/x", "index/ü", "index/Z", "inde"}
	for i, k := range keys {
		if err := s.PutMeta(ctx, k, []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 700 { // more than one internal chunk
		if err := s.PutMeta(ctx, fmt.Sprintf("many/%04d", i), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	list := func(prefix string) []string {
		t.Helper()
		var out []string
		err := s.ListMeta(ctx, prefix, func(k string, v []byte) error {
			out = append(out, k+"="+string(v))
			return nil
		})
		if err != nil {
			t.Fatalf("ListMeta(%q) = %v", prefix, err)
		}
		return out
	}
	want := []string{"index/=2", "index/Z=7", "index/a=1", "index/a/1=3", "index/b=0", "index/ü=6"}
	if got := list("index/"); !slices.Equal(got, want) {
		t.Errorf("ListMeta(index/) = %v, want %v", got, want)
	}
	if got := list("index/a"); !slices.Equal(got, []string{"index/a=1", "index/a/1=3"}) {
		t.Errorf("ListMeta(index/a) = %v", got)
	}
	if got := list("nothing"); len(got) != 0 {
		t.Errorf("ListMeta(nothing) = %v", got)
	}
	many := list("many/")
	if len(many) != 700 || many[0] != "many/0000=v" || many[699] != "many/0699=v" {
		t.Errorf("ListMeta(many/) returned %d keys", len(many))
	}
	var all []string
	for _, kv := range list("") {
		all = append(all, kv[:strings.LastIndexByte(kv, '=')])
	}
	if len(all) != len(keys)+700 || !slices.IsSorted(all) {
		t.Errorf("ListMeta(\"\") returned %d keys (sorted %v)", len(all), slices.IsSorted(all))
	}
	// Documents are not metadata.
	commit(t, s, "idx", New(Doc("index/a", 0, 0, `{}`)))
	if got := list("index/"); !slices.Equal(got, want) {
		t.Errorf("ListMeta(index/) after doc commit = %v", got)
	}
	stop := errors.New("stop")
	if err := s.ListMeta(ctx, "many/", func(string, []byte) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("ListMeta with failing fn = %v", err)
	}
}

func testConcurrent(t *testing.T, s searchcore.Storage) {
	const (
		goroutines = 16
		calls      = 40
		perCall    = 5
		shards     = 3
	)
	ctx := context.Background()
	var seqs [shards]atomic.Int64
	for i := range seqs {
		seqs[i].Store(-1)
	}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range calls {
				var ws []searchcore.DocWrite
				for d := range perCall {
					id := fmt.Sprintf("g%02d-c%02d-d%d", g, c, d)
					shard := (g + d) % shards
					ws = append(ws, New(Doc(id, shard, seqs[shard].Add(1), `{"g":`+fmt.Sprint(g)+`}`))...)
				}
				if err := s.CommitDocs(ctx, "idx", ws); err != nil {
					errs <- err
					return
				}
				if g%4 == 0 { // meta writes share the committer
					if err := s.PutMeta(ctx, fmt.Sprintf("g/%02d", g), []byte(fmt.Sprint(c))); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent commit: %v", err)
	}
	total := 0
	for shard := range shards {
		recs := Replay(t, s, "idx", shard, -1)
		if int64(len(recs)) != seqs[shard].Load()+1 {
			t.Errorf("shard %d replayed %d records, want %d", shard, len(recs), seqs[shard].Load()+1)
		}
		for i, r := range recs {
			if r.SeqNo != int64(i) {
				t.Fatalf("shard %d replay[%d] seq = %d", shard, i, r.SeqNo)
			}
		}
		if n := maxSeq(t, s, "idx", shard); n != seqs[shard].Load() {
			t.Errorf("MaxSeqNo(shard %d) = %d, want %d", shard, n, seqs[shard].Load())
		}
		total += len(recs)
	}
	if total != goroutines*calls*perCall {
		t.Errorf("total records = %d, want %d", total, goroutines*calls*perCall)
	}
	for g := range goroutines {
		get(t, s, "idx", fmt.Sprintf("g%02d-c%02d-d%d", g, calls-1, perCall-1))
		if g%4 == 0 {
			if v, err := s.GetMeta(ctx, fmt.Sprintf("g/%02d", g)); err != nil || string(v) != fmt.Sprint(calls-1) {
				t.Errorf("meta g/%02d = %q, %v", g, v, err)
			}
		}
	}
}
