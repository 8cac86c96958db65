package suites_test

import (
	"os"
	"testing"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/suites"
)

// TestSuites runs every property suite against every implementation, as
// TestSuites/<domain>/<property>/impl=<name>. Under MEMVERIFY_BUG (the
// repro of a seeded bug) it first checks the bug is one: a misspelt id, or a
// build without -tags mutants, activates nothing, and every suite would pass
// as if the bug had survived.
func TestSuites(t *testing.T) {
	if id := os.Getenv("MEMVERIFY_BUG"); id != "" {
		if !bugs.Enabled {
			t.Fatalf("MEMVERIFY_BUG=%s, but this build has no seeded bugs: add -tags mutants", id)
		}
		if _, ok := bugs.Lookup(bugs.ID(id)); !ok {
			t.Fatalf("MEMVERIFY_BUG=%s is not a seeded bug (go run ./cmd/verify list shows them)", id)
		}
	}
	suites := suites.All() // sorted by domain, property, impl: groups are contiguous
	if len(suites) == 0 {
		t.Fatal("no suites are registered in package suites")
	}
	for len(suites) > 0 {
		domain := suites[0].Domain
		n := 0
		for n < len(suites) && suites[n].Domain == domain {
			n++
		}
		group := suites[:n]
		suites = suites[n:]
		t.Run(domain, func(t *testing.T) {
			for len(group) > 0 {
				prop := group[0].Property
				m := 0
				for m < len(group) && group[m].Property == prop {
					m++
				}
				impls := group[:m]
				group = group[m:]
				t.Run(prop, func(t *testing.T) {
					for _, s := range impls {
						t.Run("impl="+s.Impl, func(t *testing.T) { s.WithBudget(func() { s.Run(t) }) })
					}
				})
			}
		})
	}
}
