// Package sizeclass holds the optimised implementations of the sizeclass
// contracts (package model/sizeclass, imported as spec).
//
// Pools (spec.Pool):
//
//   - Mutex is the seed's design and the baseline: one lock around a map of
//     blocks, a LIFO slice per class and a slice of large blocks; device
//     calls happen under the lock.
//   - Sharded puts per-shard caches (a bounded LIFO per class) in front of
//     central per-class lists. A goroutine reaches its P's shard through a
//     sync.Pool of shard handles, so the shard lock is rarely contended; a
//     freed block returns to the shard whose Alloc took it. A full shard list
//     moves its older half to the central list. A miss looks in the central
//     list and then in every other shard before it asks the device, so the
//     pool holds no more device memory than the model. Blocks and shards are
//     padded to 128 bytes so that no two Ps write the same cache line.
//   - LockFree keeps each class's free blocks on a Treiber stack whose head
//     packs a slot index with a tag (no ABA), and tracks in-use with a
//     compare-and-swap on a per-block word (a racing double free is still
//     caught). Cached Alloc and Free are lock-free; see the type's doc for
//     the exact guarantee.
//
// Sharded and LockFree share core: a table from address to block whose reads
// take no lock (xsync.Map), per-block atomic state, and one mutex for the
// slow path — device calls, large blocks (first fit in insertion order, as
// the model), Trim and Close. Both check the cache once more under that
// mutex before a device call. Stats and Blocks walk the table and the caches;
// they are exact when no call is running. Hits are counted on each block by
// the goroutine that claimed it, so the fast path touches no shared counter.
//
// Companions:
//
//   - Deferred (spec.DeferredAllocator): the pinned-host allocator with a
//     queue that is safe for concurrent use; GC takes the whole queue under
//     a short lock and frees it outside, so a failed free is never repeated.
//   - Streams (spec.StreamAllocator): per-stream lists of freed blocks that
//     only their stream may reuse until Synchronize moves them to the shared
//     ready lists; one mutex.
//
// bugs.go plants the seeded bugs of the domain behind bugs.On seams; each
// names the property that kills it.
package sizeclass
