//go:build cgo

package cabi_test

import (
	"testing"

	"github.com/memverify/memverify/cabi"
)

// TestOverlapExample runs every overlap suite against the C example.
func TestOverlapExample(t *testing.T) {
	lib := example(t, "overlap")
	runSuites(t, lib, cabi.DomainOverlap)
}

// TestOverlapExampleBug shows the suite named by the example kill its
// seeded bug.
func TestOverlapExampleBug(t *testing.T) {
	lib := example(t, "overlap", "MEMVERIFY_BUG_CLOSED_INTERVAL")
	mustKill(t, lib, cabi.DomainOverlap, "MatchesModel")
}
