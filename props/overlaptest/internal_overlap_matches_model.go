package overlaptest

import (
	"errors"

	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// CheckInternalOverlapMatchesModel checks that internal answers as the
// model's InternalOverlap — whether a view touches a byte through two
// different elements — with the same sentinel on failure, on generated
// views. The Pairs families with stride-0 dims and strides below the
// element give views that overlap themselves. Views the brute-force model
// refuses as too large are skipped: a checker need not refuse them.
// TooHard is a mismatch: the views are small.
func CheckInternalOverlapMatchesModel(t rapid.TB, internal func(overlap.View) (overlap.Verdict, error)) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		v := singleViews().Draw(rt, "view")
		want, werr := overlap.InternalOverlap(v)
		if errors.Is(werr, overlap.ErrTooLarge) {
			return
		}
		got, err := internal(v)
		if got != want || overlap.ErrName(err) != overlap.ErrName(werr) {
			rt.Fatalf("InternalOverlap(%v) = %v, %v; the model says %v, %v", v, got, err, want, werr)
		}
	})
}
