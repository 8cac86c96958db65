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
// Every quantity is below 2^63: after clamping, b·v ≤ rhs and u ≤ rhs/a; the
// residue product is taken in 128 bits (mulMod).
type pair struct {
	a, u, b, v uint64
	bv         uint64 // b·v ≤ rhs
	g          uint64 // gcd(a, b)
	period     uint64 // b/g: the period of x's residue class
	inv        uint64 // (a/g)^-1 mod period, on first use (0 before; unused when period is 1)
	am         uint64 // a mod b, plus one, on first use (0 before)
}

// init sets up the pair a·x + b·y with x ≤ u, y ≤ v and g = gcd(a, b).
func (q *pair) init(a, u, b, v, g uint64) {
	*q = pair{a: a, u: u, b: b, v: v, bv: b * v, g: g, period: divBy(b, g)}
}

// initRange sets up the pair for solveRange alone, which needs neither the
// gcd nor the period.
func (q *pair) initRange(a, u, b, v uint64) {
	*q = pair{a: a, u: u, b: b, v: v, bv: b * v}
}

// ceilDiv returns ⌈n/d⌉ for d ≥ 1.
func ceilDiv(n, d uint64) uint64 {
	q := n / d
	if q*d != n { // q·d ≤ n: no wrap
		q++
	}
	return q
}

// solve reports whether a·x + b·y = r has a solution within the bounds, for
// an r that g divides.
func (q *pair) solve(r uint64) bool {
	var lo uint64
	if r > q.bv {
		lo = ceilDiv(r-q.bv, q.a)
	}
	hi := min(q.u, r/q.a)
	if lo > hi {
		return false
	}
	m := q.period
	if m == 1 {
		return true // b divides a·x − r for every x
	}
	if q.inv == 0 {
		q.inv = modInverse(divBy(q.a, q.g)%m, m)
	}
	x0 := mulMod(divBy(r, q.g)%m, q.inv, m)
	x := lo + (x0+m-lo%m)%m // the first x ≥ lo in the class; lo, m < 2^63
	return x <= hi
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
	var xlo uint64
	if lo > q.bv {
		xlo = ceilDiv(lo-q.bv, q.a)
	}
	xhi := q.u
	if q.a*xhi > hi { // a·u ≤ rhs: no wrap; and no division when all of x fits
		xhi = hi / q.a
	}
	if xlo > xhi {
		return false
	}
	b, d := q.b, hi-lo
	if d >= b-1 {
		return true // any b consecutive integers hold a multiple of b
	}
	rem := (hi - q.a*xlo) % b // a·xlo ≤ hi
	if rem <= d {
		return true
	}
	if q.am == 0 {
		q.am = q.a%b + 1 // stored plus one: 0 means not yet
	}
	am := q.am - 1
	if n := xhi - xlo; n < 32 {
		for ; n > 0; n-- {
			if rem >= am {
				rem -= am
			} else {
				rem += b - am
			}
			if rem <= d {
				return true
			}
		}
		return false
	}
	// (hi − a·(xlo+t)) mod b ≤ d  ⟺  am·t mod b ∈ [rem − d, rem], an
	// interval within [1, b) since d < rem < b.
	t, ok := firstInRange(am, b, rem-d, rem)
	return ok && t <= xhi-xlo
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
