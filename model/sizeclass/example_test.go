package sizeclass_test

import (
	"fmt"

	sc "github.com/memverify/memverify/model/sizeclass"
)

// A pool caches device blocks by size class: a freed block is handed out
// again without a device call, and pin mode freezes blocks so Trim keeps
// them.
func Example() {
	dev := sc.NewSimDevice(1 << 30)
	pool, _ := sc.NewModel(dev, sc.DefaultConfig())

	a, _ := pool.Alloc(100 << 10) // 100 KiB: served by a 256 KiB block
	pool.Free(a)
	b, _ := pool.Alloc(200 << 10) // same class: the cached block again
	fmt.Println(a == b, dev.Stats().Mallocs)

	pool.SetPinned(true)
	c, _ := pool.Alloc(1 << 20) // frozen while capture runs
	pool.SetPinned(false)
	pool.Free(b)
	pool.Free(c)
	released, _ := pool.Trim() // returns b's block, keeps the frozen one
	fmt.Println(released, pool.Stats().Frozen)

	leaks, _ := pool.Close()
	fmt.Println(len(leaks), len(dev.Live()))
	// Output:
	// true 1
	// 262144 1
	// 0 0
}
