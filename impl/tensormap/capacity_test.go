package tensormap_test

import (
	"errors"
	"testing"

	impl "github.com/memverify/memverify/impl/tensormap"
	spec "github.com/memverify/memverify/model/tensormap"
)

// Capacity is valid in [1, MaxCapacity], both ends included: New accepts
// MaxCapacity itself, and the Ring it returns works, while MaxCapacity+1 is
// refused. The pool of MaxCapacity slots is set up front (about 640 MiB of
// address space, of which New touches only the 68 MiB of bucket and task
// heads it fills with none; the slots are fresh zero pages until used), so
// the test costs a fraction of a second and little resident memory.
func TestNewAcceptsMaxCapacity(t *testing.T) {
	r, err := impl.New(spec.Config{Capacity: spec.MaxCapacity})
	if err != nil {
		t.Fatalf("New(MaxCapacity) = %v, want a Ring", err)
	}
	if err := r.Insert(1, vec(0, 8), 1); err != nil {
		t.Fatalf("Insert into a Ring of MaxCapacity: %v", err)
	}
	if task, ok, err := r.Lookup(1, vec(4, 8)); task != 1 || !ok || err != nil {
		t.Errorf("Lookup = %d, %v, %v; want 1, true, nil", task, ok, err)
	}
	if n := r.Len(); n != 1 {
		t.Errorf("Len = %d, want 1", n)
	}
	if err := r.Retire(2); err != nil {
		t.Fatal(err)
	}
	if n := r.Len(); n != 0 {
		t.Errorf("Len after Retire = %d, want 0", n)
	}
	if _, err := impl.New(spec.Config{Capacity: spec.MaxCapacity + 1}); !errors.Is(err, spec.ErrInvalidConfig) {
		t.Errorf("New(MaxCapacity+1) = %v, want ErrInvalidConfig", err)
	}
}
