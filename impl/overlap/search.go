package overlap

import (
	"math"
	"math/bits"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/overlap"
)

// maxTerms bounds the equation: one term per dim of each view, plus the
// element-size term.
const maxTerms = 2*spec.MaxRank + 1

// problem is the bounded linear Diophantine equation
//
//	Σ coef[k]·x[k] = rhs,  0 ≤ x[k] ≤ ub[k],
//
// and the tables that prune its search. A term of coefficient 1 (the byte
// term, and strides it makes contiguous) is kept apart as slack: it makes up
// any remainder in [0, slack], so the other terms need only reach
// [r − slack, r]. The other terms are put in search order (order): the two
// of largest bound last (the pair, solved in closed form), the rest before
// them by increasing bound (enumerated).
type problem struct {
	leafRun // rhs, slack, the pair and the count of nodes
	n       int
	least   uint64 // the least coefficient of the terms, as add leaves them
	coef    [maxTerms]uint64
	ub      [maxTerms]uint64
	g       [maxTerms + 1]uint64 // g[k] = gcd(coef[k:]); g[n] = 0
	reach   [maxTerms + 1]uint64 // reach[k] = Σ coef[k:]·ub[k:] + slack, saturating
	mod     [maxTerms]uint64     // mod[k] = g[k+1]/g[k]: the residue step of x[k] (without slack)
	inv     [maxTerms]uint64     // inv[k] = (coef[k]/g[k])^-1 mod mod[k], on first use (0 before)
}

// leafRun is what the search's leaves read and count (leaves.go): the
// equation's right-hand side and slack, the closed form of its last two
// terms, and the nodes visited against the cap. The problem holds one; so
// does the three-term root (three.go), which needs none of the problem's
// tables.
type leafRun struct {
	rhs   uint64
	slack uint64 // the coefficient-1 term's bound: 0 when there is none
	last  pair   // the last two terms, when n ≥ 2

	maxWork int
	nodes   int
	tooHard bool
}

// build sets up the equation for two measured, non-empty views whose bounds
// meet. Reflecting every negative stride (i → n−1−i) makes each view start at
// its lowest byte with non-negative strides. Byte p of element i of a meets
// byte q of element j of b when
//
//	loA + Σ i·|sA| + p = loB + Σ j·|sB| + q.
//
// Reflecting b's indices and byte once more (j → m−1−j, q → eB−1−q) turns it
// into a sum of non-negative terms equal to hiB − loA; the byte offsets merge
// into one term of coefficient 1 and bound eA+eB−2. The mirror image (reflect
// a instead) has right-hand side hiA − loB; a solution of one maps to one of
// the other (x → ub − x), and the smaller right-hand side is kept. build
// reports false only when the equation is unsolvable on its face.
func (p *problem) build(a, b *spec.View, ba, bb *box) bool {
	hiA, hiB := ba.hi, bb.hi
	var elemBound uint64 = uint64(a.ElemSize-1) + uint64(b.ElemSize-1)
	if bugs.On(BugElemIgnored) {
		hiA, hiB = hiA-(a.ElemSize-1), hiB-(b.ElemSize-1) // element starts only
		elemBound = 0
		if hiB < ba.lo || hiA < bb.lo {
			return false
		}
	}
	p.rhs = uint64(min(hiB-ba.lo, hiA-bb.lo)) // ≥ 0: the boxes meet
	for _, v := range [2]*spec.View{a, b} {
		for d, n := range v.Shape {
			if n < 2 {
				continue // a size-1 dim's stride means nothing
			}
			c := absU(v.Strides[d])
			if bugs.On(BugGCDSign) {
				c = uint64(v.Strides[d])
			}
			p.add(c, uint64(n-1))
		}
	}
	p.add(1, elemBound)
	p.finish()
	return true
}

// add adds the term c·x, 0 ≤ x ≤ u, clamped to what rhs allows, merged
// with a term of the same coefficient if there is one: c·x + c·y with
// x ≤ u, y ≤ v takes exactly the values c·z, z ≤ u+v. A term of
// coefficient 1 (the byte term, a stride of one byte) goes to the slack.
// Terms that can only be 0 (stride 0, bound 0, coefficient above rhs) are
// left out.
func (p *problem) add(c, u uint64) {
	if c == 0 || u == 0 || c > p.rhs {
		return
	}
	if bugs.On(BugTermsTruncated) && p.n == spec.MaxRank {
		return
	}
	if c == 1 {
		p.slack = p.clamp(1, p.merge(p.slack, u))
		return
	}
	n := min(p.n, maxTerms-1) // p.n < maxTerms; the min lets the compiler drop bounds checks
	for i := range p.coef[:n] {
		if p.coef[i] == c {
			p.ub[i] = p.clamp(c, p.merge(p.ub[i], u))
			return
		}
	}
	p.coef[n], p.ub[n] = c, p.clamp(c, u)
	p.n = n + 1
	if n == 0 || c < p.least {
		p.least = c
	}
}

// merge returns the bound of two terms of one coefficient merged: the sum
// (each at most rhs/c < 2^63: no wrap).
func (p *problem) merge(u, v uint64) uint64 {
	if bugs.On(BugMergeMax) {
		return max(u, v)
	}
	return u + v
}

// clamp returns min(u, rhs/c), dividing only when c·u passes rhs: the
// division costs more than the rest of a term, and most terms fit.
func (p *problem) clamp(c, u uint64) uint64 {
	if hi, lo := bits.Mul64(c, u); hi != 0 || lo > p.rhs {
		return p.rhs / c
	}
	return u
}

// finish puts the terms added so far in search order and fills the tables.
// An equation of at most two terms is decided at once by pairLeaf, in
// its one node, and needs no tables (under the mutants build tag it takes
// the search, where the seams are).
func (p *problem) finish() {
	p.absorb()
	p.order()
	if p.n > smallTerms || bugs.Enabled {
		p.tables()
	}
}

// absorb moves into the slack every term it makes contiguous, smallest
// coefficient first: when c ≤ slack+1, the values z + c·x with z ≤ slack
// and x ≤ u are exactly [0, slack + c·u] (each step of c is filled by z).
// Slack is clamped to rhs, past which it cannot be used. Most equations
// have none: the least coefficient, kept by add, says so at once.
func (p *problem) absorb() {
	for p.n > 0 && p.least <= p.slack+1 {
		n := min(p.n, maxTerms)
		i := 0
		for j := range p.coef[:n] {
			if p.coef[j] == p.least {
				i = j
			}
		}
		p.slack = min(p.slack+p.coef[i]*p.ub[i], p.rhs) // each ≤ rhs: no wrap
		p.n = n - 1
		p.coef[i], p.ub[i] = p.coef[n-1], p.ub[n-1] // the order is set later
		p.least = math.MaxUint64
		for _, c := range p.coef[:n-1] {
			p.least = min(p.least, c)
		}
	}
}

// order puts the terms in search order: by increasing bound, ties by
// decreasing coefficient. The two of largest bound, last, are solved in
// closed form, so the search enumerates only the others, and its size is
// at most the product of their bounds (plus one each), which leaves out
// the two largest factors; among equal bounds the smaller coefficient goes
// to the pair, as a term of large coefficient has fewer admissible values
// to enumerate. The enumerated terms go by increasing bound: the levels
// near the root branch least, and the wide levels near the leaves are cut
// short by the reach of the few terms left (on the generated corpus of
// bench/overlapcases this visits 6% fewer nodes than decreasing
// coefficients, and a third fewer at the worst pair).
func (p *problem) order() {
	n := min(p.n, maxTerms)
	for i := 1; i < n; i++ { // insertion sort: at most 17 terms
		c, u := p.coef[i], p.ub[i]
		j := i
		for ; j > 0 && (u < p.ub[j-1] || (u == p.ub[j-1] && c > p.coef[j-1])); j-- {
			p.coef[j], p.ub[j] = p.coef[j-1], p.ub[j-1]
		}
		p.coef[j], p.ub[j] = c, u
	}
}

// tables fills the suffix gcds and reaches and, per enumerated term, the
// residue class its value must lie in for the rest to be divisible by their
// gcd; and it sets up the closed form of the last two terms.
func (p *problem) tables() {
	w := p.slack
	p.g[p.n], p.reach[p.n] = 0, w
	for k := p.n - 1; k >= 0; k-- {
		// With slack the gcd test can fail only for g > slack+1 (r mod g
		// is at most g−1): where it cannot, it is dropped (g = 1), and
		// with it a division at every node. A longer suffix's gcd divides
		// a shorter one's, so once dropped it stays dropped, and no more
		// gcds are computed. Without slack, 1 is the only gcd dropped.
		if g := p.g[k+1]; g == 1 {
			p.g[k] = 1
		} else if g = gcd(p.coef[k], g); g <= w+1 {
			p.g[k] = 1
		} else {
			p.g[k] = g
		}
		// coef·ub ≤ rhs < 2^63 after clamping; only the sum may saturate.
		r := p.coef[k] * p.ub[k]
		if bugs.On(BugReachShort) && k == p.n-1 {
			r = 0
		}
		p.reach[k] = addSaturating(r, p.reach[k+1])
	}
	if p.n < 2 {
		return
	}
	k := p.n - 2
	if w > 0 {
		// With slack the search steps through values, not residue
		// classes: it needs neither mod nor inv.
		p.last.initRange(p.coef[k], p.ub[k], p.coef[k+1], p.ub[k+1])
		return
	}
	// The inverses are computed on first use (0 = not yet: a true inverse
	// modulo m > 1 is at least 1): most searches end within a node or two
	// and never need them.
	for k := p.n - 3; k >= 0; k-- {
		p.mod[k], p.inv[k] = divBy(p.g[k+1], p.g[k]), 0
	}
	p.last.init(p.coef[k], p.ub[k], p.coef[k+1], p.ub[k+1], p.g[k])
}

// solve searches for a solution within maxWork nodes. Without a term left
// besides the slack, no search is needed (and no node counted).
func (p *problem) solve(maxWork int) bool {
	p.maxWork = maxWork
	if p.n == 0 {
		return p.rhs <= p.slack
	}
	if p.n <= smallTerms && !bugs.Enabled {
		// One node, as dfs would count it at its root: pairLeaf takes it
		// as dfs does, without the tables.
		if p.nodes = 1; maxWork < 1 {
			p.tooHard = true
			return false
		}
		if p.n == 1 {
			return pairLeaf(p.coef[0], p.ub[0], 0, 0, p.rhs, p.slack)
		}
		return pairLeaf(p.coef[0], p.ub[0], p.coef[1], p.ub[1], p.rhs, p.slack)
	}
	return p.dfs(0, p.rhs)
}

// dfs reports whether Σ_{j≥k} coef[j]·x[j] + z = r, with z ≤ slack, has a
// solution within the bounds. Each call is one node, one unit of work: it
// prunes on the reach of the remaining terms and on their gcd (what they
// leave over modulo g[k] must be slack). A node with two terms left decides
// them in closed form (pair), one with one term left by its range; a node
// with more enumerates x[k] over the values that leave a remainder the later
// terms can reach — without slack, only over the residue class that keeps it
// divisible by their gcd.
func (p *problem) dfs(k int, r uint64) bool {
	p.nodes++
	if p.nodes > p.maxWork || (bugs.On(BugCapOffByOne) && p.nodes >= p.maxWork) {
		p.tooHard = true
		return false
	}
	if g := p.g[k]; r > p.reach[k] || (g > 1 && r%g > p.slack) {
		return false
	}
	c, w := p.coef[k], p.slack
	switch k {
	case p.n - 1: // c·x ∈ [r − w, r], x ≤ ub
		if r <= w {
			return true
		}
		return (r-w+c-1)/c <= min(p.ub[k], r/c)
	case p.n - 2:
		if w == 0 {
			return p.last.solve(r) // g[k] divides r
		}
		return r <= w || p.last.solveRange(r-w, r)
	}
	// x[k] runs over its children's range; without slack, only over the
	// residue class that keeps the rest divisible by the later terms' gcd.
	lo, hi := children(r, c, p.ub[k], p.reach[k+1])
	if lo > hi {
		return false
	}
	x, m := lo, uint64(1)
	if w == 0 {
		if m = p.mod[k]; m > 1 {
			x = firstInClass(lo, r, c, p.g[k], m, &p.inv[k])
		}
	}
	if k+1 == p.n-2 {
		return p.leaves(p.g[k+1], r, c, x, hi, m)
	}
	for ; x <= hi; x += m { // x, m < 2^63: no wrap
		if p.dfs(k+1, r-c*x) {
			return true
		}
		if p.tooHard {
			return false
		}
	}
	return false
}

// children returns the range [lo, hi] of x at a node that enumerates c·x,
// x ≤ ub, with r left and reach the reach of the terms after it: from the
// least x that leaves them a rest they can reach (c·x ≥ r − reach) to the
// largest that fits r. The top needs no division when the whole term fits,
// the bottom none when the rest can reach all of r (both are common). lo >
// hi when there is none.
func children(r, c, ub, reach uint64) (lo, hi uint64) {
	if r > reach {
		lo = (r - reach + c - 1) / c // r, c < 2^63: no wrap
	}
	hi = ub
	if c*hi > r { // c·ub < 2^63: no wrap
		hi = r / c
	}
	return lo, hi
}

// firstInClass returns the first x ≥ lo in the residue class modulo m > 1
// that keeps r − c·x divisible by the gcd g' = g·m of the later terms: x ≡
// (r/g)·(c/g)^-1 (mod m), where g divides c and r. The inverse is computed
// on first use and kept in *inv (0 before: a true inverse modulo m > 1 is
// at least 1).
func firstInClass(lo, r, c, g, m uint64, inv *uint64) uint64 {
	if *inv == 0 {
		*inv = modInverse(c/g%m, m)
	}
	x0 := mulMod(divBy(r, g)%m, *inv, m)
	return lo + (x0+m-lo%m)%m // the first x ≥ lo with x ≡ x0 (mod m)
}

// addSaturating returns x + y, or the largest uint64 when the sum wraps:
// a reach, which only has to be compared with a right-hand side below
// 2^63.
func addSaturating(x, y uint64) uint64 {
	if s, carry := bits.Add64(x, y, 0); carry == 0 {
		return s
	}
	return math.MaxUint64
}

// divBy returns r/g, skipping the division in the common case g = 1 (a byte
// term makes every suffix gcd 1).
func divBy(r, g uint64) uint64 {
	if g == 1 {
		return r
	}
	return r / g
}

// mulMod returns x·y mod m through a 128-bit product.
func mulMod(x, y, m uint64) uint64 {
	if m <= 1<<32 || bugs.On(BugResidueWrap) {
		return x * y % m // x, y < m ≤ 2^32: the product fits in 64 bits
	}
	hi, lo := bits.Mul64(x, y)
	return bits.Rem64(hi, lo, m)
}

// modInverse returns a^-1 mod m for gcd(a, m) = 1 and 2 ≤ m < 2^63, by the
// extended Euclid algorithm. Its Bezout coefficient lies in (−m, m) and is
// brought into [0, m) with a floor mod: Go's % truncates towards zero.
func modInverse(a, m uint64) uint64 {
	if m < 1<<31 && !bugs.Enabled {
		return modInverse32(uint32(a), uint32(m))
	}
	r0, r1 := int64(m), int64(a)
	s0, s1 := int64(0), int64(1)
	for r1 != 0 {
		q := r0 / r1
		r0, r1 = r1, r0-q*r1
		s0, s1 = s1, s0-q*s1
	}
	if bugs.On(BugTruncMod) {
		return uint64(s0 % int64(m))
	}
	return uint64(floorMod(s0, int64(m)))
}

// modInverse32 is modInverse for m < 2^31, in 32-bit arithmetic: the
// same steps, but each division is a 32-bit one, which takes fewer cycles,
// and the steps are a chain of divisions (the strides of real views are
// far below 2^31).
func modInverse32(a, m uint32) uint64 {
	r0, r1 := int32(m), int32(a)
	s0, s1 := int32(0), int32(1)
	for r1 != 0 {
		q := r0 / r1
		r0, r1 = r1, r0-q*r1
		s0, s1 = s1, s0-q*s1
	}
	if s0 < 0 {
		s0 += int32(m) // |s0| < m
	}
	return uint64(s0)
}

// floorMod returns x mod m in [0, m) for m > 0.
func floorMod(x, m int64) int64 {
	r := x % m
	if r < 0 {
		r += m
	}
	return r
}
