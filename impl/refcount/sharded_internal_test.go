package refcount

import (
	"testing"

	spec "github.com/memverify/memverify/model/refcount"
)

// Aligned pointers must spread over the shards: the identity hash would send
// every 16-byte-aligned pointer to shard 0 of 16.
func TestShardSpread(t *testing.T) {
	for _, n := range []int{4, 16, 64} {
		s := NewShardedN(nil, n)
		for _, stride := range []uint64{8, 16, 64, 4096, 1 << 20} {
			count := make([]int, s.Shards())
			for i := range 256 * n {
				count[s.ShardOf(spec.Addr(0x7f0000000000+uint64(i)*stride))]++
			}
			for sh, c := range count {
				if c < 256*6/10 || c > 256*14/10 {
					t.Fatalf("%d shards, stride %d: shard %d serves %d, fair share 256", n, stride, sh, c)
				}
			}
		}
	}
}

func TestShardCountRounding(t *testing.T) {
	for in, want := range map[int]int{-3: 1, 0: 1, 1: 1, 3: 4, 16: 16, 17: 32, 1 << 20: maxShards} {
		if got := NewShardedN(nil, in).Shards(); got != want {
			t.Errorf("NewShardedN(%d).Shards() = %d, want %d", in, got, want)
		}
	}
}

// The shard padding keeps each shard on its own pair of cache lines.
func TestShardPadding(t *testing.T) {
	s := NewSharded(nil)
	a, b := &s.shards[0], &s.shards[1]
	if d := uintptrOf(b) - uintptrOf(a); d < 128 {
		t.Fatalf("shards %d bytes apart, want at least 128", d)
	}
}
