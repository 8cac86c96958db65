package refcount

import "github.com/memverify/memverify/internal/bugs"

// The seeded bugs of this package. Each is a realistic defect planted behind
// `if bugs.On(id)`; without the `mutants` build tag the seams compile away.
// Several come from SCL-Core's registry and TensorLogic's runtime (see
// notes/real-systems.md §1.1–1.2). The bugs that show only under a race have
// no widened window: their seams sit between schedule points (the atomics and
// locks, package sched), and the property Scheduled, which chooses the
// interleaving, is expected to kill them.
const (
	// Sharded.
	BugAliasSet          bugs.ID = "refcount/alias-set"
	BugCheckThenSubtract bugs.ID = "refcount/check-then-subtract"
	BugDoubleFreeRace    bugs.ID = "refcount/double-free-race"
	BugIdentityShardHash bugs.ID = "refcount/identity-shard-hash"
	BugStatsOutOfStep    bugs.ID = "refcount/stats-out-of-step"
	BugRacyCounter       bugs.ID = "refcount/racy-counter"
	BugAliasOwnCount     bugs.ID = "refcount/alias-own-count"
	BugRetainAfterClose  bugs.ID = "refcount/retain-after-close"
	BugBufferNotAtomic   bugs.ID = "refcount/buffer-not-atomic"
	BugLateTotal         bugs.ID = "refcount/late-total"
	BugCloseCheckOnce    bugs.ID = "refcount/close-check-once"

	// LockFree.
	BugTombstoneReuse    bugs.ID = "refcount/tombstone-reuse"
	BugStoreNotCAS       bugs.ID = "refcount/store-not-cas"
	BugTombstoneOnDecref bugs.ID = "refcount/tombstone-on-decref"
	BugStaleHolderReuse  bugs.ID = "refcount/stale-holder-reuse"
	BugRefsTwoLoads      bugs.ID = "refcount/refs-two-loads"
	BugExitOldestFirst   bugs.ID = "refcount/exit-oldest-first"
	BugResizeDropsAlias  bugs.ID = "refcount/resize-drops-alias"
	BugBytesWrap         bugs.ID = "refcount/bytes-wrap"
	BugShareTreeShallow  bugs.ID = "refcount/share-tree-shallow"
	BugRebuildDropsKey   bugs.ID = "refcount/rebuild-drops-key"
	BugReviveSameGen     bugs.ID = "refcount/revive-same-gen"

	// Both (the leak report's order is shared code; declared under Sharded).
	BugOwnedBeforeBuffer bugs.ID = "refcount/owned-before-buffer"
)

func init() {
	bugs.Register(
		bugs.Bug{ID: BugAliasSet, Domain: "refcount", Impl: "Sharded", Killer: "StateMachine",
			Summary: "aliases kept in a set: a pointer listed twice is counted twice but stored with one share, so the buffer never reaches zero and leaks (SCL-Core)"},
		bugs.Bug{ID: BugCheckThenSubtract, Domain: "refcount", Impl: "Sharded", Killer: "Scheduled",
			Summary: "a buffer reference is dropped as load, then store of load-1: concurrent last releases lose a decrement and the buffer is never freed"},
		bugs.Bug{ID: BugDoubleFreeRace, Domain: "refcount", Impl: "Sharded", Killer: "Scheduled",
			Summary: "the drop decrements, then re-reads the count to decide on the free: two racing last releases both see zero and free twice"},
		bugs.Bug{ID: BugIdentityShardHash, Domain: "refcount", Impl: "Sharded", Killer: "ShardSpread",
			Summary: "the shard is the pointer modulo the shard count (std::hash<void*> is the identity): every 16-byte-aligned pointer lands in shard 0 of 16"},
		bugs.Bug{ID: BugStatsOutOfStep, Domain: "refcount", Impl: "Sharded", Killer: "StateMachine",
			Summary: "Register bumps the pointer and byte counters before its duplicate check, so a refused registration still counts"},
		bugs.Bug{ID: BugRacyCounter, Domain: "refcount", Impl: "Sharded", Killer: "Scheduled",
			Summary: "the pointer count is one global counter updated after the shard lock is released, as load then store: parallel registrations lose updates"},
		bugs.Bug{ID: BugAliasOwnCount, Domain: "refcount", Impl: "Sharded", Killer: "StateMachine",
			Summary: "a holder whose own share reaches zero frees the buffer, instead of waiting for the buffer's whole count"},
		bugs.Bug{ID: BugRetainAfterClose, Domain: "refcount", Impl: "Sharded", Killer: "StateMachine",
			Summary: "Retain does not check that the registry is closed"},
		bugs.Bug{ID: BugBufferNotAtomic, Domain: "refcount", Impl: "Sharded", Killer: "Scheduled",
			Summary: "RegisterBuffer inserts holders one by one and stops at the first conflict, leaving the earlier holders registered (not all-or-nothing)"},
		bugs.Bug{ID: BugLateTotal, Domain: "refcount", Impl: "Sharded", Killer: "Scheduled",
			Summary: "Unregister drops the buffer's total after unlocking the shard: a holder is already gone while the total still counts it"},
		bugs.Bug{ID: BugCloseCheckOnce, Domain: "refcount", Impl: "Sharded", Killer: "Scheduled",
			Summary: "Register checks closed before taking its shard lock and not again under it: a whole Close that runs in between leaves the pointer registered in a closed registry, never reported, never freed"},
		bugs.Bug{ID: BugTombstoneReuse, Domain: "refcount", Impl: "LockFree", Killer: "StateMachine",
			Summary: "Register re-keys the first erased slot on its probe path without looking for the key further along the chain, creating a duplicate key (SCL-Core ConcurrentFlatMap::insert)"},
		bugs.Bug{ID: BugStoreNotCAS, Domain: "refcount", Impl: "LockFree", Killer: "Scheduled",
			Summary: "a buffer's new count state is published with a plain store instead of a compare-and-swap: racing releases overwrite each other and the buffer is never freed"},
		bugs.Bug{ID: BugTombstoneOnDecref, Domain: "refcount", Impl: "LockFree", Killer: "StateMachine",
			Summary: "a holder's slot is tombstoned on every release instead of when its share reaches zero: an alias listed twice stops being registered after one release"},
		bugs.Bug{ID: BugStaleHolderReuse, Domain: "refcount", Impl: "LockFree", Killer: "StateMachine",
			Summary: "Register takes over a buffer holder's slot without checking that the pointer's share is gone, registering a live alias a second time"},
		bugs.Bug{ID: BugRefsTwoLoads, Domain: "refcount", Impl: "LockFree", Killer: "Scheduled",
			Summary: "Refs checks the pointer's share and reads the buffer's total in two separate loads: it can report a count from a state in which the pointer no longer holds"},
		bugs.Bug{ID: BugExitOldestFirst, Domain: "refcount", Impl: "LockFree", Killer: "StateMachine",
			Summary: "Exit releases the scope's references oldest first instead of newest first, so frees happen in the wrong order"},
		bugs.Bug{ID: BugResizeDropsAlias, Domain: "refcount", Impl: "LockFree", Killer: "StateMachine",
			Summary: "a table rebuild copies owned pointers but only the real pointer of each buffer, dropping its aliases"},
		bugs.Bug{ID: BugBytesWrap, Domain: "refcount", Impl: "Sharded", Killer: "BytesSaturate",
			Summary: "the live bytes are summed in one 64-bit word: registrations may overlap, so huge ones wrap the sum and Stats reports a small figure"},
		bugs.Bug{ID: BugShareTreeShallow, Domain: "refcount", Impl: "LockFree", Killer: "StateMachine",
			Summary: "a copy-on-write buffer's share tree keeps one level of inner nodes (16×16 shares) whatever its size: holders past the 256th read a share of 0, and their changes overwrite other holders' shares"},
		bugs.Bug{ID: BugReviveSameGen, Domain: "refcount", Impl: "LockFree", Killer: "Scheduled",
			Summary: "reviving a dead slot keeps its generation: a release that read the slot before its pointer was released and registered again, with another size, meets the same state word, its CAS succeeds, and it frees the new registration with the old one's size (ABA on a slot)"},
		bugs.Bug{ID: BugRebuildDropsKey, Domain: "refcount", Impl: "LockFree", Killer: "StateMachine",
			Summary: "a rebuild copies each live key with the probe limit of a claim, and drops a key that finds no free slot within it: keys that collide in the hash lose their registrations"},
		bugs.Bug{ID: BugOwnedBeforeBuffer, Domain: "refcount", Impl: "Sharded", Killer: "StateMachine",
			Summary: "the leak report breaks a tie on the real pointer by buffer ID ascending, so an owned pointer registered anew at a buffer's address is listed and freed by Close before the buffer"},
	)
}
