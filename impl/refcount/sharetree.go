package refcount

import (
	"unsafe"

	"github.com/memverify/memverify/internal/bugs"
)

// shareTree is an immutable array of shares: a copy-on-write buffer record's
// share of each listed holder, by the holder's index in record.listed.
//
// Up to smallShares shares live in the value itself, so that a change to a
// buffer of that many holders is one allocation (the new bufState, which
// holds the tree by value), as a flat array would be. Above that it is a
// radix tree of fanout shareFanout with every leaf at the same depth, and
// with returns a new tree that shares every node off the changed path with
// the old one: one holder's release in a buffer of n holders copies
// O(log n) words, where a flat array would copy all n, so releasing every
// holder of a buffer with tens of thousands of aliases stays linear in their
// number, not quadratic.
type shareTree struct {
	small  [smallShares]int64 // the shares, when there are at most smallShares
	root   unsafe.Pointer     // else the root, a *shareInner (nil: every share is 0)
	height uint               // levels of inner nodes above the leaves; 0: small
}

const (
	smallShares = 32
	shareBits   = 4
	shareFanout = 1 << shareBits
	shareMask   = shareFanout - 1
)

// shareLeaf holds shareFanout shares. shareInner's children are
// *shareInner nodes above height 1 and *shareLeaf at height 1, told apart
// by height: two types of 128 bytes, where one type holding either would
// take 256, half of it unused. (An unsafe.Pointer is a pointer to the
// garbage collector, and each is converted back to the type it was made
// from.)
type (
	shareLeaf  [shareFanout]int64
	shareInner [shareFanout]unsafe.Pointer
)

// newShareTree returns the tree of n shares, the i-th being share(i).
func newShareTree(n int, share func(i int) int64) shareTree {
	var t shareTree
	if n <= smallShares {
		for i := range n {
			t.small[i] = share(i)
		}
		return t
	}
	t.height = 1
	for span := shareFanout * shareFanout; span < n && !bugs.On(BugShareTreeShallow); span *= shareFanout {
		t.height++
	}
	t.root = buildShares(t.height, 0, n, share)
	return t
}

// buildShares builds the node of the given height whose first share is
// share(lo).
func buildShares(height uint, lo, n int, share func(i int) int64) unsafe.Pointer {
	if height == 0 {
		leaf := new(shareLeaf)
		for j := range shareFanout {
			if lo+j < n {
				leaf[j] = share(lo + j)
			}
		}
		return unsafe.Pointer(leaf)
	}
	nd := new(shareInner)
	span := 1 << (height * shareBits)
	for j := range shareFanout {
		if at := lo + j*span; at < n {
			nd[j] = buildShares(height-1, at, n, share)
		}
	}
	return unsafe.Pointer(nd)
}

// get is the i-th share; 0 for an index past the tree's reach.
func (t *shareTree) get(i int) int64 {
	if t.height == 0 {
		if uint(i) >= smallShares {
			return 0
		}
		return t.small[i]
	}
	if uint(i) >= 1<<((t.height+1)*shareBits) {
		return 0
	}
	nd := t.root
	for h := t.height; h > 0 && nd != nil; h-- {
		nd = (*shareInner)(nd)[i>>(h*shareBits)&shareMask]
	}
	if nd == nil {
		return 0
	}
	return (*shareLeaf)(nd)[i&shareMask]
}

// with returns the tree whose i-th share is v; i is below the n the tree was
// built with, so every node on its path exists.
func (t *shareTree) with(i int, v int64) shareTree {
	if t.height == 0 {
		c := *t
		c.small[i] = v
		return c
	}
	return shareTree{root: withShare(t.root, t.height, i, v), height: t.height}
}

// withShare returns a copy of node nd, of the given height, and of the nodes
// below it on the path to share i, in which share i is v.
func withShare(nd unsafe.Pointer, height uint, i int, v int64) unsafe.Pointer {
	if height == 0 {
		c := *(*shareLeaf)(nd)
		c[i&shareMask] = v
		return unsafe.Pointer(&c)
	}
	c := *(*shareInner)(nd)
	j := i >> (height * shareBits) & shareMask
	c[j] = withShare(c[j], height-1, i, v)
	return unsafe.Pointer(&c)
}
