package overlap

import (
	"errors"
	"fmt"
	"slices"
)

// ErrBadTransform: a view transform's arguments do not apply to the view (a
// dim out of range, a slice outside the extent, a step of 0, a permutation
// that is not one, a reshape that would need a copy or changes the count).
var ErrBadTransform = errors.New("overlap: transform does not apply to this view")

// The transforms are shallow, as in the seed: they return a new View of the
// same storage (Clone excepted) and never copy bytes. Each validates its input
// view first (ErrInvalidView) and returns a valid view.

// Slice keeps the indices start, start+step, ... of dim, stopping before stop.
// step > 0 needs 0 ≤ start ≤ stop ≤ n; step < 0 walks downwards and needs
// -1 ≤ stop ≤ start ≤ n-1 (so Slice(v, d, n-1, -1, -1) reverses dim d). No
// index wraps and nothing is clamped: out-of-range bounds are ErrBadTransform.
// A slice of an empty view changes only its shape: the view addresses no
// byte, so its offset and strides mean nothing and are kept as they are.
func Slice(v View, dim int, start, stop, step int64) (View, error) {
	if err := v.Validate(); err != nil {
		return View{}, err
	}
	if dim < 0 || dim >= len(v.Shape) {
		return View{}, fmt.Errorf("%w: dim %d of a rank-%d view", ErrBadTransform, dim, len(v.Shape))
	}
	n := v.Shape[dim]
	var count int64
	// The kept indices are start + i·step for i below the count. The count
	// is formed from the distance to the last index that may be kept, which
	// the bounds make non-negative and at most n-1, divided by |step| as
	// an unsigned number (|MinInt64| = 2^63 is one): nothing can wrap, however
	// large the step or the extent.
	switch {
	case step > 0 && 0 <= start && start <= stop && stop <= n:
		if stop > start {
			count = int64(uint64(stop-start-1)/uint64(step)) + 1
		}
	case step < 0 && -1 <= stop && stop <= start && start <= n-1:
		if start > stop {
			count = int64(uint64(start-stop-1)/(-uint64(step))) + 1
		}
	default:
		return View{}, fmt.Errorf("%w: slice [%d:%d:%d] of an extent of %d", ErrBadTransform, start, stop, step, n)
	}
	out := v.clone()
	out.Shape[dim] = count
	if v.Empty() {
		return out, nil
	}
	if count > 0 {
		// start is an index of a non-empty view; its address lies in the view.
		out.Offset += start * v.Strides[dim]
	}
	if count > 1 {
		// Two kept indices of a non-empty view lie within the dim, so
		// |step| ≤ n-1 and stride·step is at most the dim's span, which
		// validation bounded. Checked all the same: it costs nothing here.
		s, ok := mulChecked(v.Strides[dim], step)
		if !ok {
			return View{}, fmt.Errorf("%w: stride overflow", ErrBadTransform)
		}
		out.Strides[dim] = s
	}
	return out, nil
}

// Transpose reorders the dims: dim d of the result is dim perm[d] of v.
func Transpose(v View, perm ...int) (View, error) {
	if err := v.Validate(); err != nil {
		return View{}, err
	}
	if len(perm) != len(v.Shape) {
		return View{}, fmt.Errorf("%w: permutation %v of a rank-%d view", ErrBadTransform, perm, len(v.Shape))
	}
	used := make([]bool, len(perm))
	out := v.clone()
	for d, p := range perm {
		if p < 0 || p >= len(perm) || used[p] {
			return View{}, fmt.Errorf("%w: %v is not a permutation", ErrBadTransform, perm)
		}
		used[p] = true
		out.Shape[d], out.Strides[d] = v.Shape[p], v.Strides[p]
	}
	return out, nil
}

// Reshape gives v a new shape with the same elements in the same row-major
// order, without a copy. It is possible when every group of new dims falls
// inside a run of old dims that are laid out contiguously one within the next
// (size-1 dims belong to any run). Otherwise ErrBadTransform: the caller must
// Clone first. An empty view reshapes to any shape holding no element.
func Reshape(v View, shape ...int64) (View, error) {
	if err := v.Validate(); err != nil {
		return View{}, err
	}
	if len(shape) > MaxRank {
		return View{}, fmt.Errorf("%w: rank %d above %d", ErrBadTransform, len(shape), MaxRank)
	}
	want, ok := View{ElemSize: 1, Shape: shape, Strides: shape}.Numel()
	have, ok2 := v.Numel()
	for _, n := range shape {
		ok = ok && n >= 0
	}
	if !ok || !ok2 || want != have {
		return View{}, fmt.Errorf("%w: %v cannot hold the %d elements of %v", ErrBadTransform, shape, have, v)
	}
	if have == 0 {
		d, err := Dense(v.Offset, v.ElemSize, shape...)
		return d, err
	}
	strides, ok := reshapeStrides(v, shape)
	if !ok {
		return View{}, fmt.Errorf("%w: %v cannot be viewed as %v without a copy", ErrBadTransform, v, shape)
	}
	return View{Offset: v.Offset, ElemSize: v.ElemSize, Shape: append([]int64(nil), shape...), Strides: strides}, nil
}

// reshapeStrides walks the old dims from the innermost outwards, cutting them
// into runs in which each dim steps over exactly the next one, and fills each
// run with new dims, innermost first. Within a run of base stride s, a new
// dim's stride is s times the product of the new dims inside it.
func reshapeStrides(v View, shape []int64) ([]int64, bool) {
	// Drop size-1 dims of v: their strides mean nothing.
	var oldN, oldS []int64
	for d, n := range v.Shape {
		if n != 1 {
			oldN, oldS = append(oldN, n), append(oldS, v.Strides[d])
		}
	}
	strides := make([]int64, len(shape))
	nd := len(shape) - 1
	for od := len(oldN) - 1; od >= 0; {
		// The run [first, od]: each dim's stride is the next dim's stride times its extent.
		first, runN := od, oldN[od]
		for first > 0 {
			step, ok := mulChecked(oldS[first], oldN[first])
			if !ok || step != oldS[first-1] {
				break
			}
			first--
			runN *= oldN[first] // a product of extents of a valid view's elements: fits
		}
		base, filled := oldS[od], int64(1)
		for nd >= 0 && (filled < runN || shape[nd] == 1) {
			s, ok := mulChecked(base, filled)
			switch {
			case !ok && shape[nd] == 1:
				s = 0 // a size-1 dim's stride addresses nothing
			case !ok:
				return nil, false
			}
			strides[nd] = s
			filled *= shape[nd]
			nd--
			if filled > runN {
				return nil, false
			}
		}
		if filled != runN {
			return nil, false
		}
		od = first - 1
	}
	for ; nd >= 0; nd-- { // only size-1 dims can remain
		if shape[nd] != 1 {
			return nil, false
		}
		strides[nd] = 0
	}
	return strides, true
}

// Clone returns a dense row-major view of v's shape at offset 0 of a new
// storage, as the seed's deep copy: it shares no byte with any view of v's
// storage (storages are told apart by the caller, not by the View).
func Clone(v View) (View, error) {
	if err := v.Validate(); err != nil {
		return View{}, err
	}
	return Dense(0, v.ElemSize, v.Shape...)
}

// Dense returns the row-major contiguous view of the given shape: the last dim
// has stride elem, each other dim steps over the whole of the next. It fails
// with ErrInvalidView when the view would not be valid. A stride that would
// not fit in an int64 but addresses nothing is 0: those of a shape holding no
// element, and those of outer dims of extent 1.
func Dense(offset, elem int64, shape ...int64) (View, error) {
	v := View{Offset: offset, ElemSize: elem, Shape: append([]int64{}, shape...), Strides: make([]int64, len(shape))}
	empty := slices.Contains(shape, 0)
	s := elem
	for d := len(shape) - 1; d >= 0; d-- {
		v.Strides[d] = s
		var fits bool
		if s, fits = mulChecked(s, max(shape[d], 1)); !fits && d > 0 {
			if !empty && slices.ContainsFunc(shape[:d], func(n int64) bool { return n > 1 }) {
				return View{}, fmt.Errorf("%w: dense %v of %d-byte elements overflows", ErrInvalidView, shape, elem)
			}
			break // the outer strides stay 0
		}
	}
	if err := v.Validate(); err != nil {
		return View{}, err
	}
	return v, nil
}

// clone deep-copies v's slices, so a transform never aliases its input.
func (v View) clone() View {
	v.Shape = append([]int64{}, v.Shape...)
	v.Strides = append([]int64{}, v.Strides...)
	return v
}
