package gate

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// selected is what go test runs to completion (its result printed) for
// pattern among names: each level's regexp must match the name's element
// at that level, and a name shorter than the pattern is only probed.
func selected(t *testing.T, pattern string, names []string) []string {
	t.Helper()
	var res []*regexp.Regexp
	for _, l := range splitPattern(pattern) {
		res = append(res, regexp.MustCompile(l))
	}
	var out []string
	for _, n := range names {
		e := elements(n)
		if len(e) < len(res) {
			continue
		}
		ok := true
		for i, re := range res {
			ok = ok && re.MatchString(e[i])
		}
		if ok {
			out = append(out, n)
		}
	}
	return out
}

func TestSplitPatternKeepsBracketedSlashes(t *testing.T) {
	for in, want := range map[string][]string{
		"A/b":          {"A", "b"},
		"A/[/]x/(c/d)": {"A", "[/]x", "(c/d)"},
		`A\/b/c`:       {`A\/b`, "c"},
		"":             {""},
	} {
		if got := splitPattern(in); !slices.Equal(got, want) {
			t.Errorf("splitPattern(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestExactPatternsSelectTheirSetAndNothingElse: over a table of
// benchmarks with a slow model among fast implementations, every set of
// them is selected exactly by the patterns made for it.
func TestExactPatternsSelectTheirSetAndNothingElse(t *testing.T) {
	all := []string{
		"BenchmarkLarge/dense/impl=Model", "BenchmarkLarge/dense/impl=Exact", "BenchmarkLarge/dense/impl=BBox",
		"BenchmarkLarge/strided/impl=Model", "BenchmarkLarge/strided/impl=Exact", "BenchmarkLarge/strided/impl=BBox",
		"BenchmarkPair/impl=Model", "BenchmarkPair/impl=Exact",
		"BenchmarkPlain", "BenchmarkOdd/a.b+c/impl=(x)",
	}
	sets := [][]string{
		{"BenchmarkLarge/dense/impl=Exact", "BenchmarkLarge/strided/impl=Exact", "BenchmarkLarge/dense/impl=BBox", "BenchmarkLarge/strided/impl=BBox", "BenchmarkPair/impl=Exact"},
		{"BenchmarkLarge/dense/impl=Exact", "BenchmarkLarge/strided/impl=BBox"},
		{"BenchmarkPlain", "BenchmarkPair/impl=Model"},
		{"BenchmarkOdd/a.b+c/impl=(x)"},
		all,
	}
	for _, want := range sets {
		var got []string
		for _, p := range exactPatterns(want, all) {
			got = append(got, selected(t, p, all)...)
		}
		slices.Sort(got)
		w := slices.Clone(want)
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("patterns %q for %q select %q", exactPatterns(want, all), want, got)
		}
	}
	if p := exactPatterns([]string{"BenchmarkPair/impl=Exact"}, all); len(p) != 1 || p[0] != "^BenchmarkPair$/^impl=Exact$" {
		t.Errorf("one benchmark: %q", p)
	}
	if p := exactPatterns(sets[0], all); len(p) > 2 {
		t.Errorf("five fast benchmarks took %d patterns: %q", len(p), p)
	}
}

func TestCountsGiveEnoughWork(t *testing.T) {
	for _, ns := range []float64{0, 0.3, 5, 150, 2e3, 7e7} {
		n1, n2 := Counts(ns)
		if n1 < 1 || n2 <= n1 {
			t.Errorf("Counts(%g) = %d, %d", ns, n1, n2)
		}
		if work := float64(n2-n1) * max(ns*instrPerNs, 1); work < minWork && n2 < 1e8 {
			t.Errorf("Counts(%g) = %d, %d: %g instructions of difference", ns, n1, n2, work)
		}
		if s := strings.TrimRight(strconv.Itoa(n2)[1:], "0"); s != "" || !strings.ContainsAny(strconv.Itoa(n2)[:1], "125") {
			t.Errorf("Counts(%g): N₂ = %d is not 1, 2 or 5 times a power of ten", ns, n2)
		}
	}
}

func TestParallelBenchmarksFollowHelpersTablesAndMethods(t *testing.T) {
	got, err := ParallelBenchmarks("testdata/parallel")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"BenchmarkDirect": true, "BenchmarkHelper": true, "BenchmarkTable": true, "BenchmarkMethod": true,
		"BenchmarkSequential": false,
	} {
		if got[name] != want {
			t.Errorf("%s: parallel %v, want %v", name, got[name], want)
		}
	}
	if TopLevel("BenchmarkDirect/x") != "BenchmarkDirect" || TopLevel("BenchmarkA") != "BenchmarkA" {
		t.Error("TopLevel")
	}
}

// TestSettledStartsFromTheCountsTaken: a leaf whose count was taken again
// at a larger N₂ starts there in the next binary; the others keep theirs.
func TestSettledStartsFromTheCountsTaken(t *testing.T) {
	m := NewMeasurements()
	m.Instr["BenchmarkA"] = Instr{PerOp: 100, N1: 200, N2: 5040}
	leaves := Settled([]Leaf{{Name: "BenchmarkA", N1: 200, N2: 1000}, {Name: "BenchmarkB", N1: 2, N2: 10}}, m)
	if leaves[0].N1 != 200 || leaves[0].N2 != 5040 || leaves[1].N2 != 10 {
		t.Errorf("Settled: %+v", leaves)
	}
}
