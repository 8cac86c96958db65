package overlap

import "fmt"

// Validate returns nil for a well-formed view, else an error wrapping
// ErrInvalidView that says what is wrong. A view is well formed when its rank
// is at most MaxRank, Shape and Strides have one entry per dim, ElemSize is at
// least 1, no extent is negative, Offset is at least 0, and (for a non-empty
// view) every byte it touches has an address in [0, 2^63).
func (v View) Validate() error {
	_, _, err := v.extent()
	return err
}

// Empty reports whether the view touches no byte: some extent is zero.
func (v View) Empty() bool {
	for _, n := range v.Shape {
		if n == 0 {
			return true
		}
	}
	return false
}

// Bounds returns the lowest and the highest byte (both inclusive) a valid,
// non-empty view touches. For an invalid or empty view it returns ok = false.
func (v View) Bounds() (lo, hi int64, ok bool) {
	lo, hi, err := v.extent()
	if err != nil || v.Empty() {
		return 0, 0, false
	}
	return lo, hi, true
}

// Numel returns the number of elements, and false when it does not fit in
// int64 (possible for a valid view whose large dims all have stride 0).
func (v View) Numel() (int64, bool) {
	n := int64(1)
	for _, s := range v.Shape {
		var ok bool
		if n, ok = mulChecked(n, s); !ok {
			return 0, false
		}
	}
	return n, true
}

// extent validates v and, when it is non-empty, returns its inclusive byte
// bounds. Dims of size 1 contribute nothing: their stride means nothing.
func (v View) extent() (lo, hi int64, err error) {
	bad := func(format string, args ...any) (int64, int64, error) {
		return 0, 0, fmt.Errorf("%w: %v: %s", ErrInvalidView, v, fmt.Sprintf(format, args...))
	}
	switch {
	case len(v.Shape) > MaxRank:
		return bad("rank %d above %d", len(v.Shape), MaxRank)
	case len(v.Shape) != len(v.Strides):
		return bad("%d extents but %d strides", len(v.Shape), len(v.Strides))
	case v.ElemSize < 1:
		return bad("element size below 1")
	case v.Offset < 0:
		return bad("negative offset")
	}
	for d, n := range v.Shape {
		if n < 0 {
			return bad("negative extent in dim %d", d)
		}
	}
	if v.Empty() {
		return 0, 0, nil
	}
	lo, hi = v.Offset, v.Offset
	for d, n := range v.Shape {
		if n < 2 {
			continue
		}
		span, ok := mulChecked(n-1, v.Strides[d])
		if !ok {
			return bad("dim %d spans more than 2^63 bytes", d)
		}
		if span < 0 {
			lo, ok = addChecked(lo, span)
		} else {
			hi, ok = addChecked(hi, span)
		}
		if !ok || lo < 0 {
			return bad("dim %d reaches outside [0, 2^63)", d)
		}
	}
	hi, ok := addChecked(hi, v.ElemSize-1)
	if !ok {
		return bad("the last element ends past 2^63")
	}
	return lo, hi, nil
}
