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

// TestLookupRechecksAnOwnedState replays, step by step, a lock-free
// IsRegistered(p) that loads a slot's state while the slot belongs to q and
// its key after q has left and Register(p), which hashes to the same slot,
// has written p into q's tombstone but not yet p's state. The first lookup
// must not take q's state for p's: a second lookup that starts after it and
// finishes before p's state store answers false, and with no Unregister(p)
// between them the first cannot have answered true.
func TestLookupRechecksAnOwnedState(t *testing.T) {
	q := unmix(0xaaaa_0011_0000_0000) // same shard, same first slot
	p := unmix(0x5555_0011_0000_0000)
	s := NewShardedN(nil, 1)
	if err := s.Register(q, 16, spec.ScalarNew); err != nil {
		t.Fatal(err)
	}
	sh := s.shardFor(p)
	ix := sh.index.Load()
	sl := &ix.slots[slotHash(p)&ix.mask]
	if sl.key.Load() != uint64(q) {
		t.Fatal("setup: q is not in p's first slot")
	}
	st := sl.state.Load() // the first lookup's first load: q's owned state
	if err := s.Unregister(q); err != nil {
		t.Fatal(err)
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.claim(p) != sl { // Register(p), up to its key store
		t.Fatal("setup: p did not take q's tombstone")
	}
	if sl.key.Load() != uint64(p) {
		t.Fatal("setup: the key is not p's")
	}
	first, _ := sl.presence(st) // the first lookup goes on from its first load
	second, _ := ix.lookup(p)
	if first || second {
		t.Errorf("IsRegistered(p) before p's state is stored: %v, then %v; want false, false", first, second)
	}
}
