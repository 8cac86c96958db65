package goals

import (
	"slices"
	"testing"
)

// TestMetricGoals: the corpus goal reads the p99 each sample reports
// (p99-ns/pair, tidied to seconds), not the time per op; a run without the
// metric measures nothing of the goal and names the metric; and the
// near-equal goal names each of its three sizes.
func TestMetricGoals(t *testing.T) {
	const corpus = "p99 of the generated corpus"
	for _, c := range []struct {
		what    string
		line    string
		status  Status
		missing string
	}{
		{"p99 within the bound, the mean far above it", "BenchmarkOverlapCorpus/impl=Exact-2 2000 900 ns/op 150 p50-ns/pair 450 p99-ns/pair", Met, ""},
		{"p99 above the bound", "BenchmarkOverlapCorpus/impl=Exact-2 2000 300 ns/op 150 p50-ns/pair 650 p99-ns/pair", NotMet, ""},
		{"no p99 reported", "BenchmarkOverlapCorpus/impl=Exact-2 2000 300 ns/op", NotMeasured,
			"OverlapCorpus/impl=Exact p99-sec/pair (the run does not report it)"},
	} {
		v := verdict(t, Judge(parse(t, c.line)), corpus)
		if v.Status != c.status || (c.missing != "" && !slices.Contains(v.Missing, c.missing)) {
			t.Errorf("%s: status %q, missing %q; want %q, missing %q", c.what, v.Status, v.Missing, c.status, c.missing)
		}
	}
	v := verdict(t, Judge(parse(t, "BenchmarkOverlapNearEqual/n=256/impl=Exact-2 1000000 40 ns/op")), "near-equal-stride pairs")
	if v.Status != PartlyMeasured || !slices.Contains(v.Missing, "no benchmark matches OverlapNearEqual/n=4096") {
		t.Errorf("n=256 alone: %q, missing %q", v.Status, v.Missing)
	}
}
