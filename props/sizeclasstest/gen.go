package sizeclasstest

import (
	"fmt"
	"math"

	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// SmallPoolConfig is a configuration with three small classes. Over a
// device of a few dozen KiB it reaches out-of-memory, trimming and large
// blocks within a short op sequence.
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

// scEnv is a drawn configuration with a device capacity that makes
// exhaustion reachable.
type scEnv struct {
	cfg      spec.Config
	capacity int64
}

// drawPoolEnv draws the seed's default classes a quarter of the time, a
// drawn shape (drawPoolConfig) one time in six, and SmallPoolConfig
// otherwise. Both fixed configurations have power-of-two classes and an
// alignment of 256, so a class lookup that is right only for those would
// pass them; the drawn shapes are rare enough to keep a run short.
func drawPoolEnv(t *rapid.T) scEnv {
	switch k := rapid.IntRange(0, 11).Draw(t, "config"); {
	case k < 3:
		return scEnv{spec.DefaultConfig(), rapid.Int64Range(300<<20, 1200<<20).Draw(t, "capacity")}
	case k == 3 || k == 4:
		return drawPoolConfig(t)
	}
	return scEnv{SmallPoolConfig(), rapid.Int64Range(32<<10, 160<<10).Draw(t, "capacity")}
}

// drawPoolConfig draws any shape Config.Validate accepts, with a device of 2
// to 10 times its largest finite class (or 16 alignments): an alignment from
// 1 byte to 64 KiB, and up to five classes, each a few alignments above the
// one before, so that most are not powers of two. No class at all (every
// request large) is drawn about one time in six, and, rarely, a last class
// at the top of the range, so that every request that rounds is small.
func drawPoolConfig(t *rapid.T) scEnv {
	a := rapid.SampledFrom([]int64{1, 2, 8, 64, 256, 4096, 1 << 16}).Draw(t, "alignment")
	n := rapid.IntRange(0, 5).Draw(t, "classes")
	cfg := spec.Config{Alignment: a, Classes: make([]int64, 0, n)}
	size := int64(0)
	for range n {
		size += a * rapid.Int64Range(1, 24).Draw(t, "step")
		cfg.Classes = append(cfg.Classes, size)
	}
	if n > 0 && rapid.IntRange(0, 7).Draw(t, "topClass") == 0 {
		cfg.Classes[n-1] = math.MaxInt64 &^ (a - 1)
		size = 0 // the device is sized by the classes below it
		if n > 1 {
			size = cfg.Classes[n-2]
		}
	}
	scale := max(size, 16*a)
	return scEnv{cfg, scale * rapid.Int64Range(2, 10).Draw(t, "capacityScale")}
}

// drawRequest draws an Alloc size for cfg: class boundaries and their
// neighbours, small and large sizes, null, negative sizes and sizes whose
// rounding overflows. With no class, the boundaries are the first multiples
// of the alignment. Sums saturate at MaxInt64, which is then a request whose
// rounding overflows (or, for an alignment of 1, a huge one).
func drawRequest(t *rapid.T, cfg spec.Config) int64 {
	a := cfg.Alignment
	classes := cfg.Classes
	if len(classes) == 0 {
		classes = []int64{a, 2 * a, 4 * a}
	}
	top := classes[len(classes)-1]
	switch rapid.IntRange(0, 11).Draw(t, "sizeKind") {
	case 0:
		return rapid.SampledFrom([]int64{0, -1, math.MinInt64}).Draw(t, "edge")
	case 1:
		return math.MaxInt64 - rapid.Int64Range(0, 2*a).Draw(t, "belowMax")
	case 2, 3:
		c := rapid.SampledFrom(classes).Draw(t, "class")
		return satAdd(c, rapid.Int64Range(-1, 1).Draw(t, "off"))
	case 4, 5:
		return rapid.Int64Range(1, top).Draw(t, "small")
	case 6, 7:
		return satAdd(top, rapid.Int64Range(1, 4).Draw(t, "units")*a-rapid.Int64Range(0, a-1).Draw(t, "less"))
	case 8, 9:
		times := rapid.Int64Range(1, 3).Draw(t, "times")
		if top > math.MaxInt64/times {
			return math.MaxInt64 - rapid.Int64Range(0, a-1).Draw(t, "plus")
		}
		return satAdd(top*times, rapid.Int64Range(1, a).Draw(t, "plus"))
	default:
		return rapid.SampledFrom(classes[:min(2, len(classes))]).Draw(t, "hot")
	}
}

// satAdd returns x + y, or MaxInt64 where that overflows.
func satAdd(x, y int64) int64 {
	if y > 0 && x > math.MaxInt64-y {
		return math.MaxInt64
	}
	return x + y
}

// drawFreeTarget draws the address of a Free: a live allocation most often,
// then one freed before (double free), an interior pointer, null or junk.
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
	return rapid.SampledFrom([]spec.Addr{0, 1, 0x10000 - 256, math.MaxUint64}).Draw(t, "junk")
}

func drawFault(t *rapid.T, f spec.Fault) spec.Fault {
	if rapid.IntRange(0, 5).Draw(t, "fault") == 0 {
		return f
	}
	return spec.NoFault
}
