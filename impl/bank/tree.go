package bank

// The free blocks are indexed by treaps threaded through the node array:
//
//   - the address tree holds every free block keyed by address, each subtree
//     annotated with its largest block size: first fit in either direction is
//     one O(log n) descent, and the root's annotation is the largest free block;
//   - under best fit, one size tree per size class (floor(log2(size /
//     alignment))) holds that class's blocks keyed by (size, address), each
//     subtree annotated with its highest address: best fit is one descent in
//     the request's class, or in the next non-empty class (a bitmap finds it,
//     as in TLSF).
//
// Treap priorities are random, so the expected depth is O(log n) whatever the
// order of addresses and sizes. Recursion depth is the tree depth.

const nilNode int32 = -1

// node is one block, free or allocated. Fields a block's state does not use
// (tree links of an allocated block) are stale and never read.
type node struct {
	addr, size uint64
	prev, next int32 // neighbours in address order among all blocks
	prio       uint32
	allocated  bool
	al, ar     int32  // address tree children
	maxSize    uint64 // largest size in the address subtree
	sl, sr     int32  // size tree children
	maxAddr    uint64 // highest address in the size subtree
}

func (f *FreeListOpt) pullAddr(t int32) {
	n := &f.nodes[t]
	m := n.size
	if n.al != nilNode {
		m = max(m, f.nodes[n.al].maxSize)
	}
	if n.ar != nilNode {
		m = max(m, f.nodes[n.ar].maxSize)
	}
	n.maxSize = m
}

func (f *FreeListOpt) pullSize(t int32) {
	n := &f.nodes[t]
	m := n.addr
	if n.sl != nilNode {
		m = max(m, f.nodes[n.sl].maxAddr)
	}
	if n.sr != nilNode {
		m = max(m, f.nodes[n.sr].maxAddr)
	}
	n.maxAddr = m
}

// splitAddr splits t into keys < k and keys ≥ k.
func (f *FreeListOpt) splitAddr(t int32, k uint64) (int32, int32) {
	if t == nilNode {
		return nilNode, nilNode
	}
	n := &f.nodes[t]
	if n.addr < k {
		l, r := f.splitAddr(n.ar, k)
		f.nodes[t].ar = l
		f.pullAddr(t)
		return t, r
	}
	l, r := f.splitAddr(n.al, k)
	f.nodes[t].al = r
	f.pullAddr(t)
	return l, t
}

func (f *FreeListOpt) mergeAddr(a, b int32) int32 {
	if a == nilNode {
		return b
	}
	if b == nilNode {
		return a
	}
	if f.nodes[a].prio > f.nodes[b].prio {
		f.nodes[a].ar = f.mergeAddr(f.nodes[a].ar, b)
		f.pullAddr(a)
		return a
	}
	f.nodes[b].al = f.mergeAddr(a, f.nodes[b].al)
	f.pullAddr(b)
	return b
}

func (f *FreeListOpt) insertAddr(t, x int32) int32 {
	if t == nilNode {
		f.nodes[x].al, f.nodes[x].ar = nilNode, nilNode
		f.pullAddr(x)
		return x
	}
	if f.nodes[x].prio > f.nodes[t].prio {
		l, r := f.splitAddr(t, f.nodes[x].addr)
		f.nodes[x].al, f.nodes[x].ar = l, r
		f.pullAddr(x)
		return x
	}
	if f.nodes[x].addr < f.nodes[t].addr {
		f.nodes[t].al = f.insertAddr(f.nodes[t].al, x)
	} else {
		f.nodes[t].ar = f.insertAddr(f.nodes[t].ar, x)
	}
	f.pullAddr(t)
	return t
}

func (f *FreeListOpt) deleteAddr(t, x int32) int32 {
	if t == x {
		return f.mergeAddr(f.nodes[t].al, f.nodes[t].ar)
	}
	if f.nodes[x].addr < f.nodes[t].addr {
		f.nodes[t].al = f.deleteAddr(f.nodes[t].al, x)
	} else {
		f.nodes[t].ar = f.deleteAddr(f.nodes[t].ar, x)
	}
	f.pullAddr(t)
	return t
}

// fixAddr refreshes the annotations on the path from t down to x, after x's
// size changed, or its address moved without passing another free block.
func (f *FreeListOpt) fixAddr(t, x int32) {
	if t != x {
		if f.nodes[x].addr < f.nodes[t].addr {
			f.fixAddr(f.nodes[t].al, x)
		} else {
			f.fixAddr(f.nodes[t].ar, x)
		}
	}
	f.pullAddr(t)
}

// sizeLess orders the size trees by (size, address).
func (f *FreeListOpt) sizeLess(x, y int32) bool {
	a, b := &f.nodes[x], &f.nodes[y]
	return a.size < b.size || (a.size == b.size && a.addr < b.addr)
}

// splitSize splits t into nodes ordered before x and the rest.
func (f *FreeListOpt) splitSize(t, x int32) (int32, int32) {
	if t == nilNode {
		return nilNode, nilNode
	}
	if f.sizeLess(t, x) {
		l, r := f.splitSize(f.nodes[t].sr, x)
		f.nodes[t].sr = l
		f.pullSize(t)
		return t, r
	}
	l, r := f.splitSize(f.nodes[t].sl, x)
	f.nodes[t].sl = r
	f.pullSize(t)
	return l, t
}

func (f *FreeListOpt) mergeSize(a, b int32) int32 {
	if a == nilNode {
		return b
	}
	if b == nilNode {
		return a
	}
	if f.nodes[a].prio > f.nodes[b].prio {
		f.nodes[a].sr = f.mergeSize(f.nodes[a].sr, b)
		f.pullSize(a)
		return a
	}
	f.nodes[b].sl = f.mergeSize(a, f.nodes[b].sl)
	f.pullSize(b)
	return b
}

func (f *FreeListOpt) insertSize(t, x int32) int32 {
	if t == nilNode {
		f.nodes[x].sl, f.nodes[x].sr = nilNode, nilNode
		f.pullSize(x)
		return x
	}
	if f.nodes[x].prio > f.nodes[t].prio {
		l, r := f.splitSize(t, x)
		f.nodes[x].sl, f.nodes[x].sr = l, r
		f.pullSize(x)
		return x
	}
	if f.sizeLess(x, t) {
		f.nodes[t].sl = f.insertSize(f.nodes[t].sl, x)
	} else {
		f.nodes[t].sr = f.insertSize(f.nodes[t].sr, x)
	}
	f.pullSize(t)
	return t
}

func (f *FreeListOpt) deleteSize(t, x int32) int32 {
	if t == x {
		return f.mergeSize(f.nodes[t].sl, f.nodes[t].sr)
	}
	if f.sizeLess(x, t) {
		f.nodes[t].sl = f.deleteSize(f.nodes[t].sl, x)
	} else {
		f.nodes[t].sr = f.deleteSize(f.nodes[t].sr, x)
	}
	f.pullSize(t)
	return t
}
