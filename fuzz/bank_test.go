package fuzz

import (
	"math"
	"testing"

	gofuzz "github.com/google/gofuzz"
	impl "github.com/memverify/memverify/impl/bank"
	spec "github.com/memverify/memverify/model/bank"
	"github.com/memverify/memverify/props/banktest"
)

// rawListConfig is the fuzzer's view of a free-list configuration: small
// integers mapped onto the same kind of configurations the properties draw.
type rawListConfig struct {
	Align, Units, OffsetUnits, Min, Policy uint8
}

// rawListOp is the fuzzer's view of one FreeList op. Addresses index the
// model's current blocks, so decoded ops hit live allocations and block
// boundaries instead of random addresses.
type rawListOp struct {
	Kind, Dir, Limit, Addr, Snapshot uint8
	Size                             uint16
	Avoid                            [][2]uint8
}

var bankAligns = []int64{1, 2, 8, 32, 3}

// decodeDir maps a byte onto a direction: one of the two, or for the top
// few bytes the byte itself, which is neither and must be refused.
func decodeDir(b uint8) spec.Direction {
	if b >= 250 {
		return spec.Direction(b)
	}
	return spec.Direction(b % 2)
}

func decodeListConfig(r rawListConfig, policy spec.Policy) spec.Config {
	align := bankAligns[int(r.Align)%len(bankAligns)]
	size := align * (1 + int64(r.Units%48))
	off := spec.Addr(align * int64(r.OffsetUnits%5))
	if r.OffsetUnits%16 == 15 {
		off = spec.Addr(spec.AlignDown(math.MaxUint64-uint64(size), uint64(align)))
	}
	return spec.Config{Offset: off, Size: size, Alignment: align, MinAllocation: int64(r.Min) % (3*align + 1), Policy: policy}
}

// decodeListOp maps r onto an op against the current state of m; snaps are
// states taken earlier, for Restore.
func decodeListOp(r rawListOp, cfg spec.Config, m *spec.Model, snaps []spec.State) spec.Op {
	op := spec.Op{Kind: spec.OpKind(r.Kind % 5), Dir: decodeDir(r.Dir)}
	switch r.Size % 16 {
	case 15:
		op.Size = []int64{0, -1, cfg.Size, cfg.Size + 1, math.MaxInt64}[int(r.Size>>4)%5]
	default:
		op.Size = 1 + int64(r.Size>>4)%(cfg.Size+cfg.Alignment)
	}
	switch r.Limit % 8 {
	case 0, 1, 2, 3:
	case 4:
		op.Limit = math.MaxUint64
	default:
		op.Limit = cfg.Offset + spec.Addr(int64(r.Limit)%(cfg.Size+1))
	}
	blocks := m.Blocks()
	op.Addr = blocks[int(r.Addr&0x7f)%len(blocks)].Addr
	if r.Addr&0x80 != 0 {
		op.Addr += spec.Addr(cfg.Alignment) // an interior address
	}
	for _, a := range r.Avoid[:min(len(r.Avoid), 3)] {
		s := cfg.Offset + spec.Addr(int64(a[0])%(cfg.Size+1))
		op.Avoid = append(op.Avoid, spec.Range{Start: s, End: s + min(spec.Addr(a[1]), cfg.End()-s)}) // no wrap at the top
	}
	if op.Kind == spec.OpRestore {
		op.State = snaps[int(r.Snapshot)%len(snaps)]
		if r.Snapshot&0x80 != 0 {
			op.State.MinAllocation++ // another configuration
		}
	}
	return op
}

// fuzzLayouts are the tree layouts each input runs under: the default, whose
// one or two leaves hold every block a decoded range has room for, and
// 4-entry nodes, which make the same blocks a tree of several levels, with
// 32- and 64-bit keys.
var fuzzLayouts = []impl.FreeListOptions{{}, {NodeWidth: impl.MinNodeWidth}, {NodeWidth: impl.MinNodeWidth, WideKeys: true}}

// FuzzFreeList runs a decoded configuration and op sequence against the
// model and FreeListOpt (first fit, then best fit; each under fuzzLayouts),
// comparing results, blocks, statistics and state after every op.

func FuzzFreeList(f *testing.F) {
	f.Add([]byte("allocate, free, coalesce"))
	f.Add([]byte{0, 20, 1, 3, 0, 0, 0, 0, 0, 0, 0x30, 0, 1, 0, 0, 0, 0, 0x50, 0, 3, 0, 0, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var raw struct {
			Config rawListConfig
			Ops    []rawListOp
		}
		gofuzz.NewFromGoFuzz(data).NilChance(0).NumElements(0, 32).Fuzz(&raw)
		for _, policy := range []spec.Policy{spec.FirstFit, spec.BestFit} {
			for _, layout := range fuzzLayouts {
				cfg := decodeListConfig(raw.Config, policy)
				d, err := banktest.NewFreeListDiff(cfg, func(c spec.Config) (spec.FreeList, error) { return impl.NewFreeListOptWith(c, layout) })
				if err != nil {
					t.Fatalf("%v %+v: %v", policy, layout, err)
				}
				snaps := []spec.State{d.Model.State()}
				for _, r := range raw.Ops {
					if err := d.Apply(decodeListOp(r, cfg, d.Model, snaps)); err != nil {
						t.Fatalf("%v %+v: %v", policy, layout, err)
					}
					snaps = append(snaps, d.Model.State())
				}
				if err := d.FreeAll(); err != nil {
					t.Fatalf("%v %+v: %v", policy, layout, err)
				}
			}
		}
	})
}

// rawBanksOp is the fuzzer's view of one Banks op; Buffer indexes the live
// buffers.
type rawBanksOp struct {
	Kind, Dir, Buffer, Page uint8
	Size, PageSize          uint16
	Shards                  []uint8
}

func decodeBanksConfig(r rawListConfig, nbanks, limit uint8) spec.BanksConfig {
	list := decodeListConfig(r, spec.Policy(r.Policy%2))
	list.Size = list.Alignment * (4 + int64(r.Units%61))
	if list.Offset > 1<<20 {
		list.Offset = 0 // banks add their offsets on top
	}
	n := 1 + int(nbanks%5)
	offs := make([]spec.Addr, n)
	for b := range offs {
		offs[b] = spec.Addr(b)<<20 + spec.Addr(int64(nbanks>>3)*list.Alignment)
	}
	cfg := spec.BanksConfig{Offsets: offs, List: list}
	if limit%4 == 0 {
		cfg.Limit = list.Offset + spec.Addr(int64(limit)%(list.Size+1))
	}
	return cfg
}

func decodeBanksOp(r rawBanksOp, cfg spec.BanksConfig, live []spec.Buffer) spec.BanksOp {
	n := len(cfg.Offsets)
	op := spec.BanksOp{Kind: spec.BanksOpKind(r.Kind % 4), Dir: decodeDir(r.Dir)}
	op.PageSize = int64(r.PageSize)%(3*cfg.List.Alignment+1) - int64(r.PageSize>>15) // 0 and -1 now and then
	op.Size = int64(r.Size)%(4*int64(n)*max(op.PageSize, 1)+1) - int64(r.Size>>15)
	for _, s := range r.Shards[:min(len(r.Shards), 6)] {
		op.Banks = append(op.Banks, int(s)%(n+1)) // n is an invalid bank
	}
	if len(live) > 0 && r.Buffer&0x80 == 0 {
		buf := live[int(r.Buffer)%len(live)]
		op.Addr = buf.Addr
		op.Page = int64(r.Page)%(buf.Pages()+2) - 1
	} else {
		op.Addr = cfg.List.Offset + spec.Addr(int64(r.Buffer)%(cfg.List.Size+1))
	}
	return op
}

// FuzzBanks runs a decoded configuration and op sequence against the model
// banks and Concurrent, comparing after every op, and checks the page
// mapping invariants of Concurrent along the way.
func FuzzBanks(f *testing.F) {
	f.Add([]byte("interleave three pages over two banks"))
	f.Add([]byte{2, 30, 0, 1, 0, 1, 4, 0, 0, 0, 0, 0x10, 0x01, 0x04, 0, 1, 2, 0, 0, 0, 0, 0, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		var raw struct {
			Config       rawListConfig
			Banks, Limit uint8
			Ops          []rawBanksOp
		}
		gofuzz.NewFromGoFuzz(data).NilChance(0).NumElements(0, 32).Fuzz(&raw)
		cfg := decodeBanksConfig(raw.Config, raw.Banks, raw.Limit)
		d, err := banktest.NewBanksDiff(cfg, func(c spec.BanksConfig) (spec.Banks, error) { return impl.NewConcurrent(c) })
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range raw.Ops {
			if err := d.Apply(decodeBanksOp(r, cfg, d.Model.Buffers())); err != nil {
				t.Fatal(err)
			}
			if err := banktest.PageMappingInvariants(d.Impl); err != nil {
				t.Fatal(d.Fail("%v", err))
			}
		}
	})
}
