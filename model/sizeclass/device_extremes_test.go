package sizeclass_test

import (
	"errors"
	"math"
	"testing"

	spec "github.com/memverify/memverify/model/sizeclass"
)

// TestSimDeviceAddressSpaceSpent: a device that has handed out nearly 2^64
// bytes in all refuses more with ErrOutOfMemory, and never hands out null or
// an address it handed out before.
func TestSimDeviceAddressSpaceSpent(t *testing.T) {
	d := spec.NewSimDevice(math.MaxInt64)
	seen := map[spec.Addr]bool{}
	for _, n := range []int64{math.MaxInt64, 1<<63 - 0x10000 - 1, 1} {
		p, err := d.Malloc(n)
		if errors.Is(err, spec.ErrOutOfMemory) {
			continue
		}
		if err != nil {
			t.Fatalf("Malloc(%d): %v", n, err)
		}
		if p == 0 || seen[p] {
			t.Fatalf("Malloc(%d) = %v: null or handed out before (%v)", n, p, seen)
		}
		seen[p] = true
		if err := d.Free(p); err != nil {
			t.Fatalf("Free(%v): %v", p, err)
		}
	}
	if v := d.Violations(); len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
}
