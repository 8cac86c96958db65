package suites

import (
	"flag"
	"fmt"
	"time"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

// The scheduled suites (property Scheduled, and DeferredScheduled and
// StreamScheduled in sizeclass) run their implementations under package
// sched's scheduler when the binary is built with -tags sched, and as
// free-running stress runs otherwise. go test ./... has no tags: so that
// they really run under the scheduler there too, TestScheduledSuites runs
// them in a child `go test -tags sched` (scheduled_test.go); cmd/verify's
// campaign builds with -tags mutants,sched.

// scheduledPCTSteps is PCT's estimate of the decisions one run of a
// scheduled suite makes (Schedule.Decisions), by suite: PCT draws its change
// points from that many decisions, so an estimate too large wastes them
// past a run's end, and one too small never reaches a late decision. The
// figures are the median over 300 runs of each (go test -tags sched), rounded: a
// lock around every call makes few decisions, a lock-free pool whose Trim
// and steals walk every slot of its table makes many.
var scheduledPCTSteps = map[string]int{
	"sizeclass/Scheduled/impl=Mutex":            15,
	"sizeclass/DeferredScheduled/impl=Deferred": 15,
	"sizeclass/StreamScheduled/impl=Streams":    15,
	"bank/Scheduled/impl=Concurrent":            25,
	"refcount/Scheduled/impl=LockFree":          30,
	"refcount/Scheduled/impl=Sharded":           50,
	"sizeclass/Scheduled/impl=Sharded":          70,
	"sizeclass/Scheduled/impl=LockFree":         50,
}

// scheduledShrinkTime bounds the shrinking of a scheduled suite's failure
// (Suite.ShrinkTime). A scheduled run costs a third of a millisecond or so,
// and rapid's shrinker tries thousands of cases: left to rapid's 30 s, a
// kill found in a tenth of a second took one to ten seconds to report.
// Half a second shrinks most failures to a few calls and one or two
// preemptions; a longer -rapid.shrinktime on the command line wins.
const scheduledShrinkTime = 500 * time.Millisecond

// scheduledSuite is the scheduled suite domain/property/impl=implName,
// which runs check under scheduledOptions, with its shrinking bounded. The
// check is kept in scheduledChecks too, for the tests that run it under
// options of their own.
func scheduledSuite(domain, property, implName string, check func(rapid.TB, sched.Options)) Suite {
	s := Suite{Domain: domain, Property: property, Impl: implName, ShrinkTime: scheduledShrinkTime,
		Run: func(t rapid.TB) { check(t, scheduledOptions(domain, property, implName)) }}
	scheduledChecks[s.Name()] = check
	return s
}

// scheduledChecks are the checks of the scheduled suites, by suite name.
var scheduledChecks = map[string]func(rapid.TB, sched.Options){}

// scheduledOptions are the options of the scheduled suite
// domain/property/impl=implName: PCT with two change points over the
// suite's decisions (scheduledPCTSteps: a bug that needs one goroutine
// preempted at one point then has a chance of about 2/steps a run) and,
// for a failure, a repro command that names the suite, the build tags it
// needs and the seed it ran under. Call it when the suite runs: the command
// reads the seeded bug and rapid's flags then.
func scheduledOptions(domain, property, implName string) sched.Options {
	s := Suite{Domain: domain, Property: property, Impl: implName}
	return sched.Options{Strategy: sched.PCT(3, scheduledPCTSteps[s.Name()]), Repro: scheduledRepro(s)}
}

// scheduledRepro is the go test command that replays a failure of scheduled
// suite s: with -tags sched (and mutants, with the seeded bug, under one),
// from the seed the suite ran under. rapid's own report names the failing
// check's seed too, which replays it on the first check.
func scheduledRepro(s Suite) string {
	cmd := s.GoTest() + " -tags " + sched.Tag
	if id := bugs.Active(); id != "" {
		cmd = fmt.Sprintf("MEMVERIFY_BUG=%s %s -tags mutants,%s", id, s.GoTest(), sched.Tag)
	}
	seed, checks := flagValue("rapid.seed"), flagValue("rapid.checks")
	if seed == "" || seed == "0" {
		return cmd + " -rapid.seed=<the seed in rapid's report> -rapid.nofailfile"
	}
	return cmd + " -rapid.seed=" + seed + " -rapid.checks=" + checks + " -rapid.nofailfile"
}

func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}
