package overlaptest

import (
	"fmt"

	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// CheckRejectsInvalid checks that c refuses with ErrInvalidView exactly the
// pairs in which the model's Validate refuses a view, on views at the edges
// of the valid range (extents that wrap 2^64, addresses at 2^63-1, rank 9,
// element sizes below 1, shapes and strides of different lengths).
func CheckRejectsInvalid(t rapid.TB, c overlap.Checker) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		a := edgeViews().Draw(rt, "a")
		b := edgeViews().Draw(rt, "b")
		if rapid.Bool().Draw(rt, "oneSmall") {
			b = smallViews().Draw(rt, "small")
		}
		op := overlap.Op{A: a, B: b}
		got := op.Apply(c)
		wantInvalid := a.Validate() != nil || b.Validate() != nil
		if (got.Err == "ErrInvalidView") != wantInvalid || got.Err == "other" {
			fail(rt, fmt.Sprintf("answer %v; the model finds the pair invalid: %v (%v / %v)",
				got, wantInvalid, a.Validate(), b.Validate()), qc(c, op, got))
		}
	})
}
