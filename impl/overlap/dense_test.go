package overlap_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	impl "github.com/memverify/memverify/impl/overlap"
	spec "github.com/memverify/memverify/model/overlap"
)

// The dense path of Exact (denseSpan, denseSpan2 and the bounds test written
// out in Exact) answers on its own for views with non-negative strides in
// order; these tests hold it to the careful path (Solver, which measures
// with overflow checks and never takes the dense path) and, where the views
// are small enough, to the model.

// sameAnswer reports whether two checkers' results agree: the same verdict,
// or errors matching the same sentinel.
func sameAnswer(v1 spec.Verdict, e1 error, v2 spec.Verdict, e2 error) bool {
	if e1 != nil || e2 != nil {
		return errors.Is(e1, spec.ErrInvalidView) == errors.Is(e2, spec.ErrInvalidView) &&
			errors.Is(e1, spec.ErrTooLarge) == errors.Is(e2, spec.ErrTooLarge) && v1 == v2
	}
	return v1 == v2
}

// nearDense draws a view that is dense or nearly so: a row-major tile of a
// random rank (2 most often) with non-negative strides, its rows sometimes
// longer than the tile and its elements sometimes overlapping windows
// (stride below the element size), then up to two defects — a gap, a stride
// a little short or long, a zero or negative stride, an empty dim, a size-1
// dim with a stray stride, two dims swapped.
func nearDense(r *rand.Rand) spec.View {
	rank := []int{0, 1, 2, 2, 2, 2, 3, 4}[r.IntN(8)]
	elem := []int64{1, 2, 3, 4, 8}[r.IntN(5)]
	v := spec.View{Offset: int64(r.IntN(96)), ElemSize: elem, Shape: make([]int64, rank), Strides: make([]int64, rank)}
	step := elem
	if r.IntN(4) == 0 {
		step = 1 + r.Int64N(elem) // sliding windows: still gap-free
	}
	for d := rank - 1; d >= 0; d-- {
		v.Shape[d] = int64(1 + r.IntN(4))
		v.Strides[d] = step
		if d == rank-1 && step < elem {
			step = elem // the windows' end
		}
		step += (v.Shape[d] - 1) * v.Strides[d]
		if r.IntN(3) == 0 {
			step += r.Int64N(2 * elem) // a row longer than the tile: still in order
		}
	}
	for k := r.IntN(3); k > 0 && rank > 0; k-- {
		d := r.IntN(rank)
		switch r.IntN(7) {
		case 0:
			v.Strides[d] += 1 + r.Int64N(elem+2) // past the inner bytes: a gap, or not
		case 1:
			v.Strides[d] = max(0, v.Strides[d]-1-r.Int64N(elem)) // a little short
		case 2:
			v.Strides[d] = 0 // broadcast
		case 3:
			if v.Strides[d] > 0 { // reversed
				v.Strides[d] = -v.Strides[d]
				v.Offset += (v.Shape[d] - 1) * -v.Strides[d]
			}
		case 4:
			v.Shape[d] = 0 // empty
		case 5:
			v.Shape[d], v.Strides[d] = 1, r.Int64N(1<<10) // its stride means nothing
		case 6:
			e := r.IntN(rank)
			v.Shape[d], v.Shape[e] = v.Shape[e], v.Shape[d]
			v.Strides[d], v.Strides[e] = v.Strides[e], v.Strides[d]
		}
	}
	return v
}

func TestDensePath(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	n := 50000
	if testing.Short() {
		n = 5000
	}
	ranks := map[[2]int]int{}
	yes := 0
	for range n {
		a, b := nearDense(r), nearDense(r)
		got, gotErr := impl.Exact(a, b)
		want, wantErr := spec.Overlap(a, b)
		if !sameAnswer(got, gotErr, want, wantErr) {
			t.Fatalf("Exact(%v, %v) = %v, %v; the model says %v, %v", a, b, got, gotErr, want, wantErr)
		}
		ranks[[2]int{len(a.Shape), len(b.Shape)}]++
		if want == spec.Yes {
			yes++
		}
	}
	if yes < n/5 || yes > n*4/5 {
		t.Errorf("%d of %d pairs overlap: the test is lopsided", yes, n)
	}
	if ranks[[2]int{2, 2}] < n/5 {
		t.Errorf("only %d of %d pairs of rank 2: the dense path's unrolled case is barely tested", ranks[[2]int{2, 2}], n)
	}
}

// TestDenseLimits puts views at the edges of the dense path's guard (element
// sizes, extents and strides near 2^28, offsets near 2^62 and 2^63, ranks
// near spec.MaxRank), where it must hand over to the careful path rather
// than wrap; the careful path decides these exactly.
func TestDenseLimits(t *testing.T) {
	const lim = 1 << 28
	big := []int64{lim - 1, lim, lim + 1, 1 << 40, math.MaxInt64}
	var views []spec.View
	for _, x := range big {
		views = append(views,
			v(0, x, nil, nil),
			v(0, 4, []int64{x, 2}, []int64{8, 4}),
			v(0, 4, []int64{2, x}, []int64{4 * x, 4}),
			v(0, 1, []int64{2, 2}, []int64{x, 1}),
			v(0, 1, []int64{1, 2}, []int64{x, 1}),
			v(0, 1, []int64{2, 1}, []int64{1, x}),
			v(0, 1, []int64{x}, []int64{1}),
			v(0, 1, []int64{2}, []int64{x}),
			v(0, 1, []int64{3, 3, 3}, []int64{x, x, 1}),
			v(0, 1, []int64{1, x}, []int64{1, 1}),
			v(0, 1, []int64{x, 1}, []int64{1, 1}),
			v(0, 1, []int64{x, x}, []int64{0, 0}),
			v(0, x, []int64{2, 2}, []int64{2, 1}),
			v(0, x, []int64{2}, []int64{1}),
		)
	}
	for _, off := range []int64{1<<62 - 1, 1 << 62, math.MaxInt64 - 64, math.MaxInt64, -1} {
		views = append(views,
			v(off, 1, nil, nil),
			v(off, 4, []int64{2, 2}, []int64{8, 4}),
			v(off, 4, []int64{2}, []int64{4}),
		)
	}
	for _, rank := range []int{spec.MaxRank, spec.MaxRank + 1} {
		shape, strides := make([]int64, rank), make([]int64, rank)
		for d := range shape {
			shape[d], strides[d] = 2, 1<<(rank-1-d)
		}
		views = append(views, v(0, 1, shape, strides), v(3, 1, shape, strides))
	}
	for _, w := range views[:len(views):len(views)] {
		if w.Offset == 0 {
			w.Offset = 12 // a sum of offset and extent wraps if the guard lets it
			views = append(views, w)
		}
	}
	for _, elem := range []int64{0, -1, math.MinInt64} { // invalid
		views = append(views, v(0, elem, nil, nil), v(0, elem, []int64{2}, []int64{0}), v(0, elem, []int64{2, 2}, []int64{0, 0}))
	}
	views = append(views,
		v(0, 4, []int64{2, 2}, []int64{8}),    // strides too short
		v(0, 4, []int64{2}, []int64{8, 4}),    // strides too long
		v(0, 4, []int64{2, 2}, []int64{8, 4}), // small and dense: meets the others at 0
		v(1<<20, 4, []int64{4, 4}, []int64{16, 4}),
	)
	solver := impl.Solver{MaxWork: 1 << 20}
	for _, a := range views {
		for _, b := range views {
			got, gotErr := impl.Exact(a, b)
			want, wantErr := solver.Overlap(a, b)
			if want == spec.TooHard {
				continue // beyond the search, not the dense path's business
			}
			if !sameAnswer(got, gotErr, want, wantErr) {
				t.Errorf("Exact(%v, %v) = %v, %v; the careful path says %v, %v", a, b, got, gotErr, want, wantErr)
			}
		}
	}
}
