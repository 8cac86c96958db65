package overlap

import spec "github.com/memverify/memverify/model/overlap"

// exactLines is exactQuick for two views of rank 1 — strided vectors, the
// pairs whose strides differ by a little among them — fused into one
// function: quickScan's measure of each, the bounds and shared ends of
// decide, and searchSmall's equation, with no call but the leaf's. The
// general path spends two thirds of such a pair's time on its passes and
// calls, the equation's own node one third. It answers what exactQuick
// would; ok is false, and nothing is decided, for the views quickScan turns
// away (exactQuick then takes them to the careful path).
func exactLines(a, b *spec.View) (v spec.Verdict, ok bool) {
	if len(a.Strides) != 1 || len(b.Strides) != 1 {
		return v, false
	}
	na, sa, ea := a.Shape[0]-1, a.Strides[0], a.ElemSize
	nb, sb, eb := b.Shape[0]-1, b.Strides[0], b.ElemSize
	signA, signB := sa>>63, sb>>63
	ca, cb := (sa^signA)-signA, (sb^signB)-signB // |MinInt64| stays negative and fails the guard
	// quickScan's guard, for both views at once: below it no span or sum
	// wraps, and an empty or invalid view fails it.
	guard := (ea - 1) | na | ca | (eb - 1) | nb | cb
	if uint64(guard) >= quickLimit || uint64(a.Offset|b.Offset) >= quickOffsetLimit {
		return v, false
	}
	spanA, spanB := na*ca, nb*cb
	loA, loB := a.Offset-spanA&signA, b.Offset-spanB&signB
	if loA < 0 || loB < 0 {
		return v, false // a negative stride reaches below byte 0: invalid
	}
	hiA, hiB := loA+spanA+ea-1, loB+spanB+eb-1
	switch {
	case loA > hiB || loB > hiA:
		return spec.No, true
	case loA == loB || hiA == hiB:
		return spec.Yes, true // a view touches its lowest and highest byte
	}
	var eq smallEquation
	eq.rhs = uint64(min(hiB-loA, hiA-loB))
	eq.add(uint64(ca), na)
	eq.add(uint64(cb), nb)
	eq.settle(ea, eb)
	if eq.solve() {
		return spec.Yes, true
	}
	return spec.No, true
}
