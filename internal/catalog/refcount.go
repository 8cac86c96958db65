package catalog

import (
	impl "github.com/memverify/memverify/impl/refcount"
	spec "github.com/memverify/memverify/model/refcount"
	"github.com/memverify/memverify/props"
	"pgregory.net/rapid"
)

func init() {
	impls := []struct {
		name string
		make props.RegistryFactory
	}{
		{"Model", func(f spec.Freer) spec.Registry { return spec.NewLocked(f) }},
		{"Sharded", func(f spec.Freer) spec.Registry { return impl.NewSharded(f) }},
		// The smallest table: the few pointers a property draws then share
		// probe chains and force rebuilds, the paths where open addressing
		// goes wrong. The contract holds at every capacity.
		{"LockFree", func(f spec.Freer) spec.Registry { return impl.NewLockFreeN(f, 8) }},
	}
	for _, im := range impls {
		if im.name != "Model" { // the model against itself proves nothing
			Add(Suite{Domain: "refcount", Property: "StateMachine", Impl: im.name,
				Run: func(t rapid.TB) { props.CheckRegistry(t, im.make) }})
		}
		Add(
			Suite{Domain: "refcount", Property: "DisjointParallel", Impl: im.name,
				Run: func(t rapid.TB) { props.CheckRegistryDisjointParallel(t, im.make) }},
			Suite{Domain: "refcount", Property: "Linearizable", Impl: im.name,
				Run: func(t rapid.TB) { props.CheckRegistryLinearizable(t, im.make) }},
			Suite{Domain: "refcount", Property: "LastReleaseRace", Impl: im.name,
				Run: func(t rapid.TB) { props.CheckRegistryLastRelease(t, im.make) }},
			Suite{Domain: "refcount", Property: "BytesSaturate", Impl: im.name,
				Run: func(t rapid.TB) { props.CheckRegistryBytesSaturate(t, im.make) }},
		)
	}
	Add(Suite{Domain: "refcount", Property: "ShardSpread", Impl: "Sharded",
		Run: func(t rapid.TB) {
			props.CheckShardSpread(t, impl.NewSharded(spec.FreerFunc(func(spec.Addr, int64, spec.Kind) {})))
		}})
}
