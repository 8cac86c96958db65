package overlaptest

import (
	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// CheckSymmetric checks that c(a, b) = c(b, a) on generated pairs, errors
// included.
func CheckSymmetric(t rapid.TB, c overlap.Checker) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		p := Pairs().Draw(rt, "pair")
		ab, ba := overlap.Op{A: p.A, B: p.B}, overlap.Op{A: p.B, B: p.A}
		r1, r2 := ab.Apply(c), ba.Apply(c)
		if r1 != r2 {
			fail(rt, "not symmetric", qc(c, ab, r1), qc(c, ba, r2))
		}
	})
}
