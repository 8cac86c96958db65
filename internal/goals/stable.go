package goals

import (
	"fmt"

	"github.com/memverify/memverify/internal/benchcmp"
)

// stable: on every group matching pattern, the 95% interval of impl's
// median time lies within ±within of the median. This is a goal about the
// distribution, not the speed: a benchmark whose samples fall in two modes
// (10 ns in some processes, 20 ns in others) has an interval that spans
// both, however fast its median, and a user who measures it once cannot
// tell which figure to expect. The interval is the measurement here, so
// the verdict is met or missed, never inconclusive, once there are enough
// samples to bound it; with too few it is inconclusive.
func stable(pattern string, impls []string, within float64) check {
	return eachTime(pattern, impls, func(name string, row benchcmp.Row) Case {
		m := row.Median
		lo, hi := m*(1-within), m*(1+within)
		c := Case{
			Name: name + " spread",
			Measured: fmt.Sprintf("%s %s (goal within ±%.0f%%: [%s, %s])", benchcmp.Duration(m),
				ci(row.Lo, row.Hi, !row.Unbounded, benchcmp.Duration), within*100, benchcmp.Duration(lo), benchcmp.Duration(hi)),
		}
		if row.Unbounded {
			c.Inconclusive = true
			return c
		}
		c.Met = row.Lo >= lo && row.Hi <= hi
		c.Measured += fmt.Sprintf(": %+.0f%%, %+.0f%%", (row.Lo/m-1)*100, (row.Hi/m-1)*100)
		// The wider side over the allowed width, inverted: 1 at the bound.
		c.slack = within / max(1-row.Lo/m, row.Hi/m-1, 1e-9)
		return c
	})
}
