package banktest

import (
	"math"
	"math/bits"

	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/model/bank"
	"pgregory.net/rapid"
)

// Generators of the bank properties. Ranges are small (a few dozen alignment
// units) so that generated sequences fill the range, fragment it and run out
// of memory within a few dozen steps; alignments include 1 and non-powers of
// two (which rounding with a mask gets wrong), and about one range in six
// sits at the top of the address space, where an unchecked sum wraps.
//
// rapid shrinks every draw toward its minimum, so each draw puts the simplest
// choice there: a range at the bottom of the address space, a live address
// rather than a stray one, a valid direction, an unchanged snapshot, no
// address limit, a burst cut short. The rare branches are drawn with
// draw.Rarely, which is false at the minimum: a shrunk counterexample keeps a
// rare branch only where the failure needs it. rapid's integers favour small
// values, so neither a draw of 0 from [0, n) nor Rarely(t, n, …) comes up
// exactly once in n; each n below was chosen, by counting over 20000 draws,
// so that its branch is drawn about as often as when it sat at the minimum.

// drawListConfig draws a valid free-list configuration with the given policy.
func drawListConfig(t *rapid.T, policy bank.Policy) bank.Config {
	align := rapid.SampledFrom([]int64{1, 2, 3, 8, 32, 48}).Draw(t, "align")
	size := align * rapid.Int64Range(1, 48).Draw(t, "units")
	off := bank.Addr(align * rapid.Int64Range(0, 4).Draw(t, "offsetUnits"))
	if draw.Rarely(t, 6, "atTop") {
		off = bank.Addr(bank.AlignDown(math.MaxUint64-uint64(size), uint64(align)))
	}
	return bank.Config{Offset: off, Size: size, Alignment: align,
		MinAllocation: rapid.Int64Range(0, 3*align).Draw(t, "min"), Policy: policy}
}

// drawAllocSize draws a request: small, up to the whole range, or a boundary
// (zero, negative, the range, one past it, the largest int64).
func drawAllocSize(t *rapid.T, cfg bank.Config) int64 {
	return rapid.OneOf(
		rapid.Int64Range(1, 4*cfg.Alignment),
		rapid.Int64Range(1, cfg.Size),
		rapid.SampledFrom([]int64{0, -1, cfg.Size, cfg.Size + 1, math.MaxInt64}),
	).Draw(t, "size")
}

// drawDir draws a direction: one of the two, or now and then a value that
// is neither (which every call must refuse).
func drawDir(t *rapid.T) bank.Direction {
	if draw.Rarely(t, 20, "badDir") {
		return bank.Direction(rapid.IntRange(2, 255).Draw(t, "dir"))
	}
	return rapid.SampledFrom([]bank.Direction{bank.BottomUp, bank.TopDown}).Draw(t, "dir")
}

// drawLimit draws an address limit: none, anywhere in the range (aligned or
// not), or past every address.
func drawLimit(t *rapid.T, cfg bank.Config) bank.Addr {
	switch rapid.IntRange(0, 5).Draw(t, "limitKind") {
	case 0, 1, 2:
		return 0
	case 3:
		return bank.Addr(math.MaxUint64)
	}
	return cfg.Offset + bank.Addr(rapid.Int64Range(0, cfg.Size).Draw(t, "limit"))
}

// drawListAddr draws an address: a block start (live or free), one alignment
// past it, anywhere in the range, or outside it. Address 0 comes first: it is
// outside most ranges, but once shrinking has moved the range to offset 0 it
// is the range's start, the simplest address of all.
func drawListAddr(t *rapid.T, cfg bank.Config, blocks []bank.Block) bank.Addr {
	pool := []bank.Addr{0, cfg.End(), cfg.Offset + 1}
	for _, b := range blocks {
		pool = append(pool, b.Addr, b.Addr+bank.Addr(cfg.Alignment))
	}
	return rapid.OneOf(
		rapid.SampledFrom(pool),
		rapid.Custom(func(t *rapid.T) bank.Addr {
			return cfg.Offset + bank.Addr(rapid.Int64Range(0, cfg.Size).Draw(t, "offset"))
		}),
	).Draw(t, "addr")
}

// drawLive draws the address of a live allocation, or any address if none.
func drawLive(t *rapid.T, cfg bank.Config, m *bank.Model) bank.Addr {
	live := m.State().Allocations
	if len(live) == 0 || draw.Rarely(t, 5, "stray") {
		return drawListAddr(t, cfg, m.Blocks())
	}
	return rapid.SampledFrom(live).Draw(t, "live").Addr
}

// drawAvoid draws up to three avoided ranges, possibly overlapping, unsorted,
// empty, or (rarely) inverted.
func drawAvoid(t *rapid.T, cfg bank.Config) []bank.Range {
	n := rapid.IntRange(0, 3).Draw(t, "navoid")
	out := make([]bank.Range, n)
	for i := range out {
		s := cfg.Offset + bank.Addr(rapid.Int64Range(0, cfg.Size).Draw(t, "avoidStart"))
		// Clamped without forming s+len, which wraps for a range at the top.
		e := s + min(bank.Addr(rapid.Int64Range(0, cfg.Size/2).Draw(t, "avoidLen")), cfg.End()-s)
		if draw.Rarely(t, 8, "inverted") && s < e {
			s, e = e, s
		}
		out[i] = bank.Range{Start: s, End: e}
	}
	return out
}

// drawRestoreState draws a state to restore: a snapshot taken earlier, one of
// another configuration, or one whose regions are not a valid layout. The
// snapshot as taken is kinds 0, 8 and 9: 0, the minimum, because it is the
// simplest, and 8 and 9 so that about 3 draws in 10 restore a valid state.
func drawRestoreState(t *rapid.T, cfg bank.Config, snaps []bank.State) bank.State {
	s := rapid.SampledFrom(snaps).Draw(t, "snapshot")
	s.Allocations = append([]bank.Region(nil), s.Allocations...)
	switch rapid.IntRange(0, 9).Draw(t, "restoreKind") {
	case 1:
		s.Size += cfg.Alignment
	case 2:
		s.MinAllocation++
	case 3:
		s.Offset += bank.Addr(cfg.Alignment)
	case 4:
		s.Alignment *= 2
	case 5:
		if k := len(s.Allocations); k > 0 {
			s.Allocations = append(s.Allocations, s.Allocations[rapid.IntRange(0, k-1).Draw(t, "dup")])
		}
	case 6:
		if k := len(s.Allocations); k > 0 {
			s.Allocations[rapid.IntRange(0, k-1).Draw(t, "shift")].Addr++
		}
	case 7:
		s.Allocations = append(s.Allocations, rapid.SampledFrom([]bank.Region{
			{Addr: cfg.End(), Size: cfg.Alignment},                             // past the end
			{Addr: cfg.Offset - bank.Addr(cfg.Alignment), Size: cfg.Alignment}, // below the start (or wrapped)
			{Addr: cfg.Offset, Size: 0},
			{Addr: cfg.Offset, Size: cfg.Size + cfg.Alignment},
		}).Draw(t, "badRegion"))
	}
	return s
}

// drawBanksConfig draws a valid banks configuration: one to five banks at
// far-apart offsets (so that a page given the wrong bank's offset leaves its
// bank), a small shared range, and sometimes an address limit.
func drawBanksConfig(t *rapid.T) bank.BanksConfig {
	n := rapid.IntRange(1, 5).Draw(t, "banks")
	align := rapid.SampledFrom([]int64{1, 4, 16, 32, 48}).Draw(t, "align")
	list := bank.Config{
		Offset:        bank.Addr(align * rapid.Int64Range(0, 3).Draw(t, "offsetUnits")),
		Size:          align * rapid.Int64Range(4, 64).Draw(t, "units"),
		Alignment:     align,
		MinAllocation: rapid.Int64Range(0, 2*align).Draw(t, "min"),
		Policy:        rapid.SampledFrom([]bank.Policy{bank.FirstFit, bank.FirstFit, bank.BestFit}).Draw(t, "policy"),
	}
	offs := make([]bank.Addr, n)
	for b := range offs {
		offs[b] = bank.Addr(b)<<20 + bank.Addr(align*rapid.Int64Range(0, 8).Draw(t, "bankOffset"))
	}
	var limit bank.Addr
	if draw.Rarely(t, 4, "limited") {
		limit = list.Offset + bank.Addr(rapid.Int64Range(0, list.Size).Draw(t, "limit"))
	}
	return bank.BanksConfig{Offsets: offs, List: list, Limit: limit}
}

// drawBanksAlloc draws an allocation: interleaved over all banks or sharded
// over a drawn list (sometimes an invalid one), pages of up to three
// alignment units (or invalid sizes).
func drawBanksAlloc(t *rapid.T, cfg bank.BanksConfig) bank.BanksOp {
	align := cfg.List.Alignment
	page := rapid.OneOf(
		rapid.Int64Range(1, 3*align),
		rapid.SampledFrom([]int64{0, -1, align}),
	).Draw(t, "pageSize")
	size := rapid.OneOf(
		rapid.Int64Range(1, max(page, 1)*int64(len(cfg.Offsets))*4),
		rapid.SampledFrom([]int64{0, -1, math.MaxInt64, cfg.List.Size * int64(len(cfg.Offsets))}),
	).Draw(t, "size")
	op := bank.BanksOp{Kind: bank.OpAllocateBuffer, Size: size, PageSize: page, Dir: drawDir(t)}
	if rapid.Bool().Draw(t, "sharded") {
		op.Kind = bank.OpAllocateSharded
		n := len(cfg.Offsets)
		op.Banks = rapid.SliceOfNDistinct(rapid.IntRange(0, n-1), 1, n, rapid.ID[int]).Draw(t, "shards")
		if draw.Rarely(t, 6, "badShards") {
			op.Banks = rapid.SampledFrom([][]int{nil, {0, 0}, {n}, {-1}}).Draw(t, "bad")
		}
	}
	return op
}

// drawBuffer draws the address of a live buffer, or a stray address.
func drawBuffer(t *rapid.T, cfg bank.BanksConfig, live []bank.Buffer) bank.Addr {
	if len(live) == 0 || draw.Rarely(t, 5, "stray") {
		return cfg.List.Offset + bank.Addr(rapid.Int64Range(0, cfg.List.Size).Draw(t, "addr"))
	}
	return rapid.SampledFrom(live).Draw(t, "buffer").Addr
}

// drawPage draws a page index of buf: inside, or one step outside either end.
func drawPage(t *rapid.T, buf bank.Buffer) int64 {
	return rapid.Int64Range(-1, buf.Pages()).Draw(t, "page")
}

// drawBurst draws how many calls a burst makes, at most most (and no more
// than there is room for): all of them seven times in eight, as fragmenting
// needs, but a shrunk counterexample keeps only as many as it needs. rapid's
// integers favour small values, so the length is drawn bit by bit instead,
// uniform in [0, 8 × most); each bit shrinks to 0, highest first, which
// walks the length down toward the shortest burst that still fails.
func drawBurst(t *rapid.T, most int) int {
	n := rapid.Custom(func(t *rapid.T) int {
		n := 0
		for range bits.Len(uint(8*most - 1)) {
			n <<= 1
			if rapid.Bool().Draw(t, "bit") {
				n |= 1
			}
		}
		return n
	}).Draw(t, "burst")
	return min(n, most)
}

// repeatLong runs rapid's state machine over actions for about three times
// rapid's default number of steps (-rapid.steps): small ranges fill, fragment
// and empty again within one sequence.
func repeatLong(rt *rapid.T, actions map[string]func(*rapid.T)) {
	for range 3 {
		rt.Repeat(actions)
	}
}
