package bank

import "github.com/memverify/memverify/internal/bugs"

// Seeded bugs of the bank domain. Each is a defect seen in, or one step from,
// tt-metal's FreeListOpt and BankManager (see the model's doc), planted behind
// a bugs.On seam; the properties named as killers must catch each one.
const (
	BugSeedAlignedSize           bugs.ID = "bank/seed-aligned-size"
	BugLimitAfterAlloc           bugs.ID = "bank/limit-after-alloc"
	BugOneSidedCoalesce          bugs.ID = "bank/one-sided-coalesce"
	BugTopDownOffByAlign         bugs.ID = "bank/topdown-off-by-align"
	BugStaleLargest              bugs.ID = "bank/stale-largest"
	BugRestoreIgnoresConfig      bugs.ID = "bank/restore-ignores-config"
	BugUnknownFreeAccepted       bugs.ID = "bank/unknown-free-accepted"
	BugBestFitClass              bugs.ID = "bank/best-fit-class"
	BugAvoidUnsorted             bugs.ID = "bank/avoid-unsorted"
	BugAllocateAtUnaligned       bugs.ID = "bank/allocate-at-unaligned"
	BugMinIgnored                bugs.ID = "bank/min-ignored"
	BugRestoreKeepsOld           bugs.ID = "bank/restore-keeps-old"
	BugStaleIndex                bugs.ID = "bank/stale-index"
	BugShardedAllBanks           bugs.ID = "bank/sharded-all-banks"
	BugPageStrideUnaligned       bugs.ID = "bank/page-stride-unaligned"
	BugShardOffset               bugs.ID = "bank/shard-offset"
	BugFreeRecordRace            bugs.ID = "bank/free-record-race"
	BugUnknownBufferFreeAccepted bugs.ID = "bank/unknown-buffer-free-accepted"
	BugPageUnchecked             bugs.ID = "bank/page-unchecked"
	BugAlignByMask               bugs.ID = "bank/align-by-mask"
	BugDirectionUnchecked        bugs.ID = "bank/direction-unchecked"
	BugLendStaleNeighbour        bugs.ID = "bank/lend-stale-neighbour"
	BugTieFromAnnotation         bugs.ID = "bank/tie-from-annotation"
	BugRebuildPublishEarly       bugs.ID = "bank/rebuild-publish-early"
)

func init() {
	const list, banks = "FreeListOpt", "Concurrent"
	bugs.Register(
		bugs.Bug{ID: BugSeedAlignedSize, Domain: "bank", Impl: banks, Killer: "PageMapping",
			Summary: "per-bank size is the seed's align_up(size / banks, page_size), which under-allocates"},
		bugs.Bug{ID: BugLimitAfterAlloc, Domain: "bank", Impl: list, Killer: "FreeListStateMachine",
			Summary: "address limit checked after allocating: the call fails and the block leaks"},
		bugs.Bug{ID: BugOneSidedCoalesce, Domain: "bank", Impl: list, Killer: "FreeListStateMachine",
			Summary: "free merges with the next block only, leaving adjacent free blocks"},
		bugs.Bug{ID: BugTopDownOffByAlign, Domain: "bank", Impl: list, Killer: "FreeListStateMachine",
			Summary: "top-down placement one alignment below the top of the block"},
		bugs.Bug{ID: BugStaleLargest, Domain: "bank", Impl: list, Killer: "FreeListStateMachine",
			Summary: "largest-free statistic cached, refreshed on free but not on allocation"},
		bugs.Bug{ID: BugRestoreIgnoresConfig, Domain: "bank", Impl: list, Killer: "FreeListRoundTrip",
			Summary: "restore applies a state taken from an allocator of another configuration"},
		bugs.Bug{ID: BugUnknownFreeAccepted, Domain: "bank", Impl: list, Killer: "FreeListStateMachine",
			Summary: "free of an unknown or already freed address silently succeeds"},
		bugs.Bug{ID: BugBestFitClass, Domain: "bank", Impl: list, Killer: "FreeListBestFit",
			Summary: "best fit is FreeListOpt's BEST: first size class with a fit, first block by address in it"},
		bugs.Bug{ID: BugAvoidUnsorted, Domain: "bank", Impl: list, Killer: "FreeListStateMachine",
			Summary: "avoided ranges assumed sorted and disjoint: overlapping ones open a window inside avoided memory"},
		bugs.Bug{ID: BugAllocateAtUnaligned, Domain: "bank", Impl: list, Killer: "FreeListStateMachine",
			Summary: "allocate-at-address accepts an unaligned address"},
		bugs.Bug{ID: BugMinIgnored, Domain: "bank", Impl: list, Killer: "FreeListStateMachine",
			Summary: "allocation size ignores the minimum allocation"},
		bugs.Bug{ID: BugRestoreKeepsOld, Domain: "bank", Impl: list, Killer: "FreeListRoundTrip",
			Summary: "restore replays the regions over the live allocations instead of replacing them"},
		bugs.Bug{ID: BugStaleIndex, Domain: "bank", Impl: list, Killer: "FreeListStateMachine",
			Summary: "free does not check that the block at the address is live: a second free counts its bytes twice"},
		bugs.Bug{ID: BugShardedAllBanks, Domain: "bank", Impl: banks, Killer: "Isolation",
			Summary: "sharded buffer sized over all banks instead of its shards: pages spill past its block"},
		bugs.Bug{ID: BugPageStrideUnaligned, Domain: "bank", Impl: banks, Killer: "BanksStateMachine",
			Summary: "page stride inside a bank is the page size, not the aligned page size"},
		bugs.Bug{ID: BugShardOffset, Domain: "bank", Impl: banks, Killer: "Isolation",
			Summary: "sharded page address adds the offset of bank i mod n instead of the shard's bank"},
		bugs.Bug{ID: BugFreeRecordRace, Domain: "bank", Impl: banks, Killer: "Scheduled",
			Summary: "buffer record deleted after the lock is released: it can erase a new buffer at the same address"},
		bugs.Bug{ID: BugUnknownBufferFreeAccepted, Domain: "bank", Impl: banks, Killer: "BanksErrors",
			Summary: "freeing an unknown buffer silently succeeds, as BankManager's deallocate_buffer does"},
		bugs.Bug{ID: BugPageUnchecked, Domain: "bank", Impl: banks, Killer: "BanksErrors",
			Summary: "page index not checked against the buffer: a page past the end maps into the next buffer"},
		bugs.Bug{ID: BugAlignByMask, Domain: "bank", Impl: list, Killer: "FreeListStateMachine",
			Summary: "sizes are rounded up with a mask, (n + a - 1) &^ (a - 1), which holds only for power-of-two alignments: with one of 48 a request is served short"},
		bugs.Bug{ID: BugDirectionUnchecked, Domain: "bank", Impl: list, Killer: "FreeListErrors",
			Summary: "a direction other than BottomUp and TopDown is served, as top-down by first fit and bottom-up by best fit"},
		bugs.Bug{ID: BugLendStaleNeighbour, Domain: "bank", Impl: list, Killer: "FreeListStateMachine",
			Summary: "a full leaf that lends entries to its left neighbour leaves the neighbour's slot in the parent as it was: its largest gap is stale, and first fit passes over a gap that fits or descends into one that does not (trees of several levels only: the suites build them with 4-entry nodes)"},
		bugs.Bug{ID: BugTieFromAnnotation, Domain: "bank", Impl: list, Killer: "FreeListBestFit",
			Summary: "the best-fit tree's slot for an inner child takes as its tie (the address of the child's smallest gap) the child's first annotation, the highest address under its first child: gaps of equal size are misrouted (trees of three levels and more only)"},
		bugs.Bug{ID: BugRebuildPublishEarly, Domain: "bank", Impl: banks, Killer: "Scheduled",
			Summary: "the index of buffer records, grown, publishes its new table before copying the records into it: a lock-free PageAddress in between does not find a live buffer"},
	)
}
