package suites

import (
	"flag"
	"strconv"
)

// The budgets of the suites. rapid's -rapid.checks is one number for every
// suite, but the suites' checks cost from microseconds (an overlap query
// of two small views) to tens of milliseconds (a scheduled run checked by
// porcupine), so at one number the cheap suites stop long before they have
// searched as hard as the dear ones: the overlap suites finished 100 checks
// in about a tenth of a second and missed bugs that 2,000 checks kill.
// A suite's Checks scales the number instead: each suite runs Checks
// checks when -rapid.checks is 100 (go test's default), Checks·n/100 under
// -rapid.checks=n.
//
// budgetChecks, by domain and property (or a whole domain, under "*"), is
// the Checks a suite gets when its row sets none. How it was chosen: every
// suite ran at its budget under go test (go test -count=1 -v ./suites, two
// cores shared with other jobs, a load of 7 to 10), and each property's
// cost per check was its slowest implementation's time over its checks;
// its budget is the 1, 2 or 5 times a power of ten nearest the checks that
// implementation runs in half a second, at least rapid's 100 (a suite never
// searches less than rapid's default) and at most 10000. A figure within
// a factor of two of a budget was taken as agreeing with it: on a shared
// host two runs differ by that much. Measured, in milliseconds a check:
// overlap 0.011 to 0.083 (10000 checks: 0.1 to 0.8 s), tensormap 0.7 to
// 0.85 (500), bank 0.08 (Parallel, 5000) to 1.5 (BanksStateMachine, 500)
// and 5.9 to 11.7 (the free-list state machines, 100), refcount 0.18
// (Linearizable, 2000) to 1.4 (LastReleaseRace, 500) and 4.9
// (StateMachine, 100), sizeclass 0.06 (StreamConcurrent) to 0.67
// (FreeRacingAlloc). Two bounds override the rule. sizeclass keeps the
// budgets below it (StreamConcurrent, StreamOrdered, Linearizable at 2000,
// PinnedTrimRace and DeferredConcurrent at 1000): verify's baseline runs
// every suite of a domain at five times its budget under three seeds in one
// child bounded to six minutes (cmd/verify's childTimeout), and
// sizeclass's took 3 min 32 s to 4 min 26 s (go run ./cmd/verify mutants
// -domain sizeclass; overlap's, at 10000 checks a suite, 2 min 33 s). The
// scheduled suites get what their seeded bugs need, checked under -tags
// sched, where a check costs 0.3 to 1 ms (sizeclass/Scheduled
// 1.9 s for 2000 checks on Sharded): 1000, and the pools' 2000. Their
// rarest interleavings, on the campaign's first seed at verify's five-fold
// budget: refcount/refs-two-loads 319 checks, bank/rebuild-publish-early
// 132, sizeclass/aba-head 1647 and sizeclass/trim-frozen-first 1616 (a Trim
// preempted between its read of a block's frozen flag and its claim, with
// an Alloc and a Free of the block in between).
var budgetChecks = map[string]int{
	"overlap/*":                      10000,
	"bank/BanksErrors":               10000,
	"bank/FreeListErrors":            10000,
	"bank/BanksStateMachine":         500,
	"bank/FreeListRoundTrip":         200,
	"bank/Isolation":                 500,
	"bank/Linearizable":              1000,
	"bank/PageMapping":               500,
	"bank/Parallel":                  5000,
	"refcount/DisjointParallel":      100,
	"refcount/LastReleaseRace":       500,
	"refcount/Linearizable":          2000,
	"refcount/ShardSpread":           1000,
	"sizeclass/CloseRace":            1000,
	"sizeclass/Concurrent":           1000,
	"sizeclass/DeferredConcurrent":   1000,
	"sizeclass/DeferredStateMachine": 5000,
	"sizeclass/DoubleFreeRace":       1000,
	"sizeclass/Exclusive":            2000,
	"sizeclass/FreeRacingAlloc":      1000,
	"sizeclass/Linearizable":         2000,
	"sizeclass/PinnedTrimRace":       1000,
	"sizeclass/StateMachine":         500,
	"sizeclass/StreamConcurrent":     2000,
	"sizeclass/StreamOrdered":        2000,
	"tensormap/StateMachine":         500,
	"tensormap/TooHardIsDependency":  500,
	"refcount/Scheduled":             1000,
	"sizeclass/Scheduled":            2000,
	"sizeclass/DeferredScheduled":    1000,
	"sizeclass/StreamScheduled":      1000,
	"bank/Scheduled":                 1000,
}

// defaultChecks is rapid's own default budget, which a Checks scales.
const defaultChecks = 100

// budgetOf is the budget of a suite of domain and property whose row sets
// none: its property's, else its domain's, else rapid's default.
func budgetOf(domain, property string) int {
	if n, ok := budgetChecks[domain+"/"+property]; ok {
		return n
	}
	if n, ok := budgetChecks[domain+"/*"]; ok {
		return n
	}
	return defaultChecks
}

// ChecksAt is the number of checks the suite runs under -rapid.checks=base:
// Checks·base/100, at least one.
func (s Suite) ChecksAt(base int) int {
	n := s.Checks
	if n <= 0 {
		n = defaultChecks
	}
	return max(1, n*base/defaultChecks)
}

// WithBudget runs fn with rapid's -rapid.checks set to the suite's budget
// at the present setting (ChecksAt), and -rapid.shrinktime to its
// ShrinkTime unless the command line set it, and puts both back after. It
// changes process-wide flags: suites run this way must run one at a time.
func (s Suite) WithBudget(fn func()) {
	if f := flag.Lookup("rapid.checks"); f != nil { // else rapid is not linked in: nothing to scale
		prev := f.Value.String()
		if base, err := strconv.Atoi(prev); err == nil {
			f.Value.Set(strconv.Itoa(s.ChecksAt(base)))
			defer f.Value.Set(prev)
		}
	}
	if f := flag.Lookup("rapid.shrinktime"); f != nil && s.ShrinkTime > 0 && !flagSet("rapid.shrinktime") {
		prev := f.Value.String()
		f.Value.Set(s.ShrinkTime.String())
		defer f.Value.Set(prev)
	}
	fn()
}

// flagSet reports whether the command line set the flag name.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
