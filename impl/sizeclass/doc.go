// Package sizeclass holds the optimised implementations of the sizeclass
// contracts (package model/sizeclass, imported as spec).
//
// Pools (spec.Pool):
//
//   - Mutex is the seed's design and the baseline: one lock around a map of
//     blocks, a LIFO slice per class and a slice of large blocks; device
//     calls happen under the lock.
//   - Sharded puts a cache per P (a bounded LIFO per class) in front of
//     central per-class lists. The fast path pins the goroutine to its P
//     (procPin, as sync.Pool does) and pops or pushes that P's list with
//     plain loads and stores: no lock, no shared cache line. A list entry
//     is a hint: Alloc claims the popped block with a compare-and-swap of
//     its use word from free to in use, and Free releases it with one from
//     in use to free, so a cached pair costs two atomic read-modify-writes,
//     both on the block. Because claims decide, a miss can take a free
//     block that sits in another P's cache without touching that cache: it
//     scans the class's blocks (a lock-free index) and claims one, so the
//     pool never holds more device memory than the model. A full list moves
//     its older half (at most 16 blocks) to the central list after
//     unpinning.
//   - LockFree keeps each class's free blocks on Treiber stacks, one per P
//     and class, whose heads pack a slot index with a tag (no ABA), with a
//     few private slots per P and class in front (a small LIFO, claimed by
//     compare-and-swap like Sharded's entries). The P id is only a hint
//     for the stacks; a miss pops the other Ps' stacks, then claims a block
//     from another P's private slot, before the device. Cached Alloc and
//     Free are lock-free; see the type's doc for the exact guarantee.
//
// Sharded and LockFree share core: a table from address to block (open
// addressing over atomic pairs of key and pointer: Free's lookup takes no
// lock and writes nothing, and a Free whose one lookup misses answers
// ErrUnknownPointer, ordered before the Alloc that may publish the address
// meanwhile; blocks are added and dropped under the slow-path mutex),
// per-block atomic state, and that one mutex for device calls, large blocks
// (first fit in insertion order, as the model), Trim and Close. Both look
// in every cache once more under the mutex before a device call. Double
// frees are detected exactly, racing ones included: of two Frees of a
// block, one compare-and-swap wins. Fast-path hits are counted per P
// without atomics, so Stats and Blocks are exact only when no call is
// running.
//
// Layout: the per-P counts and lists a fast path writes belong to one P,
// and what every P reads (the pool's fields, the class sizes, the table's
// header and slots) is written only on the slow path; each sits on cache
// lines of its own, padded on both sides against the objects the allocator
// puts next to it (layout.go). Free's table lookup compares keys held in
// the table, never the blocks' own words, so on its way it reads no line
// that another P writes. Without the padding, two Ps' cached pairs cost
// about 10 or about 20 ns depending on where the table's header happened
// to be allocated.
//
// Per-P data and the race detector: while pinned, no other goroutine runs on
// the P, but the detector does not see the happens-before that the scheduler
// gives two goroutines pinned to one P in turn. So a -race build (race_on.go)
// guards Sharded's caches with a mutex per shard and turns LockFree's private
// slots off; the rest of the code is the same. Nothing that can block runs
// while pinned.
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
