package tensormap

import (
	implov "github.com/memverify/memverify/impl/overlap"
	"github.com/memverify/memverify/model/overlap"
)

// measure validates v exactly as the overlap model does and returns its
// inclusive byte bounds; nonEmpty is false for an empty view, which
// overlaps nothing. It is the overlap solver's own measuring pass, so that
// the bounds the map keeps are the ones ExactBounded expects.
func measure(v *overlap.View) (lo, hi int64, nonEmpty bool, err error) {
	return implov.Bounds(v)
}
