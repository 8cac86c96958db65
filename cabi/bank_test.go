//go:build cgo

package cabi_test

import (
	"testing"

	"github.com/memverify/memverify/cabi"
)

// TestBankExample runs every bank suite against the C example.
func TestBankExample(t *testing.T) {
	lib := example(t, "bank")
	runSuites(t, lib, cabi.DomainBank)
}

// TestBankExampleBug shows the suite named by the example kill its seeded
// bug.
func TestBankExampleBug(t *testing.T) {
	lib := example(t, "bank", "MEMVERIFY_BUG_LIMIT_AFTER")
	mustKill(t, lib, cabi.DomainBank, "FreeListStateMachine")
}

// TestCPlusPlusExample runs the free-list suites against the C++ example:
// a C++ class behind an extern "C" shim, built with the C++ compiler.
func TestCPlusPlusExample(t *testing.T) {
	lib := example(t, "freelist-cpp")
	bt, err := lib.Bank()
	if err != nil {
		t.Fatal(err)
	}
	if bt.HasBanks() || !bt.HasFreeList() {
		t.Fatalf("the C++ example offers a free list only; HasFreeList %v, HasBanks %v", bt.HasFreeList(), bt.HasBanks())
	}
	runSuites(t, lib, cabi.DomainBank)
}
