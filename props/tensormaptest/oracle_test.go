package tensormaptest

import (
	"testing"

	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// TestElementOracleMatchesBruteForce holds the oracle of large runs to the
// overlap model on the views both can afford: the small ones of every run,
// and large ones of few bytes.
func TestElementOracleMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var vs viewPool
		draw := func() overlap.View {
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				return drawTiling(t, false).tile(rapid.Int64Range(0, 5).Draw(t, "tile"))
			case 1:
				return drawLarge(t)
			}
			return vs.draw(t)
		}
		a, b := draw(), draw()
		if a.Validate() != nil || b.Validate() != nil {
			return // maps never ask a solver about an invalid view
		}
		for _, v := range []overlap.View{a, b} {
			if n, _ := v.Numel(); n*v.ElemSize > 1<<15 {
				return // too many bytes for the brute force to be quick
			}
		}
		got, err := elementOracle(a, b)
		want, werr := overlap.Overlap(a, b)
		if err != nil || werr != nil || got != want {
			t.Fatalf("oracle(%v, %v) = %v, %v; the overlap model %v, %v", a, b, got, err, want, werr)
		}
	})
}
