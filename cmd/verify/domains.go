package main

import (
	"slices"
	"sort"

	"github.com/memverify/memverify/suites"
)

// domainView is one domain's part of a report, as its section shows it:
// the suites as a property × implementation grid, and the seeded bugs
// with the kill matrix, the bugs × the properties that ran against them.
type domainView struct {
	Name   string
	Props  []string // properties with a suite in the run, sorted
	Impls  []string // implementations with a suite in the run, the model first
	Suites map[suiteKey]SuiteResult
	Bugs   []MutantResult
	// Columns are the kill matrix's properties: those the campaign ran
	// against this domain's bugs.
	Columns []string
}

type suiteKey struct{ property, impl string }

// Kill matrix levels, the values of a cell.
const (
	cellNotRun = -1 // the property does not run against the bug's implementation
	cellMissed = 0  // it ran and did not fail
	cellKilled = 1  // it failed on the bug
	cellFirst  = 2  // it failed first: the kill
)

// cell is the kill matrix's cell for bug m and property p.
func (d domainView) cell(m MutantResult, p string) int {
	switch {
	case m.Killed && m.By == p:
		return cellFirst
	case slices.Contains(m.KilledBy, p):
		return cellKilled
	case len(suites.Select(m.Bug.Domain, p, m.Bug.Impl)) == 0:
		return cellNotRun
	}
	return cellMissed
}

// domainViews groups the report's results by domain, domains sorted.
func (r *Report) domainViews() []domainView {
	byName := map[string]*domainView{}
	get := func(name string) *domainView {
		if byName[name] == nil {
			byName[name] = &domainView{Name: name, Suites: map[suiteKey]SuiteResult{}}
		}
		return byName[name]
	}
	for _, s := range r.Suites {
		d := get(s.Domain)
		d.Suites[suiteKey{s.Property, s.Impl}] = s
		addSorted(&d.Props, s.Property)
		addSorted(&d.Impls, s.Impl)
	}
	if r.Campaign != nil {
		for _, m := range r.Campaign.Mutants {
			d := get(m.Bug.Domain)
			d.Bugs = append(d.Bugs, m)
			for _, s := range suites.Select(m.Bug.Domain, r.Run.Filters.Property, m.Bug.Impl) {
				addSorted(&d.Columns, s.Property)
			}
			for _, p := range m.KilledBy {
				addSorted(&d.Columns, p)
			}
		}
	}
	var out []domainView
	for _, d := range byName {
		sort.SliceStable(d.Impls, func(i, j int) bool { return d.Impls[i] == "Model" && d.Impls[j] != "Model" })
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func addSorted(list *[]string, v string) {
	if i, found := slices.BinarySearch(*list, v); !found {
		*list = slices.Insert(*list, i, v)
	}
}

// killTimes are the seconds to kill of the killed bugs among ms.
func killTimes(ms []MutantResult) (secs, checks []float64) {
	for _, m := range ms {
		if m.Killed {
			secs = append(secs, m.Duration.Seconds())
			checks = append(checks, float64(m.Checks))
		}
	}
	return secs, checks
}
