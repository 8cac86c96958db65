package overlap

import "sort"

// Covers reports whether every byte of b is a byte of a. It is sound, not
// complete: true means covered; false means "not shown to be covered". It
// answers true when b is empty, or when a touches every byte between its
// lowest and highest (GapFree) and b's bounds lie within a's. A caller that
// prunes on Covers (an old producer entirely overwritten) never loses a
// dependency by it; it only prunes less than an exact test would.
func Covers(a, b View) (bool, error) {
	if err := validatePair(a, b); err != nil {
		return false, err
	}
	if b.Empty() {
		return true, nil
	}
	if a.Empty() || !GapFree(a) {
		return false, nil
	}
	loA, hiA, _ := a.Bounds()
	loB, hiB, _ := b.Bounds()
	return loA <= loB && hiB <= hiA, nil
}

// GapFree reports whether a valid, non-empty view touches every byte between
// its lowest and its highest: dims of size 1 and of stride 0 dropped, the rest
// sorted by |stride|, each |stride| is at most the span already covered by the
// smaller ones (ElemSize to begin with). Dense views and their broadcasts are
// gap-free, and so are sliding windows whose stride is below the element.
// It answers false for an invalid or empty view.
func GapFree(v View) bool {
	if _, _, ok := v.Bounds(); !ok {
		return false
	}
	type dim struct{ n, s int64 }
	var dims []dim
	for d, n := range v.Shape {
		if n > 1 && v.Strides[d] != 0 {
			dims = append(dims, dim{n, int64(absU(v.Strides[d]))})
		}
	}
	sort.Slice(dims, func(i, j int) bool { return dims[i].s < dims[j].s })
	covered := v.ElemSize // the bytes [lo, lo+covered) are all touched
	for _, d := range dims {
		if d.s > covered {
			return false
		}
		covered += (d.n - 1) * d.s // within the view's bounds: fits
	}
	return true
}
