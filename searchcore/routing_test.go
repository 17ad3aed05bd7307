package searchcore

import "testing"

// Known values from Elasticsearch's Murmur3HashFunctionTests: routing
// strings hash over their UTF-16 code units.
func TestMurmur3KnownValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint32
	}{
		{"hell", 0x5a0cb7c3},
		{"hello", 0xd7c31989},
		{"hello w", 0x22ab2984},
		{"hello wo", 0xdf0ca123},
		{"hello wor", 0xe7744d61},
		{"The quick brown fox jumps over the lazy dog", 0xe07db09c},
		{"The quick brown fox jumps over the lazy cog", 0x4e63d2ad},
	} {
		if got := uint32(murmur3UTF16(tc.in)); got != tc.want {
			t.Errorf("murmur3(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

func TestShardIDAndRoutingShards(t *testing.T) {
	for _, tc := range []struct{ shards, want int }{{1, 1024}, {2, 1024}, {3, 768}, {5, 640}, {50, 800}, {1024, 2048}} {
		if got := defaultRoutingShards(tc.shards); got != tc.want {
			t.Errorf("defaultRoutingShards(%d) = %d, want %d", tc.shards, got, tc.want)
		}
	}
	counts := make([]int, 5)
	for i := 0; i < 5000; i++ {
		counts[shardID(itoa(int64(i)), 5, 640)]++
	}
	for s, c := range counts {
		if c < 800 || c > 1200 {
			t.Errorf("shard %d got %d of 5000 ids: routing is unbalanced", s, c)
		}
	}
}
