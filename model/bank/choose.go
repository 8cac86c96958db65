package bank

// choose picks where n bytes go, or reports that nowhere is feasible.
//
// A place is feasible when it is aligned, at or above the aligned limit, lies
// wholly inside one free block and overlaps no avoided range. First fit takes
// the lowest feasible place bottom-up and the highest top-down. Best fit takes
// the smallest free block holding a feasible place (ties: the lowest block
// bottom-up, the highest top-down) and, inside it, the lowest (highest) place.
func (m *Model) choose(n int64, dir Direction, avoid []Range, limit Addr, policy Policy) (Addr, bool) {
	lo, ok := AlignUp(uint64(limit), uint64(m.cfg.Alignment))
	if !ok {
		return 0, false // no aligned address at or above the limit
	}
	var best Addr
	var bestSize int64
	found := false
	for _, b := range m.blocks {
		if b.Allocated {
			continue
		}
		a, ok := m.placeIn(b, n, dir, avoid, Addr(lo))
		if !ok {
			continue
		}
		better := !found
		switch {
		case found && policy == BestFit && b.Size != bestSize:
			better = b.Size < bestSize
		case found && dir == BottomUp:
			better = a < best
		case found:
			better = a > best
		}
		if better {
			best, bestSize, found = a, b.Size, true
		}
	}
	return best, found
}

// placeIn is the lowest (bottom-up) or highest (top-down) feasible place for
// n bytes inside free block b.
func (m *Model) placeIn(b Block, n int64, dir Direction, avoid []Range, lo Addr) (Addr, bool) {
	align := uint64(m.cfg.Alignment)
	var best Addr
	found := false
	segs := []Range{{Start: max(b.Addr, lo), End: b.Addr + Addr(b.Size)}}
	if len(avoid) > 0 {
		segs = usable(b, avoid, lo)
	}
	for _, s := range segs {
		if s.Start >= s.End {
			continue
		}
		start, ok := AlignUp(uint64(s.Start), align)
		if !ok || start > uint64(s.End) || uint64(s.End)-start < uint64(n) {
			continue
		}
		a := Addr(start)
		if dir == TopDown {
			a = Addr(AlignDown(uint64(s.End)-uint64(n), align))
		}
		if !found || (dir == BottomUp && a < best) || (dir == TopDown && a > best) {
			best, found = a, true
		}
	}
	return best, found
}

// usable is free block b cut to [lo, end) minus every avoided range.
func usable(b Block, avoid []Range, lo Addr) []Range {
	segs := []Range{{Start: max(b.Addr, lo), End: b.Addr + Addr(b.Size)}}
	if segs[0].Start >= segs[0].End {
		return nil
	}
	for _, r := range avoid {
		var next []Range
		for _, s := range segs {
			if r.End <= s.Start || r.Start >= s.End || r.Start == r.End {
				next = append(next, s)
				continue
			}
			if s.Start < r.Start {
				next = append(next, Range{Start: s.Start, End: r.Start})
			}
			if r.End < s.End {
				next = append(next, Range{Start: r.End, End: s.End})
			}
		}
		segs = next
	}
	return segs
}

// carve turns [a, a+n), which lies inside one free block, into an allocated
// block, leaving the rest of the free block free on either side.
func (m *Model) carve(a Addr, n int64) {
	for i, b := range m.blocks {
		if b.Allocated || a < b.Addr || a >= b.Addr+Addr(b.Size) {
			continue
		}
		var parts []Block
		if a > b.Addr {
			parts = append(parts, Block{Addr: b.Addr, Size: int64(a - b.Addr)})
		}
		parts = append(parts, Block{Addr: a, Size: n, Allocated: true})
		if end := a + Addr(n); end < b.Addr+Addr(b.Size) {
			parts = append(parts, Block{Addr: end, Size: int64(b.Addr + Addr(b.Size) - end)})
		}
		m.blocks = append(m.blocks[:i], append(parts, m.blocks[i+1:]...)...)
		return
	}
	panic("bank: carve outside a free block") // choose and AllocateAt only pass free places
}
