package tensormap

import (
	"testing"
	"unsafe"
)

// The bounds the map keeps come from overlap.Bounds (bounds.go), which
// impl/overlap's TestBoundsAgreesWithModel checks against the model on views
// drawn around every edge; layouts_test.go checks that a layout's bounds at
// any offset are the ones Bounds gives.

// TestSlotLayout pins the sizes the layout is chosen for: a chain step
// reads one 32-byte node (two per cache line), and the back links stay out
// of it.
func TestSlotLayout(t *testing.T) {
	if s := unsafe.Sizeof(node{}); s != 32 {
		t.Fatalf("node is %d bytes, want 32", s)
	}
	if s := unsafe.Sizeof(link{}); s != 8 {
		t.Fatalf("link is %d bytes, want 8", s)
	}
}
