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
// with coefficients strictly decreasing, and the tables that prune its search.
type problem struct {
	n     int
	rhs   uint64
	coef  [maxTerms]uint64
	ub    [maxTerms]uint64
	g     [maxTerms + 1]uint64 // g[k] = gcd(coef[k:]); g[n] = 0
	reach [maxTerms + 1]uint64 // reach[k] = Σ coef[k:]·ub[k:], saturating
	mod   [maxTerms]uint64     // mod[k] = g[k+1]/g[k]: the residue step of x[k]
	inv   [maxTerms]uint64     // inv[k] = (coef[k]/g[k])^-1 mod mod[k], on first use (0 before)
	// The last term (the smallest coefficient: often the byte term) as
	// slack: the terms k..n-2 sum to a multiple of g2[k] = gcd(coef[k:n-1]),
	// so the last term must make up r modulo g2[k]. lmod[k] = g2[k]/g[k] and
	// linv[k] = (coef[n-1]/g[k])^-1 mod lmod[k] give its least such value.
	lmod [maxTerms]uint64
	linv [maxTerms]uint64

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
func (p *problem) build(a, b *spec.View, ba, bb box) bool {
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
	p.sortMerge()
	p.tables()
	return true
}

// add appends the term c·x, 0 ≤ x ≤ u, clamped to what rhs allows. Terms that
// can only be 0 (stride 0, bound 0, coefficient above rhs) are left out.
func (p *problem) add(c, u uint64) {
	if c == 0 || u == 0 || c > p.rhs {
		return
	}
	if bugs.On(BugTermsTruncated) && p.n == spec.MaxRank {
		return
	}
	p.coef[p.n], p.ub[p.n] = c, min(u, p.rhs/c)
	p.n++
}

// sortMerge orders the terms by decreasing coefficient and merges equal
// coefficients: c·x + c·y with x ≤ u, y ≤ v takes exactly the values c·z,
// z ≤ u+v.
func (p *problem) sortMerge() {
	n := min(p.n, maxTerms) // p.n ≤ maxTerms; the min lets the compiler drop bounds checks
	for i := 1; i < n; i++ {
		c, u := p.coef[i], p.ub[i]
		j := i
		for ; j > 0 && c > p.coef[j-1]; j-- { // shift the smaller ones up: one move per step
			p.coef[j], p.ub[j] = p.coef[j-1], p.ub[j-1]
		}
		p.coef[j], p.ub[j] = c, u
	}
	w := 0
	for i := 0; i < p.n; i++ {
		if w > 0 && p.coef[w-1] == p.coef[i] {
			if bugs.On(BugMergeMax) {
				p.ub[w-1] = max(p.ub[w-1], p.ub[i])
			} else {
				// Each bound is at most rhs/c < 2^63: the sum cannot wrap.
				p.ub[w-1] = min(p.ub[w-1]+p.ub[i], p.rhs/p.coef[i])
			}
			continue
		}
		p.coef[w], p.ub[w] = p.coef[i], p.ub[i]
		w++
	}
	p.n = w
}

// tables fills the suffix gcds and reaches and, per term, the residue class
// its value must lie in for the rest to be divisible by their gcd.
func (p *problem) tables() {
	p.g[p.n], p.reach[p.n] = 0, 0
	for k := p.n - 1; k >= 0; k-- {
		if g := p.g[k+1]; g == 1 {
			p.g[k] = 1 // a suffix with gcd 1 (a byte term) keeps it
		} else {
			p.g[k] = gcd(p.coef[k], g)
		}
		// coef·ub ≤ rhs < 2^63 after clamping; only the sum may saturate.
		r := p.coef[k] * p.ub[k]
		if bugs.On(BugReachShort) && k == p.n-1 {
			r = 0
		}
		if s, carry := bits.Add64(r, p.reach[k+1], 0); carry == 0 {
			p.reach[k] = s
		} else {
			p.reach[k] = math.MaxUint64
		}
	}
	last := p.n - 1
	var g2 uint64
	for k := last - 1; k >= 0; k-- {
		// The inverses are computed on first use (0 = not yet: a true
		// inverse modulo m > 1 is at least 1): most searches end within a
		// node or two and never need them.
		g2 = gcd(p.coef[k], g2)
		p.mod[k], p.lmod[k] = divBy(p.g[k+1], p.g[k]), divBy(g2, p.g[k]) // g[k] = gcd(g2, coef[last])
		p.inv[k], p.linv[k] = 0, 0
	}
}

// solve searches for a solution within maxWork nodes.
func (p *problem) solve(maxWork int) bool {
	p.maxWork = maxWork
	if p.n == 0 {
		return p.rhs == 0
	}
	return p.dfs(0, p.rhs)
}

// dfs reports whether Σ_{j≥k} coef[j]·x[j] = r has a solution within the
// bounds. Each node prunes on the reach of the remaining terms and on their
// gcd; it then enumerates x[k] over the values that leave a remainder both
// reachable by the later terms and divisible by their gcd.
func (p *problem) dfs(k int, r uint64) bool {
	p.nodes++
	if p.nodes > p.maxWork || (bugs.On(BugCapOffByOne) && p.nodes >= p.maxWork) {
		p.tooHard = true
		return false
	}
	if g := p.g[k]; r > p.reach[k] || (g > 1 && r%g != 0) {
		return false
	}
	c := p.coef[k]
	if k == p.n-1 {
		return r/c <= p.ub[k] // g[k] = c divides r
	}
	if lm := p.lmod[k]; lm > 1 {
		// The least value of the last term that makes up r modulo g2[k].
		if p.linv[k] == 0 {
			p.linv[k] = modInverse(p.coef[p.n-1]/p.g[k]%lm, lm)
		}
		xl := mulMod(divBy(r, p.g[k])%lm, p.linv[k], lm)
		if xl > p.ub[p.n-1] || xl*p.coef[p.n-1] > r { // xl ≤ ub ≤ rhs/coef: no wrap
			return false
		}
	}
	var lo uint64
	if rest := p.reach[k+1]; r > rest {
		lo = (r - rest + c - 1) / c // r, c < 2^63: no wrap
	}
	hi := min(p.ub[k], r/c)
	if lo > hi {
		return false
	}
	m := p.mod[k]
	x := lo
	if m > 1 {
		if p.inv[k] == 0 {
			p.inv[k] = modInverse(c/p.g[k]%m, m)
		}
		x0 := mulMod(divBy(r, p.g[k])%m, p.inv[k], m)
		x = lo + (x0+m-lo%m)%m // the first x ≥ lo with x ≡ x0 (mod m)
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

// floorMod returns x mod m in [0, m) for m > 0.
func floorMod(x, m int64) int64 {
	r := x % m
	if r < 0 {
		r += m
	}
	return r
}
