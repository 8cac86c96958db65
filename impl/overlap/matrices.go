package overlap

import spec "github.com/memverify/memverify/model/overlap"

// exactMatrices is exactQuick for two views of rank at most 2, not both
// vectors (exactLines takes those) — matrices, column slices and blocks of
// them — with decide's tests in decide's order, fused: one straight pass
// over each view's two dims (matrix.scan) measures it and keeps what the
// later tests read; the gap-free test of a view of two dims needs no sort
// (matrix.gapFree); the equation's at most four terms are added without a
// loop. The general path spends more on quickScan's loops, gapFreeSorted
// and termsOf than on the search such a pair needs. It answers what
// exactQuick would (the same tests, the same search under the same cap);
// ok is false, and nothing is decided, for the views quickScan turns away.
func exactMatrices(a, b *spec.View) (v spec.Verdict, ok bool) {
	var ma, mb matrix
	if !ma.scan(a) || !mb.scan(b) {
		return v, false
	}
	switch {
	case ma.lo > mb.hi || mb.lo > ma.hi:
		return spec.No, true
	case ma.ordered && mb.ordered:
		return spec.Yes, true // both gap-free and their bounds meet
	case ma.lo == mb.lo || ma.hi == mb.hi:
		return spec.Yes, true // a view touches its lowest and highest byte
	}
	if sameShape(a, b) {
		if found, ok := shifted(a, ma.lo, mb.lo); ok {
			return verdict(found), true
		}
	}
	if (mb.holds(ma.lo) || mb.holds(ma.hi)) && mb.gapFree() ||
		(ma.holds(mb.lo) || ma.holds(mb.hi)) && ma.gapFree() {
		return spec.Yes, true // decide's gap-free test, both ways
	}
	var eq smallEquation
	eq.rhs = uint64(min(mb.hi-ma.lo, ma.hi-mb.lo)) // ≥ 0: the bounds meet
	eq.add(ma.m0, ma.n0)
	eq.add(ma.m1, ma.n1)
	if !eq.add(mb.m0, mb.n0) && !eq.addThird(mb.m0, mb.n0) ||
		!eq.add(mb.m1, mb.n1) && !eq.addThird(mb.m1, mb.n1) {
		// Four distinct strides: the problem's search.
		ba, bb := box{lo: ma.lo, hi: ma.hi}, box{lo: mb.lo, hi: mb.hi}
		v, _ = searchProblem(a, b, &ba, &bb, DefaultMaxWork)
		return v, true
	}
	eq.settle(a.ElemSize, b.ElemSize)
	if eq.n < 3 {
		return verdict(eq.solve()), true // the slack alone, or one node
	}
	var run leafRun
	if found := run.root(&eq, DefaultMaxWork); found || !run.tooHard {
		return verdict(found), true
	}
	return spec.TooHard, true
}

// matrix is what exactMatrices keeps of one view of rank 1 or 2, a vector
// taken as a matrix of one row (extent 1, stride 0): its inclusive byte
// bounds, whether its dims are in order (quickScan's flag), its element
// size, and each dim's extent less one and |stride|.
type matrix struct {
	lo, hi  int64
	elem    int64
	n0, n1  int64
	m0, m1  uint64
	ordered bool
}

// scan measures v as quickScan does, with its guard: false for the views
// quickScan turns away (an empty or invalid view, extents, strides or an
// element size of 2^28 and more, an offset of 2^62 and more), which the
// careful path decides.
func (m *matrix) scan(v *spec.View) bool {
	if len(v.Strides) != len(v.Shape) {
		return false
	}
	var n0, s0 int64 // a vector's missing outer dim: extent 1, stride 0
	n1, s1 := v.Shape[0]-1, v.Strides[0]
	if len(v.Shape) == 2 {
		n0, s0, n1, s1 = n1, s1, v.Shape[1]-1, v.Strides[1]
	}
	sign0, sign1 := s0>>63, s1>>63
	m0, m1 := (s0^sign0)-sign0, (s1^sign1)-sign1 // |MinInt64| stays negative and fails the guard
	e := v.ElemSize
	if uint64((e-1)|n0|m0|n1|m1) >= quickLimit || uint64(v.Offset) >= quickOffsetLimit {
		return false
	}
	span0, span1 := n0*m0, n1*m1
	lo := v.Offset - span0&sign0 - span1&sign1
	if lo < 0 {
		return false // a negative stride reaches below byte 0: invalid
	}
	inner := e + span1 // the bytes the inner dim covers, when in order
	// Field by field: a composite literal is built aside and copied 16
	// bytes at a time, which the store buffer cannot forward.
	m.lo, m.hi, m.elem = lo, lo+inner+span0-1, e
	m.n0, m.n1, m.m0, m.m1 = n0, n1, uint64(m0), uint64(m1)
	m.ordered = (e-m1)|(inner-m0) >= 0
	return true
}

// holds reports whether byte x lies within the bounds.
func (m *matrix) holds(x int64) bool { return m.lo <= x && x <= m.hi }

// gapFree reports whether the view touches every byte of its bounds:
// gapFreeSorted for two dims, whose sort is one comparison. A dim that
// opens nothing (extent 1, stride 0) goes outermost and passes.
func (m *matrix) gapFree() bool {
	if m.ordered {
		return true
	}
	n0, m0, n1, m1 := m.n0, m.m0, m.n1, m.m1
	opens0, opens1 := n0 > 0 && m0 > 0, n1 > 0 && m1 > 0
	if !opens1 || opens0 && m0 < m1 {
		n0, m0, n1, m1, opens0, opens1 = n1, m1, n0, m0, opens1, opens0
	}
	// Dim 1 is the inner one now; it opens something if either does.
	if !opens1 {
		return true
	}
	cover := uint64(m.elem)
	if m1 > cover {
		return false
	}
	cover += uint64(n1) * m1 // within the bounds: no wrap
	return !opens0 || m0 <= cover
}
