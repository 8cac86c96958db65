package overlaptest

import (
	"fmt"

	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// CheckMatchesModel checks that c answers exactly as the brute-force model
// on generated pairs, errors included. TooHard is a mismatch: the pairs are
// small enough for any sensible work cap.
func CheckMatchesModel(t rapid.TB, c overlap.Checker) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		p := Pairs().Draw(rt, "pair")
		mustValid(rt, p)
		op := overlap.Op{A: p.A, B: p.B}
		want, got := op.Apply(overlap.Overlap), op.Apply(c)
		if got != want {
			fail(rt, fmt.Sprintf("answer %v, the model says %v (%s family)", got, want, p.Family), qc(c, op, got))
		}
	})
}
