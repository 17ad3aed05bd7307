package store_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/store"
	"github.com/quarry-search/quarry/store/storetest"
)

// MustOpenDB opens a store in dir (in memory when dir is "") and closes it
// when the test ends.
func MustOpenDB(tb testing.TB, dir string) *store.DB {
	tb.Helper()
	db, err := store.Open(dir, store.Options{InMemory: dir == ""})
	if err != nil {
		tb.Fatalf("Open(%q) = %v", dir, err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("Close = %v", err)
		}
	})
	return db
}

func TestStorageOnDisk(t *testing.T) {
	storetest.Run(t, func(t *testing.T) searchcore.Storage { return MustOpenDB(t, t.TempDir()) })
}

func TestStorageInMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) searchcore.Storage { return MustOpenDB(t, "") })
}

func TestReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ws []searchcore.DocWrite
	for i := range 3000 {
		ws = append(ws, storetest.New(storetest.Doc(fmt.Sprintf("doc/%d", i), i%2, int64(i/2), `{"i":`+fmt.Sprint(i)+`}`))...)
	}
	if err := db.CommitDocs(ctx, "u1", ws); err != nil {
		t.Fatal(err)
	}
	del := searchcore.DocRecord{ID: "doc/0", Shard: 0, SeqNo: 1500, Version: 2, PrimaryTerm: 1, Deleted: true}
	if err := db.CommitDocs(ctx, "u1", []searchcore.DocWrite{{Record: del, PrevSeqNo: 0, PrevShard: 0}}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetCheckpoint(ctx, "u1", 1, 42); err != nil {
		t.Fatal(err)
	}
	if err := db.PutMeta(ctx, "index/u1", []byte(`{"name":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := db.GetDoc(ctx, "u1", "doc/1"); !errors.Is(err, store.ErrClosed) {
		t.Errorf("GetDoc after Close = %v, want ErrClosed", err)
	}
	if err := db.CommitDocs(ctx, "u1", ws[:1]); !errors.Is(err, store.ErrClosed) {
		t.Errorf("CommitDocs after Close = %v, want ErrClosed", err)
	}

	db = MustOpenDB(t, dir)
	for shard, want := range []int{1500, 1500} {
		if got := len(storetest.Replay(t, db, "u1", shard, -1)); got != want {
			t.Errorf("shard %d replays %d records, want %d", shard, got, want)
		}
	}
	if r, err := db.GetDoc(ctx, "u1", "doc/0"); err != nil || !r.Deleted || r.SeqNo != 1500 {
		t.Errorf("tombstone after reopen = %+v, %v", r, err)
	}
	if r, err := db.GetDoc(ctx, "u1", "doc/2999"); err != nil || string(r.Source) != `{"i":2999}` {
		t.Errorf("doc after reopen = %+v, %v", r, err)
	}
	if n, _ := db.MaxSeqNo(ctx, "u1", 0); n != 1500 {
		t.Errorf("MaxSeqNo after reopen = %d, want 1500", n)
	}
	if c, _ := db.Checkpoint(ctx, "u1", 1); c != 42 {
		t.Errorf("Checkpoint after reopen = %d, want 42", c)
	}
	if v, err := db.GetMeta(ctx, "index/u1"); err != nil || string(v) != `{"name":"x"}` {
		t.Errorf("meta after reopen = %q, %v", v, err)
	}
}

func TestScanDocs(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t, "")
	var ws []searchcore.DocWrite
	for i := range 600 {
		ws = append(ws, storetest.New(storetest.Doc(fmt.Sprintf("%04d", 599-i), i%4, int64(i), `{}`))...)
	}
	ws = append(ws, storetest.New(searchcore.DocRecord{ID: "0100", Shard: 1, SeqNo: 600, Deleted: true})...)
	ws[len(ws)-1].PrevSeqNo, ws[len(ws)-1].PrevShard = 499, 3
	if err := db.CommitDocs(ctx, "u", ws); err != nil {
		t.Fatal(err)
	}
	if err := db.CommitDocs(ctx, "v", storetest.New(storetest.Doc("other", 0, 0, `{}`))); err != nil {
		t.Fatal(err)
	}
	var ids []string
	err := db.ScanDocs(ctx, "u", func(r *searchcore.DocRecord) error {
		ids = append(ids, r.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 599 || ids[0] != "0000" || ids[598] != "0599" {
		t.Fatalf("ScanDocs returned %d ids (%v ... %v)", len(ids), ids[:1], ids[len(ids)-1:])
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Fatalf("ScanDocs out of order: %q after %q", ids[i], ids[i-1])
		}
		if ids[i] == "0100" {
			t.Fatalf("ScanDocs returned the tombstone")
		}
	}
}

func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t, t.TempDir())
	const goroutines, calls = 64, 20
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range calls {
				r := storetest.Doc(fmt.Sprintf("%d-%d", g, c), g, int64(c), `{}`)
				if err := db.CommitDocs(ctx, "u", storetest.New(r)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	reqs, groups := store.CommitStats(db)
	t.Logf("%d requests in %d groups", reqs, groups)
	if reqs != goroutines*calls || groups >= reqs {
		t.Errorf("%d requests in %d groups, want %d requests in fewer groups", reqs, groups, goroutines*calls)
	}
}

func TestCancelWhileWaiting(t *testing.T) {
	db := MustOpenDB(t, t.TempDir())
	unblock := store.BlockWrites(db) // the committer stalls on its next group
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			errs <- db.CommitDocs(ctx, "u", storetest.New(storetest.Doc(fmt.Sprint(g), 0, int64(g), `{}`)))
		}()
	}
	time.Sleep(20 * time.Millisecond) // let the calls queue
	cancel()
	for range 8 {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Errorf("CommitDocs while blocked, cancelled = %v, want context.Canceled", err)
		}
	}
	unblock()
	// The cancelled calls were queued, so they still land.
	if err := db.CommitDocs(context.Background(), "u", storetest.New(storetest.Doc("after", 0, 100, `{}`))); err != nil {
		t.Fatal(err)
	}
	for g := range 8 {
		if _, err := db.GetDoc(context.Background(), "u", fmt.Sprint(g)); err != nil {
			t.Errorf("GetDoc(%d) after cancelled commit = %v", g, err)
		}
	}
}

func TestRejects(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t, "")
	bad := []searchcore.DocWrite{
		{Record: storetest.Doc("", 0, 0, `{}`), PrevSeqNo: -1},
		{Record: storetest.Doc("a", -1, 0, `{}`), PrevSeqNo: -1},
		{Record: storetest.Doc("a", 70000, 0, `{}`), PrevSeqNo: -1},
		{Record: storetest.Doc("a", 0, -2, `{}`), PrevSeqNo: -1},
		{Record: storetest.Doc("a", 0, 1, `{}`), PrevSeqNo: 0, PrevShard: -1},
		{Record: storetest.Doc(strings.Repeat("x", 70000), 0, 0, `{}`), PrevSeqNo: -1},
	}
	for _, w := range bad {
		if err := db.CommitDocs(ctx, "u", []searchcore.DocWrite{w}); err == nil {
			t.Errorf("CommitDocs(%.20q shard %d seq %d prev %d/%d) succeeded", w.Record.ID, w.Record.Shard, w.Record.SeqNo, w.PrevSeqNo, w.PrevShard)
		}
	}
	// In memory badger takes values up to 1 MiB only; larger ones are
	// rejected up front rather than failing the committer's group.
	huge := storetest.Doc("huge", 0, 0, "")
	huge.Source = make([]byte, 1<<20)
	if err := db.CommitDocs(ctx, "u", storetest.New(huge)); err == nil {
		t.Errorf("CommitDocs(1 MiB source, in memory) succeeded")
	}
	// A bad write fails its call only: nothing of it is written.
	ws := storetest.New(storetest.Doc("good", 0, 0, `{}`), storetest.Doc("", 0, 1, `{}`))
	if err := db.CommitDocs(ctx, "u", ws); err == nil {
		t.Errorf("CommitDocs with one bad write succeeded")
	}
	if _, err := db.GetDoc(ctx, "u", "good"); !errors.Is(err, searchcore.ErrNotFound) {
		t.Errorf("GetDoc(good) = %v, want ErrNotFound", err)
	}
}

func TestSizeAndGC(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t, t.TempDir())
	big := make([]byte, 2<<20) // above the value threshold: lands in the value log
	for i := range 5 {
		r := storetest.Doc("big", 0, int64(i), "")
		r.Source = big
		prev := int64(i - 1)
		if err := db.CommitDocs(ctx, "u", []searchcore.DocWrite{{Record: r, PrevSeqNo: prev}}); err != nil {
			t.Fatal(err)
		}
	}
	lsm, vlog := db.Size()
	t.Logf("lsm %d, vlog %d", lsm, vlog)
	if vlog < 10<<20 {
		t.Errorf("vlog size = %d, want at least the 10 MiB written", vlog)
	}
	if err := db.RunGC(); err != nil {
		t.Errorf("RunGC = %v", err)
	}
	mem := MustOpenDB(t, "")
	if err := mem.RunGC(); err != nil {
		t.Errorf("RunGC(in memory) = %v", err)
	}
	mem.Size()
}

// crashEnv names the directory the helper process writes to.
const crashEnv = "QUARRY_STORE_CRASH_DIR"

// TestHelperProcess is the child of TestCrash: it commits documents from
// four goroutines and prints "ack <goroutine> <call>" after each commit
// returns, until it is killed.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(crashEnv)
	if dir == "" {
		t.Skip("helper process for TestCrash")
	}
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		fmt.Fprintln(os.Stdout, "open:", err)
		os.Exit(2)
	}
	var mu sync.Mutex
	deadline := time.Now().Add(time.Minute) // never outlive a dead parent for long
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := 0; time.Now().Before(deadline); c++ {
				if err := db.CommitDocs(context.Background(), "crash", crashWrites(g, c)); err != nil {
					fmt.Fprintln(os.Stdout, "commit:", err)
					os.Exit(2)
				}
				mu.Lock()
				fmt.Fprintf(os.Stdout, "ack %d %d\n", g, c)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	os.Exit(0)
}

// crashWrites is call c of goroutine g of the helper: five documents on
// shard g; from the second call on, the first one replaces the previous
// call's first document.
func crashWrites(g, c int) []searchcore.DocWrite {
	var ws []searchcore.DocWrite
	for d := range 5 {
		r := storetest.Doc(fmt.Sprintf("g%d/c%d/d%d", g, c, d), g, int64(c*5+d), fmt.Sprintf(`{"g":%d,"c":%d,"pad":"%0300d"}`, g, c, 0))
		ws = append(ws, searchcore.DocWrite{Record: r, PrevSeqNo: -1})
	}
	ws[0].Record.ID = fmt.Sprintf("g%d/latest", g)
	if c > 0 {
		ws[0].PrevSeqNo, ws[0].PrevShard = int64((c-1)*5), g
	}
	return ws
}

func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Read acknowledgements: the highest acked call per goroutine (each
	// goroutine commits its calls in order).
	acked := map[int]int{}
	n := 0
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	timeout := time.After(60 * time.Second)
	for n < 1000 {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("child exited after %d acks: %v", n, cmd.Wait())
			}
			var g, c int
			if _, err := fmt.Sscanf(line, "ack %d %d", &g, &c); err != nil {
				t.Fatalf("child: %s", line)
			}
			acked[g] = c
			n++
		case <-timeout:
			_ = cmd.Process.Kill()
			t.Fatalf("only %d acks in 60s", n)
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for range lines { // drain
	}

	ctx := context.Background()
	db := MustOpenDB(t, dir)
	for g, last := range acked {
		for c := 0; c <= last; c++ {
			for d, w := range crashWrites(g, c) {
				if d == 0 {
					continue // replaced by later calls; checked below
				}
				r, err := db.GetDoc(ctx, "crash", w.Record.ID)
				if err != nil || r.SeqNo != w.Record.SeqNo {
					t.Fatalf("acknowledged doc %q: %+v, %v", w.Record.ID, r, err)
				}
			}
		}
		latest, err := db.GetDoc(ctx, "crash", fmt.Sprintf("g%d/latest", g))
		if err != nil || latest.SeqNo < int64(last*5) {
			t.Fatalf("g%d/latest = %+v, %v; want seq >= %d", g, latest, err, last*5)
		}
		// The sequence log matches the records: one entry per document.
		recs := storetest.Replay(t, db, "crash", g, -1)
		maxSeq, err := db.MaxSeqNo(ctx, "crash", g)
		if err != nil || maxSeq%5 != 4 || maxSeq < int64(last*5+4) {
			t.Errorf("shard %d: MaxSeqNo = %d, %v; want the end of a whole call >= %d", g, maxSeq, err, last*5+4)
		}
		if want := 4*int(maxSeq/5) + 5; len(recs) != want {
			t.Errorf("shard %d: %d records replayed with max seq %d, want %d", g, len(recs), maxSeq, want)
		}
	}
	t.Logf("%d acks from %d goroutines survived kill -9", n, len(acked))
}

// TestSourcesCompressed: JSON sources take well under their raw size on
// disk: zstd over 16 KiB blocks keeps these in 0.24× (snappy over 4 KiB
// blocks, badger's default, in 0.55×).
func TestSourcesCompressed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	countries := []string{"AD", "AE", "AF", "FR", "DE", "US", "JP", "BR"}
	raw := 0
	seq := int64(0)
	for batch := range 20 {
		var recs []searchcore.DocRecord
		for i := range 1000 {
			n := batch*1000 + i
			src := fmt.Sprintf(`{"id":"%d","name":"Place %d","country":"%s","feature_code":"PPL","admin_code":"%02d","population":%d,"location":{"lat":%.5f,"lon":%.5f}}`,
				3039154+n*7, n, countries[n%len(countries)], n%60, (n*7919)%1000003, float64(n%18000)/100-90, float64((n*31)%36000)/100-180)
			raw += len(src)
			recs = append(recs, storetest.Doc(fmt.Sprint(3039154+n*7), 0, seq, src))
			seq++
		}
		if err := db.CommitDocs(ctx, "u", storetest.New(recs...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil { // flushes the memtables to tables
		t.Fatal(err)
	}
	var tables int64
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sst") {
			info, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			tables += info.Size()
		}
	}
	ratio := float64(tables) / float64(raw)
	t.Logf("%d bytes of sources, %d in tables (%.2f×)", raw, tables, ratio)
	if ratio > 0.4 {
		t.Errorf("tables hold %.2f× the raw sources, want at most 0.4×", ratio)
	}
}
