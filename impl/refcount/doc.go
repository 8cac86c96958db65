// Package refcount holds the optimised implementations of the pointer registry
// specified by model/refcount: Sharded, the seed's design, and LockFree, an
// open-addressing table of atomic words. Both are safe for concurrent use and
// linearizable; the properties in props check them against the model.
//
// # Sharded
//
// Pointers are spread over a power-of-two number of shards (256 by default;
// DefaultShards says why not the seed's 16) by a mixing hash (MurmurHash3's
// finaliser), not by the address itself: allocators hand out 16-, 64- or
// 4096-byte-aligned pointers, and an identity hash would send them all to one
// shard (SCL-Core's std::hash<void*> does). Each shard is a
// mutex and an open-addressing table of entries, padded to two cache lines. An
// owned pointer's count lives in its entry. A shared buffer is one record with
// an atomic count (the sum of its holders' shares); each holder's share lives
// in its own shard's entry.
//
// Progress: IsRegistered is wait-free, save one case below; every other method
// locks. The table doubles as a read index: each slot's key and state word are
// atomics, written only under the shard lock, and IsRegistered probes them
// without locking (a bounded number of loads), then checks that the registry is
// not closed. The state's low bits say absent, owned, or holder of a buffer; a
// holder counts as present only once its buffer's visible flag is set, and
// RegisterBuffer sets that flag once, after writing every holder and before
// unlocking their shards, so lock-free readers see a buffer appear all at once.
// A holder dropping its last share is marked leaving from just before its add
// to the buffer's count until just after, under its shard lock; IsRegistered of
// that very pointer in that window takes the lock (and so waits for the drop),
// because the state and the count are two words and the drop is linearized at
// the add. The high bits of the state count its changes, so a reader that reads
// the state, then the key, can tell whether they belong together although slots
// are reused. Released keys stay as tombstones that the same or another pointer
// reuses, and sweeps empty the tombstones at the ends of probe runs, so a shard
// that churns through many distinct pointers keeps a small table that stays in
// cache, and steady-state Register and Unregister do not allocate; the table is
// rebuilt (and republished with one atomic store) only when its live pointers
// outgrow it. The readIndex type gives the full argument.
//
// Why this is linearizable although a buffer's holders live in different
// shards: a holder's share changes only under its shard's lock, and the
// buffer's count changes by one atomic add inside that same critical section.
// The add is the operation's linearization point. Anyone who observes the
// share holds the shard lock, so sees the share and the count from before or
// after the whole change; IsRegistered reads no share, only the holder's state,
// which a last drop marks leaving around the add (see above). Anyone who
// observes the count reads the atomic, so sees it move at the linearization
// point. While a holder's share is positive the count is at least that share,
// so Retain cannot revive a freed buffer, and
// of two holders dropping the last two references at the same instant exactly
// one add reaches zero: that goroutine frees, once, after unlocking and before
// its Unregister returns. RegisterBuffer locks the shards of all its holders in
// index order; Stats, Live and Close lock every shard in the same order.
//
// # LockFree
//
// One open-addressing table (linear probing) whose slots are atomic words;
// Register, Retain, Unregister, IsRegistered and Refs take no lock. See the
// LockFree type for the slot protocol, the progress guarantee (lock-free between
// rebuilds; a rebuild blocks writers; same-pointer Register races wait), the
// capacity and resize policy, and which methods take a mutex.
//
// # Scopes
//
// Both keep one scope stack behind its own mutex (scope calls are rare). Exit
// releases through Unregister, newest first; each release is linearizable on
// its own, and two Exits never interleave. Exit and Close hold the scope mutex
// while they call the Freer, so a Freer must not call the scope methods of the
// registry that is freeing (Register, Unregister and the queries are fine).
// Neither implementation holds a shard lock or the table mutex while it calls
// the Freer.
//
// # Seeded bugs
//
// bugs.go names the defects planted behind bugs.On seams (compiled away
// without the mutants build tag) and the property expected to kill each.
package refcount
