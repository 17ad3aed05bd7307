package searchcore

import (
	"encoding/binary"
	"math/bits"
)

// shardID routes a document like Elasticsearch 7 does, so documents land on
// the shard an Elasticsearch index with the same settings would use:
// floorMod(murmur3(routing as UTF-16LE), routing_num_shards) / routing_factor.
func shardID(routing string, numShards, routingShards int) int {
	h := murmur3UTF16(routing)
	m := int(h) % routingShards
	if m < 0 {
		m += routingShards
	}
	return m / (routingShards / numShards)
}

// defaultRoutingShards is Elasticsearch 7's default number_of_routing_shards:
// the shard count times the power of two that keeps it at most 1024.
func defaultRoutingShards(numShards int) int {
	log2Shards := 32 - bits.LeadingZeros32(uint32(numShards-1))
	splits := max(1, 10-log2Shards)
	return numShards << splits
}

// murmur3UTF16 is Lucene's murmurhash3_x86_32 (seed 0) over the string's
// UTF-16 code units in little-endian order (Murmur3HashFunction.hash).
func murmur3UTF16(s string) int32 {
	units := make([]byte, 0, len(s)*2)
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			hi, lo := 0xD800+(r>>10), 0xDC00+(r&0x3FF)
			units = append(units, byte(hi), byte(hi>>8), byte(lo), byte(lo>>8))
			continue
		}
		units = append(units, byte(r), byte(r>>8))
	}
	return int32(murmur3x86(units, 0))
}

func murmur3x86(data []byte, seed uint32) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := seed
	n := len(data) / 4 * 4
	for i := 0; i < n; i += 4 {
		k := binary.LittleEndian.Uint32(data[i:])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	var k uint32
	switch len(data) & 3 {
	case 3:
		k ^= uint32(data[n+2]) << 16
		fallthrough
	case 2:
		k ^= uint32(data[n+1]) << 8
		fallthrough
	case 1:
		k ^= uint32(data[n])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
