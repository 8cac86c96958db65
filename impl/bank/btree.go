// The B+-tree of the free list: read this first.
//
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
//
// The tree's code is in seven files, one concern each:
//
//	btree.go         this overview, the tree type and its constants
//	btree_node.go    node layout: the arena of nodes, slot moves, a node's
//	                 rank, annotations and summary, cache-line prefetch
//	btree_cursor.go  the cursor: descent by key, stepping, and updates in
//	                 place that refresh the path above (set, raise)
//	btree_insert.go  insertion: lending to a neighbour, splits, a new root
//	btree_delete.go  deletion: absorbing neighbours, merges, rebalancing
//	btree_search.go  the annotated searches: first fit, last fit, smallest
//	btree_build.go   bulk build from sorted entries, bottom-up (Restore)

package bank

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

func (t *btree[K]) init(width int32, ties bool) {
	t.max, t.ties = width, ties
	t.reset()
}

// reset empties the tree, keeping the arena's memory.
func (t *btree[K]) reset() {
	t.nodes, t.kids, t.ws, t.spare = t.nodes[:0], t.kids[:0], t.ws[:0], t.spare[:0]
	t.root, t.height = t.alloc(true), 1
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
