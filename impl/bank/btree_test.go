package bank

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	spec "github.com/memverify/memverify/model/bank"
	"github.com/memverify/memverify/props/banktest"
)

// The properties use small lists, which fit in one node of the default
// width: rerun them with nodes of 4 entries so that splits, merges,
// redistribution and multi-level descents are all exercised.
// Both key widths run: the properties' ranges fit 32 bits, so the 64-bit
// trees are forced.
func TestFreeListOptNarrowNodes(t *testing.T) {
	for _, wide := range []bool{false, true} {
		narrow := func(c spec.Config) (spec.FreeList, error) {
			f, err := newFreeListOpt(c, 4, wide)
			if err == nil && f.blocks.wide != wide {
				t.Fatalf("range %+v: wide = %v, want %v", c, f.blocks.wide, wide)
			}
			return f, err
		}
		t.Run(fmt.Sprintf("wide=%v", wide), func(t *testing.T) {
			t.Run("FirstFit", func(t *testing.T) { banktest.CheckFreeListStateMachine(t, narrow) })
			t.Run("BestFit", func(t *testing.T) { banktest.CheckFreeListBestFit(t, narrow) })
			t.Run("RoundTrip", func(t *testing.T) { banktest.CheckFreeListRoundTrip(t, narrow) })
			t.Run("Errors", func(t *testing.T) { banktest.CheckFreeListErrors(t, narrow) })
		})
	}
}

// A long random trace with thousands of live blocks (Allocate with and
// without limits, AllocateAt, AllocateAvoiding, Free, and Restore now and
// then), for narrow and full node widths, 32- and 64-bit keys, both
// policies and both directions, against the model: every address and the
// statistics after every call, the whole layout and the trees' own
// invariants now and then.
func TestFreeListOptDeepTrees(t *testing.T) {
	for _, width := range []int32{4, 5, wideFan, fan} {
		for _, policy := range []spec.Policy{spec.FirstFit, spec.BestFit} {
			for _, wide := range []bool{false, true} {
				cfg := spec.Config{Offset: 1 << 12, Size: 1 << 20, Alignment: 16, MinAllocation: 32, Policy: policy}
				t.Run(fmt.Sprintf("width=%d/%v/wide=%v", width, policy, wide), func(t *testing.T) {
					trace(t, cfg, width, wide, 6000, uint64(width))
				})
			}
		}
	}
}

// The 64-bit trees as the range demands them: 2^36 units of 16 bytes,
// blocks placed all over it (AllocateAt and limits reach the top), with
// narrow nodes and the default width.
func TestFreeListOptWideRange(t *testing.T) {
	for _, policy := range []spec.Policy{spec.FirstFit, spec.BestFit} {
		cfg := spec.Config{Offset: 1 << 44, Size: 1 << 40, Alignment: 16, MinAllocation: 32, Policy: policy}
		t.Run(fmt.Sprintf("%v/width=4", policy), func(t *testing.T) { trace(t, cfg, 4, true, 3000, 7) })
		t.Run(fmt.Sprintf("%v/width=default", policy), func(t *testing.T) { trace(t, cfg, 0, false, 3000, 8) }) // wideFan
	}
}

// The 32-bit trees up to their edge: a range of 2^32-2 units (the most
// they take, the top count being kept for "no bound") stays at 32 bits,
// one more unit goes to 64, and traces reaching the top agree with the
// model at both. An alignment of 48 makes units of 16 bytes.
func TestFreeListOptNarrowEdge(t *testing.T) {
	for _, c := range []struct {
		units uint64
		align int64
		wide  bool
	}{{math.MaxUint32 - 1, 64, false}, {math.MaxUint32, 64, true}, {math.MaxUint32 - 1, 16, false}} {
		for _, policy := range []spec.Policy{spec.FirstFit, spec.BestFit} {
			size := int64(c.units) * c.align
			cfg := spec.Config{Offset: spec.Addr(c.align) << 30, Size: size, Alignment: c.align, Policy: policy}
			f, err := newFreeListOpt(cfg, 4, false)
			if err != nil {
				t.Fatal(err)
			}
			if f.blocks.wide != c.wide {
				t.Fatalf("%d units of %d bytes: wide = %v, want %v", c.units, c.align, f.blocks.wide, c.wide)
			}
			trace(t, cfg, 4, false, 2000, c.units)
		}
	}
	cfg := spec.Config{Size: 48 << 20, Alignment: 48}
	trace(t, cfg, 4, false, 2000, 48)
	trace(t, cfg, 4, true, 2000, 48)
}

// Counts round the right way for searches: up is the least count at or
// above a byte value, down the greatest at or below, both clamped to lim.
func TestIndexRounding(t *testing.T) {
	for _, wide := range []bool{false, true} {
		var ix index
		ix.init(1<<20, 48, 1<<12, 0, fan, false, wide)
		if ix.shift != 4 {
			t.Fatalf("alignment 48: shift %d, want 4", ix.shift)
		}
		for x := uint64(1<<12 - 40); x < 1<<12+200; x++ {
			up := uint64(0)
			for ix.dec(up, ix.kbase) < x {
				up++
			}
			if got := ix.up(x, ix.kbase); got != up {
				t.Fatalf("wide %v: up(%d) = %d, want %d", wide, x, got, up)
			}
			if x < ix.kbase {
				continue
			}
			down := up
			if ix.dec(down, ix.kbase) > x {
				down--
			}
			if got := ix.down(x, ix.kbase); got != down {
				t.Fatalf("wide %v: down(%d) = %d, want %d", wide, x, got, down)
			}
		}
		if got := ix.up(math.MaxUint64, 0); got != ix.lim {
			t.Fatalf("wide %v: up(MaxUint64) = %d, want %d", wide, got, ix.lim)
		}
		if got := ix.up(math.MaxUint64-1, 0); !wide && got != ix.lim {
			t.Fatalf("up(MaxUint64-1) = %d, want the clamp %d", got, ix.lim)
		}
	}
}

// trace runs a random trace of steps calls on a list of nodes of width
// entries (at 64 bits if wide) and on the model, and fails the test at the
// first call whose result, error, Stats or Blocks differ, or after which the
// tree's invariants break. The trace tests assert through it.
func trace(t *testing.T, cfg spec.Config, width int32, wide bool, steps int, seed uint64) {
	t.Helper()
	m, err := spec.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f, err := newFreeListOpt(cfg, width, wide)
	if err != nil {
		t.Fatal(err)
	}
	policy := cfg.Policy
	al := cfg.Alignment
	r := rand.New(rand.NewPCG(seed, uint64(policy)))
	var live []spec.Addr
	// Sizes of 1 to 300 units, mostly, so that thousands of blocks live
	// in a small range; now and then a huge one in a huge range.
	sizeOf := func() int64 {
		switch {
		case cfg.Size <= 1<<32 || r.IntN(25) > 1:
		case r.IntN(2) == 0:
			return 1 + r.Int64N(cfg.Size/4)
		default: // more than the range: more units than 32 bits hold
			return cfg.Size + 1 + r.Int64N(cfg.Size)
		}
		return int64(1 + r.IntN(300))
	}
	for step := range steps {
		if len(live) > 0 && (r.IntN(3) == 0 || step > steps*2/3 && r.IntN(2) == 0) {
			k := r.IntN(len(live))
			if e1, e2 := m.Free(live[k]), f.Free(live[k]); e1 != nil || e2 != nil {
				t.Fatalf("width %d %v wide %v step %d: Free(%#x): model %v, opt %v", width, policy, wide, step, live[k], e1, e2)
			}
			live[k] = live[len(live)-1]
			live = live[:len(live)-1]
		} else {
			size := sizeOf()
			dir := spec.Direction(r.IntN(2))
			limit := spec.Addr(0)
			if r.IntN(4) == 0 {
				limit = cfg.Offset + spec.Addr(r.Int64N(cfg.Size))
			}
			var a1, a2 spec.Addr
			var e1, e2 error
			var call string
			switch r.IntN(8) {
			case 0: // at a random aligned address, often inside a gap
				a1 = cfg.Offset + spec.Addr(al*r.Int64N(cfg.Size/al))
				a2 = a1
				e1, e2 = m.AllocateAt(a1, size), f.AllocateAt(a1, size)
				call = fmt.Sprintf("AllocateAt(%#x, %d)", a1, size)
			case 1: // around random ranges, or into one small window
				var avoid []spec.Range
				if r.IntN(2) == 0 {
					for range 1 + r.IntN(3) {
						s := cfg.Offset + spec.Addr(r.Int64N(cfg.Size))
						avoid = append(avoid, spec.Range{Start: s, End: s + spec.Addr(r.Int64N(cfg.Size/8))})
					}
				} else { // a window of up to 1 KiB: its edges cut gaps
					s := cfg.Offset + spec.Addr(r.Int64N(cfg.Size))
					e := s + spec.Addr(1+r.Int64N(1024))
					avoid = []spec.Range{{Start: e, End: cfg.End()}, {Start: 0, End: s}}
				}
				a1, e1 = m.AllocateAvoiding(size, dir, avoid, limit)
				a2, e2 = f.AllocateAvoiding(size, dir, avoid, limit)
				call = fmt.Sprintf("AllocateAvoiding(%d, %v, %v, %#x)", size, dir, avoid, limit)
			default:
				a1, e1 = m.Allocate(size, dir, limit)
				a2, e2 = f.Allocate(size, dir, limit)
				call = fmt.Sprintf("Allocate(%d, %v, %#x)", size, dir, limit)
			}
			if a1 != a2 || (e1 == nil) != (e2 == nil) {
				t.Fatalf("width %d %v wide %v step %d: %s: model %#x %v, opt %#x %v",
					width, policy, wide, step, call, a1, e1, a2, e2)
			}
			if e1 == nil {
				live = append(live, a1)
			}
		}
		if m.Stats() != f.Stats() {
			t.Fatalf("width %d %v wide %v step %d: stats: model %+v, opt %+v", width, policy, wide, step, m.Stats(), f.Stats())
		}
		if step%1500 == 750 { // a rebuilt tree must behave the same
			if err := f.Restore(m.State()); err != nil {
				t.Fatalf("width %d %v wide %v step %d: Restore: %v", width, policy, wide, step, err)
			}
		}
		if step%500 == 0 || step%1500 == 750 {
			checkLayout(t, m.Blocks(), f.Blocks())
			f.blocks.check(t)
			if f.sized {
				f.bySize.check(t)
			}
		}
	}
}

func checkLayout(t *testing.T, want, got []spec.Block) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("blocks: model %d, opt %d", len(want), len(got))
	}
	for i := range want {
		if want[i] != got[i] {
			t.Fatalf("block %d: model %+v, opt %+v", i, want[i], got[i])
		}
	}
}

// check verifies the tree's structure: every leaf at the same depth, slot
// counts within bounds, entries in order, and every inner slot equal to the
// summary of its child.
func (ix *index) check(t *testing.T) {
	t.Helper()
	if ix.wide {
		ix.full.check(t)
	} else {
		ix.narrow.check(t)
	}
}

func (b *btree[K]) check(t *testing.T) {
	t.Helper()
	var walk func(x int32, depth int, root bool)
	var last struct {
		k, v K
		ok   bool
	}
	walk = func(x int32, depth int, root bool) {
		nd := &b.nodes[x]
		if nd.size() > b.max || (!root && nd.size() < b.max/2) {
			t.Fatalf("node %d holds %d slots (width %d)", x, nd.n, b.max)
		}
		if nd.leaf {
			if depth != b.height-1 {
				t.Fatalf("leaf %d at depth %d, height %d", x, depth, b.height)
			}
			for i := range nd.size() {
				k, v := nd.k[i], nd.v[i]
				if last.ok && !(last.k < k || (b.ties && last.k == k && last.v < v)) {
					t.Fatalf("entry (%d, %d) after (%d, %d)", k, v, last.k, last.v)
				}
				last.k, last.v, last.ok = k, v, true
			}
			return
		}
		if root && nd.size() < 2 {
			t.Fatalf("inner root with %d children", nd.n)
		}
		for i := range nd.size() {
			k, v, w := b.summary(b.kids[x][i])
			if nd.k[i] != k || nd.v[i] != v || (b.ties && b.ws[x][i] != w) {
				t.Fatalf("node %d slot %d: (%d, %d), child says (%d, %d, %d)", x, i, nd.k[i], nd.v[i], k, v, w)
			}
			walk(b.kids[x][i], depth+1, false)
		}
	}
	walk(b.root, 0, true)
}

// A node is four whole cache lines at 32 bits and eight at 64, and its
// count and first wideFan keys fill the first two lines at either width;
// the layout comments rely on it.
func TestNodeSize(t *testing.T) {
	if n := unsafe.Sizeof(bnode[uint32]{}); n != 256 {
		t.Fatalf("bnode[uint32] is %d bytes, want 256", n)
	}
	if n := unsafe.Sizeof(bnode[uint64]{}); n != 512 {
		t.Fatalf("bnode[uint64] is %d bytes, want 512", n)
	}
	var nd bnode[uint64]
	if end := unsafe.Offsetof(nd.k) + wideFan*8; end != 128 {
		t.Fatalf("64-bit count and keys end at byte %d, want 128", end)
	}
	var nd32 bnode[uint32]
	if end := unsafe.Offsetof(nd32.v); end != 128 {
		t.Fatalf("32-bit values start at byte %d, want 128", end)
	}
}

// The default widths fit any range, so naming one is accepted wherever the
// default is: 17 levels of 15-entry nodes would take 2·7^16 entries, more
// than the 2^31 nodes a tree can name hold.
func TestDefaultWidthsFitAnyRange(t *testing.T) {
	huge := spec.Config{Size: 1 << 62, Alignment: 1}
	for _, w := range []int{wideFan, fan} {
		if _, err := NewFreeListOptWith(huge, FreeListOptions{NodeWidth: w}); err != nil {
			t.Errorf("nodes of %d entries over 2^62 units: %v", w, err)
		}
	}
}

// TestNarrowTreeStaysWithinItsDepth: top-down allocation of unit blocks
// leaves nodes at their fewest entries; with 4-entry nodes a list of about
// 300,000 blocks outgrew the tree's 16 levels (an index out of range in the
// descent). NewFreeListOptWith refuses a width too narrow for its range,
// and the widest range it accepts at 4 entries stays within the bound when
// filled this way.
func TestNarrowTreeStaysWithinItsDepth(t *testing.T) {
	big := spec.Config{Size: 1 << 20, Alignment: 1}
	if _, err := NewFreeListOptWith(big, FreeListOptions{NodeWidth: MinNodeWidth}); !errors.Is(err, spec.ErrInvalidConfig) {
		t.Fatalf("nodes of %d entries over 2^20 units: %v; want ErrInvalidConfig", MinNodeWidth, err)
	}
	units := uint64(1 << 16)
	for fitsDepth(MinNodeWidth, units) {
		units *= 2
	}
	for !fitsDepth(MinNodeWidth, units) {
		units--
	}
	f, err := NewFreeListOptWith(spec.Config{Size: int64(units), Alignment: 1}, FreeListOptions{NodeWidth: MinNodeWidth})
	if err != nil {
		t.Fatalf("%d units, the most fitsDepth accepts: %v", units, err)
	}
	for i := range units {
		if _, err := f.Allocate(1, spec.TopDown, 0); err != nil {
			t.Fatalf("allocation %d of %d: %v", i, units, err)
		}
	}
	if h := f.blocks.height(); h > maxDepth {
		t.Fatalf("height %d over %d", h, maxDepth)
	}
}
