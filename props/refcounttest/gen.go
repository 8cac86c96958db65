package refcounttest

import (
	"math"

	"github.com/memverify/memverify/internal/draw"
	spec "github.com/memverify/memverify/model/refcount"
	"pgregory.net/rapid"
)

// The address pool of generated ops: a few buffer bases far apart, pointers at
// small offsets inside them, so that aliases, re-registrations and pointers of
// other registrations collide often. Plus null and a range that reaches the
// top of the address space.
var (
	refBases   = []spec.Addr{0x1000, 0x2000, 0x3000, 0x4000}
	refOffsets = []spec.Addr{0, 0x10, 0x20, 0x40}
	topAddr    = spec.Addr(math.MaxUint64 - 0x3f)
)

// PointerPool returns the pointers the generated ops draw from: null, one
// near the top of the address space, then four buffer bases and pointers
// 0x10, 0x20 and 0x40 bytes into each. Fuzz targets map their bytes onto it,
// so its order stays as it is: a stored fuzz input indexes into it.
func PointerPool() []spec.Addr {
	pool := []spec.Addr{0, topAddr}
	for _, b := range refBases {
		for _, o := range refOffsets {
			pool = append(pool, b+o)
		}
	}
	return pool
}

// drawnPointers is the pool in the order drawPointer draws from: rapid
// shrinks a draw toward the first, which should be an ordinary pointer, not
// null (a no-op) or one at the top of the address space.
var drawnPointers = append(PointerPool()[2:], 0, topAddr)

// drawPointer draws a pointer from the pool; it shrinks to 0x1000.
func drawPointer(t *rapid.T, label string) spec.Addr {
	return rapid.SampledFrom(drawnPointers).Draw(t, label)
}

// drawSize draws a registration size: mostly valid, sometimes zero, negative
// or large enough to run past the top of the address space from topAddr. It
// shrinks to 0x10.
func drawSize(t *rapid.T) int64 {
	return rapid.OneOf(
		rapid.SampledFrom([]int64{0x10, 0x40, 0x80}),
		rapid.SampledFrom([]int64{0, -1, 0x40, 0x41}),
	).Draw(t, "bytes")
}

// drawKind draws an allocation kind, now and then an invalid one; it shrinks
// to ArrayNew.
func drawKind(t *rapid.T) spec.Kind {
	return spec.Kind(rapid.IntRange(0, 4).Draw(t, "kind")) // 4 is invalid
}

// drawAliases draws up to four aliases of a buffer at real: mostly inside,
// sometimes repeated, equal to real, null or outside. It shrinks to none.
func drawAliases(t *rapid.T, real spec.Addr) []spec.Addr {
	n := rapid.IntRange(0, 4).Draw(t, "naliases")
	out := make([]spec.Addr, n)
	for i := range out {
		out[i] = rapid.OneOf(
			rapid.SampledFrom([]spec.Addr{real, real + 0x10, real + 0x20, real + 0x40}),
			rapid.SampledFrom(drawnPointers),
		).Draw(t, "alias")
	}
	return out
}

// drawRetains draws the Retains of q the state machine applies at once: if
// q is registered (burst), about one time in seven a burst of 64 to 160 of
// them, some released again, which takes counts far past the few that single
// ops build (a holder of a packed buffer of 8 to 10 holders overflows its
// field on the way); else one. It shrinks to one Retain.
func drawRetains(t *rapid.T, q spec.Addr, burst bool) []spec.Op {
	if !burst || !draw.Rarely(t, 7, "burst") {
		return []spec.Op{{Kind: spec.OpRetain, P: q}}
	}
	n := rapid.IntRange(64, 160).Draw(t, "retains")
	ops := make([]spec.Op, n, n+n/2)
	for i := range ops {
		ops[i] = spec.Op{Kind: spec.OpRetain, P: q}
	}
	for range rapid.IntRange(0, n/2).Draw(t, "releases") {
		ops = append(ops, spec.Op{Kind: spec.OpUnregister, P: q})
	}
	return ops
}

// drawWideAliases draws the holders of a buffer at real that drawAliases
// (four at most) never makes: LockFree keeps the counts of a buffer of more
// than 10 holders copy on write, and those of more than 32 in a radix tree of
// 16-way nodes, with a second level of inner nodes past 256. It returns the
// aliases and the buffer's size. real+0x10·i stays inside 0x400 bytes for i
// below 64; past 63 aliases, and where a draw says so, an alias repeats (a
// pointer listed twice holds two shares). About one time in seven the buffer
// has 257 to 300 holders, 8 bytes apart from real+0x400 on (no pool pointer among
// them). It shrinks to 10 distinct aliases.
func drawWideAliases(t *rapid.T, real spec.Addr) ([]spec.Addr, int64) {
	if draw.Rarely(t, 7, "deep") {
		aliases := make([]spec.Addr, rapid.IntRange(256, 299).Draw(t, "naliases"))
		for i := range aliases {
			aliases[i] = real + 0x400 + 8*spec.Addr(i)
		}
		for range rapid.IntRange(0, 3).Draw(t, "repeats") { // listed twice, and still 257 holders or more
			aliases = append(aliases, rapid.SampledFrom(aliases).Draw(t, "repeat"))
		}
		return aliases, 0x1000
	}
	aliases := make([]spec.Addr, rapid.IntRange(10, 70).Draw(t, "naliases"))
	for i := range aliases {
		aliases[i] = real + 0x10*spec.Addr(1+i%63)
		if i > 0 && draw.Rarely(t, 5, "repeat") {
			aliases[i] = aliases[i-1]
		}
	}
	return aliases, 0x400
}

// drawDisjointOps draws a sequence of non-scope ops on pointers inside
// [base, base+disjointSpan): registrations, buffers with aliases, retains,
// releases (valid and not), queries. One draw in eighteen is instead a buffer
// of 8 to 24 holders, 8 bytes apart from p on, or a burst of 64 to 128
// Retains of p followed by Refs: LockFree keeps the counts of a buffer of
// more than 10 holders copy on write, packs those of fewer into fields of 6
// or 7 bits, and moves a packed buffer to copy on write when a burst fills a
// field, so the observer's snapshots freeze such records and meet them
// changing. It shrinks to one Register.
func drawDisjointOps(t *rapid.T, base spec.Addr) []spec.Op {
	ptrs := []spec.Addr{base + 0x100, base + 0x110, base + 0x200, base + 0x210, base + 0x220}
	ptr := rapid.SampledFrom(ptrs)
	runs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) []spec.Op {
		p := ptr.Draw(t, "p")
		switch rapid.IntRange(0, 5).Draw(t, "kind") {
		case 0:
			return []spec.Op{{Kind: spec.OpRegister, P: p, Bytes: 0x20, Alloc: spec.ScalarNew}}
		case 1:
			if draw.Rarely(t, 3, "wide") {
				return drawDisjointWide(t, p)
			}
			n := rapid.IntRange(0, 3).Draw(t, "naliases")
			aliases := make([]spec.Addr, n)
			for i := range aliases {
				aliases[i] = p + spec.Addr(rapid.IntRange(0, 2).Draw(t, "alias"))*0x10
			}
			return []spec.Op{{Kind: spec.OpRegisterBuffer, P: p, Bytes: 0x30, Aliases: aliases, Alloc: spec.ArrayNew}}
		case 2:
			return []spec.Op{{Kind: spec.OpRetain, P: p}}
		case 3, 4:
			return []spec.Op{{Kind: spec.OpUnregister, P: p}}
		default:
			return []spec.Op{{Kind: spec.OpRefs, P: p}}
		}
	}), 1, 40).Draw(t, "ops")
	var ops []spec.Op
	for _, r := range runs {
		ops = append(ops, r...)
	}
	return ops
}

// drawDisjointWide draws a buffer of many holders at p, or a burst of
// Retains of p, each followed by Refs (see drawDisjointOps): a burst that
// miscounts then fails at the first Retain that does, and a shrunk
// counterexample lists the ops up to it. It shrinks to the buffer, one op.
func drawDisjointWide(t *rapid.T, p spec.Addr) []spec.Op {
	if rapid.Bool().Draw(t, "burst") {
		n := rapid.IntRange(64, 128).Draw(t, "retains")
		ops := make([]spec.Op, 0, 2*n)
		for range n {
			ops = append(ops, spec.Op{Kind: spec.OpRetain, P: p}, spec.Op{Kind: spec.OpRefs, P: p})
		}
		return ops
	}
	aliases := make([]spec.Addr, rapid.IntRange(7, 23).Draw(t, "naliases"))
	for i := range aliases {
		aliases[i] = p + 8*spec.Addr(i+1)
	}
	return []spec.Op{{Kind: spec.OpRegisterBuffer, P: p, Bytes: 0x100, Aliases: aliases, Alloc: spec.ArrayNew}}
}

// usually reports true except now and then, and shrinks to false: for a
// costly branch taken most of the time (a filled field) whose cheap
// alternative is the simpler case. rapid draws small integers more often than
// large ones, so it is false about one time in eight for n = 16, where
// draw.Rarely(n) is true about one time in n for n up to 8.
func usually(t *rapid.T, n int, label string) bool {
	return rapid.IntRange(0, n-1).Draw(t, label) != 0
}
