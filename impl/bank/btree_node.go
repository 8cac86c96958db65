// Node layout of the btree (overview in btree.go): the node type, the arena
// that holds nodes and recycles their slots, moving slots within and
// between nodes, a node's rank of a key, its largest value and its summary
// in the parent, and the loads that bring a node's cache lines in at once.

package bank

import (
	"math/bits"

	"github.com/memverify/memverify/internal/bugs"
)

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

// summary is the slot describing node x in its parent.
func (t *btree[K]) summary(x int32) (k, v, w K) {
	nd := &t.nodes[x]
	k, w = nd.k[0], nd.v[0]
	if !nd.leaf && t.ties {
		w = t.ws[x][0]
	}
	return k, t.largest(x), w
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
