package tensormap_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/memverify/memverify/model/overlap"
	"github.com/memverify/memverify/model/tensormap"
)

func vec(off, n int64) overlap.View {
	return overlap.View{Offset: off, ElemSize: 1, Shape: []int64{n}, Strides: []int64{1}}
}

// snapshot is everything observable about m through a fixed set of probes.
func snapshot(m tensormap.Map) string {
	s := fmt.Sprint(m.Len())
	for _, st := range []tensormap.Storage{1, 2} {
		for _, v := range []overlap.View{vec(0, 64), vec(0, 4), vec(8, 4)} {
			ts, err := m.LookupAll(st, v, 100)
			s += fmt.Sprint(ts, err)
		}
	}
	return s
}

func newModel(t *testing.T, capacity int) *tensormap.Model {
	t.Helper()
	m, err := tensormap.New(tensormap.Config{Capacity: capacity})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNewInvalidConfig(t *testing.T) {
	for _, c := range []int{0, -1, tensormap.MaxCapacity + 1} {
		if _, err := tensormap.New(tensormap.Config{Capacity: c}); !errors.Is(err, tensormap.ErrInvalidConfig) {
			t.Errorf("New(capacity %d) = %v, want ErrInvalidConfig", c, err)
		}
	}
}

func TestErrorsLeaveStateUnchanged(t *testing.T) {
	m := newModel(t, 2)
	if err := m.Insert(1, vec(0, 8), 5); err != nil {
		t.Fatal(err)
	}
	if err := m.Retire(3); err != nil {
		t.Fatal(err)
	}
	bad := overlap.View{ElemSize: 0, Shape: []int64{1}, Strides: []int64{1}}
	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"Insert null storage", func() error { return m.Insert(0, vec(0, 1), 6) }, tensormap.ErrNullStorage},
		{"Insert invalid view", func() error { return m.Insert(1, bad, 6) }, overlap.ErrInvalidView},
		{"Insert before last", func() error { return m.Insert(1, vec(0, 1), 4) }, tensormap.ErrOutOfOrder},
		{"Retire backwards", func() error { return m.Retire(2) }, tensormap.ErrOutOfOrder},
		{"Lookup null storage", func() error { _, _, err := m.Lookup(0, vec(0, 1)); return err }, tensormap.ErrNullStorage},
		{"Lookup invalid view", func() error { _, _, err := m.Lookup(1, bad); return err }, overlap.ErrInvalidView},
		{"LookupAll null storage", func() error { _, err := m.LookupAll(0, vec(0, 1), 1); return err }, tensormap.ErrNullStorage},
		{"LookupAll invalid view", func() error { _, err := m.LookupAll(1, bad, 1); return err }, overlap.ErrInvalidView},
		{"LookupAll limit 0", func() error { _, err := m.LookupAll(1, vec(0, 1), 0); return err }, tensormap.ErrInvalidLimit},
	}
	for _, c := range cases {
		before := snapshot(m)
		if err := c.call(); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
		if after := snapshot(m); after != before {
			t.Errorf("%s changed the state: %s -> %s", c.name, before, after)
		}
	}
}

func TestInsertBelowThreshold(t *testing.T) {
	m := newModel(t, 4)
	if err := m.Retire(10); err != nil {
		t.Fatal(err)
	}
	before := snapshot(m)
	if err := m.Insert(1, vec(0, 4), 9); !errors.Is(err, tensormap.ErrOutOfOrder) {
		t.Fatalf("Insert(task 9) after Retire(10) = %v, want ErrOutOfOrder", err)
	}
	if after := snapshot(m); after != before {
		t.Fatalf("state changed: %s -> %s", before, after)
	}
	if err := m.Insert(1, vec(0, 4), 10); err != nil {
		t.Fatalf("Insert(task 10) after Retire(10) = %v", err)
	}
}

func TestPoolExhausted(t *testing.T) {
	m := newModel(t, 2)
	for task := range tensormap.Task(2) {
		if err := m.Insert(1, vec(int64(task)*4, 4), task); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(m)
	if err := m.Insert(2, vec(0, 4), 2); !errors.Is(err, tensormap.ErrPoolExhausted) {
		t.Fatalf("Insert into a full pool = %v, want ErrPoolExhausted", err)
	}
	if after := snapshot(m); after != before {
		t.Fatalf("state changed: %s -> %s", before, after)
	}
	if err := m.Retire(1); err != nil {
		t.Fatal(err)
	}
	if err := m.Insert(2, vec(0, 4), 2); err != nil {
		t.Fatalf("Insert after a retire freed room = %v", err)
	}
}

func TestLookupAllLimit(t *testing.T) {
	m := newModel(t, 8)
	for task := range tensormap.Task(4) {
		for range 2 { // two entries per task: listed once each
			if err := m.Insert(1, vec(int64(task), 8), task); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := m.LookupAll(1, vec(0, 16), 4)
	if err != nil || !reflect.DeepEqual(got, []tensormap.Task{3, 2, 1, 0}) {
		t.Fatalf("LookupAll(limit 4) = %v, %v; want [3 2 1 0], nil", got, err)
	}
	got, err = m.LookupAll(1, vec(0, 16), 3)
	if !errors.Is(err, tensormap.ErrLimit) || !reflect.DeepEqual(got, []tensormap.Task{3, 2, 1}) {
		t.Fatalf("LookupAll(limit 3) = %v, %v; want [3 2 1], ErrLimit", got, err)
	}
}

func TestLookupSemantics(t *testing.T) {
	m := newModel(t, 8)
	ins := func(s tensormap.Storage, v overlap.View, task tensormap.Task) {
		t.Helper()
		if err := m.Insert(s, v, task); err != nil {
			t.Fatal(err)
		}
	}
	even := overlap.View{Offset: 0, ElemSize: 1, Shape: []int64{4}, Strides: []int64{2}}
	odd := overlap.View{Offset: 1, ElemSize: 1, Shape: []int64{4}, Strides: []int64{2}}
	ins(1, even, 1)
	ins(2, vec(0, 8), 2) // another storage never overlaps
	ins(1, vec(16, 4), 3)
	if task, ok, err := m.Lookup(1, odd); ok || err != nil {
		t.Errorf("Lookup(odd bytes) = %d, %v, %v; want none (interleaved views touch no common byte)", task, ok, err)
	}
	if task, ok, _ := m.Lookup(1, vec(6, 12)); !ok || task != 3 {
		t.Errorf("Lookup = %d, %v; want the newest overlapping producer 3", task, ok)
	}
	if err := m.Retire(3); err != nil {
		t.Fatal(err)
	}
	if task, ok, _ := m.Lookup(1, even); ok {
		t.Errorf("Lookup found retired task %d", task)
	}
	if _, ok, _ := m.Lookup(1, vec(16, 1)); !ok {
		t.Errorf("task 3 is at the threshold, so still live, but Lookup missed it")
	}
	empty := overlap.View{Offset: 16, ElemSize: 1, Shape: []int64{0}, Strides: []int64{1}}
	if _, ok, err := m.Lookup(1, empty); ok || err != nil {
		t.Errorf("an empty view overlapped something (%v, %v)", ok, err)
	}
}

func TestInsertCopiesView(t *testing.T) {
	m := newModel(t, 2)
	v := vec(0, 4)
	if err := m.Insert(1, v, 1); err != nil {
		t.Fatal(err)
	}
	v.Shape[0] = 100 // the caller reuses its slice
	if _, ok, _ := m.Lookup(1, vec(50, 1)); ok {
		t.Fatal("the model kept the caller's slice instead of a copy")
	}
}

func TestTooHardIsDependency(t *testing.T) {
	tooHard := func(a, b overlap.View) (overlap.Verdict, error) { return overlap.TooHard, nil }
	m, err := tensormap.New(tensormap.Config{Capacity: 2, Solver: tooHard})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Insert(1, vec(0, 1), 7); err != nil {
		t.Fatal(err)
	}
	if task, ok, _ := m.Lookup(1, vec(100, 1)); !ok || task != 7 {
		t.Fatalf("Lookup with a TooHard solver = %d, %v; want task 7", task, ok)
	}
}

// TestEmptyViewsNeverReachTheSolver: an empty view overlaps nothing, so no
// solver, even one that answers TooHard to everything, makes a dependency
// through one: neither a recorded empty view nor an empty query.
func TestEmptyViewsNeverReachTheSolver(t *testing.T) {
	tooHard := func(a, b overlap.View) (overlap.Verdict, error) { return overlap.TooHard, nil }
	m, err := tensormap.New(tensormap.Config{Capacity: 4, Solver: tooHard})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Insert(1, vec(0, 0), 7); err != nil {
		t.Fatal(err)
	}
	for _, q := range []overlap.View{vec(0, 4), vec(0, 0)} {
		if task, ok, err := m.Lookup(1, q); ok || err != nil {
			t.Errorf("Lookup(1, %v) after an empty write = task %d, %v, %v; want none", q, task, ok, err)
		}
	}
	if err := m.Insert(1, vec(0, 4), 8); err != nil {
		t.Fatal(err)
	}
	if task, ok, err := m.Lookup(1, vec(0, 0)); ok || err != nil {
		t.Errorf("empty Lookup = task %d, %v, %v; want none", task, ok, err)
	}
}

// TestBruteForceExactOnDisjointBounds: the contract asks every solver to be
// exact when the views' byte bounds are disjoint, and implementations skip
// the solver there; the model's default must not report a dependency on a
// view a terabyte away just because it is too large to enumerate.
func TestBruteForceExactOnDisjointBounds(t *testing.T) {
	big := overlap.View{ElemSize: 4, Shape: []int64{1 << 21}, Strides: []int64{4}} // 8 MiB: beyond MaxTouches
	far := overlap.View{Offset: 1 << 40, ElemSize: 4}
	near := overlap.View{Offset: 1 << 20, ElemSize: 4}
	if v, err := tensormap.BruteForce(big, far); v != overlap.No || err != nil {
		t.Errorf("BruteForce(8 MiB view, a view 1 TiB away) = %v, %v; want No", v, err)
	}
	if v, err := tensormap.BruteForce(far, big); v != overlap.No || err != nil {
		t.Errorf("BruteForce(a view 1 TiB away, 8 MiB view) = %v, %v; want No", v, err)
	}
	if v, err := tensormap.BruteForce(big, near); v != overlap.TooHard || err != nil {
		t.Errorf("BruteForce(8 MiB view, a view inside its bounds) = %v, %v; want TooHard", v, err)
	}
	m, err := tensormap.New(tensormap.Config{Capacity: 4})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Insert(1, big, 1); err != nil {
		t.Fatal(err)
	}
	if task, ok, err := m.Lookup(1, far); ok || err != nil {
		t.Errorf("Lookup of a view 1 TiB past the producer's = %v, %v, %v; want no producer", task, ok, err)
	}
}
