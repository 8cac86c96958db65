package overlap

import (
	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/overlap"
)

// Prepared is a view validated and measured once, for many queries: a
// dependency tracker prepares the view of each entry when it inserts it, and
// every later lookup skips validation and the gap test. It holds its own copy
// of the view's slices.
type Prepared struct {
	view spec.View
	box  box
}

// Prepare validates v exactly as the model does (ErrInvalidView) and measures
// it.
func Prepare(v spec.View) (Prepared, error) {
	if !bugs.On(BugPrepareAliases) {
		v.Shape = append([]int64(nil), v.Shape...)
		v.Strides = append([]int64(nil), v.Strides...)
	}
	b, err := measure(&v)
	if err != nil {
		return Prepared{}, err
	}
	if !b.empty {
		b.ordered = b.gapFree(&v)
	}
	b.settled = true
	return Prepared{view: v, box: b}, nil
}

// View returns the prepared view (its slices are shared: do not modify).
func (p *Prepared) View() spec.View { return p.view }

// ExactPrepared is Exact for prepared views, with the default work cap. It
// cannot fail: the views were validated by Prepare.
func ExactPrepared(a, b *Prepared) spec.Verdict {
	x, y := &a.box, &b.box
	if x.ordered && y.ordered && !x.empty && !y.empty {
		// Both gap-free: the bounds decide, without a call.
		if x.lo <= y.hi && y.lo <= x.hi {
			return spec.Yes
		}
		return spec.No
	}
	v, _ := decide(&a.view, &b.view, &a.box, &b.box, DefaultMaxWork)
	return v
}

// SolvePrepared is Solve for prepared views.
func (s Solver) SolvePrepared(a, b *Prepared) (spec.Verdict, Stats) {
	maxWork := s.MaxWork
	if maxWork <= 0 || bugs.On(BugPreparedCap) {
		maxWork = DefaultMaxWork
	}
	return decide(&a.view, &b.view, &a.box, &b.box, maxWork)
}

// PreparedChecker adapts the prepared path to a spec.Checker that prepares
// both views on every call; it exists so that the properties can hold the
// prepared path to the model.
func PreparedChecker(a, b spec.View) (spec.Verdict, error) {
	pa, err := Prepare(a)
	if err != nil {
		return spec.No, errFirst(err)
	}
	pb, err := Prepare(b)
	if err != nil {
		return spec.No, errSecond(err)
	}
	return ExactPrepared(&pa, &pb), nil
}
