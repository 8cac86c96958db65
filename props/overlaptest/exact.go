package overlaptest

import (
	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// CheckExact runs, one after another, every property an exact checker must
// have: it matches the model, is symmetric, overlaps nothing with an empty
// view, is unchanged by translation, flips, permutations, reshapes and
// scaling, and refuses exactly the invalid views. A conservative filter
// fails it (it does not match the model); run CheckNeverMisses and the
// model-free properties on one instead.
func CheckExact(t rapid.TB, c overlap.Checker) {
	t.Helper()
	CheckMatchesModel(t, c)
	CheckSymmetric(t, c)
	CheckEmptyAndSelf(t, c)
	CheckTranslateInvariant(t, c)
	CheckFlipInvariant(t, c)
	CheckPermuteInvariant(t, c)
	CheckReshapeInvariant(t, c)
	CheckScaleInvariant(t, c)
	CheckRejectsInvalid(t, c)
}
