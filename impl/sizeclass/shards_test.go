package sizeclass_test

import (
	"runtime"
	"testing"

	impl "github.com/memverify/memverify/impl/sizeclass"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/props/sizeclasstest"
)

// TestMorePsThanShards runs the concurrent properties on pools with fewer
// per-P caches than Ps (as after GOMAXPROCS grows): Sharded with one shard,
// whose other Ps go to the central lists, and LockFree made under
// GOMAXPROCS=1, whose other Ps share its one shard's stacks.
func TestMorePsThanShards(t *testing.T) {
	procs := max(runtime.GOMAXPROCS(0), 2)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	factories := map[string]sizeclasstest.PoolFactory{
		"Sharded": func(d spec.Device, c spec.Config) (spec.Pool, error) {
			return impl.NewSharded(d, c, impl.ShardedOptions{Shards: 1, Capacity: 2})
		},
		"LockFree": func(d spec.Device, c spec.Config) (spec.Pool, error) {
			prev := runtime.GOMAXPROCS(1)
			defer runtime.GOMAXPROCS(prev)
			return impl.NewLockFree(d, c)
		},
	}
	for name, f := range factories {
		t.Run(name, func(t *testing.T) {
			sizeclasstest.CheckConcurrent(t, f)
			sizeclasstest.CheckExclusive(t, f)
			sizeclasstest.CheckDoubleFreeRace(t, f)
		})
	}
}
