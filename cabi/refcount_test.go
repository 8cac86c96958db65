//go:build cgo

package cabi_test

import (
	"testing"

	"github.com/memverify/memverify/cabi"
)

// TestRefcountExample runs every refcount suite against the C example.
func TestRefcountExample(t *testing.T) {
	lib := example(t, "refcount")
	runSuites(t, lib, cabi.DomainRefcount)
}

// TestRefcountExampleBug shows the suite named by the example kill its
// seeded bug.
func TestRefcountExampleBug(t *testing.T) {
	lib := example(t, "refcount", "MEMVERIFY_BUG_ALIAS_SET")
	mustKill(t, lib, cabi.DomainRefcount, "StateMachine")
}
