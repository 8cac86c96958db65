package refcount

import (
	"math"
	"testing"

	spec "github.com/memverify/memverify/model/refcount"
)

// indexOf is the read index of p's shard.
func indexOf(s *Sharded, p spec.Addr) *readIndex { return s.shardFor(p).index.Load() }

// checkPresence compares IsRegistered, which probes the table without the
// lock, with the locked lookup the other methods use, for every pointer in ps.
func checkPresence(t *testing.T, s *Sharded, ps []spec.Addr) {
	t.Helper()
	for _, p := range ps {
		sh := s.shardFor(p)
		sh.mu.Lock()
		want := sh.get(p) != nil
		sh.mu.Unlock()
		if got := s.IsRegistered(p); got != want {
			t.Fatalf("IsRegistered(%#x) = %v, the locked lookup says %v", uint64(p), got, want)
		}
	}
}

// registerAndRelease registers p as an owned pointer and releases it,
// checking IsRegistered after each step.
func registerAndRelease(t *testing.T, s *Sharded, p spec.Addr, bytes int64) {
	t.Helper()
	if err := s.Register(p, bytes, spec.ArrayNew); err != nil {
		t.Fatal(err)
	}
	if !s.IsRegistered(p) {
		t.Fatalf("%#x not registered after Register", uint64(p))
	}
	if err := s.Unregister(p); err != nil {
		t.Fatal(err)
	}
	if s.IsRegistered(p) {
		t.Fatalf("%#x registered after its last Unregister", uint64(p))
	}
}

func addrs(n int, base, stride uint64) []spec.Addr {
	out := make([]spec.Addr, n)
	for i := range out {
		out[i] = spec.Addr(base + uint64(i)*stride)
	}
	return out
}

// Growth: one shard takes many pointers; the table grows, keeps at most half
// its slots used, and a table retired by growth still answers as it did when
// it was replaced.
func TestReadIndexGrowth(t *testing.T) {
	s := NewShardedN(nil, 1)
	ps := addrs(5000, 0x7f0000000000, 64)
	var first *readIndex
	for i, p := range ps {
		if err := s.Register(p, 64, spec.ScalarNew); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = indexOf(s, p)
		}
	}
	ix := indexOf(s, ps[0])
	if ix == first {
		t.Fatalf("5000 pointers still in the first table of %d slots", len(first.slots))
	}
	if 2*ix.used > len(ix.slots) || ix.used != len(ps) {
		t.Fatalf("table of %d slots holds %d keys for %d pointers", len(ix.slots), ix.used, len(ps))
	}
	if ok, _ := first.lookup(ps[0]); !ok {
		t.Fatal("the retired first table changed after it was replaced")
	}
	if ok, _ := first.lookup(ps[len(ps)-1]); ok {
		t.Fatal("the retired first table changed after it was replaced")
	}
	checkPresence(t, s, ps)
	checkPresence(t, s, addrs(100, 0x7f0000000000+32, 64)) // never registered
}

// Tombstones: released pointers read absent, and pointers whose probe runs
// pass over their slots are still found.
func TestReadIndexTombstones(t *testing.T) {
	s := NewShardedN(nil, 1)
	// Six pointers with the same first slot make one probe run, and fit the
	// first table, so no rebuild drops the tombstones.
	var ps []spec.Addr
	for p := spec.Addr(0x1000); len(ps) < 6; p += 16 {
		if slotHash(p)%indexMinSlots == slotHash(0x1000)%indexMinSlots {
			ps = append(ps, p)
		}
	}
	for _, p := range ps {
		if err := s.Register(p, 16, spec.ScalarNew); err != nil {
			t.Fatal(err)
		}
	}
	ix := indexOf(s, ps[0])
	for i, p := range ps {
		if i%2 == 0 {
			if err := s.Unregister(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	if indexOf(s, ps[0]) != ix || ix.used != len(ps) {
		t.Fatalf("released pointers should stay as tombstones in the same table: %d keys", ix.used)
	}
	checkPresence(t, s, ps)
}

// Re-insert after a tombstone: the pointer takes its own slot back, so a
// working set of pointers registered and released in turn never grows the
// table.
func TestReadIndexReinsert(t *testing.T) {
	s := NewShardedN(nil, 1)
	ps := addrs(5, 0x2000, 64)
	for range 100 {
		for _, p := range ps {
			registerAndRelease(t, s, p, 64)
		}
	}
	if ix := indexOf(s, ps[0]); ix.used > len(ps) || len(ix.slots) != indexMinSlots {
		t.Fatalf("%d keys in %d slots after cycling %d pointers", ix.used, len(ix.slots), len(ps))
	}
	// A released buffer holder registered again as an owned pointer.
	if _, err := s.RegisterBuffer(0x3000, 64, []spec.Addr{0x3010}, spec.Custom); err != nil {
		t.Fatal(err)
	}
	if err := s.Unregister(0x3010); err != nil {
		t.Fatal(err)
	}
	if s.IsRegistered(0x3010) || !s.IsRegistered(0x3000) {
		t.Fatal("releasing the alias should leave only the real pointer")
	}
	if err := s.Register(0x3010, 8, spec.ScalarNew); err != nil {
		t.Fatal(err)
	}
	checkPresence(t, s, []spec.Addr{0x3000, 0x3010})
	if got := s.Refs(0x3010); got != 1 {
		t.Fatalf("Refs of the re-registered alias = %d, want 1", got)
	}
}

// Churn: a shard that cycles through far more distinct pointers than it ever
// holds at once recycles their tombstones, so its table stays at the minimum
// size (in cache) and the cycle does not allocate once warm.
func TestReadIndexChurn(t *testing.T) {
	s := NewShardedN(nil, 1)
	ps := addrs(20000, 0x7f0000000000, 256)
	cycle := func() {
		for i := 0; i < len(ps); i += 4 {
			for _, p := range ps[i : i+4] {
				if err := s.Register(p, 64, spec.ArrayNew); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range ps[i : i+4] {
				if err := s.Unregister(p); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	cycle()
	if n := testing.AllocsPerRun(3, cycle); n != 0 {
		t.Fatalf("%v allocations per cycle of %d pointers", n, len(ps))
	}
	ix := indexOf(s, ps[0])
	if len(ix.slots) != indexMinSlots || 2*ix.used > len(ix.slots) {
		t.Fatalf("table of %d slots with %d keys after churning %d pointers, 4 live at a time", len(ix.slots), ix.used, len(ps))
	}
	checkPresence(t, s, ps[:100])
}

// Re-keying a tombstone moves the slot's state on, so a reader that read the
// state before the re-key cannot take the old state for the new key's.
func TestReadIndexRekeyMovesState(t *testing.T) {
	s := NewShardedN(nil, 1)
	sh := s.shardFor(0x1000)
	if err := s.Register(0x1000, 16, spec.ScalarNew); err != nil {
		t.Fatal(err)
	}
	if err := s.Unregister(0x1000); err != nil {
		t.Fatal(err)
	}
	ix := indexOf(s, 0x1000)
	sl, _, _ := ix.find(0x1000)
	before := sl.state.Load()
	// A pointer whose probe sequence starts at the tombstone takes it over.
	var q spec.Addr
	for q = 0x2000; slotHash(q)&ix.mask != slotHash(0x1000)&ix.mask; q += 16 {
	}
	sh.mu.Lock()
	got := sh.claim(q)
	got.own(16, spec.ScalarNew)
	sh.mu.Unlock()
	if got != sl || sl.key.Load() != uint64(q) {
		t.Fatal("the new pointer should recycle the tombstone on its probe sequence")
	}
	if sl.state.Load() == before || sl.state.Load()&stateTagMask != stateOwned {
		t.Fatalf("state %#x after the re-key, %#x before", sl.state.Load(), before)
	}
	checkPresence(t, s, []spec.Addr{0x1000, q})
}

// A buffer's holders wait on its visible flag; the extreme addresses, which
// rule out a sentinel key, are ordinary keys.
func TestReadIndexBufferAndEdges(t *testing.T) {
	s := NewShardedN(nil, 4)
	sh := s.shardFor(0x5000)
	sh.mu.Lock()
	rec := &buffer{real: 0x5000, bytes: 64}
	sh.claim(0x5000).hold(rec, 1)
	pending := s.IsRegistered(0x5000)
	rec.visible.Store(true)
	sh.mu.Unlock()
	if pending || !s.IsRegistered(0x5000) {
		t.Fatalf("holder present before its flag: %v; after: %v", pending, s.IsRegistered(0x5000))
	}

	for _, p := range []spec.Addr{1, math.MaxUint64} {
		registerAndRelease(t, s, p, 1)
	}
	if s.IsRegistered(0) {
		t.Fatal("null registered")
	}

	if err := s.Register(0x6000, 8, spec.ScalarNew); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.IsRegistered(0x6000) || indexOf(s, 0x6000) != nil {
		t.Fatal("Close should leave nothing registered and no index")
	}
}

// The steady-state Register/Unregister pair does not allocate.
func TestReadIndexNoAllocs(t *testing.T) {
	s := NewSharded(nil)
	ps := addrs(1024, 0x100000000, 64)
	cycle := func() {
		for _, p := range ps {
			_ = s.Register(p, 64, spec.ArrayNew)
			_ = s.Unregister(p)
		}
	}
	cycle() // warm up: every pointer gets its slot
	if n := testing.AllocsPerRun(5, cycle); n != 0 {
		t.Fatalf("%v allocations per cycle of %d pairs", n, len(ps))
	}
}

// A holder dropping its last share passes through the leaving state; a
// lock-free probe that meets it is not sure and IsRegistered asks under the
// lock, where the drop, once over, has settled the answer.
func TestReadIndexLeaving(t *testing.T) {
	s := NewShardedN(nil, 1)
	if _, err := s.RegisterBuffer(0x4000, 256, []spec.Addr{0x4040}, spec.ArrayNew); err != nil {
		t.Fatal(err)
	}
	sh := s.shardFor(0x4040)
	sh.mu.Lock()
	sl := sh.get(0x4040)
	sl.setState(stateLeaving) // as Unregister does before the total drops
	ok, sure := indexOf(s, 0x4040).lookup(0x4040)
	sh.mu.Unlock()
	if ok || sure {
		t.Fatalf("lookup of a leaving holder = %v, sure %v; want not sure", ok, sure)
	}
	sh.mu.Lock()
	sl.setState(stateHolder)
	sh.mu.Unlock()
	if !s.IsRegistered(0x4040) {
		t.Fatal("a holder back from leaving should read registered")
	}
	if err := s.Unregister(0x4040); err != nil {
		t.Fatal(err)
	}
	if ok, sure := indexOf(s, 0x4040).lookup(0x4040); ok || !sure {
		t.Fatalf("after the drop: lookup = %v, sure %v; want a sure false", ok, sure)
	}
	checkPresence(t, s, []spec.Addr{0x4000, 0x4040})
}
