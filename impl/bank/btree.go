package bank

import (
	"math/bits"
	"slices"

	"github.com/memverify/memverify/internal/bugs"
)

// btree is a B+-tree of (k, v) entries of type K (uint32 or uint64: index.go
// picks the width and converts bytes to counts) in ascending order, each
// inner node keeping, per child, the child's smallest entry (the search
// key) and the largest v in its subtree (the annotation). The free list
// keeps one or two:
//
//   - blocks: k = address of an allocated block (or the range's start),
//     v = size of the free gap after it. Addresses are unique, so entries
//     are ordered by k alone; the annotation is the largest gap below a
//     child, so first fit in either direction is one descent (leftmost /
//     rightmost child whose largest gap fits).
//   - bySize (best fit only): k = size, v = address of every free gap,
//     ordered by (size, address); the annotation is the highest address
//     below a child, so the smallest fitting block at or above the limit is
//     one descent.
//
// Nodes are wide (up to fan entries) with keys and values in separate
// arrays: a search over keys reads two cache lines of a node, a search over
// values two others. A tree of 100k entries is four levels deep at 32 bits,
// the upper ones resident in cache. Nodes live in one arena slice with
// recycled slots: no allocation once the arena has grown. Every leaf is at
// depth height-1. A node other than the root holds at least max/2 entries,
// so height is O(log n). A full leaf first lends entries to a neighbour with
// room and splits only when neither has any (lend), which keeps leaves about
// four fifths full where halving splits alone leave them two thirds full.
//
// Updates go through a cursor, the path of one descent: set, insertAfter
// and deleteAt work at its leaf and walk back up it, so a search followed by
// an update costs one descent, not two.

const (
	// fan is the capacity of a node: at 32 bits, the count and 31 keys
	// fill two cache lines and 31 values (with the flag) two more, 256
	// bytes. Fan-out 31 makes the tree four levels deep at 100k entries.
	fan = 31
	// wideFan is the width a 64-bit tree uses: 15 keys (with the count)
	// fill two lines, as 31 do at 32 bits. Fan-out 31 at 64 bits read more
	// lines per search and was slower.
	wideFan = 15
	// maxDepth bounds the height. A tree of height h holds at least
	// 2·(max/2)^(h-1) entries: 17 levels at width 15 would take 2·7^16,
	// about 2^46 entries, far past memory. A narrower node reaches it
	// sooner (at 4 entries, with 2^17), so NewFreeListOptWith accepts one
	// only for a range too small to hold that many blocks (fitsDepth).
	maxDepth = 16
	// nilNode is no node.
	nilNode int32 = -1
)

// key is the width of a tree's keys and values: uint32 when every one fits
// (then a node is 256 bytes of fan entries), else uint64.
type key interface{ ~uint32 | ~uint64 }

// bnode is one node of a btree: the slot count and the keys, then the
// values and the leaf flag, so that a search over keys reads only the
// count's and keys' lines, and one over annotations mostly the values'. At
// 32 bits that is two cache lines each (256 bytes in all). A 64-bit node has
// room for fan entries too (512 bytes) but its tree uses only wideFan of
// them, so the lines a search reads are again two for the count and keys
// and two for the values; the unused tail is never touched. An inner node's
// children (and, in a tied tree, the values of their smallest entries) live
// in side arrays indexed like the nodes: leaves, the great majority, do not
// carry them.
//
// The count is a K rather than an int32 so that it and the keys fill whole
// lines at either width: nodes stay on cache-line boundaries.
type bnode[K key] struct {
	n    K      // slots in use; see size
	k    [fan]K // leaf: key; inner: key of the child's smallest entry
	v    [fan]K // leaf: value; inner: largest value in the child's subtree
	leaf bool
}

// size is the slot count as an index.
func (nd *bnode[K]) size() int32 { return int32(nd.n) }

// btree is one tree; see the top of the file.
type btree[K key] struct {
	nodes  []bnode[K]
	kids   [][fan + 1]int32 // inner nodes: children (128 bytes a node)
	ws     [][fan]K         // tied trees, inner nodes: value of each child's smallest entry
	spare  []int32          // recycled node slots
	root   int32
	height int   // levels; leaves are at level height-1
	max    int32 // capacity in use, 4..fan: wideFan at 64 bits (tests shrink it to build deep trees)
	ties   bool  // entries with equal keys are ordered by value
	sink   K     // written by touch, never read
}

// touch loads one word from each of the four cache lines of leaf x that a
// search goes on to read (count and first keys, last keys, first values,
// last values, at either width), all at once, before the search starts.
// Below the upper levels a node is seldom in cache, and the search would
// otherwise meet its lines one after the other: the count, then the key the
// binary search picks, then the value at the slot found, then the tails that
// an insertion or removal shifts. Loaded together, their misses overlap.
// The words go into sink only so that the loads are kept.
func (t *btree[K]) touch(x int32) {
	nd := &t.nodes[x]
	h := t.max / 2
	t.sink ^= nd.n ^ nd.k[h] ^ nd.v[0] ^ nd.v[h+1]
}

// touchInner is touch for inner node x on a search by key: the lines of its
// count and keys and the two of its children.
func (t *btree[K]) touchInner(x int32) {
	nd, kd := &t.nodes[x], &t.kids[x]
	h := t.max / 2
	t.sink ^= nd.n ^ nd.k[h] ^ K(kd[0]) ^ K(kd[h+1])
}

// cursor is a root-to-leaf path: node[l] and the slot pos[l] taken at level
// l. At the leaf, pos is the entry (or -1: before the leaf's first entry).
type cursor struct {
	node [maxDepth]int32
	pos  [maxDepth]int32
}

func (t *btree[K]) init(width int32, ties bool) {
	t.max, t.ties = width, ties
	t.reset()
}

// reset empties the tree, keeping the arena's memory.
func (t *btree[K]) reset() {
	t.nodes, t.kids, t.ws, t.spare = t.nodes[:0], t.kids[:0], t.ws[:0], t.spare[:0]
	t.root, t.height = t.alloc(true), 1
}

func (t *btree[K]) alloc(leaf bool) int32 {
	if k := len(t.spare); k > 0 {
		x := t.spare[k-1]
		t.spare = t.spare[:k-1]
		t.nodes[x].n, t.nodes[x].leaf = 0, leaf
		return x
	}
	t.nodes = append(t.nodes, bnode[K]{leaf: leaf})
	t.kids = append(t.kids, [fan + 1]int32{})
	if t.ties {
		t.ws = append(t.ws, [fan]K{})
	}
	return int32(len(t.nodes) - 1)
}

func (t *btree[K]) release(x int32) { t.spare = append(t.spare, x) }

// rank is the number of slots of node x whose key is ≤ (k, v): in a leaf,
// the entries; in an inner node, the children whose smallest entry is.
func (t *btree[K]) rank(x int32, k, v K) int32 {
	nd := &t.nodes[x]
	r := int32(0)
	if !t.ties {
		// Binary search without an early exit (five steps over 31 keys):
		// the keys ascend, so the count of keys ≤ k is where it ends.
		for size := nd.size(); size > 1; {
			half := size / 2
			// r += half if the key is ≤ k, by the borrow of k − key:
			// a branch here would be taken at random, and mispredicted
			// about every other step.
			_, borrow := bits.Sub64(uint64(k), uint64(nd.k[r+half-1]), 0)
			r += half & (int32(borrow) - 1)
			size -= half
		}
		if nd.size() > 0 {
			_, borrow := bits.Sub64(uint64(k), uint64(nd.k[r]), 0)
			r += 1 - int32(borrow)
		}
		return r
	}
	sub := &nd.v
	if !nd.leaf {
		sub = &t.ws[x]
	}
	for r < nd.size() && (nd.k[r] < k || (nd.k[r] == k && sub[r] <= v)) {
		r++
	}
	return r
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

// largest is the largest value among node x's slots.
func (t *btree[K]) largest(x int32) K {
	nd := &t.nodes[x]
	vs := nd.v[:nd.size()]
	// Four slots a step into two running maxima: half the loop overhead
	// of one slot a step, and two independent chains of comparisons.
	var m0, m1 K
	for len(vs) >= 4 {
		m0, m1 = max(m0, vs[0], vs[1]), max(m1, vs[2], vs[3])
		vs = vs[4:]
	}
	for _, v := range vs {
		m0 = max(m0, v)
	}
	return max(m0, m1)
}

// top is the largest value in the tree (0 when empty).
func (t *btree[K]) top() K {
	nd := &t.nodes[t.root]
	m := K(0)
	for i := range nd.size() {
		m = max(m, nd.v[i])
	}
	return m
}

// pull refreshes slot i of inner node x from its child.
func (t *btree[K]) pull(x, i int32) {
	y := t.kids[x][i]
	nd, ch := &t.nodes[x], &t.nodes[y]
	nd.k[i] = ch.k[0]
	if t.ties {
		if ch.leaf || bugs.On(BugTieFromAnnotation) {
			t.ws[x][i] = ch.v[0]
		} else {
			t.ws[x][i] = t.ws[y][0]
		}
	}
	nd.v[i] = t.largest(y)
}

// move copies cnt slots of node src from si to node dst at di (the same
// node allowed: memmove semantics).
func (t *btree[K]) move(src, si, dst, di, cnt int32) {
	s, d := &t.nodes[src], &t.nodes[dst]
	copy(d.k[di:di+cnt], s.k[si:si+cnt])
	copy(d.v[di:di+cnt], s.v[si:si+cnt])
	if !s.leaf {
		copy(t.kids[dst][di:di+cnt], t.kids[src][si:si+cnt])
		if t.ties {
			copy(t.ws[dst][di:di+cnt], t.ws[src][si:si+cnt])
		}
	}
}

// putSlot inserts a slot at i into node x, which has room.
func (t *btree[K]) putSlot(x, i int32, k, v, w K, kid int32) {
	nd := &t.nodes[x]
	t.move(x, i, x, i+1, nd.size()-i)
	nd.k[i], nd.v[i] = k, v
	if !nd.leaf {
		t.kids[x][i] = kid
		if t.ties {
			t.ws[x][i] = w
		}
	}
	nd.n++
}

// dropSlot removes slot i of node x.
func (t *btree[K]) dropSlot(x, i int32) {
	nd := &t.nodes[x]
	t.move(x, i+1, x, i, nd.size()-i-1)
	nd.n--
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

// summary is the slot describing node x in its parent.
func (t *btree[K]) summary(x int32) (k, v, w K) {
	nd := &t.nodes[x]
	k, w = nd.k[0], nd.v[0]
	if !nd.leaf && t.ties {
		w = t.ws[x][0]
	}
	return k, t.largest(x), w
}

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

// delete removes the entry (k, v), if present.
func (t *btree[K]) delete(k, v K) {
	var c cursor
	if !t.seekLE(&c, k, v) {
		return
	}
	if ek, ev := t.at(&c); ek == k && (!t.ties || ev == v) {
		t.deleteAt(&c)
	}
}

// deleteAt removes the entry c points at; c is spent. A node left with
// fewer than max/2 slots takes slots from a sibling or merges with it; the
// slots above are refreshed while they change.
func (t *btree[K]) deleteAt(c *cursor) {
	l := t.height - 1
	x, p := c.node[l], c.pos[l]
	old := t.nodes[x].v[p]
	t.dropSlot(x, p)
	front := p == 0
	for l--; l >= 0; l-- {
		x, i := c.node[l], c.pos[l]
		nd := &t.nodes[x]
		switch {
		case t.nodes[t.kids[x][i]].size() < t.max/2:
			t.rebalance(x, i)
		case front || old == nd.v[i]:
			t.pull(x, i)
		default:
			return // the slot, and so every one above, is unchanged
		}
		front = front && i == 0
	}
	t.shrink()
}

// shrink drops a root left with one child.
func (t *btree[K]) shrink() {
	if nd := &t.nodes[t.root]; !nd.leaf && nd.size() == 1 {
		old := t.root
		t.root = t.kids[t.root][0]
		t.height--
		t.release(old)
	}
}

// absorb makes the entry c points at take in the cnt entries after it,
// which must be in the same leaf, its value becoming v; c is spent. This is
// a merge of neighbouring blocks in one walk up the path.
func (t *btree[K]) absorb(c *cursor, cnt int32, v K) {
	l := t.height - 1
	x, p := c.node[l], c.pos[l]
	nd := &t.nodes[x]
	oldMax := nd.v[p]
	for j := p + 1; j <= p+cnt; j++ {
		oldMax = max(oldMax, nd.v[j])
	}
	nd.v[p] = v
	t.move(x, p+cnt+1, x, p+1, nd.size()-p-cnt-1)
	nd.n -= K(cnt)
	if l == 0 || nd.size() >= t.max/2 {
		t.raise(c, l-1, false, 0, 0, oldMax, v)
		return
	}
	// The leaf fell short: rebalance up the path, refreshing every slot.
	for l--; l >= 0; l-- {
		x, i := c.node[l], c.pos[l]
		if t.nodes[t.kids[x][i]].size() < t.max/2 {
			t.rebalance(x, i)
		} else {
			t.pull(x, i)
		}
	}
	t.shrink()
}

// rebalance refills child i of x, which fell below max/2 slots, from a
// sibling: the two merge when they fit in one node, else share evenly.
func (t *btree[K]) rebalance(x, i int32) {
	if i+1 == t.nodes[x].size() {
		i--
	}
	a, b := t.kids[x][i], t.kids[x][i+1]
	na, nb := t.nodes[a].size(), t.nodes[b].size()
	if na+nb <= t.max {
		t.move(b, 0, a, na, nb)
		t.nodes[a].n = K(na + nb)
		t.dropSlot(x, i+1)
		t.release(b)
		t.pull(x, i)
		return
	}
	half := (na + nb + 1) / 2
	if na < half { // b's first slots move to the end of a
		m := half - na
		t.move(b, 0, a, na, m)
		t.move(b, m, b, 0, nb-m)
		t.nodes[a].n, t.nodes[b].n = K(half), K(nb-m)
	} else { // a's last slots move to the front of b
		m := na - half
		t.move(b, 0, b, m, nb)
		t.move(a, half, b, 0, m)
		t.nodes[a].n, t.nodes[b].n = K(half), K(nb+m)
	}
	t.pull(x, i)
	t.pull(x, i+1)
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

// build replaces the tree by the entries (ks[i], vs[i]), in ascending
// order, bottom-up in O(n): leaves take about fill slots each (the count
// spread evenly, never below max/2), the fill a tree settles at under random
// updates, rather than full leaves that the next inserts would all split;
// inner nodes, which split only when a child does, are built full, so the
// tree is as shallow as it can be.
func (t *btree[K]) build(ks, vs []K, fill int32) {
	t.reset()
	if len(ks) == 0 {
		return
	}
	level := []int32{t.root}
	t.nodes[t.root].n = 0
	first := true
	for n := len(ks); ; {
		if !first {
			fill = t.max
		}
		cnt := (n + int(fill) - 1) / int(fill)
		for cnt > 1 && n/cnt < int(t.max/2) {
			cnt--
		}
		next := make([]int32, 0, cnt)
		for j := range cnt {
			lo, hi := j*n/cnt, (j+1)*n/cnt
			var x int32
			if first && j == 0 {
				x = t.root
			} else {
				x = t.alloc(first)
			}
			nd := &t.nodes[x]
			nd.n = K(hi - lo)
			if first {
				copy(nd.k[:nd.size()], ks[lo:hi])
				copy(nd.v[:nd.size()], vs[lo:hi])
			} else {
				copy(t.kids[x][:nd.size()], level[lo:hi])
				for i := range nd.size() {
					t.pull(x, i)
				}
			}
			next = append(next, x)
		}
		if !first {
			t.height++
		}
		first = false
		level = next
		if len(level) == 1 {
			t.root = level[0]
			// Room for the splits to come, so that they do not grow the
			// arena (a copy of all of it) in the middle of the work.
			t.nodes = slices.Grow(t.nodes, len(t.nodes)/4)
			t.kids = slices.Grow(t.kids, len(t.kids)/4)
			t.ws = slices.Grow(t.ws, len(t.ws)/4)
			return
		}
		n = len(level)
	}
}
