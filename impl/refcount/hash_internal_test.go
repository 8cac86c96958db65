package refcount

import (
	"slices"
	"testing"

	spec "github.com/memverify/memverify/model/refcount"
)

// CollidingPointers hands out ascending pointers on its stride whose hashes
// agree in the low bits asked for, so they share a home slot in a LockFree
// table of that many bits.
func TestCollidingPointersCollide(t *testing.T) {
	const from, stride, n, lowBits = 0x10_0000_0000, 16, 8, 12
	ps := CollidingPointers(from, stride, n, lowBits)
	if len(ps) != n || ps[0] != from || !slices.IsSorted(ps) {
		t.Fatalf("CollidingPointers = %#x", ps)
	}
	tb := newTable(1 << lowBits)
	for _, p := range ps {
		if (p-from)%stride != 0 || tb.home(p) != tb.home(from) {
			t.Fatalf("%#x: off the stride or another home (%d, want %d)", uint64(p), tb.home(p), tb.home(from))
		}
	}
	if got := CollidingPointers(from, 0, 2, 0); !slices.Equal(got, []spec.Addr{from, from + 16}) {
		t.Fatalf("with no bits to agree in, CollidingPointers = %#x, want the first two on a stride of 16", got)
	}
}
