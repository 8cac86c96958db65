package overlaptest

import (
	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// singleViews generates one view at a time, for the questions about one
// view's layout: a side of a generated pair (so every family of Pairs
// contributes), or, one time in four, a view at the edges of validity.
func singleViews() *rapid.Generator[overlap.View] {
	return rapid.Custom(func(t *rapid.T) overlap.View {
		if draw.Rarely(t, 4, "edge") {
			return edgeViews().Draw(t, "view")
		}
		p := Pairs().Draw(t, "pair")
		if rapid.Bool().Draw(t, "second") {
			return p.B
		}
		return p.A
	})
}
