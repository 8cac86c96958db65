package overlap

import (
	"math/rand/v2"
	"testing"

	spec "github.com/memverify/memverify/model/overlap"
)

// TestFirstInRange holds firstInRange to a scan of t over a full period, on
// small moduli, and to its own claim (a·t mod m in range) on huge ones.
func TestFirstInRange(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		m := 1 + r.Uint64N(60)
		a, lo := r.Uint64N(m), r.Uint64N(m)
		hi := lo + r.Uint64N(m-lo)
		want, found := uint64(0), false
		for x := range m {
			if v := a * x % m; lo <= v && v <= hi {
				want, found = x, true
				break
			}
		}
		if got, ok := firstInRange(a, m, lo, hi); ok != found || (ok && got != want) {
			t.Fatalf("firstInRange(%d, %d, %d, %d) = %d, %v; want %d, %v", a, m, lo, hi, got, ok, want, found)
		}
	}
	for range 20000 {
		m := 1<<62 + r.Uint64N(1<<62)
		a, lo := r.Uint64N(m), r.Uint64N(m)
		hi := min(m-1, lo+r.Uint64N(1<<20))
		if got, ok := firstInRange(a, m, lo, hi); ok {
			if v := mulMod(a, got%m, m); v < lo || v > hi || got >= m {
				t.Fatalf("firstInRange(%d, %d, %d, %d) = %d: a·t mod m = %d", a, m, lo, hi, got, v)
			}
		}
	}
}

// TestPair holds the closed forms of the last two terms to enumeration.
func TestPair(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 50000 {
		a, b := 1+r.Uint64N(40), 1+r.Uint64N(40)
		u, v := r.Uint64N(12), r.Uint64N(12)
		lo := r.Uint64N(a*u + b*v + 8)
		hi := lo + r.Uint64N(6)
		if r.IntN(3) == 0 {
			hi = lo
		}
		exact, ranged := false, false
		for x := range u + 1 {
			for y := range v + 1 {
				s := a*x + b*y
				exact = exact || s == lo
				ranged = ranged || (lo <= s && s <= hi)
			}
		}
		var q pair
		q.init(a, u, b, v, gcd(a, b))
		if lo%q.g == 0 {
			if got := q.solve(lo); got != exact {
				t.Fatalf("%d·x + %d·y = %d, x ≤ %d, y ≤ %d: solve %v, want %v", a, b, lo, u, v, got, exact)
			}
		}
		if lo > 0 {
			if got := q.solveRange(lo, hi); got != ranged {
				t.Fatalf("%d·x + %d·y in [%d, %d], x ≤ %d, y ≤ %d: solveRange %v, want %v", a, b, lo, hi, u, v, got, ranged)
			}
		}
	}
}

// TestPairWide holds solveRange to a scan over x on pairs wide enough for
// its interior step (firstInRange), where each x's y range is decided by
// division.
func TestPairWide(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 20000 {
		a, b := 1+r.Uint64N(2000), 1+r.Uint64N(2000)
		u, v := r.Uint64N(400), r.Uint64N(400)
		lo := 1 + r.Uint64N(a*u+b*v+8)
		hi := lo + r.Uint64N(min(a, b)+2)
		want := false
		for x := uint64(0); x <= u && a*x <= hi && !want; x++ {
			y := min(v, (hi-a*x)/b)
			want = a*x+b*y >= lo
		}
		var q pair
		q.init(a, u, b, v, gcd(a, b))
		if got := q.solveRange(lo, hi); got != want {
			t.Fatalf("%d·x + %d·y in [%d, %d], x ≤ %d, y ≤ %d: solveRange %v, want %v", a, b, lo, hi, u, v, got, want)
		}
	}
}

// TestSmallSearchesAgree: searchSmall answers, and counts nodes, exactly
// as the search it stands in for, under caps that cut it short too — with
// two terms on views of rank ≤ 2, with three on pairs of matrices (and
// vectors with views of rank 3) — with size-1 dims, stride-0 dims, strides
// of 1 and repeated strides mixed in, so that merged terms, absorbed ones
// and every order of the bounds come up.
func TestSmallSearchesAgree(t *testing.T) {
	cases := []struct {
		terms    int
		ranks    [][2]int
		strides  []int64
		maxShape int
		maxWorks []int
		searched int // pairs searched past their root, at least
	}{
		{2, [][2]int{{0, 2}, {1, 1}, {2, 2}, {1, 2}}, []int64{0, 1, -1, 3, 7, 12, -12}, 40, []int{0, 1, 2}, 0},
		{3, [][2]int{{2, 2}, {1, 3}, {3, 1}, {2, 1}}, []int64{0, 1, -1, 5, 7, 12, -12, 64, 100, -100}, 60, []int{0, 1, 2, 3, 4, 7, DefaultMaxWork}, 5000},
	}
	for _, c := range cases {
		r := rand.New(rand.NewPCG(17, uint64(c.terms)))
		taken, searched := 0, 0
		for range 100000 {
			var vs [2]spec.View
			var bs [2]box
			ranks := c.ranks[r.IntN(len(c.ranks))]
			for k := range vs {
				vs[k] = randomView(r, ranks[k], c.maxShape, c.strides)
				var err error
				if bs[k], err = measure(&vs[k]); err != nil || bs[k].empty {
					t.Fatal(vs[k], err)
				}
			}
			if !boxesMeet(&bs[0], &bs[1]) {
				continue
			}
			maxWork := c.maxWorks[r.IntN(len(c.maxWorks))]
			v, st, ok := searchSmall(&vs[0], &vs[1], &bs[0], &bs[1], maxWork, c.terms)
			if !ok {
				continue
			}
			taken++
			if st.Nodes > 1 {
				searched++
			}
			var p problem
			p.build(&vs[0], &vs[1], &bs[0], &bs[1])
			found := p.searchTree(maxWork)
			want := spec.No
			switch {
			case found:
				want = spec.Yes
			case p.tooHard:
				want = spec.TooHard
			}
			if v != want || st.Nodes != p.nodes || st.Path != PathSearch {
				t.Fatalf("%v, %v, %d terms, cap %d: small %v %+v; search %v after %d nodes", vs[0], vs[1], c.terms, maxWork, v, st, want, p.nodes)
			}
		}
		if taken < 10000 || searched < c.searched {
			t.Errorf("%d terms: the small path took only %d pairs, %d past their root", c.terms, taken, searched)
		}
	}
}

// randomView returns a view of the given rank, extents up to maxShape,
// strides from strides times 1 to 3, and an offset that keeps it at or
// above byte 0.
func randomView(r *rand.Rand, rank, maxShape int, strides []int64) spec.View {
	x := spec.View{ElemSize: int64(1 + r.IntN(4)), Shape: make([]int64, rank), Strides: make([]int64, rank)}
	for d := range rank {
		x.Shape[d] = int64(1 + r.IntN(maxShape))
		x.Strides[d] = strides[r.IntN(len(strides))] * int64(1+r.IntN(3))
		if x.Shape[d] > 1 && x.Strides[d] < 0 {
			x.Offset -= (x.Shape[d] - 1) * x.Strides[d]
		}
	}
	x.Offset += int64(r.IntN(400))
	return x
}

// TestReciprocal: quo and rem agree with division for dividends below 2^32
// and divisors from 2 to 2^32 − 1, the ends of both ranges included.
func TestReciprocal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ds := []uint64{2, 3, 7, 400, 1 << 16, 1<<31 - 1, 1 << 31, 1<<32 - 1}
	for range 200 {
		ds = append(ds, 2+r.Uint64N(1<<32-2))
	}
	for _, d := range ds {
		recip := reciprocal(d)
		xs := []uint64{0, 1, d - 1, d, d + 1, 1<<32 - 1}
		for range 2000 {
			xs = append(xs, r.Uint64N(1<<32))
		}
		for _, x := range xs {
			if x >= 1<<32 {
				continue
			}
			if q, m := quo(x, recip), rem(x, d, recip); q != x/d || m != x%d {
				t.Fatalf("x=%d d=%d: quo %d rem %d, want %d %d", x, d, q, m, x/d, x%d)
			}
		}
	}
}

// searchTree is problem.solve without its shortcut for two terms: the
// tables and the depth-first search, whose answer and node count the
// shortcut must give.
func (p *problem) searchTree(maxWork int) bool {
	p.maxWork = maxWork
	if p.n == 0 {
		return p.rhs <= p.slack
	}
	if p.n <= smallTerms {
		p.tables()
	}
	return p.dfs(0, p.rhs)
}

// TestMulModBelow: the Barrett product agrees with mulMod for moduli from 2
// to 2^31 − 1 and factors at the ends of their range.
func TestMulModBelow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ds := []uint64{2, 3, 7, 400, 1 << 16, 1<<31 - 1, 1 << 30}
	for range 300 {
		ds = append(ds, 2+r.Uint64N(1<<31-2))
	}
	for _, d := range ds {
		recip := reciprocal(d)
		xs := []uint64{0, 1, d - 1, d / 2}
		for range 300 {
			xs = append(xs, r.Uint64N(d))
		}
		for _, x := range xs {
			for _, y := range xs {
				if got, want := mulModBelow(x, y, d, recip), mulMod(x, y, d); got != want {
					t.Fatalf("%d·%d mod %d: %d, want %d", x, y, d, got, want)
				}
			}
		}
	}
}
