package refcount

import "github.com/memverify/memverify/internal/bugs"

// Seeded performance regressions of the refcount domain (internal/bugs'
// regression catalogue): each leaves every answer as it was and costs what
// the benchmark gate must catch.
const (
	// PerfHoldersOversized: LockFree's RegisterBuffer allocates four
	// times the room its holders need.
	PerfHoldersOversized bugs.ID = "refcount/perf-holders-oversized"
)

func init() {
	bugs.RegisterRegression(bugs.Regression{
		ID: PerfHoldersOversized, Domain: "refcount", Impl: "LockFree", Kind: "a larger allocation", Tier: "hard",
		Summary: "LockFree's RegisterBuffer sizes its holder list for four times the pointers listed: as many allocations, more bytes",
		Benches: []string{"BenchmarkRefcountBuffer/impl=LockFree"},
	})
}

// holdersRoom is the capacity of the holder list of a buffer with aliases
// listed pointers besides its own: one each, or PerfHoldersOversized's
// four.
func holdersRoom(aliases int) int {
	if bugs.On(PerfHoldersOversized) {
		return 4 * (aliases + 1)
	}
	return aliases + 1
}
