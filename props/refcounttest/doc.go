// Package refcounttest checks implementations of the pointer registry
// contract, refcount.Registry (model/refcount), against the reference model,
// as testing/fstest checks an fs.FS. Each property is a Check function that
// takes a rapid.TB (a *testing.T will do) and a RegistryFactory, which builds
// the registry under test over the Freer the property passes in; it is named
// as the suite that runs it (refcount/<Property>/impl=<Impl>, see
// `go run ./cmd/verify list`).
//
// # Sequential (RegistryFactory)
//
//	CheckStateMachine   every call's result, its frees, Stats, Live, IsRegistered and Refs equal the model's
//	CheckBytesSaturate  Stats().Bytes saturates at math.MaxInt64 when huge, overlapping sizes sum past it
//
// # Concurrent (RegistryFactory; every Registry is safe for concurrent use)
//
//	CheckDisjointParallel  goroutines on address ranges of their own: results, snapshots and the end state match the model
//	CheckLinearizable      short racy histories of three goroutines are linearizable under the model
//	CheckLastReleaseRace   the last references of a buffer dropped at once free it exactly once
//	CheckScheduled         interleavings a scheduler chooses (package sched) are linearizable, frees included
//
// # Sharded registries (ShardMapper)
//
//	CheckShardSpread  pointers as allocators hand them out spread evenly over the shards
//
// RegistryDiff runs ops on the model and an implementation in lock step and
// compares everything after each (CheckStateMachine and the fuzz targets use
// it); PointerPool is the set of pointers the generated ops draw from.
//
// A test of one's own registry is one line a property:
//
//	func TestMine(t *testing.T) {
//		refcounttest.CheckStateMachine(t, func(f refcount.Freer) refcount.Registry {
//			return mine.New(f)
//		})
//	}
//
// CheckStateMachine takes, after the factory, pointers that the registry's
// hash sends to one place (one probe chain, one shard), if the caller can
// find some: it then registers and releases runs of them too, so that the
// place overflows, a state random pointers never reach.
//
// # What the generators draw
//
// Pointers come from a small pool: four buffer bases 0x1000 apart and
// pointers 0x10, 0x20 and 0x40 into each, plus null and one near the top of
// the address space; most ops name a pointer registered at the time, so that
// sequences reach deep states (buffers half released, scopes holding live
// references). Sizes are small and valid, or 0, -1, or one that runs past the
// top of the address space; kinds are valid or one past the last. Buffers
// have up to four aliases, inside, repeated, equal to the real pointer, null
// or outside. Now and then a step is a compound one: a burst of 64 to 160
// Retains of one pointer; a buffer of 10 to 70 holders, or of 257 to 300; a
// buffer of 8 to 10 holders one of whose counts overflows a field packed 60/n
// bits wide; a scoped call (Enter, register and Track values, Promote one,
// Exit); a buffer whose real pointer let go, registered anew at its address;
// a Close. These reach the paths where LockFree changes representation (packed
// counts, copy on write, a radix tree of shares) and where the leak report
// must order registrations that share a real pointer.
//
// The concurrent properties use addresses of their own: CheckDisjointParallel
// gives four goroutines a 64 KiB range each, at 4 GiB apart, and runs 1 to 40
// steps of registrations, buffers (some of 8 to 24 holders), retains (some in
// bursts of 64 to 128), releases and queries in each, while a fifth takes
// Stats and Live snapshots; CheckLinearizable races three goroutines of six
// calls on a buffer whose alias is listed twice and on an owned pointer;
// CheckLastReleaseRace races the releases of 2 to max(4, GOMAXPROCS)
// holders, or of 11 to 16, while two readers ask IsRegistered, twenty times a
// case.
//
// # Failures
//
// CheckStateMachine prints what went wrong, then the op trace of the shrunk
// counterexample, one numbered call a line with the implementation's result;
// the last line is the call that went wrong:
//
//	Refs(0x1000) = 10, the model 9
//	op trace (last step failed):
//	   1  RegisterBuffer(0x1000, 256, [0x1010 0x1020 0x1030 0x1040 0x1050 0x1060 0x1070], ArrayNew) -> ok id=1
//	   2  Retain(0x1000)                                   -> ok
//
// Compound steps compare the whole state after their last call only, and
// each call's result, frees and the count of the pointer it names as it
// returns, so a trace stops at the first call that miscounts.
// CheckDisjointParallel lists each goroutine's ops; CheckLinearizable lists
// the racing calls with their call and return times.
//
// rapid shrinks every draw toward its minimum, so each generator puts the
// simplest choice there (the pointer 0x1000, a size of 16, no aliases, one
// Retain, a compound step's first call alone) and draws rare branches so that
// shrinking switches them off: a counterexample keeps a burst, a buffer of
// hundreds of holders or a Close only where the failure needs it. rapid's
// report ends with the seed that replays the failure (-rapid.seed).
//
// # Budgets
//
// Every property but CheckBytesSaturate, a fixed sequence, runs rapid's
// checks (-rapid.checks, 100 by default); the state machine runs rapid's
// steps (-rapid.steps). The linearizability check gives porcupine five
// seconds a history; a history it cannot decide in time is skipped, and rapid
// fails the run if too few histories prove anything. The concurrent
// properties are meant to run under -race too.
package refcounttest
