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
	// The pair's equation on values (settleTwo, pairLeaf), its terms as
	// smallEquation.add builds them: one that cannot move or fit in rhs
	// is none (coefficient 0), and equal coefficients merge.
	rhs := uint64(min(hiB-loA, hiA-loB))
	c0, u0, c1, u1 := uint64(ca), uint64(na), uint64(cb), uint64(nb)
	if u0 == 0 || c0 > rhs {
		c0, u0 = 0, 0
	}
	if u1 == 0 || c1 > rhs {
		c1, u1 = 0, 0
	}
	if c0 == c1 && c0 != 0 {
		if u0 += u1; c0*u0 > rhs { // each span below 2^56: no wrap
			u0 = rhs / c0
		}
		c1, u1 = 0, 0
	}
	c0, u0, c1, u1, w := settleTwo(c0, u0, c1, u1, rhs, min(uint64(ea-1)+uint64(eb-1), rhs))
	return verdict(pairLeaf(c0, u0, c1, u1, rhs, w)), true
}
