package overlap_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/memverify/memverify/model/overlap"
)

func v(off, elem int64, shape, strides []int64) overlap.View {
	return overlap.View{Offset: off, ElemSize: elem, Shape: shape, Strides: strides}
}

func TestInvalidViews(t *testing.T) {
	ok := v(0, 4, []int64{4}, []int64{4})
	cases := []struct {
		name string
		view overlap.View
	}{
		{"element size 0", v(0, 0, []int64{4}, []int64{4})},
		{"negative element size", v(0, -4, []int64{4}, []int64{4})},
		{"negative extent", v(0, 4, []int64{4, -1}, []int64{4, 4})},
		{"negative extent next to a zero", v(0, 4, []int64{0, -1}, []int64{4, 4})},
		{"rank 9", v(0, 1, make([]int64, 9), make([]int64, 9))},
		{"strides missing", v(0, 4, []int64{4, 4}, []int64{4})},
		{"negative offset", v(-1, 4, []int64{4}, []int64{4})},
		{"negative offset of an empty view", v(-1, 4, []int64{0}, []int64{4})},
		{"reaches below 0", v(8, 4, []int64{4}, []int64{-4})},
		{"ends past 2^63-1", v(math.MaxInt64-2, 4, nil, nil)},
		{"extent past 2^63", v(0, 1, []int64{3}, []int64{1 << 62})},
		{"extent wraps to 0 in 64 bits", v(0, 1, []int64{1<<62 + 1}, []int64{4})},
		{"stride -2^63", v(math.MaxInt64, 1, []int64{2}, []int64{math.MinInt64})},
	}
	for _, c := range cases {
		before := clone(c.view)
		if err := c.view.Validate(); !errors.Is(err, overlap.ErrInvalidView) {
			t.Errorf("%s: Validate = %v, want ErrInvalidView", c.name, err)
		}
		for _, pair := range [][2]overlap.View{{c.view, ok}, {ok, c.view}} {
			if got, err := overlap.Overlap(pair[0], pair[1]); !errors.Is(err, overlap.ErrInvalidView) || got != overlap.No {
				t.Errorf("%s: Overlap = %v, %v; want No, ErrInvalidView", c.name, got, err)
			}
		}
		if _, err := overlap.InternalOverlap(c.view); !errors.Is(err, overlap.ErrInvalidView) {
			t.Errorf("%s: InternalOverlap error %v", c.name, err)
		}
		if _, err := overlap.Covers(ok, c.view); !errors.Is(err, overlap.ErrInvalidView) {
			t.Errorf("%s: Covers error %v", c.name, err)
		}
		if !reflect.DeepEqual(before, c.view) {
			t.Errorf("%s: the view was changed", c.name)
		}
	}
}

func TestValidEdges(t *testing.T) {
	cases := []overlap.View{
		v(math.MaxInt64, 1, nil, nil),                                 // the last byte of the address space
		v(math.MaxInt64-3, 4, []int64{1}, []int64{math.MinInt64}),     // a size-1 dim's stride means nothing
		v(0, 1, []int64{0, 3}, []int64{math.MaxInt64, math.MaxInt64}), // empty: strides reach nothing
		v(math.MaxInt64, 1, []int64{2}, []int64{-math.MaxInt64}),      // from 0 to 2^63-1 in one step
		v(0, 1, []int64{math.MaxInt64, 3}, []int64{0, 1}),             // numel above 2^63 through a broadcast
	}
	for _, c := range cases {
		if err := c.Validate(); err != nil {
			t.Errorf("%v: %v", c, err)
		}
	}
}

func TestTooLarge(t *testing.T) {
	big := v(0, 1, []int64{overlap.MaxTouches + 1}, []int64{1})
	small := v(0, 1, nil, nil)
	if _, err := overlap.Overlap(small, big); !errors.Is(err, overlap.ErrTooLarge) {
		t.Errorf("Overlap: %v, want ErrTooLarge", err)
	}
	if _, err := overlap.InternalOverlap(v(0, 1, []int64{math.MaxInt64, 3}, []int64{0, 1})); !errors.Is(err, overlap.ErrTooLarge) {
		t.Errorf("InternalOverlap of a view with more than 2^63 elements: %v, want ErrTooLarge", err)
	}
	// An empty view is decided before the size cap.
	if got, err := overlap.Overlap(big, v(0, 1, []int64{0}, []int64{1})); err != nil || got != overlap.No {
		t.Errorf("big against empty: %v, %v", got, err)
	}
}

func TestOverlapCases(t *testing.T) {
	cases := []struct {
		name string
		a, b overlap.View
		want overlap.Verdict
	}{
		{"interleaved equal strides", v(0, 4, []int64{4}, []int64{8}), v(4, 4, []int64{4}, []int64{8}), overlap.No},
		{"offset by half an element", v(0, 4, []int64{4}, []int64{8}), v(2, 4, []int64{4}, []int64{8}), overlap.Yes},
		{"touching ends", v(0, 4, []int64{2}, []int64{4}), v(8, 4, []int64{2}, []int64{4}), overlap.No},
		{"one byte shared", v(0, 4, []int64{2}, []int64{4}), v(7, 4, []int64{2}, []int64{4}), overlap.Yes},
		{"one byte shared, negative strides", v(4, 4, []int64{2}, []int64{-4}), v(11, 4, []int64{2}, []int64{-4}), overlap.Yes},
		{"empty against itself", v(0, 4, []int64{0}, []int64{4}), v(0, 4, []int64{0}, []int64{4}), overlap.No},
		{"rank 0 against itself", v(5, 1, nil, nil), v(5, 1, nil, nil), overlap.Yes},
		{"at the top", v(math.MaxInt64, 1, nil, nil), v(math.MaxInt64-3, 4, []int64{1}, []int64{-9}), overlap.Yes},
	}
	for _, c := range cases {
		for _, p := range [][2]overlap.View{{c.a, c.b}, {c.b, c.a}} {
			if got, err := overlap.Overlap(p[0], p[1]); err != nil || got != c.want {
				t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
			}
		}
	}
}

func TestInternalOverlap(t *testing.T) {
	cases := []struct {
		view overlap.View
		want overlap.Verdict
	}{
		{v(0, 4, []int64{4}, []int64{4}), overlap.No},
		{v(0, 4, []int64{4}, []int64{2}), overlap.Yes},       // sliding window
		{v(0, 4, []int64{3, 2}, []int64{0, 4}), overlap.Yes}, // broadcast
		{v(0, 4, []int64{1, 2}, []int64{0, 4}), overlap.No},  // size-1 dim with stride 0
		{v(0, 4, []int64{0, 2}, []int64{0, 0}), overlap.No},  // empty
		{v(0, 2, []int64{2, 3}, []int64{4, 2}), overlap.Yes}, // 4+0 = 0+2·2
	}
	for _, c := range cases {
		if got, err := overlap.InternalOverlap(c.view); err != nil || got != c.want {
			t.Errorf("%v: %v, %v; want %v", c.view, got, err, c.want)
		}
	}
}

// TestCoversSound checks Covers against the byte sets on random views: it
// may say false for a covered view, never true for an uncovered one.
func TestCoversSound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	claimed := 0
	for range 20000 {
		a, b := randomView(r), randomView(r)
		if r.IntN(3) == 0 { // b inside a, often
			b.Offset = a.Offset + int64(r.IntN(8))
		}
		if b.Validate() != nil {
			continue
		}
		got, err := overlap.Covers(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if got {
			claimed++
			if !subset(b, a) {
				t.Fatalf("Covers(%v, %v) but a lacks a byte of b", a, b)
			}
		}
	}
	if claimed < 100 {
		t.Errorf("Covers claimed only %d pairs: the test does not exercise it", claimed)
	}
}

func TestGapFree(t *testing.T) {
	cases := []struct {
		view overlap.View
		want bool
	}{
		{v(0, 4, []int64{4, 4}, []int64{16, 4}), true},
		{v(0, 4, []int64{4, 4}, []int64{4, 16}), true}, // transposed
		{v(0, 4, []int64{4, 3}, []int64{16, 4}), false},
		{v(6, 4, []int64{4}, []int64{-2}), true},
		{v(0, 4, []int64{1, 4}, []int64{1, 8}), false}, // a size-1 dim does not fill a gap
		{v(0, 4, []int64{3, 4}, []int64{0, 4}), true},
	}
	for _, c := range cases {
		if got := overlap.GapFree(c.view); got != c.want {
			t.Errorf("GapFree(%v) = %v", c.view, got)
		}
	}
}

func randomView(r *rand.Rand) overlap.View {
	rank := r.IntN(4)
	x := overlap.View{ElemSize: int64(1 + r.IntN(4)), Shape: make([]int64, rank), Strides: make([]int64, rank)}
	x.Offset = int64(r.IntN(32))
	for d := range rank {
		x.Shape[d] = int64(r.IntN(5))
		x.Strides[d] = int64(r.IntN(25) - 12)
		if x.Shape[d] > 1 && x.Strides[d] < 0 {
			x.Offset -= (x.Shape[d] - 1) * x.Strides[d]
		}
	}
	return x
}

// bytesOf lists the bytes a small valid view touches.
func bytesOf(x overlap.View) map[int64]bool {
	out := map[int64]bool{}
	for _, s := range starts(x) {
		for k := int64(0); k < x.ElemSize; k++ {
			out[s+k] = true
		}
	}
	return out
}

func subset(b, a overlap.View) bool {
	ab := bytesOf(a)
	for x := range bytesOf(b) {
		if !ab[x] {
			return false
		}
	}
	return true
}

// starts lists the element start addresses in row-major order.
func starts(x overlap.View) []int64 {
	if x.Empty() {
		return nil
	}
	out := []int64{x.Offset}
	for d := range x.Shape {
		var next []int64
		for _, s := range out {
			for i := int64(0); i < x.Shape[d]; i++ {
				next = append(next, s+i*x.Strides[d])
			}
		}
		out = next
	}
	return out
}

func clone(x overlap.View) overlap.View {
	x.Shape = append([]int64(nil), x.Shape...)
	x.Strides = append([]int64(nil), x.Strides...)
	return x
}
