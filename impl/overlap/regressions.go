package overlap

import (
	"sync/atomic"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/overlap"
)

// Seeded performance regressions of the overlap domain (internal/bugs'
// regression catalogue): each leaves the answers as they were and costs
// work that the benchmark gate must catch.
const (
	// PerfRemeasure: a second validation pass over the first view on the
	// careful path, a few percent of a dense pair.
	PerfRemeasure bugs.ID = "overlap/perf-remeasure"
)

func init() {
	bugs.RegisterRegression(bugs.Regression{
		ID: PerfRemeasure, Domain: "overlap", Impl: "Exact", Kind: "extra work on a hot path", Tier: "hard",
		Summary: "Exact walks the first view's dimensions a second time before deciding, as a redundant validation pass would (about 3% of a dense pair)",
		Benches: []string{"BenchmarkOverlapDense/impl=Exact"},
	})
}

// remeasureSink keeps remeasure's result live.
var remeasureSink atomic.Int64

// remeasure is PerfRemeasure's extra work: the first view's dimensions
// walked again, its extent summed and kept.
//
//go:noinline
func remeasure(a *spec.View) {
	var s int64
	n := min(len(a.Shape), len(a.Strides))
	for i := range n {
		s += a.Shape[i] * a.Strides[i]
	}
	remeasureSink.Store(s)
}
