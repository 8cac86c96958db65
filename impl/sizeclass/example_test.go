package sizeclass_test

import (
	"fmt"

	impl "github.com/memverify/memverify/impl/sizeclass"
	spec "github.com/memverify/memverify/model/sizeclass"
)

// A pool over a device: plug a real device allocator in place of the
// simulator through spec.Device.
func ExampleNewLockFree() {
	dev := spec.NewSimDevice(1 << 30)
	pool, err := impl.NewLockFree(dev, spec.DefaultConfig())
	if err != nil {
		panic(err)
	}
	p, _ := pool.Alloc(4000) // a 32 KiB block
	pool.Free(p)
	q, _ := pool.Alloc(30000) // the same block, from the cache
	fmt.Println(p == q, pool.Stats().Hits, pool.Stats().Misses)
	fmt.Println(pool.Free(q), pool.Free(q) != nil) // the second is a double free
	leaks, _ := pool.Close()
	fmt.Println(len(leaks), dev.Live())
	// Output:
	// true 1 1
	// <nil> true
	// 0 []
}

// Frees from a context that does not own the block wait in a queue until
// the owner frees something or GC runs.
func ExampleNewDeferred() {
	dev := spec.NewSimDevice(1 << 20)
	const owner, other spec.Context = 0, 1
	d := impl.NewDeferred(dev, owner)
	a, _ := d.Alloc(512)
	b, _ := d.Alloc(512)
	d.Free(other, a)
	fmt.Println(d.Pending(), len(dev.Live()))
	d.Free(owner, b) // frees b, then drains the queue
	fmt.Println(d.Pending(), len(dev.Live()))
	// Output:
	// 1 2
	// 0 0
}
