package tensormap_test

import (
	"errors"
	"testing"

	"github.com/memverify/memverify/model/tensormap"
)

// Capacity is valid in [1, MaxCapacity], both ends included: New accepts
// MaxCapacity itself, and the map it returns works, while MaxCapacity+1 is
// refused.
func TestNewAcceptsMaxCapacity(t *testing.T) {
	m, err := tensormap.New(tensormap.Config{Capacity: tensormap.MaxCapacity})
	if err != nil {
		t.Fatalf("New(MaxCapacity) = %v, want a map", err)
	}
	if err := m.Insert(1, vec(0, 8), 1); err != nil {
		t.Fatalf("Insert into a map of MaxCapacity: %v", err)
	}
	if task, ok, err := m.Lookup(1, vec(4, 8)); task != 1 || !ok || err != nil {
		t.Errorf("Lookup = %d, %v, %v; want 1, true, nil", task, ok, err)
	}
	if n := m.Len(); n != 1 {
		t.Errorf("Len = %d, want 1", n)
	}
	if _, err := tensormap.New(tensormap.Config{Capacity: tensormap.MaxCapacity + 1}); !errors.Is(err, tensormap.ErrInvalidConfig) {
		t.Errorf("New(MaxCapacity+1) = %v, want ErrInvalidConfig", err)
	}
}
