// Bulk build of the btree (overview in btree.go): Restore replaces a tree
// by sorted entries in O(n), leaves first, then each level of inner nodes
// over the one below, instead of n inserts.

package bank

import "slices"

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
	level := t.buildLeaves(ks, vs, fill)
	for len(level) > 1 {
		level = t.buildInner(level)
		t.height++
	}
	t.root = level[0]
	// Room for the splits to come, so that they do not grow the arena (a
	// copy of all of it) in the middle of the work.
	t.nodes = slices.Grow(t.nodes, len(t.nodes)/4)
	t.kids = slices.Grow(t.kids, len(t.kids)/4)
	t.ws = slices.Grow(t.ws, len(t.ws)/4)
}

// buildLeaves spreads the entries over leaves of about fill slots, the
// first of them the empty root that reset left, and returns the leaves in
// order.
func (t *btree[K]) buildLeaves(ks, vs []K, fill int32) []int32 {
	cnt := t.nodesFor(len(ks), fill)
	leaves := make([]int32, 0, cnt)
	for j := range cnt {
		lo, hi := j*len(ks)/cnt, (j+1)*len(ks)/cnt
		x := t.root
		if j > 0 {
			x = t.alloc(true)
		}
		nd := &t.nodes[x]
		nd.n = K(hi - lo)
		copy(nd.k[:nd.size()], ks[lo:hi])
		copy(nd.v[:nd.size()], vs[lo:hi])
		leaves = append(leaves, x)
	}
	return leaves
}

// buildInner makes the level above the nodes of level, in order, each
// inner node full but for the spread of the count, and returns it.
func (t *btree[K]) buildInner(level []int32) []int32 {
	cnt := t.nodesFor(len(level), t.max)
	above := make([]int32, 0, cnt)
	for j := range cnt {
		lo, hi := j*len(level)/cnt, (j+1)*len(level)/cnt
		x := t.alloc(false)
		nd := &t.nodes[x]
		nd.n = K(hi - lo)
		copy(t.kids[x][:nd.size()], level[lo:hi])
		for i := range nd.size() {
			t.pull(x, i)
		}
		above = append(above, x)
	}
	return above
}

// nodesFor is the number of nodes that n slots fill at about fill slots a
// node, fewer if that would leave a node below max/2.
func (t *btree[K]) nodesFor(n int, fill int32) int {
	cnt := (n + int(fill) - 1) / int(fill)
	for cnt > 1 && n/cnt < int(t.max/2) {
		cnt--
	}
	return cnt
}
