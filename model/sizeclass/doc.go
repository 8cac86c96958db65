// Package sizeclass is the specification of a size-class caching pool over
// a device allocator: InfiniCore's PinnableBlockAllocator (the seed,
// size-class-allocators.md) and its two companions, the pinned-host
// allocator with deferred frees and the stream-ordered allocator.
//
// # The pool
//
// A Pool caches blocks of a Device. Alloc(n) rounds n up to the alignment
// (256 bytes by default) and serves it from the first class whose block
// size fits (by default the seed's 11 classes, 32 KiB to 256 MiB): the
// class's most recently freed block, else a new block of exactly the class
// size from the device. Above the largest class a request is served by the
// first cached large block, in insertion order, that is free and big enough,
// else by a new block of exactly the rounded size. Free returns a class block
// to its class cache; a large block stays in the large list. Nothing is
// given back to the device until Trim (every cached block that is not
// frozen) or Close (everything).
//
// Pin mode (SetPinned) supports graph capture: every block handed out while
// it is on becomes frozen, and a frozen block is never trimmed, so an
// address baked into a captured graph stays valid until Close. Frozen never
// reverts.
//
// Model is the reference: a map of blocks, one slice per class and one
// slice of large blocks. It is meant to be read against the seed in minutes.
// Candidates and AllocFrom expose the choice the contract leaves open, so a
// property can check an implementation's pick and adopt it.
//
// # Decisions the seed leaves open
//
//   - Sizes are int64. n < 0 is ErrInvalidSize; n == 0 returns null and takes
//     no block (the seed's later behaviour). Rounding is overflow-checked: a
//     request within an alignment of the top of the range is ErrInvalidSize,
//     never a small block (the seed's (n + 255) / 256 * 256 wraps: a seeded
//     bug).
//   - Config is validated (ErrInvalidConfig): the alignment a power of two,
//     classes strictly increasing positive multiples of it. The model takes
//     the first class that fits, exactly as the seed.
//   - Reuse order: LIFO in a class (the seed pops the back), first fit in
//     insertion order for large blocks, no splitting. These are the model's
//     own picks; an implementation may hand out any cached block of the
//     class, or any free large block big enough, and the properties check
//     only that. Whether an Alloc hits or misses is not a choice: a pool
//     must not go to the device while a block that may serve the request is
//     cached, so it never holds more device memory than the model.
//   - A reused block becomes frozen if pin mode is on, class and large blocks
//     alike (the seed's source freezes only new class blocks: a seeded bug).
//   - Device exhaustion: Device.Malloc signals it with an error matching
//     ErrOutOfMemory. The pool then trims and, if that released anything,
//     retries once; if the retry fails the Alloc returns ErrOutOfMemory.
//     Any other device error is passed through without a retry. A failed
//     Alloc changes nothing the caller owns and counts as neither hit nor
//     miss; the trim it ran stays.
//   - Device frees can fail. A block whose free failed is dropped all the
//     same (see Device: its fate is unknown, and freeing it again could be
//     a double free). Trim and Close report such failures joined and carry
//     on with the other blocks; Stats.FreeFailures counts them. An Alloc's
//     internal trim counts them but does not report them (the Alloc's own
//     outcome is what the caller needs).
//   - Free: null is a no-op; an address that is not the start of a block the
//     pool holds (interior pointers, addresses never handed out, blocks Trim
//     returned) is ErrUnknownPointer; a block that is not in use is
//     ErrDoubleFree. Both leave the state unchanged.
//   - Stats: Requested is the raw sizes of live allocations, InUse their
//     block sizes, Reserved the bytes held from the device, Cached their
//     difference; Hits and Misses count successful Allocs served from a
//     cache or from the device. Classes breaks blocks down per class and
//     for large blocks.
//   - Blocks (the dump) is part of the interface so properties can check
//     invariants of any implementation: a free block is in exactly one cache,
//     a block in use in none. A block listed twice would be handed out twice.
//   - Close frees every block, frozen and in use included, in address order,
//     and returns the blocks still in use (the leak report), sorted by
//     address. After Close every call is ErrClosed; Stats and Blocks answer
//     their zero value.
//   - Concurrency: implementations are safe for concurrent use, and Alloc and
//     Free are linearizable except that whether a racing Alloc hits or misses
//     is not promised (a Free that has not returned may not have reached the
//     cache yet). Stats and Blocks are exact when no call is running. The
//     model itself is sequential.
//
// # Deferred frees
//
// DeferredAllocator is the pinned-host allocator (DevicePinnedHostAllocator):
// blocks come straight from the device (no cache, no rounding, as in the
// seed); a Free from the owning Context releases the block at once and then
// drains the queue, a Free from any other context is queued until GC or the
// next owner-side Free. It is a separate interface, not a Pool option,
// because its unit is a context, not a size. Decisions: the queue is emptied
// before any of its frees run, so a failed free is reported once (in the
// error of the call that ran it) and never repeated (the seed pops after a
// successful free only: a seeded bug); a Free of a block already queued is
// ErrDoubleFree and of one never handed out (or already released) is
// ErrUnknownPointer; Close runs GC, and blocks still handed out stay the
// caller's. Implementations are safe for concurrent use (the seed's queue is
// not).
//
// # Stream-ordered reuse
//
// StreamAllocator is a caching allocator whose calls name a Stream: a block
// freed on stream s may be handed out again at once on s (later work on s is
// ordered after the free) and on another stream only after Synchronize(s).
// As with cudaFreeAsync, the caller orders earlier uses of a block on other
// streams before the free; the allocator tracks only the freeing stream.
// Sizes, classes, the trim-and-retry and the errors are the Pool's; there is
// no pin mode. Trim returns only blocks whose free is synchronised; Close
// waits for every stream and frees everything. StreamModel keeps one list of
// free blocks and hands out the most recently freed allowed one; an
// implementation may hand out any allowed block (Candidates).
//
// # Simulated device
//
// SimDevice implements Device with a capacity. It never reuses an address,
// so it recognises every double free; it records misuse (Violations) and
// what is still live (the leaks after Close), and it can be told to fail
// the next Malloc or Free (FailNextMalloc, FailNextFree). Two simulators
// given the same successful Malloc sequence hand out the same addresses,
// which lets a property compare a pool with the model address for address.
// A user plugs a real device (cgo around cudaMalloc, say) through the same
// Device interface.
//
// # Ops
//
// Op, StreamOp and DeferredOp are the calls as data, with Apply and a
// comparable Result (errors reduced to sentinel names by ErrName); a Fault
// is armed on the SimDevice before an op by whoever owns the device.
package sizeclass
