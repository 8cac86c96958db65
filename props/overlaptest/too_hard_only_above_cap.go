package overlaptest

import (
	"fmt"

	spec "github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// CappedChecker is a checker with a work cap: it answers as a Checker would
// with at most maxWork units of search, and reports the units it used.
// Its search must be deterministic: the same views, the same work.
type CappedChecker func(a, b spec.View, maxWork int) (v spec.Verdict, work int, err error)

// uncapped is a cap no generated pair comes near.
const uncapped = 1 << 24

// CheckOverlapCap: TooHard comes only from above the cap. With a cap at or
// above the work an uncapped call needs, the answer is the uncapped one (and
// the uncapped one is never TooHard on these small views); with a cap below
// it, the answer is TooHard.
func CheckOverlapCap(t rapid.TB, c CappedChecker) {
	rapid.Check(t, func(rt *rapid.T) {
		p := OverlapPairs().Draw(rt, "pair")
		want, work, err := c(p.A, p.B, uncapped)
		if err != nil || work == 0 {
			return // decided before any search: the cap plays no part
		}
		op := spec.Op{A: p.A, B: p.B}
		if want == spec.TooHard {
			fail(rt, fmt.Sprintf("TooHard after %d units with a cap of %d", work, uncapped), q(op, spec.Result{Verdict: want}))
		}
		limit := rapid.SampledFrom([]int{work - 1, work, work, work + 1, max(1, work/2), 2 * work}).Draw(rt, "cap")
		if limit < 1 {
			return
		}
		got, _, err := c(p.A, p.B, limit)
		expect := want
		if limit < work {
			expect = spec.TooHard
		}
		if err != nil || got != expect {
			fail(rt, fmt.Sprintf("with a cap of %d units (the search needs %d): %v, %v; expected %v",
				limit, work, got, err, expect), q(op, spec.Result{Verdict: got}))
		}
	})
}
