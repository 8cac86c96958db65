package suites

import (
	impl "github.com/memverify/memverify/impl/sizeclass"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/props/sizeclasstest"
	"pgregory.net/rapid"
)

// sizeclassPools names every Pool: the model and each implementation, with
// the factories the sequential property uses (seq) and those the concurrent
// properties use (par, none for the model); each factory runs the whole
// property. The Sharded pool has small shard caches, so flushes to the
// central lists happen within short op sequences. Sequentially it runs
// twice: spreading calls over its shards under their mutexes, so that one
// goroutine steals from other shards too, and on its P's shard under the
// pin, the path that concurrent callers take. Concurrently it runs with four
// shards and with one, so that on a machine of two or more Ps a goroutine on
// a P without a shard takes the central lists, as Ps added after the pool
// was made do.
var sizeclassPools = []struct {
	name string
	seq  []sizeclasstest.PoolFactory
	par  []sizeclasstest.PoolFactory
}{
	{"Model", []sizeclasstest.PoolFactory{func(d spec.Device, c spec.Config) (spec.Pool, error) { return spec.NewModel(d, c) }}, nil},
	{"Mutex", []sizeclasstest.PoolFactory{newMutexPool}, []sizeclasstest.PoolFactory{newMutexPool}},
	{"Sharded", []sizeclasstest.PoolFactory{func(d spec.Device, c spec.Config) (spec.Pool, error) {
		return impl.NewSharded(d, c, impl.ShardedOptions{Shards: 4, Capacity: 2, Spread: true})
	}, newShardedPool}, []sizeclasstest.PoolFactory{newShardedPool, newOneShardPool}},
	{"LockFree", []sizeclasstest.PoolFactory{newLockFreePool}, []sizeclasstest.PoolFactory{newLockFreePool}},
}

func newOneShardPool(d spec.Device, c spec.Config) (spec.Pool, error) {
	return impl.NewSharded(d, c, impl.ShardedOptions{Shards: 1, Capacity: 2})
}

// eachPool runs check against every factory of fs in turn.
func eachPool(check func(rapid.TB, sizeclasstest.PoolFactory), fs []sizeclasstest.PoolFactory) func(rapid.TB) {
	return func(t rapid.TB) {
		for _, f := range fs {
			check(t, f)
		}
	}
}

func newShardedPool(d spec.Device, c spec.Config) (spec.Pool, error) {
	return impl.NewSharded(d, c, impl.ShardedOptions{Shards: 4, Capacity: 2})
}

func newMutexPool(d spec.Device, c spec.Config) (spec.Pool, error)    { return impl.NewMutex(d, c) }
func newLockFreePool(d spec.Device, c spec.Config) (spec.Pool, error) { return impl.NewLockFree(d, c) }

func init() {
	for _, p := range sizeclassPools {
		Add(Suite{Domain: "sizeclass", Property: "StateMachine", Impl: p.name,
			Run: func(t rapid.TB) {
				for _, f := range p.seq {
					sizeclasstest.CheckPool(t, f)
				}
			}})
		if len(p.par) == 0 {
			continue
		}
		Add(
			Suite{Domain: "sizeclass", Property: "Concurrent", Impl: p.name,
				Run: eachPool(sizeclasstest.CheckPoolConcurrent, p.par)},
			Suite{Domain: "sizeclass", Property: "Exclusive", Impl: p.name,
				Run: eachPool(sizeclasstest.CheckPoolExclusive, p.par)},
			Suite{Domain: "sizeclass", Property: "DoubleFreeRace", Impl: p.name,
				Run: eachPool(sizeclasstest.CheckPoolDoubleFreeRace, p.par)},
			Suite{Domain: "sizeclass", Property: "Linearizable", Impl: p.name,
				Run: eachPool(sizeclasstest.CheckPoolLinearizable, p.par)},
			Suite{Domain: "sizeclass", Property: "CloseRace", Impl: p.name,
				Run: eachPool(sizeclasstest.CheckPoolCloseRace, p.par)},
			Suite{Domain: "sizeclass", Property: "PinnedTrimRace", Impl: p.name,
				Run: eachPool(sizeclasstest.CheckPoolPinnedTrimRace, p.par)},
			Suite{Domain: "sizeclass", Property: "FreeRacingAlloc", Impl: p.name,
				Run: eachPool(sizeclasstest.CheckPoolFreeRacingAlloc, p.par)},
		)
	}
	deferred := []struct {
		name string
		make sizeclasstest.DeferredFactory
	}{
		{"Model", func(d spec.Device, o spec.Context) spec.DeferredAllocator { return spec.NewDeferredModel(d, o) }},
		{"Deferred", func(d spec.Device, o spec.Context) spec.DeferredAllocator { return impl.NewDeferred(d, o) }},
	}
	for _, p := range deferred {
		Add(Suite{Domain: "sizeclass", Property: "DeferredStateMachine", Impl: p.name,
			Run: func(t rapid.TB) { sizeclasstest.CheckDeferred(t, p.make) }})
	}
	Add(Suite{Domain: "sizeclass", Property: "DeferredConcurrent", Impl: "Deferred",
		Run: func(t rapid.TB) { sizeclasstest.CheckDeferredConcurrent(t, deferred[1].make) }})
	streams := []struct {
		name string
		make sizeclasstest.StreamFactory
	}{
		{"Model", func(d spec.Device, c spec.Config) (spec.StreamAllocator, error) { return spec.NewStreamModel(d, c) }},
		{"Streams", func(d spec.Device, c spec.Config) (spec.StreamAllocator, error) { return impl.NewStreams(d, c) }},
	}
	for _, p := range streams {
		Add(Suite{Domain: "sizeclass", Property: "StreamOrdered", Impl: p.name,
			Run: func(t rapid.TB) { sizeclasstest.CheckStreams(t, p.make) }})
	}
	Add(Suite{Domain: "sizeclass", Property: "StreamConcurrent", Impl: "Streams",
		Run: func(t rapid.TB) { sizeclasstest.CheckStreamsConcurrent(t, streams[1].make) }})
	Add(Suite{Domain: "sizeclass", Property: "FreeRacingAlloc", Impl: "Streams",
		Run: func(t rapid.TB) { sizeclasstest.CheckStreamsFreeRacingAlloc(t, streams[1].make) }})
}
