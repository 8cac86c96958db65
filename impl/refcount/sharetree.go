package refcount

// shareTree is an immutable array of shares: a copy-on-write buffer record's
// share of each listed holder, by the holder's index in record.listed. It is
// a radix tree of fanout shareFanout with every leaf at the same depth, and
// with returns a new tree that shares every node off the changed path with
// the old one. So one holder's release in a buffer of n holders copies
// O(log n) words, where a flat array would copy all n: releasing every holder
// of a buffer with tens of thousands of aliases stays linear in their number,
// not quadratic.
type shareTree struct {
	root   *shareNode // nil: every share is 0
	height uint       // levels of inner nodes above the leaves
}

const (
	shareBits   = 4
	shareFanout = 1 << shareBits
	shareMask   = shareFanout - 1
)

// shareNode is a leaf (shares) or an inner node (kids); one type keeps a
// change to one allocation per level.
type shareNode struct {
	kids   [shareFanout]*shareNode
	shares [shareFanout]int64
}

// newShareTree returns the tree of n shares, the i-th being share(i).
func newShareTree(n int, share func(i int) int64) shareTree {
	if n == 0 {
		return shareTree{}
	}
	var h uint
	for span := shareFanout; span < n; span *= shareFanout {
		h++
	}
	return shareTree{root: buildShares(h, 0, n, share), height: h}
}

// buildShares builds the node of the given height whose first share is share(lo).
func buildShares(height uint, lo, n int, share func(i int) int64) *shareNode {
	nd := &shareNode{}
	if height == 0 {
		for j := range shareFanout {
			if lo+j < n {
				nd.shares[j] = share(lo + j)
			}
		}
		return nd
	}
	span := 1 << (height * shareBits)
	for j := range shareFanout {
		if at := lo + j*span; at < n {
			nd.kids[j] = buildShares(height-1, at, n, share)
		}
	}
	return nd
}

// get is the i-th share (0 past the end).
func (t shareTree) get(i int) int64 {
	nd := t.root
	for h := t.height; h > 0 && nd != nil; h-- {
		nd = nd.kids[i>>(h*shareBits)&shareMask]
	}
	if nd == nil {
		return 0
	}
	return nd.shares[i&shareMask]
}

// with returns the tree whose i-th share is v; i is below the n the tree was
// built with, so every node on its path exists.
func (t shareTree) with(i int, v int64) shareTree {
	return shareTree{root: t.root.with(t.height, i, v), height: t.height}
}

func (nd *shareNode) with(height uint, i int, v int64) *shareNode {
	c := *nd
	if height == 0 {
		c.shares[i&shareMask] = v
	} else {
		j := i >> (height * shareBits) & shareMask
		c.kids[j] = nd.kids[j].with(height-1, i, v)
	}
	return &c
}
