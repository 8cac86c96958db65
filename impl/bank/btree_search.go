// The annotated searches of the btree (overview in btree.go): first fit and
// last fit by address over the blocks tree (the largest gap below each
// child), and the smallest fitting gap over the bySize tree (the highest
// address below each child). Each visits O(height) nodes: only the child
// that straddles a bound can fail after its annotation said yes.

package bank

// firstFit points c at the first entry with k ≥ lo and v ≥ n (by address:
// the lowest free block at or above lo holding n bytes). Only the child
// that straddles lo can fail after its annotation said yes, so the search
// visits O(height) nodes.
func (t *btree[K]) firstFit(c *cursor, lo, n K) bool {
	if root := &t.nodes[t.root]; root.size() > 0 && lo <= root.k[0] {
		// No entry lies below lo, so every annotation is exact: the first
		// child whose largest value fits holds the answer, no backtracking.
		return t.descend(c, n, false)
	}
	return t.firstFitIn(c, 0, t.root, lo, n)
}

// descend points c at the first (last, if fromEnd) entry with v ≥ n, by the
// annotations alone.
func (t *btree[K]) descend(c *cursor, n K, fromEnd bool) bool {
	x := t.root
	for l := 0; ; l++ {
		c.node[l] = x
		nd := &t.nodes[x]
		vs := nd.v[:nd.size()] // a slice: no bounds check per slot
		i := 0
		if fromEnd {
			for i = len(vs) - 1; i >= 0 && vs[i] < n; i-- {
			}
			if i < 0 {
				return false
			}
		} else {
			for i < len(vs) && vs[i] < n {
				i++
			}
			if i == len(vs) {
				return false
			}
		}
		c.pos[l] = int32(i)
		if nd.leaf {
			return true
		}
		x = t.kids[x][i]
	}
}

func (t *btree[K]) firstFitIn(c *cursor, l int, x int32, lo, n K) bool {
	c.node[l] = x
	nd := &t.nodes[x]
	if nd.leaf {
		for i := int32(0); i < nd.size(); i++ {
			if nd.v[i] >= n && nd.k[i] >= lo {
				c.pos[l] = i
				return true
			}
		}
		return false
	}
	i := int32(0) // children wholly below lo are skipped
	for i+1 < nd.size() && nd.k[i+1] <= lo {
		i++
	}
	for ; i < nd.size(); i++ {
		if nd.v[i] >= n {
			c.pos[l] = i
			if t.firstFitIn(c, l+1, t.kids[x][i], lo, n) {
				return true
			}
		}
	}
	return false
}

// lastFit points c at the last entry with lo ≤ k < hi and v ≥ n (the
// highest free block in [lo, hi) holding n bytes); hi = MaxUint64 is no
// bound.
func (t *btree[K]) lastFit(c *cursor, lo, hi, n K) bool {
	if root := &t.nodes[t.root]; hi == ^K(0) && root.size() > 0 && lo <= root.k[0] {
		return t.descend(c, n, true) // no bound cuts the tree: annotations are exact
	}
	return t.lastFitIn(c, 0, t.root, lo, hi, n)
}

func (t *btree[K]) lastFitIn(c *cursor, l int, x int32, lo, hi, n K) bool {
	c.node[l] = x
	nd := &t.nodes[x]
	if nd.leaf {
		for i := nd.size() - 1; i >= 0; i-- {
			switch {
			case nd.k[i] >= hi:
			case nd.k[i] < lo:
				return false
			case nd.v[i] >= n:
				c.pos[l] = i
				return true
			}
		}
		return false
	}
	i := nd.size() - 1 // children wholly at or above hi are skipped
	for i > 0 && nd.k[i] >= hi {
		i--
	}
	for ; i >= 0; i-- {
		if i+1 < nd.size() && nd.k[i+1] <= lo {
			return false // this child and those before it lie below lo
		}
		if nd.v[i] >= n {
			c.pos[l] = i
			if t.lastFitIn(c, l+1, t.kids[x][i], lo, hi, n) {
				return true
			}
		}
	}
	return false
}

// smallest points c at the first entry in (k, v) order with k ≥ n and
// v ≥ lo (in bySize: the smallest block of at least n bytes at or above
// lo, the lowest such among equals).
func (t *btree[K]) smallest(c *cursor, n, lo K) bool {
	return t.smallestIn(c, 0, t.root, n, lo)
}

func (t *btree[K]) smallestIn(c *cursor, l int, x int32, n, lo K) bool {
	c.node[l] = x
	nd := &t.nodes[x]
	if nd.leaf {
		for i := int32(0); i < nd.size(); i++ {
			if nd.k[i] >= n && nd.v[i] >= lo {
				c.pos[l] = i
				return true
			}
		}
		return false
	}
	i := int32(0) // children whose keys are all below n are skipped
	for i+1 < nd.size() && nd.k[i+1] < n {
		i++
	}
	for ; i < nd.size(); i++ {
		if nd.v[i] >= lo {
			c.pos[l] = i
			if t.smallestIn(c, l+1, t.kids[x][i], n, lo) {
				return true
			}
		}
	}
	return false
}
