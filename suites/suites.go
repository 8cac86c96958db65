// Package suites is the table that wires every property to every
// implementation: which property of which domain runs against which
// implementation, and under which configurations.
//
// The suite packages under props/ export one Check function per property,
// parameterised by a factory so that a user can point it at their own
// implementation; they know nothing of impl/. This table is the one place
// that knows both, and it is written once for its two consumers: the tests
// here (`go test ./suites`, one subtest per suite, TestSuites/<domain>/
// <property>/impl=<name>) and cmd/verify, which runs the same suites
// in-process, under seeded bugs and in campaigns. Each domain adds its rows
// from a file of its own (refcount.go, sizeclass.go, bank.go, overlap.go,
// tensormap.go), in an init function; All, Select and Domains read them.
// Each suite has a budget in proportion to its cost (budgets.go), which both
// consumers apply with Suite.WithBudget. The scheduled suites run their
// implementations under package sched's scheduler in a build with -tags
// sched (scheduled.go; TestScheduledSuites runs them so under go test).
package suites

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"pgregory.net/rapid"
)

// Suite is one property run against one implementation.
type Suite struct {
	Domain   string // "refcount", "sizeclass", "bank", "overlap", "tensormap"
	Property string // e.g. "StateMachine", "Linearizable"
	Impl     string // e.g. "Model", "Sharded"
	// Run checks the property, failing t on a counterexample. It must end
	// (pass or fail) within seconds at the default rapid budget.
	Run func(t rapid.TB)
	// Checks is the suite's budget: the rapid checks it runs when
	// -rapid.checks is rapid's default of 100, and in proportion to it
	// otherwise (verify's 500 gives five times as many). 0 takes the
	// budget of the suite's property from budgets.go, chosen so that each
	// suite costs about as much as the others. Run it with WithBudget.
	Checks int
	// ShrinkTime, when set, bounds rapid's shrinking of a counterexample
	// (-rapid.shrinktime, 30 s by default) for this suite, unless the
	// command line sets it. A scheduled suite's run costs a few hundred
	// microseconds and rapid's shrinker tries thousands of cases, so the
	// scheduled suites bound it, to report a kill within about a second.
	ShrinkTime time.Duration
}

// Name is the suite's path: domain/property/impl=Name. It is also the subtest
// path under `go test ./suites -run TestSuites`.
func (s Suite) Name() string {
	return s.Domain + "/" + s.Property + "/impl=" + s.Impl
}

// GoTest is the command that runs this suite alone under go test.
func (s Suite) GoTest() string {
	return fmt.Sprintf("go test ./suites -run '^TestSuites$/^%s$/^%s$/^impl=%s$'", s.Domain, s.Property, s.Impl)
}

var (
	mu     sync.Mutex
	suites []Suite
	seen   = map[string]bool{}
)

// Add registers suites. It panics on a duplicate name: registration happens in
// init functions, where that is a programming error.
func Add(ss ...Suite) {
	mu.Lock()
	defer mu.Unlock()
	for _, s := range ss {
		if s.Domain == "" || s.Property == "" || s.Impl == "" || s.Run == nil {
			panic(fmt.Sprintf("suites: incomplete suite %q", s.Name()))
		}
		if seen[s.Name()] {
			panic("suites: suite registered twice: " + s.Name())
		}
		seen[s.Name()] = true
		if s.Checks == 0 {
			s.Checks = budgetOf(s.Domain, s.Property)
		}
		suites = append(suites, s)
	}
}

// All returns every suite, sorted by domain, property, then implementation.
func All() []Suite {
	mu.Lock()
	defer mu.Unlock()
	out := append([]Suite(nil), suites...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Domain != b.Domain {
			return a.Domain < b.Domain
		}
		if a.Property != b.Property {
			return a.Property < b.Property
		}
		return a.Impl < b.Impl
	})
	return out
}

// Select returns the suites whose domain, property and implementation match;
// an empty filter matches everything, and a filter may list alternatives
// separated by commas.
func Select(domain, property, impl string) []Suite {
	var out []Suite
	for _, s := range All() {
		if Matches(domain, s.Domain) && Matches(property, s.Property) && Matches(impl, s.Impl) {
			out = append(out, s)
		}
	}
	return out
}

// Matches reports whether v passes filter: an empty filter passes
// everything; otherwise filter lists alternatives separated by commas,
// compared without regard to case.
func Matches(filter, v string) bool {
	if filter == "" {
		return true
	}
	for _, f := range strings.Split(filter, ",") {
		if strings.EqualFold(strings.TrimSpace(f), v) {
			return true
		}
	}
	return false
}

// Domains returns the domains that have suites, sorted.
func Domains() []string {
	set := map[string]bool{}
	for _, s := range All() {
		set[s.Domain] = true
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}
