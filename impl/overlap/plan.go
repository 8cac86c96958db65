package overlap

import (
	"fmt"
	"sync/atomic"

	spec "github.com/memverify/memverify/model/overlap"
)

// The shifted-copy test as a dependency tracker holds it: one ShiftPlan per
// layout, and each view of the layout known by its lowest byte alone. The
// descent is right only for two views of the planned layout, so a view
// enters a plan through Place, which checks its layout, and comes out as a
// Placed that names its plan; At moves a Placed to another lowest byte (a
// view of the same layout elsewhere), and Overlap refuses a Placed of
// another plan. So a view of another layout can reach the descent only by
// a wrong Span, never by a wrong pairing, and the check costs O(rank) once
// per view placed, not per pair decided.

// planIDs numbers the plans PlanShift makes.
var planIDs atomic.Uint64

// PlanShift plans the shifted-copy test for views with v's layout. An
// invalid v is refused (an error wrapping ErrInvalidView).
func PlanShift(v *spec.View) (ShiftPlan, error) {
	var p ShiftPlan
	if _, err := measure(v); err != nil {
		return p, err
	}
	p.plan(v)
	p.id = planIDs.Add(1)
	return p, nil
}

// A Placed is a view of one ShiftPlan's layout, known by its lowest byte.
// Only Place makes one from a view, and At moves one; the zero Placed
// belongs to no plan.
type Placed struct {
	lo   int64
	plan uint64 // the id of the plan that placed it, with emptyView for a view that touches nothing
}

// emptyView marks the Placed of an empty view; plan ids stay below it.
const emptyView = 1 << 63

// Place checks that the measured view s has the planned layout — the
// element size, and the same (extent, |stride|) for the dims that move
// something, in any order (a transpose or a reversed dim touches the same
// bytes from its lowest) — and returns it placed at its lowest byte. A view
// of another layout is an error wrapping ErrLayoutMismatch, and so is any
// view for the zero plan; a span that cannot be a measured view's, one
// wrapping ErrInvalidView.
func (p *ShiftPlan) Place(s Span) (Placed, error) {
	if err := checkSpan(&s); err != nil {
		return Placed{}, err
	}
	if err := p.fits(s.View); err != nil {
		return Placed{}, err
	}
	x := Placed{lo: s.Lo, plan: p.id}
	if s.Empty {
		x.lo, x.plan = 0, p.id|emptyView
	}
	return x, nil
}

// At returns a view of x's layout whose lowest byte is lo: for a tracker
// that derives the lowest byte of each view of a layout from its offset.
func (x Placed) At(lo int64) Placed {
	x.lo = lo
	return x
}

// Lo returns the lowest byte of x.
func (x Placed) Lo() int64 { return x.lo }

// Overlap decides two views placed by p: ok is false when the layout is not
// nested, and then the search must decide (ExactBounded). A view placed by
// another plan, or any for the zero plan, is an error wrapping
// ErrLayoutMismatch, never an answer; a lowest byte below 0 (At's) one
// wrapping ErrInvalidView. An empty view overlaps nothing.
func (p *ShiftPlan) Overlap(x, y Placed) (overlap, ok bool, err error) {
	// One test for the common case: both placed by p (a plan's id is never
	// 0), neither empty, both lowest bytes in [0, 2^63).
	if x.plan != p.id || y.plan != p.id || p.id == 0 || x.lo|y.lo < 0 {
		return p.refuse(x, y)
	}
	if !p.nested {
		return false, false, nil
	}
	// decide's descent, written out: a tracker calls Overlap for most pairs
	// it compares, and one call fewer is a few percent of its lookup.
	delta := uint64(y.lo - x.lo) // both in [0, 2^63): the difference fits
	if x.lo > y.lo {
		delta = uint64(x.lo - y.lo)
	}
	d := shiftSearch{dims: p.dims[:p.k], elem: p.elem}
	return d.reach(int(p.k)-1, delta), true, nil
}

// refuse is Overlap for the pairs its first test turns away: an empty view
// (no overlap), or an error.
func (p *ShiftPlan) refuse(x, y Placed) (overlap, ok bool, err error) {
	switch {
	case x.plan&^emptyView != p.id || y.plan&^emptyView != p.id || p.id == 0:
		return false, false, fmt.Errorf("%w: views placed by plans %d and %d, not by plan %d",
			spec.ErrLayoutMismatch, x.plan&^emptyView, y.plan&^emptyView, p.id)
	case x.lo < 0 || y.lo < 0:
		return false, false, fmt.Errorf("%w: lowest bytes %d and %d", spec.ErrInvalidView, x.lo, y.lo)
	}
	return false, true, nil // an empty view
}

// fits returns nil when v has the planned layout (see Place).
func (p *ShiftPlan) fits(v *spec.View) error {
	mismatch := func(why string) error {
		return fmt.Errorf("%w: %v: %s", spec.ErrLayoutMismatch, *v, why)
	}
	if p.id == 0 {
		return mismatch("the zero ShiftPlan plans no layout")
	}
	if uint64(v.ElemSize) != p.elem || len(v.Strides) != len(v.Shape) {
		return mismatch(fmt.Sprintf("element size %d, planned %d", v.ElemSize, p.elem))
	}
	var used uint32 // the planned dims matched so far
	k := int(p.k)
	for d, n := range v.Shape {
		m := absU(v.Strides[d])
		if n < 2 || m == 0 {
			continue
		}
		j := 0
		for ; j < k; j++ {
			if used&(1<<j) == 0 && p.dims[j].m == m && p.dims[j].n == uint64(n-1) {
				break
			}
		}
		if j == k {
			return mismatch(fmt.Sprintf("dim %d (extent %d, |stride| %d) is not planned", d, n, m))
		}
		used |= 1 << j
	}
	if used != 1<<k-1 {
		return mismatch("a planned dim is missing")
	}
	return nil
}
