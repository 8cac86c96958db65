package sizeclass

import (
	"cmp"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/memverify/memverify/sched"
)

// TestBlockLayout keeps block at 128 bytes, the size its padding assumes.
// The padding is for the normal build: under the sched tag the locks are
// the scheduler's, which are larger.
func TestBlockLayout(t *testing.T) {
	if sched.Enabled {
		t.Skip("the padding is sized for the normal build's locks")
	}
	if s := unsafe.Sizeof(block{}); s != 128 {
		t.Errorf("block is %d bytes, want 128: adjust the padding", s)
	}
	if s := unsafe.Sizeof(shard{}); s != 128 {
		t.Errorf("shard is %d bytes, want 128: adjust the padding", s)
	}
	if s := unsafe.Sizeof(lfShard{}); s != 128 {
		t.Errorf("lfShard is %d bytes, want 128: adjust the padding", s)
	}
	if s := unsafe.Sizeof(central{}); s != 128 {
		t.Errorf("central is %d bytes, want 128: adjust the padding", s)
	}
}

// TestIsolated checks that isolated slices keep their padding: cut from
// many arrays, no two lie closer than two paddings, and each has the
// capacity it was asked for, so that an append cannot write the padding.
func TestIsolated(t *testing.T) {
	type span struct{ lo, hi uintptr }
	var spans []span
	keep := make([][]int32, 0, 256) // alive until the end, so none is reused
	for n := range 256 {
		s := isolated[int32](n%13 + 1)
		if len(s) != n%13+1 || cap(s) != len(s) {
			t.Fatalf("isolated(%d): len %d cap %d", n%13+1, len(s), cap(s))
		}
		keep = append(keep, s)
		lo := uintptr(unsafe.Pointer(&s[0]))
		spans = append(spans, span{lo, lo + uintptr(len(s))*4})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	for i := 1; i < len(spans); i++ {
		if gap := spans[i].lo - spans[i-1].hi; gap < 2*isolation {
			t.Fatalf("two isolated slices %d bytes apart, want at least %d", gap, 2*isolation)
		}
	}
	runtime.KeepAlive(keep)
}
