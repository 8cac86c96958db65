package overlaptest

import (
	"fmt"

	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// CappedChecker is a checker with a work cap: it answers as an
// overlap.Checker would, but gives up with TooHard once its search needs
// more than maxWork units (maxWork ≥ 1), and it reports the units it used.
// Its search must be deterministic: the same views, the same work.
type CappedChecker func(a, b overlap.View, maxWork int) (v overlap.Verdict, work int, err error)

// uncapped is a cap no generated pair comes near.
const uncapped = 1 << 24

// CheckTooHardOnlyAboveCap checks that c answers TooHard only from above its
// cap. With a cap at or above the work an uncapped call needs, the answer is
// the uncapped one (and the uncapped one is never TooHard on these small
// views); with a cap below it, the answer is TooHard. A pair decided before
// any search (work 0) says nothing about the cap and passes.
func CheckTooHardOnlyAboveCap(t rapid.TB, c CappedChecker) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		p := Pairs().Draw(rt, "pair")
		want, work, err := c(p.A, p.B, uncapped)
		if err != nil || work == 0 {
			return // decided before any search: the cap plays no part
		}
		op := overlap.Op{A: p.A, B: p.B}
		if want == overlap.TooHard {
			fail(rt, fmt.Sprintf("TooHard after %d units with a cap of %d", work, uncapped), q(op, overlap.Result{Verdict: want}))
		}
		limit := rapid.SampledFrom([]int{work - 1, work, work, work + 1, max(1, work/2), 2 * work}).Draw(rt, "cap")
		if limit < 1 {
			return
		}
		got, _, err := c(p.A, p.B, limit)
		expect := want
		if limit < work {
			expect = overlap.TooHard
		}
		if err != nil || got != expect {
			fail(rt, fmt.Sprintf("with a cap of %d units (the search needs %d): %v, %v; expected %v",
				limit, work, got, err, expect), q(op, overlap.Result{Verdict: got}))
		}
	})
}
