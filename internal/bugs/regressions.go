package bugs

import (
	"fmt"
	"sort"
)

// Seeded performance regressions measure the benchmark gate as seeded bugs
// measure the properties: each makes an implementation slower, or makes it
// allocate, behind a bugs.On seam like any seeded bug, and the gate must
// catch it. They keep a catalogue of their own, apart from the bugs:
// a slower implementation is a correct one, which no property can kill,
// and the seeded-bug campaign would count every one as a survivor. The
// seams are the same, so one mutant binary serves both, and MEMVERIFY_BUG
// names either kind.

// Regression describes one seeded performance regression.
type Regression struct {
	ID      ID
	Domain  string
	Impl    string // the implementation that carries it
	Summary string // one line: what the regression is
	// Kind says what it costs: extra instructions, an allocation, larger
	// allocations, a slower parallel path, one size of a sweep.
	Kind string
	// Tier is the gate's tier expected to catch it: "hard" for work the
	// counts see (instructions, allocations, bytes), "statistical" for
	// time that only a timing sees.
	Tier string
	// Benches are the benchmarks expected to show it, full names as go
	// test prints them at GOMAXPROCS=1.
	Benches []string
	// Spares are benchmarks that must not show it (the other sizes of a
	// sweep it spares): a gate that flags them is not precise.
	Spares []string
}

var regressions = map[ID]Regression{}

// RegisterRegression adds regressions to their catalogue. It panics on a
// duplicate or incomplete entry, or an ID the bug catalogue already has:
// registration happens in init functions, where either is a programming
// error.
func RegisterRegression(rs ...Regression) {
	mu.Lock()
	defer mu.Unlock()
	for _, r := range rs {
		if r.ID == "" || r.Domain == "" || r.Impl == "" || r.Summary == "" || r.Kind == "" || len(r.Benches) == 0 ||
			r.Tier != "hard" && r.Tier != "statistical" {
			panic(fmt.Sprintf("bugs: incomplete regression entry %+v", r))
		}
		if _, dup := regressions[r.ID]; dup {
			panic(fmt.Sprintf("bugs: regression %s registered twice", r.ID))
		}
		if _, dup := catalogue[r.ID]; dup {
			panic(fmt.Sprintf("bugs: %s is both a bug and a regression", r.ID))
		}
		regressions[r.ID] = r
	}
}

// Regressions returns every registered regression, sorted by domain, then
// ID.
func Regressions() []Regression {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Regression, 0, len(regressions))
	for _, r := range regressions {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Domain != out[j].Domain {
			return out[i].Domain < out[j].Domain
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// LookupRegression returns the catalogue entry of regression id.
func LookupRegression(id ID) (Regression, bool) {
	mu.Lock()
	defer mu.Unlock()
	r, ok := regressions[id]
	return r, ok
}
