package sizeclass

import (
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
