// The btree's cursor (overview in btree.go): a root-to-leaf path found by
// one descent, stepped forwards and backwards, and the in-place update of
// the entry it points at, whose change raise carries up the path only as
// far as it alters the slots above.

package bank

// cursor is a root-to-leaf path: node[l] and the slot pos[l] taken at level
// l. At the leaf, pos is the entry (or -1: before the leaf's first entry).
type cursor struct {
	node [maxDepth]int32
	pos  [maxDepth]int32
}

// seekLE points c at the last entry ≤ (k, v) and reports whether there is
// one; if not, c is before the first entry (next moves to it).
func (t *btree[K]) seekLE(c *cursor, k, v K) bool {
	x, l := t.root, 0
	for ; l < t.height-1; l++ {
		c.node[l] = x
		if l > 0 { // the root stays in cache
			t.touchInner(x)
		}
		r := max(t.rank(x, k, v)-1, 0)
		c.pos[l] = r
		x = t.kids[x][r]
	}
	c.node[l] = x
	t.touch(x)
	r := t.rank(x, k, v)
	c.pos[l] = r - 1
	return r > 0
}

// first points c at the first entry; false when the tree is empty.
func (t *btree[K]) first(c *cursor) bool {
	x := t.root
	for l := 0; l < t.height; l++ {
		c.node[l], c.pos[l] = x, 0
		x = t.kids[x][0]
	}
	return t.nodes[c.node[t.height-1]].size() > 0
}

// next moves c to the following entry; false at the end.
func (t *btree[K]) next(c *cursor) bool {
	for l := t.height - 1; l >= 0; l-- {
		if c.pos[l]+1 < t.nodes[c.node[l]].size() {
			c.pos[l]++
			for ; l+1 < t.height; l++ {
				c.node[l+1], c.pos[l+1] = t.kids[c.node[l]][c.pos[l]], 0
			}
			return true
		}
	}
	return false
}

// nextKey is the key of the entry after the one c points at, without
// moving c: the next slot of the leaf, or else of the lowest ancestor that
// has one (an inner slot's key is its subtree's smallest).
func (t *btree[K]) nextKey(c *cursor) (K, bool) {
	for l := t.height - 1; l >= 0; l-- {
		nd := &t.nodes[c.node[l]]
		if p := c.pos[l] + 1; p < nd.size() {
			return nd.k[p], true
		}
	}
	return 0, false
}

// prev moves c to the preceding entry; false at the start.
func (t *btree[K]) prev(c *cursor) bool {
	for l := t.height - 1; l >= 0; l-- {
		if c.pos[l] > 0 {
			c.pos[l]--
			for ; l+1 < t.height; l++ {
				y := t.kids[c.node[l]][c.pos[l]]
				c.node[l+1], c.pos[l+1] = y, t.nodes[y].size()-1
			}
			return true
		}
	}
	return false
}

// at is the entry c points at.
func (t *btree[K]) at(c *cursor) (k, v K) {
	nd := &t.nodes[c.node[t.height-1]]
	p := c.pos[t.height-1]
	return nd.k[p], nd.v[p]
}

// set replaces the entry c points at. The new key must keep its place in
// the order (no other entry between the old key and the new one). The
// slots above are refreshed only while they change: a smaller key matters
// only on a path of first slots, and a value only when it raises the
// largest or lowers the entry that was it.
func (t *btree[K]) set(c *cursor, k, v K) {
	l := t.height - 1
	nd := &t.nodes[c.node[l]]
	p := c.pos[l]
	old := nd.v[p]
	nd.k[p], nd.v[p] = k, v
	t.raise(c, l-1, p == 0, k, v, old, v)
}

// raise refreshes the slots of c's path from level l up, after the
// subtree below slot c.pos[l] of c.node[l] changed: if front, its smallest
// entry is now (k, w); its largest value went from oldMax to newMax (a
// change that may or may not reach the slot). It stops at the first slot
// left as it was.
func (t *btree[K]) raise(c *cursor, l int, front bool, k, w, oldMax, newMax K) {
	for ; l >= 0; l-- {
		x, i := c.node[l], c.pos[l]
		nd := &t.nodes[x]
		changed := false
		if front && (nd.k[i] != k || (t.ties && t.ws[x][i] != w)) {
			nd.k[i] = k
			if t.ties {
				t.ws[x][i] = w
			}
			changed = true
		}
		m := nd.v[i]
		switch {
		case newMax > m:
			nd.v[i] = newMax
		case oldMax == m && newMax < m:
			nd.v[i] = t.largest(t.kids[x][i])
		}
		if nd.v[i] != m {
			changed = true
		}
		if !changed {
			return
		}
		front = front && i == 0
		oldMax, newMax = m, nd.v[i]
	}
}
