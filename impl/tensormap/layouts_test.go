package tensormap

import (
	"math/rand/v2"
	"testing"

	implov "github.com/memverify/memverify/impl/overlap"
	"github.com/memverify/memverify/model/overlap"
	spec "github.com/memverify/memverify/model/tensormap"
)

// TestLayoutsAgainstCounts drives the intern table with random acquires and
// releases of a few dozen layouts (enough to grow the index several times
// and to make probe runs collide, so that removal shifts entries back) and
// checks it after every step against plain reference counts: a layout with
// references is found, with the bounds Bounds gives, under the id it was
// given; one without is not; and the index holds exactly the counted ones.
func TestLayoutsAgainstCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var views []overlap.View
	for k := range 40 {
		rank := 1 + k%3
		v := overlap.View{Offset: 1 << 20, ElemSize: int64(1 + k%4), Shape: make([]int64, rank), Strides: make([]int64, rank)}
		for d := range rank {
			v.Shape[d] = int64(2 + (k+d)%5)
			v.Strides[d] = int64((k*7+d*3)%23 - 11)
		}
		views = append(views, v)
	}
	var ls layouts
	refs := make([]int, len(views))
	ids := make([]int32, len(views))
	for step := range 20000 {
		k := rng.IntN(len(views))
		v := &views[k]
		id, lo, hi, found := ls.find(v, &ls.lastInsert)
		if found != (refs[k] > 0) {
			t.Fatalf("step %d: find(view %d) found=%v with %d references", step, k, found, refs[k])
		}
		wantLo, wantHi, _, err := implov.Bounds(v)
		if err != nil {
			t.Fatal(err)
		}
		if found && (id != ids[k] || lo != wantLo || hi != wantHi) {
			t.Fatalf("step %d: find(view %d) = id %d [%d, %d], want id %d [%d, %d]", step, k, id, lo, hi, ids[k], wantLo, wantHi)
		}
		switch {
		case refs[k] > 0 && rng.IntN(2) == 0:
			ls.release(ids[k])
			refs[k]--
		case found:
			ls.acquire(id)
			refs[k]++
		default:
			ids[k] = ls.add(v, wantLo, wantHi)
			refs[k] = 1
		}
		counted := 0
		for k, n := range refs {
			if n > 0 {
				counted++
				if got := ls.recs[ids[k]].refs; int(got) != n {
					t.Fatalf("step %d: layout of view %d counts %d references, want %d", step, k, got, n)
				}
			}
		}
		if ls.n != counted || indexed(&ls) != counted {
			t.Fatalf("step %d: index holds %d (n=%d), want %d", step, indexed(&ls), ls.n, counted)
		}
	}
}

func indexed(ls *layouts) int {
	n := 0
	for _, e := range ls.index {
		if e != 0 {
			n++
		}
	}
	return n
}

// TestLayoutsFindChecksTheOffset: a known layout at an offset that puts a
// byte outside [0, 2^63) is not found, so the careful measure reports it.
func TestLayoutsFindChecksTheOffset(t *testing.T) {
	v := overlap.View{Offset: 100, ElemSize: 4, Shape: []int64{3, 5}, Strides: []int64{-40, 8}} // bytes 20..135: down 80, up 35
	lo, hi, _, err := implov.Bounds(&v)
	if err != nil {
		t.Fatal(err)
	}
	var ls layouts
	ls.add(&v, lo, hi)
	for _, c := range []struct {
		off  int64
		want bool
	}{{100, true}, {80, true}, {79, false}, {-1, false}, {1<<63 - 1 - 35, true}, {1<<63 - 1 - 34, false}} {
		w := v
		w.Offset = c.off
		_, _, _, found := ls.find(&w, &ls.lastLookup)
		_, _, _, err := implov.Bounds(&w)
		if found != c.want || (err == nil) != c.want {
			t.Errorf("offset %d: found %v, Bounds error %v; want found %v", c.off, found, err, c.want)
		}
	}
	for _, w := range []overlap.View{
		{Offset: 100, ElemSize: 4, Shape: []int64{3, 5}, Strides: []int64{-40}}, // strides do not match
		{Offset: 100, ElemSize: 2, Shape: []int64{3, 5}, Strides: []int64{-40, 8}},
		{Offset: 100, ElemSize: 4, Shape: []int64{3, 5, 1}, Strides: []int64{-40, 8, 0}},
	} {
		if _, _, _, found := ls.find(&w, &ls.lastLookup); found {
			t.Errorf("find(%v) found the layout of %v", w, v)
		}
	}
}

// TestTilesShareOneLayout: the four tiles of a matrix are one layout,
// counted four times, and the map keeps their dims once.
func TestTilesShareOneLayout(t *testing.T) {
	r, err := New(spec.Config{Capacity: 8})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		row, col := int64(i/2), int64(i%2)
		v := overlap.View{Offset: row*32*256 + col*128, ElemSize: 4, Shape: []int64{32, 32}, Strides: []int64{256, 4}}
		if err := r.Insert(1, v, spec.Task(i)); err != nil {
			t.Fatal(err)
		}
	}
	if r.layouts.n != 1 || r.layouts.recs[0].refs != 4 {
		t.Fatalf("%d layouts, the first counted %d times; want 1 counted 4 times", r.layouts.n, r.layouts.recs[0].refs)
	}
}
