// Package sched finds concurrency bugs by choosing interleavings instead of
// hoping for them, and replays the interleaving that fails.
//
// Code under test is instrumented with schedule points. Built normally, the
// points cost nothing: Point is an empty function the compiler removes,
// Yield is runtime.Gosched, Go is a go statement, and Mutex and RWMutex are
// sync.Mutex and sync.RWMutex themselves (type aliases). Built with the
// `sched` tag (go test -tags sched), they hand control to a scheduler: the
// goroutines of a test run one at a time, and at every point the scheduler
// chooses which runs next. Its choices are drawn through rapid, so a failing
// interleaving shrinks together with the test's operations and replays
// exactly from -rapid.seed; or it enumerates every schedule within a
// preemption bound. The design follows loom, Shuttle, Coyote and Lincheck's
// model checker: controlled points at shared-memory accesses and locks,
// randomised (PCT) and bounded exhaustive search, deterministic replay.
//
// # Instrumenting code
//
//	var head sched.Uint64      // in place of atomic.Uint64 (and Bool, Int32, Int64, Uint32, Uintptr, Pointer[T]):
//	h := head.Load()           // every operation on it is a point first, labelled "Load in pop"
//	sched.Point("read slot")   // before any other access to shared state another goroutine may change
//	var mu sched.Mutex         // in place of sync.Mutex (and sched.RWMutex for sync.RWMutex)
//	sched.Yield()              // in place of runtime.Gosched, in every spin-wait
//	sched.Go("worker", fn)     // in place of go fn(), for goroutines the code under test starts
//	p, ok := sched.ProcPin()   // under the tag, in place of the runtime's procPin (ok false: pin for real)
//
// Without the tag the types are sync/atomic's and sync's own (aliases), so
// instrumented code compiles to exactly what it compiled to before — with
// one condition: Go's compiler inlines sync/atomic's methods (and those
// RWMutex.RLock calls) only into a package that imports sync/atomic (and
// sync) itself, so a package whose every atomic is declared with this
// package's types should keep a blank import of them (import _
// "sync/atomic"); without it each Load is a call, a quarter of the time of
// a short fast path. memverify's docs/sched.md shows its implementations'
// benchmarks counted by callgrind before and after their instrumentation:
// the same instructions to within a fraction of a percent. A point names what the goroutine is about to do; the
// label appears in the timeline. A lock makes a point before it is taken
// and after it is released. A spin-wait that waits for another goroutine's
// progress must call Yield: under PCT the spinning goroutine may have the
// highest priority, and without Yield it spins until the step bound and
// the run fails as a livelock. A loop that retries a compare-and-swap needs
// nothing: its CAS fails only because another goroutine made progress.
//
// Code that picks per-P state (procPin) pins itself with ProcPin instead
// under the tag: the goroutine gets a virtual P of its run, chosen by its
// number, so a replay picks the same, and no other goroutine of that P
// enters pinned code until it unpins, which is what the real pin promises;
// it may reach points while pinned, which the real pin forbids. Per-P data
// is then exercised by goroutines sharing a P one after the other, and by
// goroutines of other Ps at every point.
//
// # Writing a test
//
// Run runs a body once under the scheduler; call it inside rapid.Check, with
// the operations drawn by rapid:
//
//	rapid.Check(t, func(t *rapid.T) {
//		ops := drawOps(t)
//		sched.Run(t, sched.Options{Strategy: sched.PCT(3, 0)}, func(s *sched.Scheduler) {
//			r := NewRegistry()            // fresh state for every run
//			for i, seq := range ops {
//				s.Go(fmt.Sprint("G", i), func() {
//					for _, op := range seq {
//						s.Call(op.String())       // the op's call in the timeline
//						res := op.Apply(r)
//						s.Return(fmt.Sprint(res)) // and its return
//					}
//				})
//			}
//			s.Wait()                          // every other goroutine has ended
//			if err := r.Check(); err != nil {
//				s.Fatalf("%v", err)           // fails the run, with its timeline
//			}
//		})
//	})
//
// Explore takes the same body and runs it under every schedule with at most
// Options.Preemptions preemptions (2 by default), depth-first from the
// schedule without any; it suits scenarios of two or three goroutines and a
// few operations, and needs no rapid.
//
// # Strategies
//
// RandomWalk preempts the running goroutine at a point with odds of one in
// four and picks among the others. PCT (Burckhardt et al., ASPLOS 2010)
// gives each goroutine a random priority, always runs the highest-priority
// goroutine that can run, and drops the running one below all others at
// depth−1 drawn decisions: a bug that needs d ordering constraints among n
// goroutines is found with probability at least 1/(n·k^(d−1)) per run, k
// being the decisions a run makes. Both shrink toward fewer preemptions, so
// the reported schedule keeps only the switches the failure needs. In both,
// Yield lets every other runnable goroutine go first, so a spin-wait cannot
// starve the goroutine it waits for.
//
// # Failures
//
// A run fails on Scheduler.Fatalf, on a panic or t.Fatal in any of its
// goroutines, and on what the scheduler detects itself:
//
//   - deadlock: no goroutine can run; the report says who waits for which
//     lock, held by whom;
//   - a lock never released: a goroutine waits for a lock whose holder has
//     ended (reported as a deadlock, naming the holder that ended);
//   - livelock: Options.MaxSteps scheduling steps passed without the run
//     ending (a spin-wait whose condition never comes true);
//   - stall: one goroutine ran for Options.Stall without reaching a point
//     (blocked on something the scheduler does not see, or looping without a
//     point).
//
// None of them hangs the test. The report is the message, then the run as a
// timeline — one column per goroutine, one row per step, so the rows of a
// column between two of its points are what it ran between them, with each
// operation's call and return, and '>' where a goroutine got control by
// preemption — then the command that replays it. Schedule is the same record
// as a value; two runs with the same draws have equal schedules.
//
// # What the scheduler can and cannot find
//
// It finds bugs that some interleaving of the instrumented steps exposes:
// lost updates (a read-modify-write across two points), check-then-act,
// ABA, order violations (a pointer published before what it points to is
// filled), a Close or a rebuild racing a call that checked too early,
// lock-order deadlocks, locks never released, spin-waits that never end.
// It finds them without widened windows and without luck with the Go
// scheduler, and replays them: a failing seed fails again, with the same
// schedule. In memverify every concurrency seeded bug dies this way on the
// campaign's first seed (go run ./cmd/verify mutants).
//
// What it finds, and how soon, depends on the test's scenarios as much as
// on the scheduler. A bug shows only if the test makes the calls that race
// (two releases of the last references, a free racing the alloc that
// publishes the address) and the scheduler switches goroutines at the one
// point that matters, which a random strategy does about once in a few
// dozen runs per change point it needs (PCT's 1/(n·k^(d−1))): a bug that
// needs one goroutine preempted at one point and another to run a whole
// call in that window typically takes tens to hundreds of rapid checks, one
// that needs two such switches a thousand or more, and Explore's bounded
// search finds both in one small scenario for certain, at the cost of every
// schedule. So draw scenarios from a few race shapes, keep them to two or
// three goroutines of a few calls, and give the search a budget of
// thousands of checks; a check costs a third of a millisecond or so.
//
// It explores sequentially consistent executions only. Go's memory model
// makes sync/atomic operations sequentially consistent and gives
// data-race-free programs sequentially consistent semantics, so for code
// whose shared accesses are atomics or under locks, the interleavings of its
// steps are all its behaviours, and weak-memory reorderings are out of
// scope by design (unlike loom, which models C11's weaker orderings). What
// that means for users: a plain read or write racing with another is a data
// race, whose effects (a torn value, a reordered store) no interleaving
// shows; run the race detector (go test -race, which works with and without
// the tag) to find those, and the scheduler to find the atomicity and
// ordering bugs of correctly synchronised code.
//
// Only points are preemption sites: code between two points runs atomically
// as far as the scheduler is concerned. A missing point hides interleavings
// (the scheduler misses bugs); it never invents one.
//
// It controls only what goes through this package. A goroutine started with
// a plain go statement is not scheduled: it runs freely alongside the run, its
// points do nothing and its locks are real, and what it does is not
// replayed. Channels, select, sync.WaitGroup, sync.Cond, sync.Mutex used
// directly, timers, sleeps and I/O are invisible too: a scheduled goroutine
// that blocks on one keeps the turn while it blocks, so nothing else in the
// run moves; if something outside the run unblocks it the run goes on,
// otherwise the run fails as a stall after Options.Stall (a cycle through
// such a wait is reported as a stall, not as a deadlock). Explore reports a
// scenario whose choices differ between two runs of the same schedule as
// nondeterministic. A goroutine blocked on a sched.Mutex held outside the
// scheduler retries with a short sleep between tries.
//
// The search is bounded: RandomWalk and PCT find a bug with some probability
// per run (rapid's check count is the budget), and Explore is exhaustive
// only within its preemption bound and Options.MaxSchedules. The scheduler is
// not fair (only Yield is), so starvation is not a bug it reports; liveness
// is checked only through the step bound.
//
// A step costs a microsecond or two under the tag (each point tells its
// goroutine by the runtime's g on amd64 and arm64, by walking the stack
// elsewhere, and walks a few frames for its label), and a switch between
// goroutines a few more, so scenarios should be small: a few goroutines, a
// few operations each. Points made while only one goroutine of a run is
// alive (a body setting up or checking, before it starts the others or
// after they end) choose nothing, cost one atomic load and a lock, and are
// not recorded: the timeline keeps their calls, returns and locks. Built
// with the tag but outside a run, a point costs one atomic load and the
// locks a little over sync's. Without the tag, Run runs the body once with
// its goroutines running freely (a stress run, checked and reported the
// same way) and Explore skips.
//
// A run that fails is unwound: each goroutine still parked ends where it
// is, running its deferred calls. A deferred Unlock of a lock the
// goroutine released before it was stopped (an Unlock, then a Lock again,
// under a defer) is skipped then, where sync would fail fatally.
//
// # Index
//
// Instrumentation: Point, Yield, Go, Mutex, RWMutex, Bool, Int32, Int64,
// Uint32, Uint64, Uintptr, Pointer, Goroutine, ProcPin, ProcUnpin, Enabled,
// Tag.
// Running: Run, Explore, Exploration, Options, NoPreemptions, Strategy,
// RandomWalk, PCT, DefaultPCTSteps. In a body: Scheduler.Go, Scheduler.Wait,
// Scheduler.Call, Scheduler.Return, Scheduler.Fatalf. Results: Schedule,
// Step, Kind (KindPoint ... KindFail), Schedule.Timeline,
// Schedule.Divergence.
package sched
