// Package banktest checks implementations of the bank allocator contracts,
// bank.FreeList and bank.Banks (model/bank), against the reference model, as
// testing/fstest checks an fs.FS. Each property is a Check function that
// takes a rapid.TB (a *testing.T will do) and a factory that builds the
// implementation under test for a configuration the property draws.
//
// # Free lists (FreeListFactory)
//
//	CheckFreeListStateMachine  first fit: every call's result, Blocks, Stats and State equal the model's
//	CheckFreeListBestFit       the same under the best-fit policy: the smallest fitting block, ties by address
//	CheckFreeListRoundTrip     State and Restore: a state restores into a fresh list; foreign states are refused
//	CheckFreeListErrors        every bad call returns its sentinel error and changes nothing
//
// # Banks, sequential (BanksFactory)
//
//	CheckBanksStateMachine  interleaved and sharded buffers: results, Buffers, Stats and Blocks equal the model's
//	CheckPageMapping        with no model: every page in a slot of its own block and bank, no byte shared
//	CheckIsolation          buffers filled with patterns in simulated banks: no call changes another buffer's bytes
//	CheckBanksErrors        every bad call returns its sentinel error and changes nothing
//
// # Banks, concurrent (BanksFactory; for implementations safe for concurrent use)
//
//	CheckLinearizable  short racy histories of three clients are linearizable under the model
//	CheckParallel      clients on buffers of their own in parallel never see each other's bytes
//	CheckScheduled     interleavings chosen by package sched's scheduler (-tags sched): histories linearizable
//
// FreeListInvariants and PageMappingInvariants check a free list or banks at
// rest, from what they report; FreeListDiff and BanksDiff run ops on the
// model and an implementation in lock step (the fuzz targets use them).
//
// A test of one's own implementation is one line a property:
//
//	func TestMyFreeList(t *testing.T) {
//		banktest.CheckFreeListStateMachine(t, func(c bank.Config) (bank.FreeList, error) {
//			return mylist.New(c)
//		})
//	}
//
// A factory may refuse a configuration with an error; the properties pass
// only valid configurations, so a refusal fails the property.
//
// # What the generators draw
//
// Ranges are small, a few dozen alignment units, so a sequence of calls fills
// a range, fragments it and runs out of memory within a few dozen steps.
// Alignments include 1 and values that are not powers of two (which rounding
// with a mask gets wrong); about one free-list range in six sits at the top
// of the address space, where an unchecked sum wraps. Sizes are small, up to the
// whole range, or boundaries (0, -1, the range, one past it, the largest
// int64); addresses are block starts, one alignment past them, anywhere in
// the range, or outside it; limits are none, inside the range, or past every
// address. A fragmenting burst fills the free space with the smallest blocks
// and frees every other one, so that many gaps of one size build trees of
// several levels under narrow nodes. Banks are one to five, at far-apart
// offsets, so that a page given the wrong bank's offset leaves its bank.
// A state machine runs about three times rapid's default number of steps
// (-rapid.steps).
//
// # Failures
//
// A failure prints what went wrong, then the op trace of the shrunk
// counterexample, one numbered call a line with the implementation's result;
// the last line is the call that went wrong:
//
//	Free(0x0) returned 0x0, the model ErrUnknownAddress
//	op trace (last step failed):
//	   1  Free(0x0)                                        -> 0x0
//
// rapid shrinks every draw toward its minimum, so each generator puts the
// simplest choice there (a range at the bottom of the address space, a live
// address, a valid direction, no limit, a short burst) and draws rare
// branches so that shrinking switches them off: a counterexample keeps a
// rare branch only where the failure needs it. rapid's report ends with the
// seed that replays the failure (-rapid.seed).
//
// # Budgets
//
// Every property runs rapid's checks (-rapid.checks, 100 by default). The
// linearizability check gives porcupine five seconds a history; a history it
// cannot decide in time is skipped, and rapid fails the run if too few
// histories prove anything. The concurrent properties are meant to run under
// -race too.
package banktest
