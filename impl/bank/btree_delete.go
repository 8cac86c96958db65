// Deletion from the btree (overview in btree.go): an entry leaves its leaf
// at the cursor, or absorbs the entries after it (a merge of neighbouring
// blocks); a node left below half full takes slots from a sibling or merges
// with it (rebalance), and a root left with one child is dropped (shrink).

package bank

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

// shrink drops a root left with one child.
func (t *btree[K]) shrink() {
	if nd := &t.nodes[t.root]; !nd.leaf && nd.size() == 1 {
		old := t.root
		t.root = t.kids[t.root][0]
		t.height--
		t.release(old)
	}
}
