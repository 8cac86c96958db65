package suites

import (
	impl "github.com/memverify/memverify/impl/sizeclass"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/props/sizeclasstest"
	"github.com/memverify/memverify/sched"
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
					sizeclasstest.CheckStateMachine(t, f)
				}
			}})
		if len(p.par) == 0 {
			continue
		}
		Add(
			Suite{Domain: "sizeclass", Property: "Concurrent", Impl: p.name,
				Run: eachPool(sizeclasstest.CheckConcurrent, p.par)},
			Suite{Domain: "sizeclass", Property: "Exclusive", Impl: p.name,
				Run: eachPool(sizeclasstest.CheckExclusive, p.par)},
			Suite{Domain: "sizeclass", Property: "DoubleFreeRace", Impl: p.name,
				Run: eachPool(sizeclasstest.CheckDoubleFreeRace, p.par)},
			Suite{Domain: "sizeclass", Property: "Linearizable", Impl: p.name,
				Run: eachPool(sizeclasstest.CheckLinearizable, p.par)},
			Suite{Domain: "sizeclass", Property: "CloseRace", Impl: p.name,
				Run: eachPool(sizeclasstest.CheckCloseRace, p.par)},
			Suite{Domain: "sizeclass", Property: "PinnedTrimRace", Impl: p.name,
				Run: eachPool(sizeclasstest.CheckPinnedTrimRace, p.par)},
			Suite{Domain: "sizeclass", Property: "FreeRacingAlloc", Impl: p.name,
				Run: eachPool(sizeclasstest.CheckFreeRacingAlloc, p.par)},
		)
	}
	deferred := []struct {
		name string
		make sizeclasstest.DeferredAllocatorFactory
	}{
		{"Model", func(d spec.Device, o spec.Context) spec.DeferredAllocator { return spec.NewDeferredModel(d, o) }},
		{"Deferred", func(d spec.Device, o spec.Context) spec.DeferredAllocator { return impl.NewDeferred(d, o) }},
	}
	for _, p := range deferred {
		Add(Suite{Domain: "sizeclass", Property: "DeferredStateMachine", Impl: p.name,
			Run: func(t rapid.TB) { sizeclasstest.CheckDeferredStateMachine(t, p.make) }})
	}
	Add(Suite{Domain: "sizeclass", Property: "DeferredConcurrent", Impl: "Deferred",
		Run: func(t rapid.TB) { sizeclasstest.CheckDeferredConcurrent(t, deferred[1].make) }})
	streams := []struct {
		name string
		make sizeclasstest.StreamAllocatorFactory
	}{
		{"Model", func(d spec.Device, c spec.Config) (spec.StreamAllocator, error) { return spec.NewStreamModel(d, c) }},
		{"Streams", func(d spec.Device, c spec.Config) (spec.StreamAllocator, error) { return impl.NewStreams(d, c) }},
	}
	for _, p := range streams {
		Add(Suite{Domain: "sizeclass", Property: "StreamOrdered", Impl: p.name,
			Run: func(t rapid.TB) { sizeclasstest.CheckStreamOrdered(t, p.make) }})
	}
	Add(Suite{Domain: "sizeclass", Property: "StreamConcurrent", Impl: "Streams",
		Run: func(t rapid.TB) { sizeclasstest.CheckStreamConcurrent(t, streams[1].make) }})
	Add(Suite{Domain: "sizeclass", Property: "FreeRacingAlloc", Impl: "Streams",
		Run: func(t rapid.TB) { sizeclasstest.CheckStreamsFreeRacingAlloc(t, streams[1].make) }})
	addScheduledSizeclass()
}

// addScheduledSizeclass adds the suites that run under the scheduler
// (scheduled.go). Sharded runs with one shard of two blocks a class: under
// the scheduler its goroutines share two virtual Ps, so those of P 0 take
// the pinned fast path over one shard, which fills and flushes, and those
// of P 1, which has no shard, take the central lists and steal.
func addScheduledSizeclass() {
	pools := map[string]sizeclasstest.PoolFactory{
		"Mutex": newMutexPool,
		"Sharded": func(d spec.Device, c spec.Config) (spec.Pool, error) {
			return impl.NewSharded(d, c, impl.ShardedOptions{Shards: 1, Capacity: 2})
		},
		"LockFree": newLockFreePool,
	}
	for _, name := range []string{"Mutex", "Sharded", "LockFree"} {
		Add(scheduledSuite("sizeclass", "Scheduled", name, func(t rapid.TB, o sched.Options) {
			sizeclasstest.CheckScheduled(t, pools[name], o)
		}))
	}
	Add(scheduledSuite("sizeclass", "DeferredScheduled", "Deferred", func(t rapid.TB, o sched.Options) {
		sizeclasstest.CheckDeferredScheduled(t, func(d spec.Device, c spec.Context) spec.DeferredAllocator { return impl.NewDeferred(d, c) }, o)
	}))
	Add(scheduledSuite("sizeclass", "StreamScheduled", "Streams", func(t rapid.TB, o sched.Options) {
		sizeclasstest.CheckStreamScheduled(t, func(d spec.Device, c spec.Config) (spec.StreamAllocator, error) { return impl.NewStreams(d, c) }, o)
	}))
}
