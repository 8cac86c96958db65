// Package bugs holds the seams through which seeded bugs are switched on, and the
// catalogue that names them.
//
// A seeded bug is a realistic defect planted in an implementation behind a guard:
//
//	if bugs.On(BugIdentityShardHash) {
//		return int(p) & (n - 1) // the defect
//	}
//
// Without the build tag `mutants`, On is a constant false: the compiler inlines it
// and drops the guarded branch, so release builds carry no trace of the bugs. With
// the tag, exactly one bug (or none) is active, chosen at run time by Activate or
// by the MEMVERIFY_BUG environment variable, so one mutant binary serves every bug.
//
// The catalogue exists in both builds: every package that plants bugs registers
// them in an init function, with the property expected to kill each. The suite's
// worth is measured by running every catalogued bug against the properties
// (`go run ./cmd/verify mutants`).
package bugs

import (
	"fmt"
	"sort"
	"sync"
)

// ID names one seeded bug. By convention it is "<domain>/<short-name>".
type ID string

// Bug describes one seeded bug.
type Bug struct {
	ID      ID     `json:"id"`
	Domain  string `json:"domain"`  // the domain whose properties must kill it, e.g. "refcount"
	Impl    string `json:"impl"`    // the implementation that carries it, as named in the suites
	Summary string `json:"summary"` // one line: what the defect is
	Killer  string `json:"killer"`  // the property expected to kill it
}

var (
	mu        sync.Mutex
	catalogue = map[ID]Bug{}
)

// Register adds bugs to the catalogue. It panics on a duplicate or empty ID:
// registration happens in init functions, where that is a programming error.
func Register(bs ...Bug) {
	mu.Lock()
	defer mu.Unlock()
	for _, b := range bs {
		if b.ID == "" || b.Domain == "" || b.Impl == "" || b.Killer == "" {
			panic(fmt.Sprintf("bugs: incomplete catalogue entry %+v", b))
		}
		if _, dup := catalogue[b.ID]; dup {
			panic(fmt.Sprintf("bugs: %s registered twice", b.ID))
		}
		catalogue[b.ID] = b
	}
}

// Catalogue returns every registered bug, sorted by domain, then ID.
func Catalogue() []Bug {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Bug, 0, len(catalogue))
	for _, b := range catalogue {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Domain != out[j].Domain {
			return out[i].Domain < out[j].Domain
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Lookup returns the catalogue entry for id.
func Lookup(id ID) (Bug, bool) {
	mu.Lock()
	defer mu.Unlock()
	b, ok := catalogue[id]
	return b, ok
}
