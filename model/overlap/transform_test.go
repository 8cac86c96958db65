package overlap_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/memverify/memverify/model/overlap"
)

func TestSlice(t *testing.T) {
	x, _ := overlap.Dense(0, 4, 4, 16)
	cases := []struct {
		dim               int
		start, stop, step int64
		want              overlap.View
	}{
		{1, 0, 16, 7, v(0, 4, []int64{4, 3}, []int64{64, 28})},
		{1, 3, 16, 3, v(12, 4, []int64{4, 5}, []int64{64, 12})},
		{0, 3, -1, -1, v(192, 4, []int64{4, 16}, []int64{-64, 4})},
		{1, 15, 0, -2, v(60, 4, []int64{4, 8}, []int64{64, -8})},
		{1, 5, 5, 1, v(0, 4, []int64{4, 0}, []int64{64, 4})},
	}
	for _, c := range cases {
		before := clone(x)
		got, err := overlap.Slice(x, c.dim, c.start, c.stop, c.step)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Slice(%d, %d:%d:%d) = %v, %v; want %v", c.dim, c.start, c.stop, c.step, got, err, c.want)
		}
		if !reflect.DeepEqual(before, x) {
			t.Fatal("Slice changed its input")
		}
	}
	for _, bad := range [][4]int64{{1, 0, 17, 1}, {1, -1, 4, 1}, {1, 4, 2, 1}, {1, 0, 4, 0}, {1, 16, 0, -1}, {2, 0, 1, 1}, {-1, 0, 1, 1}} {
		if _, err := overlap.Slice(x, int(bad[0]), bad[1], bad[2], bad[3]); !errors.Is(err, overlap.ErrBadTransform) {
			t.Errorf("Slice%v: %v, want ErrBadTransform", bad, err)
		}
	}
	if _, err := overlap.Slice(v(-1, 4, []int64{4}, []int64{4}), 0, 0, 1, 1); !errors.Is(err, overlap.ErrInvalidView) {
		t.Errorf("Slice of an invalid view: %v", err)
	}
}

// TestSliceExtremes: counts and strides of slices whose step or extent is
// near 2^63 are exact (nothing wraps), and a slice of an empty view, whose
// strides validation does not bound, only changes its shape.
func TestSliceExtremes(t *testing.T) {
	x, _ := overlap.Dense(0, 1, 10)
	broadcast := v(0, 1, []int64{math.MaxInt64}, []int64{0})
	empty := v(0, 1, []int64{0, 5}, []int64{1, 1 << 62})
	cases := []struct {
		in                overlap.View
		dim               int
		start, stop, step int64
		want              overlap.View
	}{
		{broadcast, 0, 0, math.MaxInt64, 2, v(0, 1, []int64{1 << 62}, []int64{0})},
		{broadcast, 0, math.MaxInt64 - 1, -1, -1, v(0, 1, []int64{math.MaxInt64}, []int64{0})},
		{x, 0, 0, 5, math.MaxInt64, v(0, 1, []int64{1}, []int64{1})},
		{x, 0, 2, -1, math.MinInt64, v(2, 1, []int64{1}, []int64{1})},
		{x, 0, 9, -1, math.MinInt64 + 1, v(9, 1, []int64{1}, []int64{1})},
		{empty, 1, 0, 5, 2, v(0, 1, []int64{0, 3}, []int64{1, 1 << 62})},
	}
	for _, c := range cases {
		got, err := overlap.Slice(c.in, c.dim, c.start, c.stop, c.step)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Slice(%v, %d, %d:%d:%d) = %v, %v; want %v", c.in, c.dim, c.start, c.stop, c.step, got, err, c.want)
			continue
		}
		if err := got.Validate(); err != nil {
			t.Errorf("Slice(%v, %d, %d:%d:%d) = %v: %v", c.in, c.dim, c.start, c.stop, c.step, got, err)
		}
	}
}

func TestTranspose(t *testing.T) {
	x, _ := overlap.Dense(8, 2, 2, 3, 4)
	got, err := overlap.Transpose(x, 2, 0, 1)
	want := v(8, 2, []int64{4, 2, 3}, []int64{2, 24, 8})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Transpose = %v, %v; want %v", got, err, want)
	}
	for _, bad := range [][]int{{0, 1}, {0, 1, 1}, {0, 1, 3}} {
		if _, err := overlap.Transpose(x, bad...); !errors.Is(err, overlap.ErrBadTransform) {
			t.Errorf("Transpose%v: %v", bad, err)
		}
	}
}

// TestReshapeKeepsElements checks on random views that a successful Reshape
// lists the same element addresses in the same row-major order, and that
// dense views always reshape.
func TestReshapeKeepsElements(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	done := 0
	for range 20000 {
		x := randomView(r)
		if x.Validate() != nil || r.IntN(2) == 0 {
			x, _ = overlap.Dense(int64(r.IntN(8)), int64(1+r.IntN(4)), x.Shape...)
		}
		n, _ := x.Numel()
		shape := randomShape(r, n)
		got, err := overlap.Reshape(x, shape...)
		if err != nil {
			if !errors.Is(err, overlap.ErrBadTransform) {
				t.Fatalf("Reshape(%v, %v): %v", x, shape, err)
			}
			if overlap.GapFree(x) && !hasInternalRepeat(x) && isRowMajor(x) {
				t.Fatalf("Reshape of the dense %v to %v refused: %v", x, shape, err)
			}
			continue
		}
		done++
		if !slices.Equal(starts(got), starts(x)) || got.ElemSize != x.ElemSize || !slices.Equal(got.Shape, shape) {
			t.Fatalf("Reshape(%v, %v) = %v: elements differ", x, shape, got)
		}
	}
	if done < 5000 {
		t.Errorf("only %d reshapes succeeded", done)
	}
	x, _ := overlap.Dense(0, 4, 4, 16)
	cols, _ := overlap.Slice(x, 1, 0, 8, 1)
	if _, err := overlap.Reshape(cols, 32); !errors.Is(err, overlap.ErrBadTransform) {
		t.Errorf("flattening a strided view needs a copy: %v", err)
	}
	if _, err := overlap.Reshape(x, 65); !errors.Is(err, overlap.ErrBadTransform) {
		t.Errorf("a count change: %v", err)
	}
}

func TestClone(t *testing.T) {
	x := v(100, 4, []int64{3, 5}, []int64{-8, 40})
	got, err := overlap.Clone(x)
	want := v(0, 4, []int64{3, 5}, []int64{20, 4})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Clone = %v, %v; want %v", got, err, want)
	}
	if _, err := overlap.Dense(0, 1<<40, 1<<20, 1<<20); !errors.Is(err, overlap.ErrInvalidView) {
		t.Errorf("Dense past 2^63: %v", err)
	}
	// A shape holding no element is valid whatever its extents: the
	// strides that would not fit are 0, and Reshape and Clone of empty
	// views, which go through Dense, succeed.
	huge := []int64{0, 1 << 62, 4}
	if got, err := overlap.Dense(0, 1, huge...); err != nil || !reflect.DeepEqual(got, v(0, 1, huge, []int64{0, 4, 1})) {
		t.Errorf("Dense of the empty %v = %v, %v", huge, got, err)
	}
	if _, err := overlap.Reshape(v(0, 1, []int64{0}, []int64{1}), huge...); err != nil {
		t.Errorf("Reshape of an empty view to %v: %v", huge, err)
	}
	if _, err := overlap.Clone(v(0, 1, huge, []int64{0, 0, 0})); err != nil {
		t.Errorf("Clone of the empty %v: %v", huge, err)
	}
}

func randomShape(r *rand.Rand, n int64) []int64 {
	var shape []int64
	for n > 1 && len(shape) < overlap.MaxRank-1 {
		f := int64(1 + r.IntN(int(n)))
		if n%f == 0 {
			shape = append(shape, f)
			n /= f
		}
	}
	shape = append(shape, n)
	if r.IntN(3) == 0 && len(shape) < overlap.MaxRank {
		shape = slices.Insert(shape, r.IntN(len(shape)+1), 1)
	}
	return shape
}

func hasInternalRepeat(x overlap.View) bool {
	got, _ := overlap.InternalOverlap(x)
	return got != overlap.No
}

// isRowMajor: each non-trivial dim steps over the whole of the next ones.
func isRowMajor(x overlap.View) bool {
	d, _ := overlap.Dense(x.Offset, x.ElemSize, x.Shape...)
	return slices.Equal(starts(d), starts(x))
}

// TestTransformsOfSize1DimsAtTheTop: a size-1 dim's stride addresses
// nothing, so a view whose last byte is at the top of the int64 range stays
// valid through Dense, Clone and Reshape even where that stride would not fit.
func TestTransformsOfSize1DimsAtTheTop(t *testing.T) {
	const n = 1 << 62 // 2-byte elements: the last byte is 2^63-1
	x := overlap.View{ElemSize: 2, Shape: []int64{n}, Strides: []int64{2}}
	if _, err := overlap.Dense(0, 2, 1, n); err != nil {
		t.Errorf("Dense(0, 2, 1, 2^62): %v", err)
	}
	if _, err := overlap.Dense(0, 2, 1, 1, n); err != nil {
		t.Errorf("Dense(0, 2, 1, 1, 2^62): %v", err)
	}
	if _, err := overlap.Dense(0, 2, 2, n); !errors.Is(err, overlap.ErrInvalidView) {
		t.Errorf("Dense(0, 2, 2, 2^62) = %v, want ErrInvalidView (2^64 bytes)", err)
	}
	if _, err := overlap.Clone(overlap.View{ElemSize: 2, Shape: []int64{1, n}, Strides: []int64{0, 2}}); err != nil {
		t.Errorf("Clone of [1 2^62]: %v", err)
	}
	for _, shape := range [][]int64{{1, n}, {n, 1}, {1, n, 1}} {
		got, err := overlap.Reshape(x, shape...)
		if err != nil {
			t.Errorf("Reshape([2^62] stride 2, %v): %v", shape, err)
			continue
		}
		if lo, hi, _ := got.Bounds(); lo != 0 || hi != 1<<63-1 {
			t.Errorf("Reshape(%v) spans [%d, %d], want the same bytes [0, 2^63-1]", shape, lo, hi)
		}
	}
	y := overlap.View{ElemSize: 1, Shape: []int64{2}, Strides: []int64{1 << 62}}
	if _, err := overlap.Reshape(y, 1, 2); err != nil {
		t.Errorf("Reshape([2] stride 2^62, 1, 2): %v", err)
	}
}
