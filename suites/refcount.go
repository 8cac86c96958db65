package suites

import (
	"sync"

	impl "github.com/memverify/memverify/impl/refcount"
	spec "github.com/memverify/memverify/model/refcount"
	"github.com/memverify/memverify/props/refcounttest"
	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

func init() {
	sharded := func(n int) refcounttest.RegistryFactory {
		return func(f spec.Freer) spec.Registry { return impl.NewShardedN(f, n) }
	}
	// Each implementation runs under the factories of its row: every
	// property under all, the parallel one also under par. Sharded runs at
	// its default shard count and with one shard: every pointer a property
	// draws then lands in that shard, whose read index fills up, hands one
	// key's tombstone to another, sweeps and is rebuilt around live entries,
	// paths that 256 shards spread too thin to reach. With more than 256
	// shards RegisterBuffer sorts the shards it locks instead of collecting
	// them in a bit set: 4096 shards run in the parallel property only, as
	// Stats and Live lock every shard and the state machine calls them after
	// every op. The contract holds at every shard count and capacity.
	impls := []struct {
		name     string
		all, par []refcounttest.RegistryFactory
	}{
		{"Model", []refcounttest.RegistryFactory{func(f spec.Freer) spec.Registry { return spec.NewLocked(f) }}, nil},
		{"Sharded", []refcounttest.RegistryFactory{func(f spec.Freer) spec.Registry { return impl.NewSharded(f) }, sharded(1)},
			[]refcounttest.RegistryFactory{sharded(4096)}},
		// The smallest table: the few pointers a property draws then share
		// probe chains and force rebuilds, the paths where open addressing
		// goes wrong.
		{"LockFree", []refcounttest.RegistryFactory{func(f spec.Freer) spec.Registry { return impl.NewLockFreeN(f, 8) }}, nil},
	}
	// The state machine also registers keys that collide in the hash both
	// implementations use: in their low 16 bits, so they share a home slot
	// in every LockFree table of up to 65536 slots (far more than the
	// property fills) and one shard of Sharded. Sixty-four of them make
	// probe runs past any probe limit the tables start with. Found once, on
	// first use (about four million hashes).
	colliding := sync.OnceValue(func() []spec.Addr { return impl.CollidingPointers(0x10_0000_0000, 16, 64, 16) })
	machine := func(t rapid.TB, f refcounttest.RegistryFactory) {
		refcounttest.CheckStateMachine(t, f, colliding()...)
	}
	each := func(check func(rapid.TB, refcounttest.RegistryFactory), fs ...[]refcounttest.RegistryFactory) func(rapid.TB) {
		return func(t rapid.TB) {
			for _, l := range fs {
				for _, f := range l {
					check(t, f)
				}
			}
		}
	}
	for _, im := range impls {
		if im.name != "Model" { // the model against itself proves nothing
			Add(Suite{Domain: "refcount", Property: "StateMachine", Impl: im.name, Run: each(machine, im.all)})
		}
		Add(
			Suite{Domain: "refcount", Property: "DisjointParallel", Impl: im.name, Run: each(refcounttest.CheckDisjointParallel, im.all, im.par)},
			Suite{Domain: "refcount", Property: "Linearizable", Impl: im.name, Run: each(refcounttest.CheckLinearizable, im.all)},
			Suite{Domain: "refcount", Property: "LastReleaseRace", Impl: im.name, Run: each(refcounttest.CheckLastReleaseRace, im.all)},
			Suite{Domain: "refcount", Property: "BytesSaturate", Impl: im.name, Run: each(refcounttest.CheckBytesSaturate, im.all)},
		)
	}

	// Under the scheduler (scheduled.go): Sharded with four shards, where
	// a case's pointers share some locks and not others (not its default
	// 256: Stats and Close lock every shard, each lock two schedule
	// points); LockFree at its smallest table, which a case's registrations
	// rebuild.
	scheduled := map[string][]refcounttest.RegistryFactory{
		"Sharded":  {sharded(4)},
		"LockFree": impls[2].all,
	}
	for _, name := range []string{"Sharded", "LockFree"} {
		Add(scheduledSuite("refcount", "Scheduled", name, func(t rapid.TB, o sched.Options) {
			for _, f := range scheduled[name] {
				refcounttest.CheckScheduled(t, f, o)
			}
		}))
	}

	Add(Suite{Domain: "refcount", Property: "ShardSpread", Impl: "Sharded",
		Run: func(t rapid.TB) {
			refcounttest.CheckShardSpread(t, impl.NewSharded(spec.FreerFunc(func(spec.Addr, int64, spec.Kind) {})))
		}})
}
