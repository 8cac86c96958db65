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
	return verdict(found), st, true
}

// smallEquation is the equation of searchSmall, exactLines and
// exactMatrices:
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
// problem.build does (settleTwo, settleThree).
func (eq *smallEquation) settle(elemA, elemB int64) {
	w := min(uint64(elemA-1)+uint64(elemB-1), eq.rhs)
	if eq.n == len(eq.coef) {
		eq.settleThree(w)
		return
	}
	c0, u0, c1, u1 := eq.coef[0], eq.ub[0], eq.coef[1], eq.ub[1]
	if eq.n < 2 {
		c1, u1 = 0, 0
	}
	c0, u0, c1, u1, eq.w = settleTwo(c0, u0, c1, u1, eq.rhs, w)
	eq.coef[0], eq.ub[0], eq.coef[1], eq.ub[1] = c0, u0, c1, u1
	eq.n = b2n(c0 != 0) + b2n(c1 != 0)
}

// settleTwo is settle for at most two terms, on values, a term of
// coefficient 0 standing for none (whatever its bound): the slack w absorbs
// the terms it makes contiguous, the smallest coefficient first (a stride
// of 1 joins the byte term, or is the slack when both elements are single
// bytes); two left are put in problem.order's order, by increasing bound,
// ties by decreasing coefficient. The coefficients are distinct, or one is
// 0 (add merges equal ones). The terms left come first, none after them.
func settleTwo(c0, u0, c1, u1, r, w uint64) (uint64, uint64, uint64, uint64, uint64) {
	c0, u0, c1, u1 = byCoefficient(c0, u0, c1, u1) // none, at 0, is absorbed first
	if c0 <= w+1 {
		w, c0, u0, c1, u1 = min(w+c0*u0, r), c1, u1, 0, 0
		if c0 <= w+1 {
			w, c0, u0 = min(w+c0*u0, r), 0, 0
		}
		return c0, u0, c1, u1, w
	}
	c0, u0, c1, u1 = inSearchOrder(c0, u0, c1, u1)
	return c0, u0, c1, u1, w
}

// b2n is 1 for true, 0 for false.
func b2n(x bool) int {
	if x {
		return 1
	}
	return 0
}

// settleThree is settle for three terms, which need a search: its nodes
// depend on the order of the bounds, which are clamped first, as
// problem.add clamps them. (A term the slack absorbs gives it the same
// bound clamped or not: c ≤ w+1 leaves rhs − c·⌊rhs/c⌋ ≤ w.)
func (eq *smallEquation) settleThree(w uint64) {
	// On locals, written back once: the swaps and the absorbing loop on
	// the arrays cost a three-term pair as much as its root.
	r := eq.rhs
	c0, c1, c2 := eq.coef[0], eq.coef[1], eq.coef[2]
	u0, u1, u2 := clampBound(c0, eq.ub[0], r), clampBound(c1, eq.ub[1], r), clampBound(c2, eq.ub[2], r)
	c1, u1, c2, u2 = byCoefficient(c1, u1, c2, u2)
	c0, u0, c1, u1 = byCoefficient(c0, u0, c1, u1)
	c1, u1, c2, u2 = byCoefficient(c1, u1, c2, u2)
	n := 3
	for ; n > 0 && c0 <= w+1; n-- {
		w = min(w+c0*u0, r)
		c0, c1, c2, u0, u1, u2 = c1, c2, 0, u1, u2, 0 // none past n: solve reads two
	}
	switch n {
	case 3:
		c0, u0, c1, u1 = inSearchOrder(c0, u0, c1, u1)
		c1, u1, c2, u2 = inSearchOrder(c1, u1, c2, u2)
		c0, u0, c1, u1 = inSearchOrder(c0, u0, c1, u1)
	case 2:
		c0, u0, c1, u1 = inSearchOrder(c0, u0, c1, u1)
	}
	eq.coef, eq.ub, eq.n, eq.w = [3]uint64{c0, c1, c2}, [3]uint64{u0, u1, u2}, n, w
}

// clampBound returns min(u, r/c), dividing only when c·u passes r (below
// 2^64: add).
func clampBound(c, u, r uint64) uint64 {
	if c*u > r {
		return r / c
	}
	return u
}

// byCoefficient returns two terms by increasing coefficient.
func byCoefficient(c0, u0, c1, u1 uint64) (uint64, uint64, uint64, uint64) {
	if c1 < c0 {
		return c1, u1, c0, u0
	}
	return c0, u0, c1, u1
}

// inSearchOrder returns two terms in problem.order's order: by increasing
// bound, ties by decreasing coefficient.
func inSearchOrder(c0, u0, c1, u1 uint64) (uint64, uint64, uint64, uint64) {
	if u1 < u0 || u1 == u0 && c1 > c0 {
		return c1, u1, c0, u0
	}
	return c0, u0, c1, u1
}

// solve decides the settled equation: the slack alone, or the one node
// (pairLeaf; settle leaves the terms past n at 0).
func (eq *smallEquation) solve() bool {
	return pairLeaf(eq.coef[0], eq.ub[0], eq.coef[1], eq.ub[1], eq.rhs, eq.w)
}

// pairLeaf is the one node of an equation of at most two stride terms,
// settled (searchSmall's, exactLines's, a problem's), as problem.dfs takes
// it at the root: it decides c0·x0 + c1·x1 + z = r, x_i ≤ u_i, z ≤ w, a
// term of coefficient 0 standing for none (they come last) — the reach
// test, then the range of the single term or the pair's closed form. The
// gcd test is only a shortcut where there is slack (the closed form is
// exact without it), so it is taken only without, where the pair needs g
// anyway.
func pairLeaf(c0, u0, c1, u1, r, w uint64) bool {
	// c·u is below 2^63 (clamped to rhs by problem.add, a view's span in
	// searchSmall and exactLines); only the sum may saturate.
	if r > addSaturating(addSaturating(w, c0*u0), c1*u1) {
		return false
	}
	if r <= w {
		return true
	}
	if c1 == 0 {
		return (r-w+c0-1)/c0 <= min(u0, r/c0)
	}
	var q pair
	if w > 0 {
		q.initRange(c0, u0, c1, u1)
		return q.solveRange(r-w, r)
	}
	g := gcd(c0, c1)
	if r%g != 0 {
		return false
	}
	q.init(c0, u0, c1, u1, g)
	return q.solve(r)
}
