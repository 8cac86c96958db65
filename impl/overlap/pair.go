package overlap

import "math/bits"

// pair is the closed form of the last two terms of the equation:
//
//	a·x + b·y = r,  0 ≤ x ≤ u,  0 ≤ y ≤ v,
//
// decided in O(1) for any r, with the extended Euclid algorithm run once per
// equation (as NumPy's mem_overlap does for its innermost pair). Let g =
// gcd(a, b). A solution needs g | r (the search's gcd test has checked it);
// then b·y = r − a·x is solvable in integers exactly when
//
//	x ≡ (r/g)·(a/g)^-1  (mod b/g),
//
// one residue class of period b/g. The bounds on y become bounds on x: y ≥ 0
// is a·x ≤ r, and y ≤ v is a·x ≥ r − b·v. So a solution exists exactly when
// the class has a member in
//
//	[⌈(r − b·v)/a⌉⁺, min(u, ⌊r/a⌋)].
//
// Every quantity is below 2^63: b·v and a·u are (clamped to rhs by the
// search; a view's span, or clamped, in searchSmall); the residue product is
// taken in 128 bits (mulMod).
type pair struct {
	a, u, b, v uint64
	bv         uint64 // b·v < 2^63
	g          uint64 // gcd(a, b)
	period     uint64 // b/g: the period of x's residue class
	inv        uint64 // (a/g)^-1 mod period, on first use (0 before; unused when period is 1)
	am         uint64 // a mod b, plus one, on first use (0 before)
	ra, rb     uint64 // reciprocals of a and of b (fast) or of period (fastExact); 0 before
	rg         uint64 // with slack, the reciprocal of the gcd test's g when it is taken (leavesRange)
}

// fastLimit bounds the right-hand sides whose pair divides by reciprocals
// at the search's leaves (leaves.go): below it, every dividend formed there
// (at most rhs + a − 1 < 2·rhs) is below 2^32.
const fastLimit = 1 << 31

// fast sets up the reciprocals of a and b and a mod b, for a search with
// slack whose right-hand side is below fastLimit (the caller checks), so
// that a, b < 2^31. It costs two divisions once, and saves two or three at
// every leaf.
func (q *pair) fast() {
	q.ra, q.rb = reciprocal(q.a), reciprocal(q.b)
	if q.am == 0 {
		q.am = rem(q.a, q.b, q.rb) + 1
	}
}

// fastExact is fast for a search without slack: the reciprocals of a and of
// the period, and the inverse, which every leaf needs.
func (q *pair) fastExact() {
	q.ra = reciprocal(q.a)
	if q.period > 1 {
		q.rb = reciprocal(q.period)
		if q.inv == 0 {
			q.inv = modInverse(divBy(q.a, q.g)%q.period, q.period)
		}
	}
}

// reciprocal returns ⌊(2^64−1)/d⌋ + 1 for 2 ≤ d < 2^32: with it, x/d and
// x mod d for any x < 2^32 are a high product (quo, rem) instead of a
// division, exactly (Lemire, Kaser and Kurz, "Faster remainder by direct
// computation", 2019). d = 1 would wrap it to 0; no coefficient of the pair
// is 1 (those go to the slack).
func reciprocal(d uint64) uint64 { return ^uint64(0)/d + 1 }

// quo returns x/d for x < 2^32, given recip = reciprocal(d).
func quo(x, recip uint64) uint64 {
	hi, _ := bits.Mul64(recip, x)
	return hi
}

// rem returns x mod d for x < 2^32, given recip = reciprocal(d).
func rem(x, d, recip uint64) uint64 {
	hi, _ := bits.Mul64(recip*x, d)
	return hi
}

// init sets up the pair a·x + b·y with x ≤ u, y ≤ v and g = gcd(a, b), in
// a zero pair (every caller's is fresh: a problem's, or a local). The
// fields are stored one by one: assigning a whole pair built the value on
// the stack and copied it, zeroing the fields set up on first use once
// more (about 2% of a search's time on the slowest pairs of the corpus).
func (q *pair) init(a, u, b, v, g uint64) {
	q.a, q.u, q.b, q.v, q.bv, q.g, q.period = a, u, b, v, b*v, g, divBy(b, g)
}

// initRange sets up, in a zero pair, the pair for solveRange alone, which
// needs neither the gcd nor the period.
func (q *pair) initRange(a, u, b, v uint64) {
	q.a, q.u, q.b, q.v, q.bv = a, u, b, v, b*v
}

// solve reports whether a·x + b·y = r has a solution within the bounds, for
// an r that g divides.
func (q *pair) solve(r uint64) bool {
	a := q.a
	var lo uint64
	if r > q.bv {
		lo = (r - q.bv + a - 1) / a // r, a < 2^63: no wrap
	}
	hi := min(q.u, r/a)
	if lo > hi {
		return false
	}
	m := q.period
	if m == 1 {
		return true // b divides a·x − r for every x
	}
	if q.inv == 0 {
		q.inv = modInverse(divBy(a, q.g)%m, m)
	}
	x0 := mulMod(divBy(r, q.g)%m, q.inv, m)
	// The first x ≥ lo in the class: lo plus (x0 − lo) mod m, both
	// residues below m < 2^63.
	step := x0 - lo%m
	if x0 < lo%m {
		step += m
	}
	return lo+step <= hi
}

// solveRange reports whether a·x + b·y lies in [lo, hi] (0 < lo ≤ hi ≤ rhs)
// for some x ≤ u, y ≤ v: the pair with the slack term folded in. Only x
// with a·x in [lo − b·v, hi] can do: below, even y = v leaves the sum short
// of lo; above, it passes hi with y = 0. For such an x, let t = hi − a·x ≥ 0
// and d = hi − lo: y must put b·y in [t − d, t] and in [0, b·v]. The best y
// is the largest, min(⌊t/b⌋, v); b·v ≥ t − d holds by the choice of x, so
// what remains is t − (t mod b) ≥ t − d, that is
//
//	(hi − a·x) mod b ≤ d.
//
// As x steps by 1 the residue steps down by a mod b (modulo b): a few x are
// tried in turn, with no division; over a wide range of x, the least x for
// which it holds is found by firstInRange, in O(log b) steps of Euclid's
// algorithm.
func (q *pair) solveRange(lo, hi uint64) bool {
	a, b, d := q.a, q.b, hi-lo
	var xlo uint64
	if lo > q.bv {
		xlo = (lo - q.bv + a - 1) / a // lo, a < 2^63: no wrap
	}
	xhi := q.u
	if a*xhi > hi { // a·u < 2^63: no wrap
		xhi = hi / a
	}
	if xlo > xhi {
		return false
	}
	if d >= b-1 {
		return true // any b consecutive integers hold a multiple of b
	}
	r := (hi - a*xlo) % b
	if r <= d {
		return true
	}
	if q.am == 0 {
		q.am = q.a%b + 1 // stored plus one: 0 means not yet
	}
	return q.window(r, d, xhi-xlo)
}

// window is the end of solveRange: whether (r − am·t) mod b ≤ d for some t
// in [1, n], given d < r < b and d < b − 1, with am set.
func (q *pair) window(r, d, n uint64) bool {
	am, b := q.am-1, q.b
	if n < 32 {
		// Branch-free steps (the wrap is as likely as not): r − am, plus b
		// when that wraps below 0 (r, am < b: a wrapped difference is
		// above 2^64 − b > b, and adding b brings it back to [0, b)).
		for ; n > 0; n-- {
			r -= am
			if r > b {
				r += b
			}
			if r <= d {
				return true
			}
		}
		return false
	}
	// (hi − a·(xlo+t)) mod b ≤ d  ⟺  am·t mod b ∈ [r − d, r], an
	// interval within [1, b) since d < r < b.
	t, ok := firstInRange(am, b, r-d, r)
	return ok && t <= n
}

// firstInRange returns the least t ≥ 0 with a·t mod m in [lo, hi], for
// 0 ≤ a < m < 2^63 and 0 ≤ lo ≤ hi < m, and false when there is none. If
// some multiple of a lies in [lo, hi], the least one is the answer (every
// smaller t stays below lo without wrapping). Otherwise hi − lo < a and
// a·t − m·k ∈ [lo, hi] needs k ≥ 1 wraps; the least t comes from the least
// k for which [lo + m·k, hi + m·k] holds a multiple of a, that is
// m·k mod a ∈ [j·a − hi, j·a − lo] with j·a the multiple just above hi:
// the same problem for (m mod a, a), one step of Euclid's algorithm. Then
// t = ⌈(lo + m·k)/a⌉, formed in 128 bits; it is below m, so it fits.
func firstInRange(a, m, lo, hi uint64) (uint64, bool) {
	if m < 1<<31 {
		t, ok := firstInRange32(uint32(a), uint32(m), uint32(lo), uint32(hi))
		return uint64(t), ok
	}
	if lo == 0 {
		return 0, true
	}
	if a == 0 {
		return 0, false
	}
	j := (lo + a - 1) / a // lo, a < 2^63: no wrap
	if j*a <= hi {        // j·a < lo + a < 2^64
		return j, true
	}
	k, ok := firstInRange(m%a, a, j*a-hi, j*a-lo)
	if !ok {
		return 0, false
	}
	h, l := bits.Mul64(m, k)
	l, carry := bits.Add64(l, lo+a-1, 0)
	t, _ := bits.Div64(h+carry, l, a) // the quotient is below m: h+carry < a
	return t, true
}

// firstInRange32 is firstInRange for m < 2^31, in 32-bit arithmetic: the
// recursion is a chain of divisions, and 32-bit ones take fewer cycles.
// m·k < 2^62 and t < m, so the last step needs no 128-bit product.
func firstInRange32(a, m, lo, hi uint32) (uint32, bool) {
	if lo == 0 {
		return 0, true
	}
	if a == 0 {
		return 0, false
	}
	j := (lo + a - 1) / a // lo, a < 2^31: no wrap
	if j*a <= hi {        // j·a < lo + a < 2^32
		return j, true
	}
	k, ok := firstInRange32(m%a, a, j*a-hi, j*a-lo)
	if !ok {
		return 0, false
	}
	return uint32((uint64(m)*uint64(k) + uint64(lo) + uint64(a) - 1) / uint64(a)), true
}
