package sizeclass

import (
	"testing"
	"unsafe"
)

// TestBlockLayout keeps block at 128 bytes, the size its padding assumes.
func TestBlockLayout(t *testing.T) {
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
