package sizeclasstest

import (
	"fmt"
	"math"

	"github.com/memverify/memverify/internal/draw"
	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// Every generator here puts its simplest choice at rapid's shrink target: a
// request for the smallest class, a Free of a live block, no fault, no
// Close, the small configuration. Rare branches (faults, drawn shapes, bad
// and huge sizes) sit at the top of their range or behind draw.Rarely, so
// that a shrunk counterexample keeps one only where the failure needs it.

// SmallPoolConfig is a configuration with three small classes (1, 4 and 16
// KiB, aligned to 256 bytes). Over a device of a few dozen KiB it reaches
// out-of-memory, trimming and large blocks within a short op sequence; the
// concurrent properties use it over a device with room to spare.
func SmallPoolConfig() spec.Config {
	return spec.Config{Alignment: 256, Classes: []int64{1024, 4096, 16384}}
}

// newSmallPool is factory's pool of SmallPoolConfig over a simulated device
// with room to spare (1 TiB): the concurrent properties never exhaust it.
func newSmallPool(t *rapid.T, factory PoolFactory) (spec.Config, *spec.SimDevice, spec.Pool) {
	cfg := SmallPoolConfig()
	dev := spec.NewSimDevice(1 << 40)
	pool, err := factory(dev, cfg)
	if err != nil {
		t.Fatalf("factory: %v", err)
	}
	return cfg, dev, pool
}

// cacheBlocks allocates up to most blocks of every class of cfg from pool (a
// drawn number) and frees them, so that the pool starts with blocks cached.
func cacheBlocks(t *rapid.T, pool spec.Pool, cfg spec.Config, most int) {
	for i, size := range cfg.Classes {
		var addrs []spec.Addr
		for range rapid.IntRange(0, most).Draw(t, fmt.Sprintf("cached%d", i)) {
			a, err := pool.Alloc(size)
			if err != nil {
				t.Fatalf("warm-up Alloc(%d): %v", size, err)
			}
			addrs = append(addrs, a)
		}
		for _, a := range addrs {
			if err := pool.Free(a); err != nil {
				t.Fatalf("warm-up Free(%v): %v", a, err)
			}
		}
	}
}

// poolEnv is a drawn configuration with a device capacity that makes
// exhaustion reachable.
type poolEnv struct {
	cfg      spec.Config
	capacity int64
}

// drawPoolEnv draws SmallPoolConfig (the shrink target) about half the time,
// the seed's default classes about four times in ten, and a drawn shape
// (drawPoolConfig) about one time in six. Both fixed configurations have
// power-of-two classes and an alignment of 256, so a class lookup that is
// right only for those would pass them; the drawn shapes are rare enough to
// keep a run short.
func drawPoolEnv(t *rapid.T) poolEnv {
	switch {
	case draw.Rarely(t, 6, "shapedConfig"):
		return drawPoolConfig(t)
	case draw.Rarely(t, 2, "defaultConfig"):
		return poolEnv{spec.DefaultConfig(), rapid.Int64Range(300<<20, 1200<<20).Draw(t, "capacity")}
	}
	return poolEnv{SmallPoolConfig(), rapid.Int64Range(32<<10, 160<<10).Draw(t, "capacity")}
}

// drawPoolConfig draws any shape Config.Validate accepts, with a device of 2
// to 10 times its largest finite class (or 16 alignments): an alignment from
// 1 byte to 64 KiB, and one to five classes, each a few alignments above the
// one before, so that most are not powers of two. Rarely (about one time in
// six each) there is no class at all (every request is large), or the last
// class sits at the top of the range, so that every request that rounds is
// small.
func drawPoolConfig(t *rapid.T) poolEnv {
	a := rapid.SampledFrom([]int64{1, 2, 8, 64, 256, 4096, 1 << 16}).Draw(t, "alignment")
	n := 0
	if !draw.Rarely(t, 5, "noClass") {
		n = rapid.IntRange(1, 5).Draw(t, "classes")
	}
	cfg := spec.Config{Alignment: a, Classes: make([]int64, 0, n)}
	size := int64(0)
	for range n {
		size += a * rapid.Int64Range(1, 24).Draw(t, "step")
		cfg.Classes = append(cfg.Classes, size)
	}
	if n > 0 && draw.Rarely(t, 5, "topClass") {
		cfg.Classes[n-1] = math.MaxInt64 &^ (a - 1)
		size = 0 // the device is sized by the classes below it
		if n > 1 {
			size = cfg.Classes[n-2]
		}
	}
	scale := max(size, 16*a)
	return poolEnv{cfg, scale * rapid.Int64Range(2, 10).Draw(t, "capacityScale")}
}

// drawRequest draws an Alloc size for cfg: class sizes and their neighbours
// (the shrink target is the first class exactly), small sizes, sizes just
// above the largest class and a few times it, the two smallest classes (to
// reuse cached blocks), and, at the top of the range, null and negative
// sizes and sizes whose rounding overflows. With no class, the boundaries
// are the first multiples of the alignment. Sums saturate at MaxInt64, which
// is then a request whose rounding overflows (or, for an alignment of 1, a
// huge one).
func drawRequest(t *rapid.T, cfg spec.Config) int64 {
	a := cfg.Alignment
	classes := cfg.Classes
	if len(classes) == 0 {
		classes = []int64{a, 2 * a, 4 * a}
	}
	top := classes[len(classes)-1]
	switch rapid.IntRange(0, 11).Draw(t, "sizeKind") {
	case 0, 1:
		c := rapid.SampledFrom(classes).Draw(t, "class")
		return satAdd(c, rapid.Int64Range(-1, 1).Draw(t, "off"))
	case 2, 3:
		return rapid.Int64Range(1, top).Draw(t, "small")
	case 4, 5:
		return satAdd(top, rapid.Int64Range(1, 4).Draw(t, "units")*a-rapid.Int64Range(0, a-1).Draw(t, "less"))
	case 6:
		times := rapid.Int64Range(1, 3).Draw(t, "times")
		if top > math.MaxInt64/times {
			return math.MaxInt64 - rapid.Int64Range(0, a-1).Draw(t, "plus")
		}
		return satAdd(top*times, rapid.Int64Range(1, a).Draw(t, "plus"))
	case 7:
		return rapid.SampledFrom(classes[:min(2, len(classes))]).Draw(t, "hot")
	case 8, 9:
		return rapid.SampledFrom([]int64{0, -1, math.MinInt64}).Draw(t, "edge")
	default:
		return math.MaxInt64 - rapid.Int64Range(0, 2*a).Draw(t, "belowMax")
	}
}

// satAdd returns x + y, or MaxInt64 where that overflows.
func satAdd(x, y int64) int64 {
	if y > 0 && x > math.MaxInt64-y {
		return math.MaxInt64
	}
	return x + y
}

// drawFreeTarget draws the address of a Free: a live allocation most often
// (the shrink target), then one freed before (double free), an interior
// pointer, junk or null. Junk shrinks to an address no pool holds, not to
// null, so that a shrunk Free of a stray address needs no call before it.
func drawFreeTarget(t *rapid.T, live, seen []spec.Addr) spec.Addr {
	k := rapid.IntRange(0, 9).Draw(t, "freeKind")
	switch {
	case k < 6 && len(live) > 0:
		return rapid.SampledFrom(live).Draw(t, "live")
	case k < 8 && len(seen) > 0:
		return rapid.SampledFrom(seen).Draw(t, "seen")
	case k == 8 && len(seen) > 0:
		return rapid.SampledFrom(seen).Draw(t, "interior") + 256
	}
	return rapid.SampledFrom([]spec.Addr{1, 0x10000 - 256, math.MaxUint64, 0}).Draw(t, "junk")
}

// drawFault draws f about one time in five, and no fault otherwise (the
// shrink target).
func drawFault(t *rapid.T, f spec.Fault) spec.Fault {
	if draw.Rarely(t, 5, "fault") {
		return f
	}
	return spec.NoFault
}

// planOp is one step of a goroutine's plan in the concurrent properties:
// an Alloc of N bytes, or a Free of the goroutine's own allocation number
// Index.
type planOp struct {
	Alloc bool
	N     int64
	Index int
}

func (o planOp) String() string {
	if o.Alloc {
		return fmt.Sprintf("Alloc(%d)", o.N)
	}
	return fmt.Sprintf("Free(#%d)", o.Index)
}

// drawPlan draws Allocs and Frees of the plan's own live allocations. A
// plan never frees a block twice: once freed, the block may belong to
// another goroutine (double frees are raced in CheckDoubleFreeRace).
func drawPlan(t *rapid.T, cfg spec.Config, label string) []planOp {
	n := rapid.IntRange(1, 48).Draw(t, label+"len")
	var plan []planOp
	var unfreed []int
	allocs := 0
	for range n {
		if len(unfreed) == 0 || rapid.IntRange(0, 2).Draw(t, label+"kind") > 0 {
			plan = append(plan, planOp{Alloc: true, N: rapid.SampledFrom(planSizes(cfg)).Draw(t, label+"n")})
			unfreed = append(unfreed, allocs)
			allocs++
			continue
		}
		i := rapid.IntRange(0, len(unfreed)-1).Draw(t, label+"index")
		plan = append(plan, planOp{Index: unfreed[i]})
		unfreed = append(unfreed[:i], unfreed[i+1:]...)
	}
	return plan
}

// planSizes is every class size and the size just above it (the last one
// large).
func planSizes(cfg spec.Config) []int64 {
	var out []int64
	for _, c := range cfg.Classes {
		out = append(out, c, c+1)
	}
	return out
}
