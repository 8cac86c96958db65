package refcount

import (
	"errors"
	"runtime/debug"
	"testing"

	spec "github.com/memverify/memverify/model/refcount"
)

// unmix inverts mix: each step of MurmurHash3's finaliser is a bijection.
func unmix(h uint64) spec.Addr {
	unshift := func(x uint64) uint64 { return x ^ x>>33 } // its own inverse: 2·33 > 64
	x := unshift(h)
	x *= inverse(0xc4ceb9fe1a85ec53)
	x = unshift(x)
	x *= inverse(0xff51afd7ed558ccd)
	return spec.Addr(unshift(x))
}

// inverse is the multiplicative inverse of an odd c modulo 2^64 (Newton's
// iteration doubles the correct low bits: 3, 6, 12, 24, 48, 96).
func inverse(c uint64) uint64 {
	x := c
	for range 5 {
		x *= 2 - c*x
	}
	return x
}

// Pointers whose hashes agree in their low 20 bits share a home slot in every
// table of up to 2^20 slots, so doubling the table never separates them. The
// table must stay a small multiple of its live keys (probing further instead
// of growing), and answer every query right.
func TestCollidingKeysDoNotInflateTheTable(t *testing.T) {
	if got := mix(unmix(0x1234_5678_9abc_def0)); got != 0x1234_5678_9abc_def0 {
		t.Fatalf("mix(unmix(h)) = %#x", got)
	}
	const live = 64
	keys := make([]spec.Addr, live+1)
	for i := range keys {
		keys[i] = unmix(uint64(i+1)<<20 | 0xbeef)
	}
	absent := keys[live] // collides too, never registered
	keys = keys[:live]
	freed := map[spec.Addr]int{}
	lf := NewLockFreeN(spec.FreerFunc(func(p spec.Addr, _ int64, _ spec.Kind) { freed[p]++ }), 8)
	for _, p := range keys {
		if err := lf.Register(p, 16, spec.ScalarNew); err != nil {
			t.Fatal(err)
		}
	}
	if c := len(lf.tab.Load().slots); c > 16*live {
		t.Fatalf("%d live keys in a table of %d slots", live, c)
	}
	lf.Stats() // a slot-for-slot rebuild keeps what the table needs to hold them
	for _, p := range keys {
		if err := lf.Retain(p); err != nil {
			t.Fatal(err)
		}
		if !lf.IsRegistered(p) || lf.Refs(p) != 2 {
			t.Fatalf("%#x: IsRegistered %v, Refs %d; want true, 2", uint64(p), lf.IsRegistered(p), lf.Refs(p))
		}
	}
	if lf.IsRegistered(absent) {
		t.Fatal("a key never registered is registered")
	}
	if err := lf.Unregister(absent); !errors.Is(err, spec.ErrNotRegistered) {
		t.Fatalf("Unregister(absent) = %v", err)
	}
	if err := lf.Register(keys[0], 16, spec.ScalarNew); !errors.Is(err, spec.ErrAlreadyRegistered) {
		t.Fatalf("Register(keys[0]) again = %v", err)
	}
	if s := lf.Stats(); s != (spec.Stats{Pointers: live, Bytes: 16 * live}) {
		t.Fatalf("Stats() = %+v", s)
	}
	for _, p := range keys {
		for range 2 {
			if err := lf.Unregister(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, p := range keys {
		if freed[p] != 1 || lf.IsRegistered(p) {
			t.Fatalf("%#x: freed %d times, registered %v", uint64(p), freed[p], lf.IsRegistered(p))
		}
	}
	if c := len(lf.tab.Load().slots); c > 16*live {
		t.Fatalf("a table of %d slots", c)
	}
}

// TestChurnOfCollidingKeysKeepsProbesShort: addresses that collide in the
// hash, each registered once and released, leave a run of dead keys that
// every Register probes. A rebuild drops them; it must not also raise the
// probe limit (nor grow the table) as if live keys had filled the run, or
// churn raises the limit towards the capacity and every claim probes that
// far.
func TestChurnOfCollidingKeysKeepsProbesShort(t *testing.T) {
	lf := NewLockFreeN(nil, 8)
	keep := unmix(0xbeef) // one live key in the same run throughout
	if err := lf.Register(keep, 16, spec.ScalarNew); err != nil {
		t.Fatal(err)
	}
	for i := range 20000 {
		p := unmix(uint64(i+1)<<20 | 0xbeef)
		if err := lf.Register(p, 16, spec.ScalarNew); err != nil {
			t.Fatal(err)
		}
		if err := lf.Unregister(p); err != nil {
			t.Fatal(err)
		}
	}
	tb := lf.tab.Load()
	if c, limit := len(tb.slots), tb.limit; c > 1024 || limit > probeLimit(c) {
		t.Errorf("after 20000 colliding keys churned past one live key: %d slots, probe limit %d; want at most 1024 slots and the default limit %d",
			c, limit, probeLimit(c))
	}
	if !lf.IsRegistered(keep) || lf.Refs(keep) != 1 {
		t.Errorf("the live key: registered %v, refs %d", lf.IsRegistered(keep), lf.Refs(keep))
	}
}

// An initial capacity beyond what memory can hold is clamped, not allocated.
func TestInitialCapacityIsClamped(t *testing.T) {
	// The clamped table is 512 MiB that nothing touches, so the pages stay
	// unmapped; a collection while the table is reachable would scan them all.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	lf := NewLockFreeN(nil, 1<<40)
	if c := len(lf.tab.Load().slots); c != maxInitialCapacity {
		t.Fatalf("NewLockFreeN(1<<40) made %d slots, want %d", c, maxInitialCapacity)
	}
	if err := lf.Register(0x1000, 16, spec.ArrayNew); err != nil || !lf.IsRegistered(0x1000) {
		t.Fatalf("Register = %v", err)
	}
}
