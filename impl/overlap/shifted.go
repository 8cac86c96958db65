package overlap

import (
	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/overlap"
)

// The shifted-copy fast path. Tiles of one matrix, the same slicing pattern
// at two offsets, a buffer and its next ring slot: a dependency tracker
// compares views that differ only in their offsets far more often than any
// other strided pair, and for those the equation of the search collapses.
// Reflect each negative stride (i → n−1−i): a view is then its lowest byte lo
// plus Σ i[d]·m[d] with m = |stride|, plus a byte within the element. So
// byte p of element i of a meets byte q of element j of b when
//
//	Σ (i[d] − j[d])·m[d] + (p − q) = loB − loA,
//
// and the views overlap exactly when the distance δ = |loB − loA| lies in
// the difference set D = {Σ k[d]·m[d] + t : |k[d]| ≤ n[d]−1, |t| ≤ e−1}
// (D is symmetric, so the sign of δ does not matter). Sort the dims that
// move something by |stride|, m1 ≤ m2 ≤ …, and let
// span[i] = e + Σ_{j<i} (n[j]−1)·m[j]: the differences the dims below i and
// the byte term reach lie strictly between −span[i] and span[i]. When the
// layout is nested — each |stride| at least the span of the dims below it,
// as in every row-major tensor and every slice of one — a remainder r can be
// reached at dim i only with k = ⌊r/m⌋ or k = ⌊r/m⌋+1, since any other k
// leaves at least m ≥ span[i] to the dims below. So a mixed-radix descent,
// outermost dim first, with at most two candidates per dim, decides δ ∈ D
// exactly; on real layouts one candidate dies at once and the descent is
// O(rank). A layout that is not nested is left to the search.

// sameShape reports whether a and b differ at most in their offsets and in
// what does not change the bytes they touch relative to their lowest byte:
// the signs of their strides, and the strides of size-1 dims.
func sameShape(a, b *spec.View) bool {
	if a.ElemSize != b.ElemSize || len(a.Shape) != len(b.Shape) {
		return false
	}
	for d, n := range a.Shape {
		if n != b.Shape[d] || (n > 1 && absU(a.Strides[d]) != absU(b.Strides[d])) {
			return false
		}
	}
	return true
}

// shiftDim is one dim of a shifted pair: its extent minus one, its |stride|,
// and the span of the dims below it (with the element).
type shiftDim struct{ n, m, below uint64 }

// shifted decides two valid, non-empty views of the same shape (sameShape)
// whose lowest bytes are loA and loB, by the descent above. ok is false
// when the layout is not nested: the search must decide.
func shifted(a *spec.View, loA, loB int64) (overlap, ok bool) {
	// Planned in place: a plan returned by value is copied on return, which
	// cost a shifted pair 142 instructions (721 to 863 on Large/interleaved).
	var p ShiftPlan
	p.plan(a)
	return p.decide(loA, loB)
}

// A ShiftPlan is the shifted-copy test of one layout (element size, shape
// and strides), planned once: the dims that move something, sorted by
// |stride|, with the span below each. A dependency tracker that keeps each
// layout once plans it once (PlanShift), and every pair of its views at two
// offsets is then decided by the descent alone (plan.go). The zero
// ShiftPlan is no plan: it places no view.
type ShiftPlan struct {
	dims   [spec.MaxRank]shiftDim
	k      int32 // dims[:k] move something
	nested bool  // each |stride| at least the span below it: the descent decides
	elem   uint64
	id     uint64 // PlanShift's number for the plan, named by its Placed views; 0 for none
}

// plan fills p, which is zero, with the plan for v's layout.
func (p *ShiftPlan) plan(v *spec.View) {
	p.elem = uint64(v.ElemSize)
	k := 0
	shape, strides := v.Shape, v.Strides[:len(v.Shape)]
	// Innermost dim first: a row-major layout then arrives sorted and the
	// insertion sort moves nothing. (Reflecting each negative stride,
	// i → n−1−i, makes a view its lowest byte plus non-negative multiples
	// of the |strides|: the distance is between the lowest bytes.)
	for d := len(shape) - 1; d >= 0; d-- {
		n, m := shape[d], absU(strides[d])
		if n < 2 || m == 0 {
			continue // moves nothing
		}
		j := k
		for ; j > 0 && p.dims[j-1].m > m; j-- { // insertion sort: at most eight dims
			p.dims[j] = p.dims[j-1]
		}
		p.dims[j] = shiftDim{n: uint64(n - 1), m: m}
		k++
	}
	p.k = int32(k)
	// Nested? The spans stay within the view's extent, below 2^63, so
	// nothing here wraps.
	span := p.elem
	for i := range p.dims[:k] {
		if p.dims[i].m < span {
			return
		}
		p.dims[i].below = span
		span += p.dims[i].n * p.dims[i].m
	}
	p.nested = true
}

// decide decides two views with the planned layout whose lowest bytes are
// loA and loB (both in [0, 2^63)). ok is false when the layout is not
// nested: then the search must decide.
func (p *ShiftPlan) decide(loA, loB int64) (overlap, ok bool) {
	if !p.nested {
		return false, false
	}
	delta := uint64(loB - loA) // both in [0, 2^63): the difference fits
	if loA > loB {
		delta = uint64(loA - loB)
	}
	s := shiftSearch{dims: p.dims[:p.k], elem: p.elem}
	return s.reach(int(p.k)-1, delta), true
}

// shiftSearch is the descent over the sorted dims of a shifted pair.
type shiftSearch struct {
	dims []shiftDim
	elem uint64
}

// reach reports whether r ≥ 0 is Σ_{j≤i} k[j]·m[j] + t for some |k[j]| ≤ n[j]
// and |t| < elem. It walks down the dims, outermost first, keeping the one
// remainder that can still be reached, and recurses only when both
// candidates can (a stride less than twice the span below it).
func (s *shiftSearch) reach(i int, r uint64) bool {
	for ; i >= 0; i-- {
		d := &s.dims[i]
		q := r / d.m
		r0 := r - q*d.m // in [0, m)
		// k = q leaves r0; k = q+1 leaves −(m − r0), the same as m − r0
		// by symmetry. Either must be within the span below, and k within
		// the dim.
		low := q <= d.n && r0 < d.below
		high := q < d.n && r0 != 0 && d.m-r0 < d.below && !bugs.On(BugShiftOneCandidate)
		switch {
		case low && high:
			if s.reach(i-1, r0) {
				return true
			}
			r = d.m - r0
		case low:
			r = r0
		case high:
			r = d.m - r0
		default:
			return false
		}
	}
	return r < s.elem
}
