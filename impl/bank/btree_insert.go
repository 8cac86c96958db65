// Insertion into the btree (overview in btree.go): an entry goes into its
// leaf at the cursor; a full leaf lends entries to a neighbour with room
// (lend) or splits (put), a split carries a new sibling to the level above,
// and a split root makes the tree one level taller.

package bank

import "github.com/memverify/memverify/internal/bugs"

// insert adds the entry (k, v).
func (t *btree[K]) insert(k, v K) {
	var c cursor
	t.seekLE(&c, k, v)
	t.insertAfter(&c, k, v)
}

// insertAfter adds the entry (k, v) right after the one c points at (at
// the front of the leaf if c is before its first entry); c is spent.
func (t *btree[K]) insertAfter(c *cursor, k, v K) {
	p := c.pos[t.height-1] + 1
	t.spread(c, p, k, v, p == 0, k, v, v, v)
}

// split replaces the entry c points at by (k1, v1) and (k2, v2) after it,
// in one walk up the path; k1 must keep the entry's place. c is spent.
func (t *btree[K]) split(c *cursor, k1, v1, k2, v2 K) {
	x, p := c.node[t.height-1], c.pos[t.height-1]
	nd := &t.nodes[x]
	old := nd.v[p]
	nd.k[p], nd.v[p] = k1, v1
	t.spread(c, p+1, k2, v2, p == 0, k1, v1, old, max(v1, v2))
}

// spread puts (k, v) at slot p of c's leaf and brings the path up to
// date: the leaf's smallest entry is now (fk, fw) if front, and its largest
// value went from oldMax to newMax. A full leaf lends to a neighbour if it
// can (lend); otherwise a full node splits and hands its new right sibling
// to the level above. Above the last change of shape, the slots are
// refreshed only while they change (raise).
func (t *btree[K]) spread(c *cursor, p int32, k, v K, front bool, fk, fw, oldMax, newMax K) {
	l := t.height - 1
	if x := c.node[l]; t.nodes[x].size() < t.max { // most often: room in the leaf
		t.putSlot(x, p, k, v, 0, nilNode)
		t.raise(c, l-1, front, fk, fw, oldMax, newMax)
		return
	}
	if l > 0 && t.lend(c, p, k, v) {
		t.raise(c, l-2, front && c.pos[l-1] == 0, fk, fw, oldMax, newMax)
		return
	}
	s := t.put(c.node[l], p, k, v, 0, nilNode)
	for l--; l >= 0; l-- {
		x, i := c.node[l], c.pos[l]
		if s == nilNode {
			t.raise(c, l, front, fk, fw, oldMax, newMax)
			return
		}
		t.pull(x, i)
		sk, sv, sw := t.summary(s)
		s = t.put(x, i+1, sk, sv, sw, s)
		front = front && i == 0
	}
	if s == nilNode {
		return
	}
	root := t.alloc(false)
	t.kids[root][0], t.kids[root][1], t.nodes[root].n = t.root, s, 2
	t.root = root
	t.height++
	t.pull(root, 0)
	t.pull(root, 1)
}

// put inserts a slot at i into node x, splitting x when it is full; it
// returns the new right sibling, or nilNode. A split leaves the halves
// balanced (max+1 slots, the left one taking the odd one).
func (t *btree[K]) put(x, i int32, k, v, w K, kid int32) int32 {
	if t.nodes[x].size() < t.max {
		t.putSlot(x, i, k, v, w, kid)
		return nilNode
	}
	r := t.alloc(t.nodes[x].leaf)
	left := (t.max + 2) / 2 // slots the left half ends with
	keep := left            // old slots x keeps
	if i < left {
		keep--
	}
	t.move(x, keep, r, 0, t.max-keep)
	t.nodes[r].n, t.nodes[x].n = K(t.max-keep), K(keep)
	if i < left {
		t.putSlot(x, i, k, v, w, kid)
	} else {
		t.putSlot(r, i-keep, k, v, w, kid)
	}
	return r
}

// lend puts (k, v) at slot p of c's leaf, which is full, by first moving
// some of its entries to a neighbouring leaf with room: half that room, so
// that both end about equally full. It refreshes the parent's two slots and
// reports false, changing nothing, when neither neighbour has room for two
// more entries.
func (t *btree[K]) lend(c *cursor, p int32, k, v K) bool {
	l := t.height - 1
	x, px, i := c.node[l], c.node[l-1], c.pos[l-1]
	full := t.max
	if i > 0 {
		y := t.kids[px][i-1]
		if ny := t.nodes[y].size(); full-ny >= 2 {
			m := (full - ny) / 2 // x's first m entries move to the end of y
			t.move(x, 0, y, ny, m)
			t.move(x, m, x, 0, full-m)
			t.nodes[y].n, t.nodes[x].n = K(ny+m), K(full-m)
			if p < m {
				t.putSlot(y, ny+p, k, v, 0, nilNode)
			} else {
				t.putSlot(x, p-m, k, v, 0, nilNode)
			}
			if !bugs.On(BugLendStaleNeighbour) {
				t.pull(px, i-1)
			}
			t.pull(px, i)
			return true
		}
	}
	if i+1 < t.nodes[px].size() {
		z := t.kids[px][i+1]
		if nz := t.nodes[z].size(); full-nz >= 2 {
			m := (full - nz) / 2 // x's last m entries move to the front of z
			t.move(z, 0, z, m, nz)
			t.move(x, full-m, z, 0, m)
			t.nodes[z].n, t.nodes[x].n = K(nz+m), K(full-m)
			if p > full-m {
				t.putSlot(z, p-(full-m), k, v, 0, nilNode)
			} else {
				t.putSlot(x, p, k, v, 0, nilNode)
			}
			t.pull(px, i)
			t.pull(px, i+1)
			return true
		}
	}
	return false
}
