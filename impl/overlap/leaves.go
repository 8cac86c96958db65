package overlap

import (
	"math/bits"

	"github.com/memverify/memverify/internal/bugs"
)

// leaves is dfs's loop over its children when they are leaves (the pair
// left), each taken as dfs takes it — one node, the cap, the gcd test, the
// closed form — without a call per child: most nodes of a search are
// leaves. The children are r − c·x for x = x0, x0+m, … ≤ hi, and g is the
// pair's gcd as the gcd test takes it (1 when the test is dropped). Their
// reach test is the parent's: x ≥ lo already keeps every r − c·x within
// reach[k], so it is not taken again (it would be a branch as likely to go
// one way as the other, at every leaf, and always false).
//
// Below fastLimit the run goes to leavesRange (with slack) or leavesExact
// (without), which hold the pair in registers and divide by reciprocals —
// from the search's fastAfter-th node on: setting the reciprocals up costs
// two divisions with 64-bit quotients, the slowest kind, which a search
// decided at its first leaf or two (tiles, column slices) would not win
// back. The leaves before it are taken here, as under the mutants build
// tag, where the seams are.
func (p *leafRun) leaves(g, r, c, x, hi, m uint64) bool {
	fast := !bugs.Enabled && p.rhs < fastLimit
	w := p.slack
	for ; x <= hi; x += m { // x, m < 2^63: no wrap
		if fast && p.nodes >= fastAfter-1 { // this leaf is node fastAfter or later
			if w > 0 {
				return p.leavesRange(g, r, c, x, hi, m)
			}
			return p.leavesExact(r, c, x, hi, m)
		}
		p.nodes++
		if p.nodes > p.maxWork || (bugs.On(BugCapOffByOne) && p.nodes >= p.maxWork) {
			p.tooHard = true
			return false
		}
		rest := r - c*x
		switch {
		case g > 1 && rest%g > w:
		case w == 0:
			if p.last.solve(rest) { // g divides rest
				return true
			}
		case rest <= w || p.last.solveRange(rest-w, rest):
			return true
		}
	}
	return false
}

// fastAfter is the number of nodes a search visits before its leaves
// divide by reciprocals (see leaves).
const fastAfter = 3

// leavesRange is leaves with slack w, for rhs < fastLimit: each child is
// pair.solveRange(rest − w, rest) written out, its ends by reciprocals set
// up once per search (pair.fast), unconditionally (whether either end is
// needed is as likely as not from one leaf to the next, and a mispredicted
// branch costs more than the product). Every dividend is below 2^32: rest
// < 2^31, a < 2^31. The node count is kept in a local for the run, and
// stored on the way out.
func (p *leafRun) leavesRange(g, r, c, x, hi, m uint64) bool {
	q := &p.last
	w := p.slack // g, the pair's gcd, is 1 when at most w+1
	if q.ra == 0 {
		q.fast()
		if g > 1 {
			q.rg = reciprocal(g)
		}
	}
	a, u, b, bv, ra, rb, am, rg := q.a, q.u, q.b, q.bv, q.ra, q.rb, q.am-1, q.rg
	nodes := p.nodes
	for ; x <= hi; x += m { // x, m < 2^63: no wrap
		if nodes++; nodes > p.maxWork {
			p.nodes, p.tooHard = nodes, true
			return false
		}
		rest := r - c*x
		if g > 1 && rem(rest, g, rg) > w {
			continue
		}
		if rest <= w {
			p.nodes = nodes
			return true
		}
		xlo := quo(max(rest-w, bv)-bv+a-1, ra)
		xhi := min(u, quo(rest, ra))
		if xlo > xhi {
			continue
		}
		// rest − a·xlo ≥ 0; its residue modulo b at most w settles it
		// (always so when w ≥ b − 1), else x steps on, as in
		// pair.window, written out here for the common short range.
		rr, n := rem(rest-a*xlo, b, rb), xhi-xlo
		if n >= 32 {
			if rr <= w || q.window(rr, w, n) {
				p.nodes = nodes
				return true
			}
			continue
		}
		for ; rr > w && n > 0; n-- {
			if rr -= am; rr > b { // wrapped below 0: add b back
				rr += b
			}
		}
		if rr <= w {
			p.nodes = nodes
			return true
		}
	}
	p.nodes = nodes
	return false
}

// leavesExact is leaves without slack, for rhs < fastLimit: each child is
// pair.solve(rest) written out. Every rest is a multiple of the pair's gcd
// g (the parent enumerates only the residue class that keeps it so, or
// steps by 1 when its own coefficient is a multiple of g, and then g
// divides r by the parent's gcd test), so the gcd test, always passed, is
// not taken. The ends
// of x's range come by reciprocals; x's residue class, (rest/g)·inv mod
// period, is computed at the first child and stepped from one child to
// the next by a constant — the children's rests differ by c·m — so a leaf
// has no division.
func (p *leafRun) leavesExact(r, c, x, hi, m uint64) bool {
	q := &p.last
	if q.ra == 0 {
		q.fastExact()
	}
	a, u, bv, ra := q.a, q.u, q.bv, q.ra
	period, rp := q.period, q.rb
	var x0, dx uint64 // x's class at the current child, and its step
	if period > 1 {
		x0 = mulModBelow(rem(divBy(r-c*x, q.g), period, rp), q.inv, period, rp)
		if x+m <= hi { // then c·m ≤ r: a real difference of two rests
			dx = mulModBelow(rem(divBy(c*m, q.g), period, rp), q.inv, period, rp)
		}
	}
	nodes := p.nodes
	for ; x <= hi; x += m { // x, m < 2^63: no wrap
		if nodes++; nodes > p.maxWork {
			p.nodes, p.tooHard = nodes, true
			return false
		}
		rest := r - c*x
		xlo := quo(max(rest, bv)-bv+a-1, ra)
		xhi := min(u, quo(rest, ra))
		if period > 1 {
			// The first x ≥ xlo in the class: xlo plus (x0 − xlo) mod
			// period, both residues below period.
			lm := rem(xlo, period, rp)
			step := x0 - lm
			if x0 < lm {
				step += period
			}
			xlo += step
			if x0 -= dx; x0 >= period { // wrapped below 0
				x0 += period
			}
		}
		if xlo <= xhi {
			p.nodes = nodes
			return true
		}
	}
	p.nodes = nodes
	return false
}

// mulModBelow returns x·y mod d for x, y < d < 2^31, given recip =
// reciprocal(d), without a division (Barrett): with M = recip − 1 =
// ⌊(2^64−1)/d⌋, the high product of z = x·y < 2^62 and M is ⌊z/d⌋ or one
// less (it falls short of z/d by less than z/2^64 + z/(d·2^64) < 1/2), so
// one subtraction of d at most brings z − q·d into [0, d).
func mulModBelow(x, y, d, recip uint64) uint64 {
	z := x * y
	q, _ := bits.Mul64(z, recip-1)
	if z -= q * d; z >= d {
		z -= d
	}
	return z
}
