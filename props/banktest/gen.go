package banktest

import (
	"math"

	spec "github.com/memverify/memverify/model/bank"
	"pgregory.net/rapid"
)

// Generators of the bank properties. Ranges are small (a few dozen alignment
// units) so that generated sequences fill the range, fragment it and run out
// of memory within a few dozen steps; alignments include 1 and non-powers of
// two (which rounding with a mask gets wrong), and a tenth of the ranges sit
// at the top of the address space, where an unchecked sum wraps.

// drawListConfig draws a valid free-list configuration with the given policy.
func drawListConfig(t *rapid.T, policy spec.Policy) spec.Config {
	align := rapid.SampledFrom([]int64{1, 2, 3, 8, 32, 48}).Draw(t, "align")
	size := align * rapid.Int64Range(1, 48).Draw(t, "units")
	off := spec.Addr(align * rapid.Int64Range(0, 4).Draw(t, "offsetUnits"))
	if rapid.IntRange(0, 9).Draw(t, "atTop") == 0 {
		off = spec.Addr(spec.AlignDown(math.MaxUint64-uint64(size), uint64(align)))
	}
	return spec.Config{Offset: off, Size: size, Alignment: align,
		MinAllocation: rapid.Int64Range(0, 3*align).Draw(t, "min"), Policy: policy}
}

// drawAllocSize draws a request: small, up to the whole range, or a boundary
// (zero, negative, the range, one past it, the largest int64).
func drawAllocSize(t *rapid.T, cfg spec.Config) int64 {
	return rapid.OneOf(
		rapid.Int64Range(1, 4*cfg.Alignment),
		rapid.Int64Range(1, cfg.Size),
		rapid.SampledFrom([]int64{0, -1, cfg.Size, cfg.Size + 1, math.MaxInt64}),
	).Draw(t, "size")
}

// drawDir draws a direction: one of the two, or now and then a value that
// is neither (which every call must refuse). The bad one is the top of the
// draw, so that shrinking leads away from it.
func drawDir(t *rapid.T) spec.Direction {
	if rapid.IntRange(0, 19).Draw(t, "badDir") == 19 {
		return spec.Direction(rapid.IntRange(2, 255).Draw(t, "dir"))
	}
	return rapid.SampledFrom([]spec.Direction{spec.BottomUp, spec.TopDown}).Draw(t, "dir")
}

// drawLimit draws an address limit: none, anywhere in the range (aligned or
// not), or past every address.
func drawLimit(t *rapid.T, cfg spec.Config) spec.Addr {
	switch rapid.IntRange(0, 5).Draw(t, "limitKind") {
	case 0, 1, 2:
		return 0
	case 3:
		return spec.Addr(math.MaxUint64)
	}
	return cfg.Offset + spec.Addr(rapid.Int64Range(0, cfg.Size).Draw(t, "limit"))
}

// drawListAddr draws an address: a block start (live or free), one alignment
// past it, anywhere in the range, or outside it.
func drawListAddr(t *rapid.T, cfg spec.Config, blocks []spec.Block) spec.Addr {
	pool := []spec.Addr{0, cfg.End(), cfg.Offset + 1}
	for _, b := range blocks {
		pool = append(pool, b.Addr, b.Addr+spec.Addr(cfg.Alignment))
	}
	return rapid.OneOf(
		rapid.SampledFrom(pool),
		rapid.Custom(func(t *rapid.T) spec.Addr {
			return cfg.Offset + spec.Addr(rapid.Int64Range(0, cfg.Size).Draw(t, "offset"))
		}),
	).Draw(t, "addr")
}

// drawLive draws the address of a live allocation, or any address if none.
func drawLive(t *rapid.T, cfg spec.Config, m *spec.Model) spec.Addr {
	live := m.State().Allocations
	if len(live) == 0 || rapid.IntRange(0, 5).Draw(t, "stray") == 0 {
		return drawListAddr(t, cfg, m.Blocks())
	}
	return rapid.SampledFrom(live).Draw(t, "live").Addr
}

// drawAvoid draws up to three avoided ranges, possibly overlapping, unsorted,
// empty, or (rarely) inverted.
func drawAvoid(t *rapid.T, cfg spec.Config) []spec.Range {
	n := rapid.IntRange(0, 3).Draw(t, "navoid")
	out := make([]spec.Range, n)
	for i := range out {
		s := cfg.Offset + spec.Addr(rapid.Int64Range(0, cfg.Size).Draw(t, "avoidStart"))
		// Clamped without forming s+len, which wraps for a range at the top.
		e := s + min(spec.Addr(rapid.Int64Range(0, cfg.Size/2).Draw(t, "avoidLen")), cfg.End()-s)
		if rapid.IntRange(0, 19).Draw(t, "inverted") == 0 && s < e {
			s, e = e, s
		}
		out[i] = spec.Range{Start: s, End: e}
	}
	return out
}

// drawRestoreState draws a state to restore: a snapshot taken earlier, one of
// another configuration, or one whose regions are not a valid layout.
func drawRestoreState(t *rapid.T, cfg spec.Config, snaps []spec.State) spec.State {
	s := rapid.SampledFrom(snaps).Draw(t, "snapshot")
	s.Allocations = append([]spec.Region(nil), s.Allocations...)
	switch rapid.IntRange(0, 9).Draw(t, "restoreKind") {
	case 0:
		s.Size += cfg.Alignment
	case 1:
		s.MinAllocation++
	case 2:
		s.Offset += spec.Addr(cfg.Alignment)
	case 3:
		s.Alignment *= 2
	case 4:
		if k := len(s.Allocations); k > 0 {
			s.Allocations = append(s.Allocations, s.Allocations[rapid.IntRange(0, k-1).Draw(t, "dup")])
		}
	case 5:
		if k := len(s.Allocations); k > 0 {
			s.Allocations[rapid.IntRange(0, k-1).Draw(t, "shift")].Addr++
		}
	case 6:
		s.Allocations = append(s.Allocations, rapid.SampledFrom([]spec.Region{
			{Addr: cfg.End(), Size: cfg.Alignment},                             // past the end
			{Addr: cfg.Offset - spec.Addr(cfg.Alignment), Size: cfg.Alignment}, // below the start (or wrapped)
			{Addr: cfg.Offset, Size: 0},
			{Addr: cfg.Offset, Size: cfg.Size + cfg.Alignment},
		}).Draw(t, "badRegion"))
	}
	return s
}

// drawBanksConfig draws a valid banks configuration: one to five banks at
// far-apart offsets (so that a page given the wrong bank's offset leaves its
// bank), a small shared range, and sometimes an address limit.
func drawBanksConfig(t *rapid.T) spec.BanksConfig {
	n := rapid.IntRange(1, 5).Draw(t, "banks")
	align := rapid.SampledFrom([]int64{1, 4, 16, 32, 48}).Draw(t, "align")
	list := spec.Config{
		Offset:        spec.Addr(align * rapid.Int64Range(0, 3).Draw(t, "offsetUnits")),
		Size:          align * rapid.Int64Range(4, 64).Draw(t, "units"),
		Alignment:     align,
		MinAllocation: rapid.Int64Range(0, 2*align).Draw(t, "min"),
		Policy:        rapid.SampledFrom([]spec.Policy{spec.FirstFit, spec.FirstFit, spec.BestFit}).Draw(t, "policy"),
	}
	offs := make([]spec.Addr, n)
	for b := range offs {
		offs[b] = spec.Addr(b)<<20 + spec.Addr(align*rapid.Int64Range(0, 8).Draw(t, "bankOffset"))
	}
	var limit spec.Addr
	if rapid.IntRange(0, 4).Draw(t, "limited") == 0 {
		limit = list.Offset + spec.Addr(rapid.Int64Range(0, list.Size).Draw(t, "limit"))
	}
	return spec.BanksConfig{Offsets: offs, List: list, Limit: limit}
}

// drawBanksAlloc draws an allocation: interleaved over all banks or sharded
// over a drawn list (sometimes an invalid one), pages of up to three
// alignment units (or invalid sizes).
func drawBanksAlloc(t *rapid.T, cfg spec.BanksConfig) spec.BanksOp {
	align := cfg.List.Alignment
	page := rapid.OneOf(
		rapid.Int64Range(1, 3*align),
		rapid.SampledFrom([]int64{0, -1, align}),
	).Draw(t, "pageSize")
	size := rapid.OneOf(
		rapid.Int64Range(1, max(page, 1)*int64(len(cfg.Offsets))*4),
		rapid.SampledFrom([]int64{0, -1, math.MaxInt64, cfg.List.Size * int64(len(cfg.Offsets))}),
	).Draw(t, "size")
	op := spec.BanksOp{Kind: spec.OpAllocateBuffer, Size: size, PageSize: page, Dir: drawDir(t)}
	if rapid.Bool().Draw(t, "sharded") {
		op.Kind = spec.OpAllocateSharded
		n := len(cfg.Offsets)
		op.Banks = rapid.SliceOfNDistinct(rapid.IntRange(0, n-1), 1, n, rapid.ID[int]).Draw(t, "shards")
		if rapid.IntRange(0, 9).Draw(t, "badShards") == 0 {
			op.Banks = rapid.SampledFrom([][]int{nil, {0, 0}, {n}, {-1}}).Draw(t, "bad")
		}
	}
	return op
}

// drawBuffer draws the address of a live buffer, or a stray address.
func drawBuffer(t *rapid.T, cfg spec.BanksConfig, live []spec.Buffer) spec.Addr {
	if len(live) == 0 || rapid.IntRange(0, 5).Draw(t, "stray") == 0 {
		return cfg.List.Offset + spec.Addr(rapid.Int64Range(0, cfg.List.Size).Draw(t, "addr"))
	}
	return rapid.SampledFrom(live).Draw(t, "buffer").Addr
}

// drawPage draws a page index of buf: inside, or one step outside either end.
func drawPage(t *rapid.T, buf spec.Buffer) int64 {
	return rapid.Int64Range(-1, buf.Pages()).Draw(t, "page")
}

// repeatLong runs rapid's state machine over actions for about three times
// rapid's default number of steps (-rapid.steps): small ranges fill, fragment
// and empty again within one sequence.
func repeatLong(rt *rapid.T, actions map[string]func(*rapid.T)) {
	for range 3 {
		rt.Repeat(actions)
	}
}
