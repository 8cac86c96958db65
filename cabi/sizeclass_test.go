//go:build cgo

package cabi_test

import (
	"testing"

	"github.com/memverify/memverify/cabi"
)

// TestSizeclassExample runs every sizeclass suite against the C example.
func TestSizeclassExample(t *testing.T) {
	lib := example(t, "sizeclass")
	runSuites(t, lib, cabi.DomainSizeclass)
}

// TestSizeclassExampleBug shows the suite named by the example kill its
// seeded bug.
func TestSizeclassExampleBug(t *testing.T) {
	lib := example(t, "sizeclass", "MEMVERIFY_BUG_ROUND_WRAP")
	mustKill(t, lib, cabi.DomainSizeclass, "StateMachine")
}
