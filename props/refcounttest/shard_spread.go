package refcounttest

import (
	spec "github.com/memverify/memverify/model/refcount"
	"pgregory.net/rapid"
)

// ShardMapper is a sharded registry that tells which shard serves a pointer.
type ShardMapper interface {
	Shards() int
	ShardOf(p spec.Addr) int
}

// CheckShardSpread checks that aligned pointers, as allocators hand them out
// (runs of 16-, 32-, 64-byte or page-aligned addresses from a random base), spread
// evenly over the shards: every shard serves between 0.6 and 1.4 times its
// fair share of 256 pointers per shard. An identity hash fails at once
// (SCL-Core's std::hash<void*> sends every 16-byte-aligned pointer to shard 0
// of 16); the bounds sit more than six standard deviations from the mean of a
// uniform hash, so a good hash does not fail by chance.
func CheckShardSpread(t rapid.TB, m ShardMapper) {
	t.Helper()
	n := m.Shards()
	if n < 1 {
		t.Fatalf("Shards() = %d", n)
	}
	rapid.Check(t, func(rt *rapid.T) {
		stride := rapid.SampledFrom([]uint64{16, 32, 64, 4096}).Draw(rt, "stride")
		base := rapid.Uint64Range(1, 1<<47).Draw(rt, "base") &^ (stride - 1)
		count := make([]int, n)
		total := 256 * n
		for i := 0; i < total; i++ {
			s := m.ShardOf(spec.Addr(base + uint64(i)*stride))
			if s < 0 || s >= n {
				rt.Fatalf("ShardOf(%#x) = %d, outside [0, %d)", base+uint64(i)*stride, s, n)
			}
			count[s]++
		}
		for s, c := range count {
			if c < 256*6/10 || c > 256*14/10 {
				rt.Fatalf("%d pointers %d bytes apart from %#x: shard %d serves %d, fair share 256; all shards: %v",
					total, stride, base, s, c, count)
			}
		}
	})
}
