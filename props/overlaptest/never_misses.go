package overlaptest

import (
	"fmt"

	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// CheckNeverMisses checks that c never answers No where the model answers
// Yes, and fails exactly where the model fails. This is all a conservative
// filter (a bounding box) promises: a missed overlap is a lost dependency,
// a false one only a lost chance to run in parallel.
func CheckNeverMisses(t rapid.TB, c overlap.Checker) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		p := Pairs().Draw(rt, "pair")
		mustValid(rt, p)
		op := overlap.Op{A: p.A, B: p.B}
		want, got := op.Apply(overlap.Overlap), op.Apply(c)
		if got.Err != want.Err || (want.Verdict == overlap.Yes && got.Verdict == overlap.No) {
			fail(rt, fmt.Sprintf("answer %v, the model says %v: a missed overlap is a lost dependency", got, want), qc(c, op, got))
		}
	})
}
