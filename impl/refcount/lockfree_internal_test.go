package refcount

import (
	"errors"
	"testing"

	spec "github.com/memverify/memverify/model/refcount"
)

// keysIn counts the slots of the current table whose key is p.
func keysIn(lf *LockFree, p spec.Addr) int {
	t := lf.tab.Load()
	n := 0
	for i := range t.slots {
		if spec.Addr(t.slots[i].key.Load()) == p {
			n++
		}
	}
	return n
}

// collidingKeys returns n distinct 64-byte-aligned pointers with the same home
// slot in a table of the given capacity.
func collidingKeys(capacity, n int) []spec.Addr {
	t := newTable(capacity)
	var out []spec.Addr
	want := uint64(1<<64 - 1)
	for p := spec.Addr(0x10000); len(out) < n; p += 64 {
		h := t.home(p)
		if want == 1<<64-1 {
			want = h
		}
		if h == want {
			out = append(out, p)
		}
	}
	return out
}

// A key erased in front of a live key of the same chain leaves a tombstone;
// registering the live key again must find it further along the chain and
// refuse, not take the tombstone (SCL-Core's duplicate-key bug).
func TestTombstoneNotReusedByAnotherKey(t *testing.T) {
	lf := NewLockFreeN(nil, 8)
	ks := collidingKeys(8, 2)
	a, b := ks[0], ks[1]
	for _, p := range ks {
		if err := lf.Register(p, 16, spec.ArrayNew); err != nil {
			t.Fatal(err)
		}
	}
	if err := lf.Unregister(a); err != nil { // a's slot, first in the chain, dies
		t.Fatal(err)
	}
	if err := lf.Register(b, 16, spec.ArrayNew); !errors.Is(err, spec.ErrAlreadyRegistered) {
		t.Fatalf("Register(b) again = %v, want ErrAlreadyRegistered", err)
	}
	if n := keysIn(lf, b); n != 1 {
		t.Fatalf("b is in %d slots, want 1", n)
	}
	// The tombstone is a's: re-registering a revives it in place.
	if err := lf.Register(a, 32, spec.ScalarNew); err != nil {
		t.Fatal(err)
	}
	if n := keysIn(lf, a); n != 1 {
		t.Fatalf("a is in %d slots after revival, want 1", n)
	}
	if got := lf.Refs(a); got != 1 {
		t.Fatalf("Refs(a) = %d after revival, want 1", got)
	}
}

// Reviving a dead slot advances its generation, so a stale state word cannot
// be mistaken for the new registration's.
func TestReviveBumpsGeneration(t *testing.T) {
	lf := NewLockFreeN(nil, 8)
	const p = spec.Addr(0x1000)
	if err := lf.Register(p, 16, spec.ArrayNew); err != nil {
		t.Fatal(err)
	}
	sl := lf.tab.Load().find(p)
	g0 := gen(sl.state.Load())
	if err := lf.Unregister(p); err != nil {
		t.Fatal(err)
	}
	if err := lf.Register(p, 16, spec.ArrayNew); err != nil {
		t.Fatal(err)
	}
	if g1 := gen(sl.state.Load()); g1 != (g0+1)&genMask {
		t.Fatalf("generation %d after revival, want %d", g1, g0+1)
	}
}

// Churning distinct pointers through a small table fills it with tombstones;
// the rebuild a long probe forces must purge them, and growing must keep
// every live entry. A recycled working set of addresses settles into a table
// that stops rebuilding; churn over ever new addresses stays bounded.
func TestTableGrowsAndPurgesTombstones(t *testing.T) {
	var freed int
	lf := NewLockFreeN(spec.FreerFunc(func(spec.Addr, int64, spec.Kind) { freed++ }), 8)
	churn := func(base spec.Addr, n int) {
		for i := range n {
			p := base + spec.Addr(64*i)
			if err := lf.Register(p, 64, spec.ArrayNew); err != nil {
				t.Fatal(err)
			}
			if err := lf.Unregister(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 3 { // a few passes: each rebuild keeps room for the keys it saw
		churn(0x100000, 1000)
	}
	settled := lf.tab.Load()
	churn(0x100000, 1000) // the same addresses again: revived in place
	if lf.tab.Load() != settled {
		t.Fatal("recycling the same 1000 addresses rebuilt the table again")
	}
	churn(0x10000000, 100000) // ever new addresses
	if c := len(lf.tab.Load().slots); c > 2*tombstoneRoom {
		t.Fatalf("churn with no live entries grew the table to %d slots", c)
	}
	freed -= 104000
	const live = 500
	for i := range live {
		if err := lf.Register(spec.Addr(0x900000+16*i), 16, spec.ScalarNew); err != nil {
			t.Fatal(err)
		}
	}
	tab := lf.tab.Load()
	if len(tab.slots) < 2*live {
		t.Fatalf("%d live entries in %d slots", live, len(tab.slots))
	}
	for i := range live {
		if !lf.IsRegistered(spec.Addr(0x900000 + 16*i)) {
			t.Fatalf("%#x lost in a rebuild", 0x900000+16*i)
		}
	}
	if s := lf.Stats(); s.Pointers != live {
		t.Fatalf("Stats().Pointers = %d, want %d", s.Pointers, live)
	}
	if freed != 0 {
		t.Fatalf("%d frees more than registrations released", freed)
	}
}

// A rebuild (here Stats') freezes the old table for good: its words refuse
// every CAS, and its replacement answers instead.
func TestSnapshotFreezesOldTable(t *testing.T) {
	lf := NewLockFreeN(nil, 8)
	const p = spec.Addr(0x2000)
	if err := lf.Register(p, 16, spec.ArrayNew); err != nil {
		t.Fatal(err)
	}
	old := lf.tab.Load()
	lf.Stats()
	if lf.tab.Load() == old {
		t.Fatal("Stats did not replace the table")
	}
	if s := old.find(p).state.Load(); !frozen(s) {
		t.Fatal("the replaced table's slot is not frozen")
	}
	if o, _ := lf.updateIn(old, p, +1); o != retry {
		t.Fatalf("Retain on the frozen table: outcome %d, want retry", o)
	}
	if err := lf.Retain(p); err != nil || lf.Refs(p) != 2 {
		t.Fatalf("Retain after the snapshot: %v, Refs %d", err, lf.Refs(p))
	}
}

// A RegisterBuffer that conflicts on a later holder releases the slots it had
// claimed: nothing of it stays registered, and a later registration of those
// pointers succeeds.
func TestRegisterBufferAbortReleasesClaims(t *testing.T) {
	lf := NewLockFreeN(nil, 8)
	const real = spec.Addr(0x3000)
	if err := lf.Register(real+0x20, 8, spec.ArrayNew); err != nil {
		t.Fatal(err)
	}
	if _, err := lf.RegisterBuffer(real, 0x40, []spec.Addr{real + 0x10, real + 0x20}, spec.Custom); !errors.Is(err, spec.ErrAlreadyRegistered) {
		t.Fatalf("RegisterBuffer = %v, want ErrAlreadyRegistered", err)
	}
	for _, p := range []spec.Addr{real, real + 0x10} {
		if lf.IsRegistered(p) {
			t.Fatalf("%#x registered after the refused RegisterBuffer", uint64(p))
		}
		if err := lf.Register(p, 8, spec.ArrayNew); err != nil {
			t.Fatalf("Register(%#x) after the refused RegisterBuffer: %v", uint64(p), err)
		}
	}
}

// The mixing hash spreads aligned pointers over table homes as well as shards.
func TestHomeSpread(t *testing.T) {
	tab := newTable(1024)
	for _, stride := range []uint64{16, 64, 4096} {
		hits := make([]int, 1024)
		for i := range 256 * 1024 {
			hits[tab.home(spec.Addr(0x7f0000000000+uint64(i)*stride))]++
		}
		for h, n := range hits {
			if n < 256*6/10 || n > 256*14/10 {
				t.Fatalf("stride %d: home %d gets %d pointers, fair share 256", stride, h, n)
			}
		}
	}
}

// A packed record whose share outgrows its field moves to copy on write, and
// counts on exactly; a buffer with more holders than a packed word holds is
// copy on write from the start.
func TestRecordForms(t *testing.T) {
	for _, n := range []int{9, 14} { // 10 holders: 6-bit fields; 15: copy on write
		var frees int
		lf := NewLockFree(spec.FreerFunc(func(spec.Addr, int64, spec.Kind) { frees++ }))
		const real = spec.Addr(0x10000)
		aliases := make([]spec.Addr, n)
		for i := range aliases {
			aliases[i] = real + spec.Addr(16*(i+1))
		}
		if _, err := lf.RegisterBuffer(real, 0x1000, aliases, spec.ArrayNew); err != nil {
			t.Fatal(err)
		}
		rec := lf.tab.Load().find(real).rec.Load()
		if cow := rec.width == 0; cow != (n+1 > 10) {
			t.Fatalf("%d holders: width %d", n+1, rec.width)
		}
		const retains = 200 // past a 6-bit field's 63
		for range retains {
			if err := lf.Retain(aliases[0]); err != nil {
				t.Fatal(err)
			}
		}
		if c := rec.cnt.Load(); c != cntCOW {
			t.Fatalf("%d holders: cnt %#x after %d retains, want copy on write", n+1, c, retains)
		}
		if got, want := lf.Refs(real), int64(n+1+retains); got != want {
			t.Fatalf("Refs = %d, want %d", got, want)
		}
		for range retains {
			if err := lf.Unregister(aliases[0]); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range append(aliases, real) {
			if err := lf.Unregister(p); err != nil {
				t.Fatal(err)
			}
		}
		if frees != 1 || lf.Stats() != (spec.Stats{}) {
			t.Fatalf("%d frees, Stats %+v", frees, lf.Stats())
		}
	}
}
