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
// suite ran 1000 checks (go test -v ./suites -run '^TestSuites$'
// -rapid.checks=1000, two cores), and each property got the checks that
// its most expensive implementation runs in about a quarter of a second,
// rounded down to 1, 2 or 5 times a power of ten, at least rapid's 100 (a
// suite never searches less than before) and at most 10000. Measured: an
// overlap suite spends about 11 ms on 1000 checks, a bank or refcount
// state machine about 4 s, the concurrent properties 0.1 to 1.3 s. The
// scheduled suites get 1000, measured under -tags sched (a third to half
// a millisecond a check): the rarest interleaving among their seeded bugs
// took up to about 1400 checks, which verify's five-fold budget covers on
// its first seed.
var budgetChecks = map[string]int{}

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
