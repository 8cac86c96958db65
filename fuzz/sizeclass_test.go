package fuzz

import (
	"math"
	"testing"

	gofuzz "github.com/google/gofuzz"
	impl "github.com/memverify/memverify/impl/sizeclass"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/props/sizeclasstest"
)

// rawPool is the fuzzer's view of a pool run: a configuration, a device
// capacity and up to 48 ops.
type rawPool struct {
	Config, Capacity uint8
	Ops              []rawPoolOp
}

// rawPoolOp is the fuzzer's view of one Pool op. Addr indexes the
// addresses handed out so far, so frees hit live, freed and interior
// addresses instead of random ones.
type rawPoolOp struct {
	Kind, Size, Addr, Fault uint8
	Big                     uint16
}

var scPoolImpls = []struct {
	name string
	make sizeclasstest.PoolFactory
}{
	{"Mutex", func(d spec.Device, c spec.Config) (spec.Pool, error) { return impl.NewMutex(d, c) }},
	{"Sharded", func(d spec.Device, c spec.Config) (spec.Pool, error) {
		return impl.NewSharded(d, c, impl.ShardedOptions{Shards: 3, Capacity: 2, Spread: true})
	}},
	{"Sharded/pinned", func(d spec.Device, c spec.Config) (spec.Pool, error) {
		return impl.NewSharded(d, c, impl.ShardedOptions{Shards: 3, Capacity: 2})
	}},
	{"LockFree", func(d spec.Device, c spec.Config) (spec.Pool, error) { return impl.NewLockFree(d, c) }},
}

func decodePoolEnv(r rawPool) (spec.Config, int64) {
	if r.Config%4 == 0 {
		return spec.DefaultConfig(), (256 + 4*int64(r.Capacity)) << 20
	}
	return sizeclasstest.SmallPoolConfig(), (16 + int64(r.Capacity)%128) << 10
}

func decodePoolOp(r rawPoolOp, cfg spec.Config, seen []spec.Addr) spec.Op {
	classes := cfg.Classes
	top := classes[len(classes)-1]
	switch r.Kind % 10 {
	case 0, 1, 2, 3:
		op := spec.Op{Kind: spec.OpAlloc}
		switch k := r.Size % 16; {
		case k == 0:
			op.N = 0
		case k == 1:
			op.N = -1 - int64(r.Big)
		case k == 2:
			op.N = math.MaxInt64 - int64(r.Big%512)
		case k < 9:
			op.N = classes[int(r.Size>>4)%len(classes)] + int64(r.Big%3) - 1
		case k < 13:
			op.N = 1 + int64(r.Big)%top
		default:
			op.N = top + 1 + int64(r.Big)*cfg.Alignment
		}
		if r.Fault%8 == 0 {
			op.Fault = spec.MallocFails
		}
		return op
	case 4, 5, 6:
		op := spec.Op{Kind: spec.OpFree, P: spec.Addr(r.Addr)}
		if len(seen) > 0 {
			op.P = seen[int(r.Addr&0x7f)%len(seen)]
			if r.Addr&0x80 != 0 && r.Fault%4 == 0 {
				op.P += spec.Addr(cfg.Alignment) // an interior address
			}
		}
		return op
	case 7:
		return spec.Op{Kind: spec.OpSetPinned, On: r.Addr%2 == 1}
	case 8:
		op := spec.Op{Kind: spec.OpTrim}
		if r.Fault%4 == 0 {
			op.Fault = spec.FreeFails
		}
		return op
	default:
		return spec.Op{Kind: spec.OpStats}
	}
}

// FuzzPool runs a decoded configuration and op sequence against the model
// and each pool (Mutex, Sharded spreading its calls over three shards,
// LockFree), comparing results, Stats, blocks and device calls and checking
// the invariants after every op, then closes both.
func FuzzPool(f *testing.F) {
	f.Add([]byte("alloc, free, trim, alloc again"))
	f.Add([]byte{1, 3, 0, 3, 0, 1, 0, 0, 4, 0, 0, 1, 0, 0, 7, 0, 1, 0, 0, 0, 3, 0, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var raw rawPool
		gofuzz.NewFromGoFuzz(data).NilChance(0).NumElements(0, 48).Fuzz(&raw)
		cfg, capacity := decodePoolEnv(raw)
		for _, pl := range scPoolImpls {
			d, err := sizeclasstest.NewPoolDiff(pl.make, cfg, capacity)
			if err != nil {
				t.Fatalf("%s: %v", pl.name, err)
			}
			var seen []spec.Addr
			for _, r := range raw.Ops {
				res, err := d.Step(decodePoolOp(r, cfg, seen))
				if err != nil {
					t.Fatalf("%s: %v\n%s", pl.name, err, d.Trace())
				}
				if res.Addr != 0 {
					seen = append(seen, res.Addr)
				}
			}
			if _, err := d.Step(spec.Op{Kind: spec.OpClose}); err != nil {
				t.Fatalf("%s: %v\n%s", pl.name, err, d.Trace())
			}
		}
	})
}
