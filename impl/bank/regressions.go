package bank

import (
	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/bank"
)

// Seeded performance regressions of the bank domain (internal/bugs'
// regression catalogue): each leaves every answer as it was and costs what
// the benchmark gate must catch.
const (
	// PerfDeepRedescend: in a tree of four levels or more, Allocate
	// searches twice.
	PerfDeepRedescend bugs.ID = "bank/perf-deep-redescend"
)

func init() {
	bugs.RegisterRegression(bugs.Regression{
		ID: PerfDeepRedescend, Domain: "bank", Impl: "FreeListOpt", Kind: "a regression at one size of a sweep", Tier: "hard",
		Summary: "first-fit Allocate repeats its search when the tree has four levels or more (about 100k blocks): the 1k and 10k lists are untouched",
		Benches: []string{"BenchmarkBankFreeList/live=100k/dir=BottomUp/impl=FreeListOpt"},
		Spares: []string{
			"BenchmarkBankFreeList/live=1k/dir=BottomUp/impl=FreeListOpt",
			"BenchmarkBankFreeList/live=10k/dir=BottomUp/impl=FreeListOpt",
		},
	})
}

// deep reports whether the index's tree has four levels or more, where
// PerfDeepRedescend acts. The seam tests it before bugs.On (and after
// bugs.Enabled, so that normal builds compile it away), so that shallower
// lists run the same instructions with the regression on or off.
func (ix *index) deep() bool {
	if ix.wide {
		return ix.full.height >= 4
	}
	return ix.narrow.height >= 4
}

// redescend is PerfDeepRedescend's extra search: a second first-fit
// descent whose answer is the first's.
func (f *FreeListOpt) redescend(n uint64, dir spec.Direction, lo uint64) {
	var again cursor
	f.firstFit(&again, n, dir, lo, uint64(f.cfg.End()))
}
