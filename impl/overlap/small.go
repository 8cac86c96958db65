package overlap

import (
	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/overlap"
)

// smallTerms is the most stride terms decide's early searchSmall takes:
// two, the pair, which one node decides.
const smallTerms = 2

// searchSmall is search for equations of at most terms stride terms, two
// or three, without the problem: the terms in a few words on the stack.
// Two — two 1-D views, or views whose other dims have size 1, stride 0 or
// a stride they share — are decided by the pair's closed form in one node
// (none when no term is left but slack); three — matrices that share a
// stride, column slices of one tensor, NumPy's x[:, ::7] against
// x[:, 3::3] — by the root of the search and its leaves (root, three.go).
// It builds the terms as problem.build does (but for the clamp of a
// pair's bounds, which its closed form does not need) and visits the
// nodes dfs visits, in the same order: its answer and its count are the
// search's (TestSmallSearchesAgree). ok is false for an equation of more
// terms, and always under the mutants build tag (the seams live in
// problem).
func searchSmall(a, b *spec.View, ba, bb *box, maxWork, terms int) (v spec.Verdict, st Stats, ok bool) {
	if bugs.Enabled {
		return v, st, false
	}
	var eq smallEquation
	eq.rhs = uint64(min(bb.hi-ba.lo, ba.hi-bb.lo)) // ≥ 0: the boxes meet
	if !eq.termsOf(a) || !eq.termsOf(b) || eq.n > terms {
		return v, st, false
	}
	eq.settle(a.ElemSize, b.ElemSize)
	st.Path = PathSearch
	found := false
	switch {
	case eq.n == 0:
		found = eq.rhs <= eq.w
	case maxWork < 1:
		st.Nodes = 1
		return spec.TooHard, st, true
	case eq.n < 3:
		st.Nodes = 1
		found = eq.solve()
	default:
		var run leafRun
		found = run.root(&eq, maxWork)
		if st.Nodes = run.nodes; run.tooHard {
			return spec.TooHard, st, true
		}
	}
	if found {
		return spec.Yes, st, true
	}
	return spec.No, st, true
}

// smallEquation is the equation of searchSmall and exactLines:
// at most three stride terms below the right-hand side rhs, built as
// problem.build builds its terms, with the slack w of the element sizes
// once settled.
type smallEquation struct {
	coef, ub [3]uint64
	n        int
	rhs, w   uint64
}

// termsOf adds the stride terms of v; false when they pass three.
func (eq *smallEquation) termsOf(v *spec.View) bool {
	for d, e := range v.Shape {
		if c := absU(v.Strides[d]); !eq.add(c, e-1) && !eq.addThird(c, e-1) {
			return false
		}
	}
	return true
}

// add adds the term c·x, 0 ≤ x ≤ n, to an equation of at most one term, as
// problem.add builds it but for the clamp: left out when it cannot move or
// fit in rhs, merged with a term of the same coefficient. Its bound is not
// clamped to rhs/c: c·n lies within the view's extent, below 2^63, which
// is all a leaf needs, and the leaf bounds x by the right-hand side itself
// (the clamp would cost a division that the leaf makes anyway); settle
// clamps the terms of an equation that needs a search. Only a merged
// bound, whose span may pass 2^63, is clamped here. n is a dim's extent
// less one (negative for an empty dim, which never comes here). After two
// terms add reports false and leaves the term to addThird, so that the
// vectors' one or two terms take no loop.
func (eq *smallEquation) add(c uint64, n int64) bool {
	if n < 1 || c == 0 || c > eq.rhs {
		return true // moves nothing, or cannot fit in rhs
	}
	switch {
	case eq.n > 1:
		return false
	case eq.n == 1 && eq.coef[0] == c:
		eq.merge(0, uint64(n))
	default:
		eq.coef[eq.n], eq.ub[eq.n] = c, uint64(n)
		eq.n++
	}
	return true
}

// addThird is add for a term after two: merged with one of its
// coefficient, or the third; false for a fourth.
func (eq *smallEquation) addThird(c uint64, n int64) bool {
	for i := range min(eq.n, len(eq.coef)) {
		if eq.coef[i] == c {
			eq.merge(i, uint64(n))
			return true
		}
	}
	if eq.n == len(eq.coef) {
		return false
	}
	eq.coef[eq.n], eq.ub[eq.n] = c, uint64(n)
	eq.n++
	return true
}

// merge adds u to the bound of term i, clamped to rhs.
func (eq *smallEquation) merge(i int, u uint64) {
	c := eq.coef[i]
	if u += eq.ub[i]; c*u > eq.rhs { // each span below 2^63: no wrap
		u = eq.rhs / c
	}
	eq.ub[i] = u
}

// settle folds the element sizes into the slack and orders the terms, as
// problem.build does: the slack absorbs the terms it makes contiguous, the
// smallest coefficient first (a stride of 1 joins the byte term, or is the
// slack when both elements are single bytes); the rest are in
// problem.order's order, by increasing bound, ties by decreasing
// coefficient. The coefficients are distinct (add merges equal ones), so
// compare-and-swaps sort them: one for two terms, three for three (in
// settleThree, out of the way of the vectors' pairs).
func (eq *smallEquation) settle(elemA, elemB int64) {
	c, u := &eq.coef, &eq.ub
	if eq.n == len(c) {
		eq.settleThree(elemA, elemB)
		return
	}
	eq.swapIf(0, 1, eq.n == 2 && c[1] < c[0]) // increasing coefficients, for absorb
	w := min(uint64(elemA-1)+uint64(elemB-1), eq.rhs)
	for ; eq.n > 0 && c[0] <= w+1; eq.n-- {
		w = min(w+c[0]*u[0], eq.rhs)
		c[0], u[0] = c[1], u[1]
	}
	eq.w = w
	eq.swapIf(0, 1, eq.n == 2 && (u[1] < u[0] || (u[1] == u[0] && c[1] > c[0])))
}

// settleThree is settle for three terms, which need a search: its nodes
// depend on the order of the bounds, which are clamped first, as
// problem.add clamps them. (A term the slack absorbs gives it the same
// bound clamped or not: c ≤ w+1 leaves rhs − c·⌊rhs/c⌋ ≤ w.)
func (eq *smallEquation) settleThree(elemA, elemB int64) {
	c, u := &eq.coef, &eq.ub
	for i := range c {
		if c[i]*u[i] > eq.rhs { // below 2^64 (add): no wrap
			u[i] = eq.rhs / c[i]
		}
	}
	eq.swapIf(1, 2, c[2] < c[1])
	eq.swapIf(0, 1, c[1] < c[0])
	eq.swapIf(1, 2, c[2] < c[1])
	w := min(uint64(elemA-1)+uint64(elemB-1), eq.rhs)
	for ; eq.n > 0 && c[0] <= w+1; eq.n-- {
		w = min(w+c[0]*u[0], eq.rhs)
		c[0], c[1], u[0], u[1] = c[1], c[2], u[1], u[2]
	}
	eq.w = w
	for _, i := range [...]int{0, 1, 0} {
		j := i + 1
		eq.swapIf(i, j, j < eq.n && (u[j] < u[i] || (u[j] == u[i] && c[j] > c[i])))
	}
}

// swapIf swaps terms i and j when cond holds.
func (eq *smallEquation) swapIf(i, j int, cond bool) {
	if cond {
		eq.coef[i], eq.coef[j], eq.ub[i], eq.ub[j] = eq.coef[j], eq.coef[i], eq.ub[j], eq.ub[i]
	}
}

// solve decides the settled equation: the slack alone, or the one node.
func (eq *smallEquation) solve() bool {
	if eq.n == 0 {
		return eq.rhs <= eq.w
	}
	return smallLeaf(eq.coef[:eq.n], eq.ub[:eq.n], eq.rhs, eq.w)
}

// smallLeaf is the one node of searchSmall, as problem.dfs takes it at the
// root: the reach test, then the range of the single term or the pair's
// closed form. The gcd test is only a shortcut where there is slack (the
// closed form is exact without it), so it is taken only without, where the
// pair needs g anyway.
func smallLeaf(coef, ub []uint64, r, w uint64) bool {
	reach := w
	for i := range coef {
		// coef·ub is below 2^63 (clamped to rhs by problem.add, a
		// view's span in searchSmall); only the sum may saturate.
		reach = addSaturating(reach, coef[i]*ub[i])
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
