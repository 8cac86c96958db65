// Package sizeclasstest checks implementations of the sizeclass contracts —
// a size-class caching Pool, a DeferredAllocator and a StreamAllocator —
// against the reference models of package sizeclass, as testing/fstest
// checks an fs.FS. Each Check function takes a rapid.TB (a *testing.T
// works) and a factory that builds the implementation under test over a
// device the property supplies:
//
//	func TestMine(t *testing.T) {
//		sizeclasstest.CheckStateMachine(t, func(d sizeclass.Device, c sizeclass.Config) (sizeclass.Pool, error) {
//			return mine.New(d, c)
//		})
//	}
//
// Each Check function is named after the property it runs (the name
// `go run ./cmd/verify list` shows as sizeclass/<Property>). Where one
// property is checked for two interfaces, the second Check function carries
// its subject: CheckStreamsFreeRacingAlloc is FreeRacingAlloc for a
// StreamAllocator.
//
// # Sequential properties
//
// Each diffs the implementation against the model after every call and
// fails with the shrunk op trace.
//
//   - CheckStateMachine (PoolFactory): Alloc, Free, SetPinned, Trim, Stats
//     and Close, over drawn configurations and device capacities, with
//     device faults.
//   - CheckDeferredStateMachine (DeferredAllocatorFactory): Alloc, Free from
//     the owner and foreign contexts, GC, Pending and Close, with device
//     faults.
//   - CheckStreamOrdered (StreamAllocatorFactory): Alloc and Free on three
//     streams, Synchronize, Trim and Close; every block handed out must obey
//     the stream-ordering rule.
//
// # Concurrent properties
//
// Each runs goroutines against one implementation, then judges the answers
// and the state left behind.
//
//   - CheckConcurrent (PoolFactory): parallel plans of Alloc and Free, diffed
//     against the model run serially; cached blocks reusable afterwards.
//   - CheckExclusive (PoolFactory): no block is handed to two holders at once.
//   - CheckDoubleFreeRace (PoolFactory): of two racing Frees of one block,
//     exactly one succeeds.
//   - CheckLinearizable (PoolFactory): histories of Alloc and Free are
//     linearizable (porcupine).
//   - CheckCloseRace (PoolFactory): Close racing Alloc, Free, Trim and a
//     second Close: one Close wins, its leak report is exact.
//   - CheckPinnedTrimRace (PoolFactory): Trim racing pin-mode Allocs never
//     returns a frozen block.
//   - CheckFreeRacingAlloc (PoolFactory), CheckStreamsFreeRacingAlloc
//     (StreamAllocatorFactory): a Free racing the Alloc that first hands
//     its address out is ordered before or after it.
//   - CheckDeferredConcurrent (DeferredAllocatorFactory): frees from four
//     contexts racing GC; every failure reported once, nothing leaked.
//   - CheckScheduled (PoolFactory), CheckDeferredScheduled
//     (DeferredAllocatorFactory), CheckStreamScheduled
//     (StreamAllocatorFactory): interleavings chosen by package sched's
//     scheduler (instrumented code, -tags sched): histories linearizable,
//     every block freed on the device exactly once, and a pool's free
//     blocks each in exactly one of its caches.
//   - CheckStreamConcurrent (StreamAllocatorFactory): three streams in
//     parallel obey the stream-ordering rule in real time.
//
// PoolDiff is the differential runner of CheckStateMachine, for a fuzz
// target or a replay of a recorded op sequence; SmallPoolConfig is the
// three-class configuration most properties use.
//
// # What the generators draw
//
// Configurations: three small classes (1, 4 and 16 KiB over a device of a
// few dozen KiB, so that exhaustion, trimming and large blocks come within a
// short sequence), the seed's eleven classes, and, about one time in six,
// any shape Config.Validate accepts — alignments from 1 byte to 64 KiB,
// classes that are not powers of two, no class at all, a last class at the
// top of the range — so that a class lookup right only for powers of two
// fails. Requests: class sizes and their neighbours, small sizes, large
// ones, null, negative, and sizes whose rounding overflows. Frees: live
// blocks, freed ones (double frees), interior pointers, null and junk.
// Device mallocs and frees fail about one call in five.
//
// Every rare branch shrinks away: a fault, a Close, a drawn shape, a bad or
// huge size, a burst longer than one and a Trim in a racing plan sit at the
// far end of their draw, away from rapid's shrink target, so a
// counterexample keeps one only where the failure needs it, and the simplest
// choice — the first class, a live block, stream 0, the owner context — is
// what a draw shrinks to.
// shrink_test.go plants defects in thin layers over the model and bounds the
// length of the traces they shrink to.
//
// # Choices the contract leaves open
//
// Where an implementation may choose (which cached block of a class to hand
// out, which free large block), the properties ask the model for its
// candidates, check the implementation's pick is one of them, and make the
// model adopt it (Model.Candidates and AllocFrom). The simulated devices
// hand out addresses as a function of the malloc sequence, so both sides of
// a diff see the same addresses.
//
// # Failures and budgets
//
// A sequential failure prints the message, then the shrunk op trace, one
// numbered call a line with the implementation's answer, its last step the
// one that failed; rapid adds the seed that replays it. A concurrent failure
// prints the drawn plans and the answers: its timing is not replayed, so a
// seed that failed may pass on a rerun. Every property runs rapid's usual
// budget (-rapid.checks, 100 by default); the concurrent ones use a device
// of 1 TiB, which they never exhaust, and CheckLinearizable bounds each
// porcupine check to two seconds (an unknown verdict proves nothing and is
// skipped, not failed).
package sizeclasstest
