package sizeclass

import (
	"testing"

	spec "github.com/memverify/memverify/model/sizeclass"
)

// TestSlotTableFullTrimsAndRetries: when LockFree's slot table is full, an
// Alloc that needs a new block trims the cache and retries, as it does when
// the device is out of memory, instead of failing while cached blocks hold
// the slots.
func TestSlotTableFullTrimsAndRetries(t *testing.T) {
	cfg := spec.Config{Alignment: 256, Classes: []int64{1024, 4096}}
	l, err := NewLockFree(spec.NewSimDevice(1<<30), cfg)
	if err != nil {
		t.Fatal(err)
	}
	l.slots.limit = 5 // slot 0 means none: four blocks
	var held []spec.Addr
	for range 4 {
		a, err := l.Alloc(1024)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, a)
	}
	for _, a := range held {
		if err := l.Free(a); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Alloc(4096); err != nil {
		t.Fatalf("Alloc(4096) with every slot held by a cached block: %v; want a trim and a retry", err)
	}
}
