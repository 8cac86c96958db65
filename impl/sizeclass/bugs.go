package sizeclass

import "github.com/memverify/memverify/internal/bugs"

// Seeded bugs of the sizeclass domain. Each is a defect seen in the real
// allocators behind the seed (InfiniCore's PinnableBlockAllocator and its
// companions) or a classic of the data structure it lives in. The bugs that
// show only under a race have no widened window: their seams sit between
// schedule points (package sched), and the scheduled properties, which choose
// the interleaving, are expected to kill them.
const (
	BugRoundWraps         bugs.ID = "sizeclass/round-wraps"
	BugReuseNotFrozen     bugs.ID = "sizeclass/reuse-not-frozen"
	BugTrimInUse          bugs.ID = "sizeclass/trim-in-use"
	BugStaleListEntry     bugs.ID = "sizeclass/stale-list-entry"
	BugOOMNoRetry         bugs.ID = "sizeclass/oom-no-retry"
	BugLargeTooSmall      bugs.ID = "sizeclass/large-too-small"
	BugFailedAllocCounted bugs.ID = "sizeclass/failed-alloc-counted"
	BugClaimByStore       bugs.ID = "sizeclass/claim-by-store"
	BugMallocBeforeSteal  bugs.ID = "sizeclass/malloc-before-steal"
	BugABAHead            bugs.ID = "sizeclass/aba-head"
	BugDoubleFreeRace     bugs.ID = "sizeclass/double-free-race"
	BugTrimStaleTable     bugs.ID = "sizeclass/trim-stale-table"
	BugPrivateByStore     bugs.ID = "sizeclass/private-by-store"
	BugStreamEarlyReuse   bugs.ID = "sizeclass/stream-early-reuse"
	BugDeferredRepeat     bugs.ID = "sizeclass/deferred-repeat"
	BugDeferredNoDrain    bugs.ID = "sizeclass/deferred-owner-no-drain"
	BugCloseUnclaimed     bugs.ID = "sizeclass/close-unclaimed"
	BugPopByStore         bugs.ID = "sizeclass/pop-by-store"
	BugTrimFrozenFirst    bugs.ID = "sizeclass/trim-frozen-first"
	BugFreeSecondLookup   bugs.ID = "sizeclass/free-second-lookup"
	BugClassByBitLength   bugs.ID = "sizeclass/class-by-bit-length"
	BugPushNextLate       bugs.ID = "sizeclass/push-next-late"
	BugStreamFreeSplit    bugs.ID = "sizeclass/stream-free-split"
	BugDrainLate          bugs.ID = "sizeclass/drain-late"
)

func init() {
	bugs.Register(
		bugs.Bug{ID: BugRoundWraps, Domain: "sizeclass", Impl: "Mutex", Killer: "StateMachine",
			Summary: "rounds with (n + 255) / 256 * 256, which wraps near the top of the range and serves a huge request from a small block (the seed's align_up)"},
		bugs.Bug{ID: BugReuseNotFrozen, Domain: "sizeclass", Impl: "Mutex", Killer: "StateMachine",
			Summary: "a class block reused while pin mode is on is not frozen, so Trim can return memory a captured graph still uses (the seed's source)"},
		bugs.Bug{ID: BugTrimInUse, Domain: "sizeclass", Impl: "Mutex", Killer: "StateMachine",
			Summary: "Trim frees every non-frozen large block without checking that it is free, returning memory still in use"},
		bugs.Bug{ID: BugStaleListEntry, Domain: "sizeclass", Impl: "Mutex", Killer: "StateMachine",
			Summary: "a reused class block is marked in use but left in its free list (the seed's mark_in_use_), and its next Free lists it again: Trim frees it while in use, or twice"},
		bugs.Bug{ID: BugOOMNoRetry, Domain: "sizeclass", Impl: "Mutex", Killer: "StateMachine",
			Summary: "device out of memory is returned at once, without trimming the cache and retrying"},
		bugs.Bug{ID: BugLargeTooSmall, Domain: "sizeclass", Impl: "Mutex", Killer: "StateMachine",
			Summary: "the large first-fit compares the block size with the request in alignment units, so a cached block that is too small serves a large request"},
		bugs.Bug{ID: BugFailedAllocCounted, Domain: "sizeclass", Impl: "Mutex", Killer: "StateMachine",
			Summary: "a miss is counted before the device malloc, so an Alloc that fails still changes Stats"},
		bugs.Bug{ID: BugClaimByStore, Domain: "sizeclass", Impl: "Sharded", Killer: "StateMachine",
			Summary: "a block popped from the P's own cache is taken with a store, as if that cache were the only place listing it; an entry left stale by Trim or a steal then hands out a released or in-use block"},
		bugs.Bug{ID: BugMallocBeforeSteal, Domain: "sizeclass", Impl: "Sharded", Killer: "StateMachine",
			Summary: "a miss in the local shard and the central list goes to the device without taking a cached block from another shard"},
		bugs.Bug{ID: BugABAHead, Domain: "sizeclass", Impl: "LockFree", Killer: "Scheduled",
			Summary: "the stack head is a bare index without a tag, so a pop that races a pop-pop-push installs a block that is in use (ABA)"},
		bugs.Bug{ID: BugDoubleFreeRace, Domain: "sizeclass", Impl: "LockFree", Killer: "Scheduled",
			Summary: "Free checks in-use with a load and clears it with a store, so two racing frees of one block both succeed"},
		bugs.Bug{ID: BugTrimStaleTable, Domain: "sizeclass", Impl: "LockFree", Killer: "StateMachine",
			Summary: "Trim frees a block without removing it from the block table, so a later free of that address is taken for a double free"},
		bugs.Bug{ID: BugPrivateByStore, Domain: "sizeclass", Impl: "LockFree", Killer: "StateMachine",
			Summary: "Alloc takes the block in its P's private slot with a store instead of a compare-and-swap, trusting the slot; a slot left stale by Trim or a steal hands out a released or in-use block"},
		bugs.Bug{ID: BugStreamEarlyReuse, Domain: "sizeclass", Impl: "Streams", Killer: "StreamOrdered",
			Summary: "a block freed on one stream is handed to another stream before the first is synchronised (no ordering fence, as in the seed's StreamOrderedAllocator)"},
		bugs.Bug{ID: BugDeferredRepeat, Domain: "sizeclass", Impl: "Deferred", Killer: "DeferredStateMachine",
			Summary: "GC frees the queue's front and pops it only on success, so a failed free stays queued and is repeated: a device double free (the seed's gc())"},
		bugs.Bug{ID: BugDeferredNoDrain, Domain: "sizeclass", Impl: "Deferred", Killer: "DeferredStateMachine",
			Summary: "an owner-side free does not drain the queue, so deferred frees wait for an explicit GC"},
		bugs.Bug{ID: BugCloseUnclaimed, Domain: "sizeclass", Impl: "Sharded", Killer: "Scheduled",
			Summary: "Close lists the blocks and returns them to the device without claiming them, and the calls that take the slow-path lock check closed only before it: a racing Alloc claims a block the device got back, a Close or Trim queued on the lock frees every block again"},
		bugs.Bug{ID: BugPopByStore, Domain: "sizeclass", Impl: "LockFree", Killer: "Scheduled",
			Summary: "a block popped off a stack is marked in use with a store, as if the pop made it the popper's alone; a Close between the pop and the store has released it, and the Alloc hands out memory the device got back"},
		bugs.Bug{ID: BugTrimFrozenFirst, Domain: "sizeclass", Impl: "Sharded", Killer: "Scheduled",
			Summary: "Trim reads a free block's frozen flag before claiming it for release: an Alloc in pin mode that claims and freezes it, and its Free, fit in between, and Trim returns a frozen block to the device"},
		bugs.Bug{ID: BugFreeSecondLookup, Domain: "sizeclass", Impl: "Sharded", Killer: "Scheduled",
			Summary: "a Free whose table lookup missed looks the address up again and, finding the block a racing Alloc has just published, answers nil without freeing it (Sharded and LockFree share the path)"},
		bugs.Bug{ID: BugClassByBitLength, Domain: "sizeclass", Impl: "Sharded", Killer: "StateMachine",
			Summary: "the fast class lookup takes the first class above the request's power-of-two bracket without checking that it fits, which holds only when every class is a power of two: with classes of 48 and 96 bytes a 60-byte request gets a 48-byte block (Sharded and LockFree share the lookup)"},
		bugs.Bug{ID: BugPushNextLate, Domain: "sizeclass", Impl: "LockFree", Killer: "Scheduled",
			Summary: "a push publishes the block as the stack's head, then links it to the old head: a pop in between follows the link the block had when it was last on a stack, to a block popped since, and the stack lists a block in use"},
		bugs.Bug{ID: BugStreamFreeSplit, Domain: "sizeclass", Impl: "Streams", Killer: "StreamScheduled",
			Summary: "Free checks that the block is in use under one acquisition of the lock and lists it free under another: two Frees of one block from two streams both succeed, and the block is later handed to two holders"},
		bugs.Bug{ID: BugDrainLate, Domain: "sizeclass", Impl: "Deferred", Killer: "DeferredScheduled",
			Summary: "a drain frees the queue it read under the lock, then empties the queue under the lock again: two drains at once free the same blocks on the device, and a foreign free queued during the frees is dropped, never made"},
	)
}
