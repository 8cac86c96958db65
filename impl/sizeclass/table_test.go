package sizeclass

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	spec "github.com/memverify/memverify/model/sizeclass"
)

// TestBlockTableMatchesMap drives the block table through growth and
// tombstone rebuilds with random puts and removes, checking get, size and
// all against a map after every step.
func TestBlockTableMatchesMap(t *testing.T) {
	var tab blockTable
	want := map[spec.Addr]*block{}
	r := rand.New(rand.NewPCG(1, 2))
	next := spec.Addr(256)
	var addrs []spec.Addr
	for step := range 20000 {
		if len(addrs) == 0 || r.IntN(5) < 3 {
			// Addresses grow by the alignment, with a reuse of a removed
			// one now and then (a real device reuses addresses).
			p := next
			next += spec.Addr(256 * (1 + r.IntN(4)))
			b := &block{addr: p}
			tab.put(b)
			want[p] = b
			addrs = append(addrs, p)
		} else {
			i := r.IntN(len(addrs))
			p := addrs[i]
			addrs[i] = addrs[len(addrs)-1]
			addrs = addrs[:len(addrs)-1]
			tab.remove(p)
			delete(want, p)
			if r.IntN(3) == 0 {
				b := &block{addr: p}
				tab.put(b)
				want[p] = b
				addrs = append(addrs, p)
			}
		}
		if tab.size() != len(want) {
			t.Fatalf("step %d: size %d, want %d", step, tab.size(), len(want))
		}
		for range 4 {
			p := spec.Addr(256 * (1 + r.IntN(int(next/256)+1)))
			if got := tab.get(p); got != want[p] {
				t.Fatalf("step %d: get(%v) = %p, want %p", step, p, got, want[p])
			}
		}
	}
	seen := 0
	tab.all(func(b *block) {
		seen++
		if want[b.addr] != b {
			t.Fatalf("all lists %v, which is not in the table", b.addr)
		}
	})
	if seen != len(want) {
		t.Fatalf("all listed %d blocks, want %d", seen, len(want))
	}
}

// TestBlockTableConcurrentReads has readers look up blocks that stay in the
// table while a writer grows the table and removes other blocks: a reader
// must always find a block that was never removed.
func TestBlockTableConcurrentReads(t *testing.T) {
	var tab blockTable
	const stable = 64
	for i := range stable {
		tab.put(&block{addr: spec.Addr(256 * (i + 1))})
	}
	var done atomic.Bool
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !done.Load(); i++ {
				p := spec.Addr(256 * (i%stable + 1))
				if b := tab.get(p); b == nil || b.addr != p {
					t.Errorf("get(%v) = %v while the block was in the table", p, b)
					return
				}
			}
		}()
	}
	for i := range 5000 {
		p := spec.Addr(1<<30 + 256*i)
		tab.put(&block{addr: p})
		if i%2 == 0 {
			tab.remove(p)
		}
	}
	done.Store(true)
	wg.Wait()
}

// TestBlockTableKeysInTable checks that a lookup compares the keys held in
// the table and reads no block on its way: a block's line belongs to the P
// that holds it, and a probe that read it from another P would move it
// between cores on every call. The blocks' own addresses are scrambled
// after the puts, so a probe that compared them would miss. A lookup of the
// tombstones' key finds nothing.
func TestBlockTableKeysInTable(t *testing.T) {
	var tab blockTable
	var bs []*block
	for i := range 200 {
		b := &block{addr: spec.Addr(256 * (i + 1))}
		tab.put(b)
		bs = append(bs, b)
	}
	for i := 0; i < len(bs); i += 3 {
		tab.remove(bs[i].addr)
	}
	for _, b := range bs {
		b.addr ^= 1 << 40
	}
	for i, b := range bs {
		p := spec.Addr(256 * (i + 1))
		want := b
		if i%3 == 0 {
			want = nil
		}
		if got := tab.get(p); got != want {
			t.Fatalf("get(%v) = %p, want %p", p, got, want)
		}
	}
	if got := tab.get(spec.Addr(tombKey)); got != nil {
		t.Fatalf("get(tombKey) = %p, want nil", got)
	}
}
