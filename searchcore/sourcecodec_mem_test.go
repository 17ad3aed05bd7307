package searchcore

import (
	"bytes"
	"runtime"
	"testing"
)

// TestSourceCodecMemory: a used codec (every index with a dictionary has
// one) holds about a megabyte, not zstd's default windows of several
// megabytes per encoder.
func TestSourceCodecMemory(t *testing.T) {
	dict := bytes.Repeat([]byte(`{"name":"x","country":"FR","population":1234}`), 400)[:16<<10]
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	var keep []*sourceCodec
	for i := 0; i < 10; i++ {
		c, err := newSourceCodec(dict)
		if err != nil {
			t.Fatal(err)
		}
		b := c.encode([]byte(`{"name":"abc","country":"DE","population":99}`))
		if _, err := c.decode(b); err != nil {
			t.Fatal(err)
		}
		keep = append(keep, c)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	per := float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / 10
	t.Logf("per codec: %.2f MB", per/1e6)
	if per > 2e6 {
		t.Errorf("a codec holds %.1f MB, want under 2 MB", per/1e6)
	}
	runtime.KeepAlive(keep)
}
