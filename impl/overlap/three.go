package overlap

// threeDims is the most dims, both views together, whose equation search
// builds on the stack (searchSmall) before it builds a problem: two
// matrices, or a vector and a view of rank 3. More dims make three terms
// only when strides repeat.
const threeDims = 4

// root is dfs at the root of a settled equation of three terms: x[0]
// enumerated, the other two the pair, every child a leaf. The gcds and
// reaches are problem.tables's: g[2] is the last coefficient (above w+1,
// or the slack would have absorbed it), a gcd at most w+1 is dropped (1),
// and a reach saturates.
func (run *leafRun) root(eq *smallEquation, maxWork int) bool {
	c0, c1, c2 := eq.coef[0], eq.coef[1], eq.coef[2]
	u0, u1, u2 := eq.ub[0], eq.ub[1], eq.ub[2]
	r, w := eq.rhs, eq.w
	run.rhs, run.slack, run.maxWork, run.nodes = r, w, maxWork, 1 // maxWork ≥ 1
	g1, g0 := gcd(c1, c2), uint64(1)
	if g1 <= w+1 {
		g1 = 1
	} else if g0 = gcd(c0, g1); g0 <= w+1 {
		g0 = 1
	}
	reach1 := addSaturating(addSaturating(w, c2*u2), c1*u1) // each c·u ≤ rhs: clamped
	if r > addSaturating(reach1, c0*u0) || (g0 > 1 && r%g0 > w) {
		return false
	}
	lo, hi := children(r, c0, u0, reach1)
	if lo > hi {
		return false
	}
	x, m := lo, uint64(1)
	if w > 0 {
		run.last.initRange(c1, u1, c2, u2)
	} else {
		run.last.init(c1, u1, c2, u2, g1)
		if m = divBy(g1, g0); m > 1 {
			var inv uint64
			x = firstInClass(lo, r, c0, g0, m, &inv)
		}
	}
	return run.leaves(g1, r, c0, x, hi, m)
}
