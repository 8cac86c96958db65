package overlap

import (
	"math"
	"math/bits"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/overlap"
)

// smallTerms is the most stride terms searchSmall takes: two, the pair.
const smallTerms = 2

// searchSmall is search for equations with at most two stride terms — two
// 1-D views, or views whose other dims have size 1 or stride 0 — which the
// pair's closed form decides without a search. It builds the same terms as
// problem.build (the same clamping, merging, slack and order) in a few words on
// the stack instead of the search's tables, and counts the same nodes: none
// when no term is left but slack, one otherwise. ok is false for an
// equation with more terms, and always under the mutants build tag (the
// seams live in problem).
func searchSmall(a, b *spec.View, ba, bb box, maxWork int) (v spec.Verdict, st Stats, ok bool) {
	if bugs.Enabled {
		return v, st, false
	}
	if len(a.Shape)+len(b.Shape) > smallTerms && moving(a)+moving(b) > smallTerms {
		return v, st, false
	}
	rhs := uint64(min(bb.hi-ba.lo, ba.hi-bb.lo)) // ≥ 0: the boxes meet
	var coef, ub [smallTerms]uint64
	n := smallTermsOf(a, rhs, &coef, &ub, 0)
	n = smallTermsOf(b, rhs, &coef, &ub, n)
	if n == 2 && coef[0] > coef[1] { // increasing coefficients, for absorb
		coef[0], coef[1], ub[0], ub[1] = coef[1], coef[0], ub[1], ub[0]
	}
	// The slack, and the terms it makes contiguous, as absorb takes them:
	// the smallest coefficient first (a stride of 1 joins the byte term, or
	// is the slack when both elements are single bytes).
	w := min(uint64(a.ElemSize-1)+uint64(b.ElemSize-1), rhs)
	for n > 0 && coef[0] <= w+1 {
		w = min(w+coef[0]*ub[0], rhs)
		coef[0], ub[0] = coef[1], ub[1]
		n--
	}
	if n == 2 && (ub[0] > ub[1] || (ub[0] == ub[1] && coef[0] < coef[1])) {
		coef[0], coef[1], ub[0], ub[1] = coef[1], coef[0], ub[1], ub[0] // problem.order's
	}
	st.Path = PathSearch
	found := false
	switch n {
	case 0:
		found = rhs <= w
	case 1, 2:
		if st.Nodes = 1; maxWork < 1 {
			return spec.TooHard, st, true
		}
		found = smallLeaf(coef[:n], ub[:n], rhs, w)
	}
	if found {
		return spec.Yes, st, true
	}
	return spec.No, st, true
}

// moving counts the dims of v that move something: at most the stride
// terms it adds to the equation.
func moving(v *spec.View) int {
	k := 0
	for d, e := range v.Shape {
		if e > 1 && v.Strides[d] != 0 {
			k++
		}
	}
	return k
}

// smallTermsOf adds the stride terms of v to the n terms in coef and ub, at
// most smallTerms in all (searchSmall has counted them), as problem.add
// builds them: left out when they cannot move or fit in rhs, clamped to
// rhs, merged when their coefficients are equal. It returns the new count.
func smallTermsOf(v *spec.View, rhs uint64, coef, ub *[smallTerms]uint64, n int) int {
	for d, e := range v.Shape {
		c := absU(v.Strides[d])
		if e < 2 || c == 0 || c > rhs || n == smallTerms {
			continue // moves nothing, or cannot fit in rhs
		}
		u := uint64(e - 1)
		if c*u > rhs { // (e−1)·|s| is within the view's extent: no wrap
			u = rhs / c
		}
		if n == 1 && coef[0] == c {
			if u += ub[0]; c*u > rhs { // each within rhs: no wrap
				u = rhs / c
			}
			ub[0] = u
			continue
		}
		coef[n], ub[n] = c, u
		n++
	}
	return n
}

// smallLeaf is the one node of searchSmall, as problem.dfs takes it at the
// root: the reach test, then the range of the single term or the pair's
// closed form. The gcd test is only a shortcut where there is slack (the
// closed form is exact without it), so it is taken only without, where the
// pair needs g anyway.
func smallLeaf(coef, ub []uint64, r, w uint64) bool {
	reach := w
	for i := range coef {
		// coef·ub ≤ rhs after clamping; only the sum may saturate.
		if s, carry := bits.Add64(reach, coef[i]*ub[i], 0); carry == 0 {
			reach = s
		} else {
			reach = math.MaxUint64
		}
	}
	if r > reach {
		return false
	}
	if r <= w {
		return true
	}
	if len(coef) == 1 {
		c := coef[0]
		return (r-w+c-1)/c <= min(ub[0], r/c)
	}
	if w > 0 {
		var q pair
		q.initRange(coef[0], ub[0], coef[1], ub[1])
		return q.solveRange(r-w, r)
	}
	g := gcd(coef[0], coef[1])
	if r%g != 0 {
		return false
	}
	var q pair
	q.init(coef[0], ub[0], coef[1], ub[1], g)
	return q.solve(r)
}
