//go:build cgo

package cabi_test

import (
	"testing"

	"github.com/memverify/memverify/cabi"
)

// TestTensorMapExample runs every tensormap suite against the C example,
// which does not claim safety for concurrent use.
func TestTensorMapExample(t *testing.T) {
	lib := example(t, "tensormap")
	if lib.Concurrent(cabi.DomainTensorMap) {
		t.Errorf("the tensormap example claims MEMVERIFY_CONCURRENT; it is not safe for concurrent use")
	}
	runSuites(t, lib, cabi.DomainTensorMap)
}

// TestTensorMapExampleBug shows the suite named by the example kill its
// seeded bug.
func TestTensorMapExampleBug(t *testing.T) {
	lib := example(t, "tensormap", "MEMVERIFY_BUG_EVICT_LIVE")
	mustKill(t, lib, cabi.DomainTensorMap, "StateMachine")
}
