package overlaptest

import (
	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// CheckGapFreeMatchesModel checks that gapFree answers as the model's
// GapFree — whether a view touches every byte between its lowest and its
// highest — on generated views, invalid and empty ones (false) included.
func CheckGapFreeMatchesModel(t rapid.TB, gapFree func(overlap.View) bool) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		v := singleViews().Draw(rt, "view")
		if got, want := gapFree(v), overlap.GapFree(v); got != want {
			rt.Fatalf("GapFree(%v) = %v, the model says %v", v, got, want)
		}
	})
}
