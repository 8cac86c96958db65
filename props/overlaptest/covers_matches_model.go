package overlaptest

import (
	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// CheckCoversMatchesModel checks that covers answers as the model's Covers
// — sound, not complete: true only when b is empty or a is gap-free and
// holds b's bounds — and fails with the same sentinel, on generated pairs;
// one side is, one time in four, a view at the edges of validity. The
// "sliced" family reads two slicings of one dense tensor, so b often lies
// within a.
func CheckCoversMatchesModel(t rapid.TB, covers func(a, b overlap.View) (bool, error)) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		p := Pairs().Draw(rt, "pair")
		if draw.Rarely(rt, 4, "edge") {
			if rapid.Bool().Draw(rt, "edgeFirst") {
				p.A = edgeViews().Draw(rt, "a")
			} else {
				p.B = edgeViews().Draw(rt, "b")
			}
		}
		got, err := covers(p.A, p.B)
		want, werr := overlap.Covers(p.A, p.B)
		if got != want || overlap.ErrName(err) != overlap.ErrName(werr) {
			rt.Fatalf("Covers(%v, %v) = %v, %v; the model says %v, %v", p.A, p.B, got, err, want, werr)
		}
	})
}
