package tensormap_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	implov "github.com/memverify/memverify/impl/overlap"
	impl "github.com/memverify/memverify/impl/tensormap"
	"github.com/memverify/memverify/model/overlap"
	spec "github.com/memverify/memverify/model/tensormap"
)

func vec(off, n int64) overlap.View {
	return overlap.View{Offset: off, ElemSize: 1, Shape: []int64{n}, Strides: []int64{1}}
}

// snapshot is everything observable about m through a fixed set of probes.
func snapshot(m spec.Map) string {
	s := fmt.Sprint(m.Len())
	for _, st := range []spec.Storage{1, 2} {
		for _, v := range []overlap.View{vec(0, 64), vec(0, 4), vec(8, 4)} {
			ts, err := m.LookupAll(st, v, 100)
			s += fmt.Sprint(ts, err)
		}
	}
	return s
}

func newRing(t *testing.T, cfg spec.Config) *impl.Ring {
	t.Helper()
	r, err := impl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestNewInvalidConfig(t *testing.T) {
	for _, c := range []int{0, -1, spec.MaxCapacity + 1} {
		if _, err := impl.New(spec.Config{Capacity: c}); !errors.Is(err, spec.ErrInvalidConfig) {
			t.Errorf("New(capacity %d) = %v, want ErrInvalidConfig", c, err)
		}
	}
}

func TestErrorsLeaveStateUnchanged(t *testing.T) {
	r := newRing(t, spec.Config{Capacity: 2})
	if err := r.Insert(1, vec(0, 8), 5); err != nil {
		t.Fatal(err)
	}
	if err := r.Insert(1, vec(4, 8), 6); err != nil {
		t.Fatal(err)
	}
	if err := r.Retire(3); err != nil {
		t.Fatal(err)
	}
	bad := overlap.View{ElemSize: 0, Shape: []int64{1}, Strides: []int64{1}}
	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"Insert null storage", func() error { return r.Insert(0, vec(0, 1), 6) }, spec.ErrNullStorage},
		{"Insert invalid view", func() error { return r.Insert(1, bad, 6) }, overlap.ErrInvalidView},
		{"Insert before last", func() error { return r.Insert(1, vec(0, 1), 4) }, spec.ErrOutOfOrder},
		{"Insert into a full pool", func() error { return r.Insert(2, vec(0, 1), 7) }, spec.ErrPoolExhausted},
		{"Retire backwards", func() error { return r.Retire(2) }, spec.ErrOutOfOrder},
		{"Lookup null storage", func() error { _, _, err := r.Lookup(0, vec(0, 1)); return err }, spec.ErrNullStorage},
		{"Lookup invalid view", func() error { _, _, err := r.Lookup(1, bad); return err }, overlap.ErrInvalidView},
		{"LookupAll null storage", func() error { _, err := r.LookupAll(0, vec(0, 1), 1); return err }, spec.ErrNullStorage},
		{"LookupAll invalid view", func() error { _, err := r.LookupAll(1, bad, 1); return err }, overlap.ErrInvalidView},
		{"LookupAll limit 0", func() error { _, err := r.LookupAll(1, vec(0, 1), 0); return err }, spec.ErrInvalidLimit},
		{"LookupAll past its limit", func() error { _, err := r.LookupAll(1, vec(0, 16), 1); return err }, spec.ErrLimit},
	}
	for _, c := range cases {
		before := snapshot(r)
		if err := c.call(); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
		if after := snapshot(r); after != before {
			t.Errorf("%s changed the state: %s -> %s", c.name, before, after)
		}
	}
}

func TestInsertBelowThreshold(t *testing.T) {
	r := newRing(t, spec.Config{Capacity: 4})
	if err := r.Retire(10); err != nil {
		t.Fatal(err)
	}
	if err := r.Insert(1, vec(0, 4), 9); !errors.Is(err, spec.ErrOutOfOrder) {
		t.Fatalf("Insert(task 9) after Retire(10) = %v, want ErrOutOfOrder", err)
	}
	if r.Len() != 0 {
		t.Fatalf("Len = %d after a refused insert", r.Len())
	}
}

// TestSlotReuse fills a small ring many times over, retiring as it goes, and
// checks that every live producer stays visible and no retired one comes
// back. Task ids advance by 5, past the per-task window of 4, so both the
// eager cleanup and the lazy path (truncation, unlink on reuse) are used.
func TestSlotReuse(t *testing.T) {
	r := newRing(t, spec.Config{Capacity: 4})
	id := func(i int) spec.Task { return spec.Task(5 * i) }
	where := func(i int) (spec.Storage, overlap.View) { return spec.Storage(1 + i%3), vec(int64(i%5)*4, 6) }
	for i := range 200 {
		if i >= 3 {
			if err := r.Retire(id(i - 3)); err != nil {
				t.Fatal(err)
			}
		}
		s, v := where(i)
		if err := r.Insert(s, v, id(i)); err != nil {
			t.Fatalf("Insert(task %d): %v", id(i), err)
		}
		for j := max(i-5, 0); j <= i; j++ {
			s, v := where(j)
			got, err := r.LookupAll(s, v, 8)
			if err != nil {
				t.Fatal(err)
			}
			found := slices.Contains(got, id(j))
			if live := j >= i-3; live != found {
				t.Fatalf("after task %d: task %d live %v, found %v (%v)", id(i), id(j), live, found, got)
			}
		}
		if r.Len() != min(i+1, 4) {
			t.Fatalf("after task %d: Len = %d", id(i), r.Len())
		}
	}
}

func TestLookupAllNewestFirstDistinct(t *testing.T) {
	r := newRing(t, spec.Config{Capacity: 8})
	for task := range spec.Task(4) {
		for range 2 {
			if err := r.Insert(1, vec(int64(task), 8), task); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := r.LookupAll(1, vec(0, 16), 4)
	if err != nil || !reflect.DeepEqual(got, []spec.Task{3, 2, 1, 0}) {
		t.Fatalf("LookupAll = %v, %v; want [3 2 1 0], nil", got, err)
	}
	got, err = r.LookupAll(1, vec(0, 16), 3)
	if !errors.Is(err, spec.ErrLimit) || !reflect.DeepEqual(got, []spec.Task{3, 2, 1}) {
		t.Fatalf("LookupAll(limit 3) = %v, %v; want [3 2 1], ErrLimit", got, err)
	}
}

// tooHardPair finds two disjoint views (per the brute-force model) on which
// the exact solver with a work cap of one node gives up.
func tooHardPair(t *testing.T, capped implov.Solver) (a, b overlap.View) {
	t.Helper()
	for _, s1 := range []int64{12, 10, 14} {
		for _, s2 := range []int64{3, 5, 7} {
			a = overlap.View{Offset: 0, ElemSize: 2, Shape: []int64{4, 4}, Strides: []int64{s1, s2}}
			for off := int64(1); off < 16; off++ {
				for s := int64(2); s < 16; s++ {
					b = overlap.View{Offset: off, ElemSize: 1, Shape: []int64{6, 3}, Strides: []int64{s, 17}}
					truth, _ := overlap.Overlap(a, b)
					if v, _ := capped.Overlap(a, b); truth == overlap.No && v == overlap.TooHard {
						return a, b
					}
				}
			}
		}
	}
	t.Fatal("no disjoint pair makes the solver give up after one node")
	return
}

// TestTooHardFromTheExactSolver uses the real solver with a work cap too
// small for a pair that is in fact disjoint: the answer must be a dependency.
func TestTooHardFromTheExactSolver(t *testing.T) {
	capped := implov.Solver{MaxWork: 1}
	a, b := tooHardPair(t, capped)
	r := newRing(t, spec.Config{Capacity: 2, Solver: capped.Overlap})
	if err := r.Insert(1, a, 3); err != nil {
		t.Fatal(err)
	}
	if task, ok, _ := r.Lookup(1, b); !ok || task != 3 {
		t.Fatalf("Lookup(%v) after Insert(%v) with TooHard = %d, %v; want task 3 (TooHard is a dependency)", b, a, task, ok)
	}
	exact := newRing(t, spec.Config{Capacity: 2})
	if err := exact.Insert(1, a, 3); err != nil {
		t.Fatal(err)
	}
	if task, ok, _ := exact.Lookup(1, b); ok {
		t.Fatalf("Lookup with the uncapped solver = %d; want none (the views are disjoint)", task)
	}
}

func TestInsertCopiesView(t *testing.T) {
	r := newRing(t, spec.Config{Capacity: 2})
	v := vec(0, 4)
	if err := r.Insert(1, v, 1); err != nil {
		t.Fatal(err)
	}
	v.Shape[0] = 100
	if _, ok, _ := r.Lookup(1, vec(50, 1)); ok {
		t.Fatal("the ring kept the caller's slice instead of a copy")
	}
}

// TestTilesAndWideViews checks the paths the layout of an entry opens: tiles
// of one tensor side by side (bounds that meet, no common byte: the
// solver's shifted-copy path, with the entry's dims read from the entry),
// a view read back by a view with the same lowest byte, and views of rank
// above 4, whose dims live apart from the entry — each against the model.
func TestTilesAndWideViews(t *testing.T) {
	r := newRing(t, spec.Config{Capacity: 8})
	m, err := spec.New(spec.Config{Capacity: 8})
	if err != nil {
		t.Fatal(err)
	}
	const row = 64 * 4
	tile := func(i, j int64) overlap.View {
		return overlap.View{Offset: i*32*row + j*32*4, ElemSize: 4, Shape: []int64{32, 32}, Strides: []int64{row, 4}}
	}
	wide := func(off int64) overlap.View {
		return overlap.View{Offset: off, ElemSize: 2, Shape: []int64{2, 1, 2, 2, 2, 2}, Strides: []int64{64, 999, 32, 16, 8, -2}}
	}
	inserts := []struct {
		v    overlap.View
		task spec.Task
	}{{tile(0, 0), 1}, {tile(0, 1), 2}, {wide(2), 3}, {tile(1, 0), 4}}
	for _, in := range inserts {
		for _, x := range []spec.Map{r, m} {
			if err := x.Insert(1, in.v, in.task); err != nil {
				t.Fatal(err)
			}
		}
	}
	row1 := overlap.View{Offset: row, ElemSize: 4, Shape: []int64{64}, Strides: []int64{4}}
	queries := []overlap.View{tile(0, 0), tile(0, 1), tile(1, 1), tile(1, 0), row1, wide(0), wide(300),
		{Offset: 16 * row, ElemSize: 4, Shape: []int64{32, 32}, Strides: []int64{row, -4}}}
	for off := int64(2); off < 140; off += 3 { // wide views at many distances from the one inserted
		queries = append(queries, wide(off))
	}
	for _, q := range queries {
		gotT, gotOK, gotErr := r.Lookup(1, q)
		wantT, wantOK, wantErr := m.Lookup(1, q)
		if gotT != wantT || gotOK != wantOK || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("Lookup(%v) = %d, %v, %v; the model %d, %v, %v", q, gotT, gotOK, gotErr, wantT, wantOK, wantErr)
		}
		gotAll, gotErr := r.LookupAll(1, q, 8)
		wantAll, wantErr := m.LookupAll(1, q, 8)
		if !slices.Equal(gotAll, wantAll) || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("LookupAll(%v) = %v, %v; the model %v, %v", q, gotAll, gotErr, wantAll, wantErr)
		}
	}
}

// TestViewsBeyond4GiB checks views whose extent does not fit in a node's
// 32 bits: their far bytes must still be found, and bytes between their
// elements must not be.
func TestViewsBeyond4GiB(t *testing.T) {
	r := newRing(t, spec.Config{Capacity: 4})
	const s = 1<<32 + 100
	sparse := overlap.View{Offset: 8, ElemSize: 4, Shape: []int64{3}, Strides: []int64{s}} // bytes 8..11, s+8.., 2s+8..
	if err := r.Insert(1, sparse, 7); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		off  int64
		want bool
	}{{8, true}, {s + 10, true}, {2*s + 11, true}, {2*s + 12, false}, {s + 12, false}, {s/2 + 3, false}} {
		_, ok, err := r.Lookup(1, overlap.View{Offset: c.off, ElemSize: 1})
		if err != nil || ok != c.want {
			t.Errorf("Lookup of byte %d = %v, %v; want %v", c.off, ok, err, c.want)
		}
	}
}
