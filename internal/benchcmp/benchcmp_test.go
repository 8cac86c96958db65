package benchcmp

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/memverify/memverify/bench
BenchmarkPair/impl=Model-2     	 1000000	       100 ns/op	       0 B/op	       0 allocs/op
BenchmarkPair/impl=Model-2     	 1000000	       110 ns/op	       0 B/op	       0 allocs/op
BenchmarkPair/impl=Model-2     	 1000000	       105 ns/op	       0 B/op	       0 allocs/op
BenchmarkPair/impl=Model-2     	 1000000	       102 ns/op	       0 B/op	       0 allocs/op
BenchmarkPair/impl=Model-2     	 1000000	       108 ns/op	       0 B/op	       0 allocs/op
BenchmarkPair/impl=Fast-2      	 1000000	        25 ns/op	       0 B/op	       0 allocs/op
BenchmarkPair/impl=Fast-2      	 1000000	        26 ns/op	       0 B/op	       0 allocs/op
BenchmarkPair/impl=Fast-2      	 1000000	        24 ns/op	       0 B/op	       0 allocs/op
BenchmarkPair/impl=Fast-2      	 1000000	        27 ns/op	       0 B/op	       0 allocs/op
BenchmarkPair/impl=Fast-2      	 1000000	        25 ns/op	      16 B/op	       1 allocs/op
`

func TestParseGroupsByImplAndComparesToTheReference(t *testing.T) {
	rows, err := Parse(strings.NewReader(sample), "sample", "Model")
	if err != nil {
		t.Fatal(err)
	}
	var fast *Row
	for i := range rows {
		if rows[i].Impl == "Fast" && rows[i].Unit == "sec/op" {
			fast = &rows[i]
		}
		if rows[i].Group != "Pair" {
			t.Errorf("group %q, want Pair (impl key and GOMAXPROCS suffix stripped)", rows[i].Group)
		}
	}
	if fast == nil {
		t.Fatalf("no sec/op row for impl=Fast in %+v", rows)
	}
	if fast.N != 5 || math.Abs(fast.Median-25e-9) > 1e-12 {
		t.Errorf("Fast median %g over %d, want 25ns over 5", fast.Median, fast.N)
	}
	if math.Abs(fast.Speedup-105.0/25) > 1e-9 || fast.RefImpl != "Model" {
		t.Errorf("speedup %g vs %q, want 4.2 vs Model", fast.Speedup, fast.RefImpl)
	}
	if fast.P >= 0.05 {
		t.Errorf("p = %g: five disjoint samples must differ significantly", fast.P)
	}
	table := Format(rows)
	if !strings.Contains(table, "| Pair | Fast | 25.0ns") || !strings.Contains(table, "4.20×") {
		t.Errorf("table lacks the Fast row:\n%s", table)
	}
}

func TestSplitName(t *testing.T) {
	type split struct {
		group, impl string
		procs       int
	}
	for in, want := range map[string]split{
		"BenchmarkRegister/seq/impl=Sharded-2": {"Register/seq", "Sharded", 2},
		"BenchmarkOverlap/impl=Exact/rank=3":   {"Overlap/rank=3", "Exact", 0},
		"BenchmarkPlain":                       {"Plain", "", 0},
		"BenchmarkTrace/n=1000-16":             {"Trace/n=1000", "", 16},
	} {
		var got split
		got.group, got.impl, got.procs = splitName(in)
		if got != want {
			t.Errorf("splitName(%q) = %+v; want %+v", in, got, want)
		}
	}
}

// TestTooFewSamplesAreUnboundedNotInfinite: with five samples benchmath
// cannot bound a median at 95% and answers ±Inf, which encoding/json
// refuses; the row must say so instead, and marshal. Six are enough.
func TestTooFewSamplesAreUnboundedNotInfinite(t *testing.T) {
	six := sample + "BenchmarkPair/impl=Fast-2      	 1000000	        26 ns/op	       0 B/op	       0 allocs/op\n"
	for _, c := range []struct {
		text      string
		unbounded bool
	}{{sample, true}, {six, false}} {
		rows, err := Parse(strings.NewReader(c.text), "sample", "Model")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(rows); err != nil {
			t.Errorf("the rows do not marshal: %v", err)
		}
		for _, r := range rows {
			if r.Impl == "Fast" && r.Unit == "sec/op" && (r.Unbounded != c.unbounded || !c.unbounded && !(r.Lo <= r.Median && r.Median <= r.Hi)) {
				t.Errorf("%d samples: %+v, want unbounded %v", r.N, r, c.unbounded)
			}
		}
		if table := Format(rows); c.unbounded && !strings.Contains(table, "[5 samples: too few to bound]") {
			t.Errorf("the table does not say the interval is unbounded:\n%s", table)
		}
	}
}

// TestFormatShowsReportedMetrics: metrics a benchmark reports itself get a
// table of their own, times as durations and others as numbers.
func TestFormatShowsReportedMetrics(t *testing.T) {
	var lines string
	for _, s := range []string{"1.70", "1.72", "1.68", "1.71", "1.69", "1.70"} {
		lines += "BenchmarkSweep/impl=Fast-2 1000 300 ns/op@100k 180 ns/op@1k " + s + " x@100k/1k\n"
	}
	rows, err := Parse(strings.NewReader(lines), "sweep", "Model")
	if err != nil {
		t.Fatal(err)
	}
	table := Format(rows)
	for _, want := range []string{"| Sweep | Fast | x@100k/1k | 1.7 [1.68, 1.72] |", "| Sweep | Fast | sec/op@1k | 180.0ns [180.0ns, 180.0ns] |"} {
		if !strings.Contains(table, want) {
			t.Errorf("no %q in:\n%s", want, table)
		}
	}
	if strings.Contains(Format(parseSample(t)), "| metric |") {
		t.Error("a run without reported metrics got a metrics table")
	}
}

func parseSample(t *testing.T) []Row {
	rows, err := Parse(strings.NewReader(sample), "sample", "Model")
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestParseRejectsNonFiniteValues: benchmath's statistics do not end on a
// NaN sample, and a NaN or infinite median cannot be written as JSON. Such a
// value is a broken run, refused with the file and the benchmark named.
func TestParseRejectsNonFiniteValues(t *testing.T) {
	for _, v := range []string{"NaN", "+Inf", "-Inf"} {
		text := "BenchmarkPair/impl=Fast-2 1000000 25 ns/op\nBenchmarkPair/impl=Fast-2 1000000 " + v + " ns/op\n"
		_, err := Parse(strings.NewReader(text), "run-7.txt", "Model")
		if err == nil {
			t.Errorf("a value of %s was accepted", v)
			continue
		}
		for _, want := range []string{"run-7.txt:2", "Pair/impl=Fast", "ns/op"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the error for %s does not name %q: %v", v, want, err)
			}
		}
	}
}

// TestFormatDashesUnmeasuredUnits: a run without -benchmem has no B/op or
// allocs/op; the table must not show it as zero allocations.
func TestFormatDashesUnmeasuredUnits(t *testing.T) {
	rows, err := Parse(strings.NewReader("BenchmarkPair/impl=Fast-2 1000000 25 ns/op\n"), "nomem", "Model")
	if err != nil {
		t.Fatal(err)
	}
	if table := Format(rows); !strings.Contains(table, "| — | — |") {
		t.Errorf("unmeasured B/op and allocs/op are not dashed:\n%s", table)
	}
	if table := Format(parseSample(t)); !strings.Contains(table, "| 0 | 0 |") {
		t.Errorf("measured zeros are not shown as 0:\n%s", table)
	}
}

// TestGOMAXPROCSAreKeptApart: `go test -cpu 2,4` measures each
// implementation at two settings. Each is a row of its own, compared with
// the reference at the same setting, and the table names them as go test
// does; pooled, the model's median would be of no setting at all.
func TestGOMAXPROCSAreKeptApart(t *testing.T) {
	var lines string
	for range 3 {
		lines += "BenchmarkPair/impl=Model-2 1000000 100 ns/op\nBenchmarkPair/impl=Model-4 1000000 50 ns/op\n" +
			"BenchmarkPair/impl=Fast-2 1000000 25 ns/op\nBenchmarkPair/impl=Fast-4 1000000 25 ns/op\n"
	}
	rows, err := Parse(strings.NewReader(lines), "cpu", "Model")
	if err != nil {
		t.Fatal(err)
	}
	speedup := map[int]float64{}
	for _, r := range rows {
		if r.N != 3 {
			t.Errorf("%+v: %d samples, want 3: runs at two GOMAXPROCS pooled", r, r.N)
		}
		if r.Impl == "Fast" {
			speedup[r.Procs] = r.Speedup
		}
	}
	if len(rows) != 4 || speedup[2] != 4 || speedup[4] != 2 {
		t.Errorf("Fast over Model: %v at GOMAXPROCS 2 and 4 (want 4 and 2) in %+v", speedup, rows)
	}
	table := Format(rows)
	for _, want := range []string{"| Pair-2 | Fast | 25.0ns", "| Pair-4 | Fast | 25.0ns", "| Pair-4 | Model | 50.0ns"} {
		if !strings.Contains(table, want) {
			t.Errorf("no %q in:\n%s", want, table)
		}
	}
	// One GOMAXPROCS throughout: the suffix tells nothing apart.
	if table := Format(parseSample(t)); !strings.Contains(table, "| Pair | Fast |") {
		t.Errorf("a run at one GOMAXPROCS shows the suffix:\n%s", table)
	}
}

// TestZeroTimeIsATime: benchfmt leaves 0 ns/op in ns/op (tidying does not
// change a zero), where every other time is in sec/op. A zero sample must
// count among its benchmark's times, not make a row of its own that the
// time table and the goals never read.
func TestZeroTimeIsATime(t *testing.T) {
	rows, err := Parse(strings.NewReader("BenchmarkPair/impl=Fast-2 1000000 0 ns/op\nBenchmarkPair/impl=Fast-2 1000000 2 ns/op\nBenchmarkPair/impl=Fast-2 1000000 0 ns/op\n"), "zero", "Model")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Unit != "sec/op" || rows[0].N != 3 || rows[0].Median != 0 || rows[0].Max != 2e-9 {
		t.Errorf("rows %+v, want one sec/op row of 3 samples, median 0, max 2ns", rows)
	}
}

// TestMaxIsTheLargestSample: allocs/op are exact, and the goals judge their
// largest sample.
func TestMaxIsTheLargestSample(t *testing.T) {
	for _, r := range parseSample(t) {
		want := 0.0
		switch {
		case r.Impl == "Fast" && r.Unit == "allocs/op":
			want = 1
		case r.Impl == "Fast" && r.Unit == "B/op":
			want = 16
		case r.Unit == "sec/op" && r.Impl == "Fast":
			want = 27e-9
		case r.Unit == "sec/op":
			want = 110e-9
		}
		if math.Abs(r.Max-want) > 1e-15 {
			t.Errorf("%s %s: max %g, want %g", r.Impl, r.Unit, r.Max, want)
		}
	}
}

// TestVersusHasThreeVerdicts: against the reference, a row is faster or
// slower only when the medians' intervals keep the ratio on one side of 1
// and the difference is significant; otherwise inconclusive.
func TestVersusHasThreeVerdicts(t *testing.T) {
	var lines []string
	for i, m := range []string{"100", "101", "99", "102", "98", "100", "101", "99"} {
		for impl, v := range map[string]string{
			"Fast": []string{"50", "51", "49", "52", "48", "50", "51", "49"}[i],
			"Slow": []string{"200", "201", "199", "202", "198", "200", "201", "199"}[i],
			"Same": []string{"100", "99", "101", "98", "102", "100", "99", "101"}[i],
		} {
			lines = append(lines, "BenchmarkPair/impl="+impl+"-2 1000 "+v+" ns/op")
		}
		lines = append(lines, "BenchmarkPair/impl=Model-2 1000 "+m+" ns/op")
	}
	rows, err := Parse(strings.NewReader(strings.Join(lines, "\n")), "versus", "Model")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Fast": "faster", "Slow": "slower", "Same": "inconclusive", "Model": ""}
	for _, r := range rows {
		if r.Versus != want[r.Impl] {
			t.Errorf("%s: versus %q, want %q", r.Impl, r.Versus, want[r.Impl])
		}
	}
	if table := Format(rows); !strings.Contains(table, "2.00× faster") || !strings.Contains(table, "0.50× slower") {
		t.Errorf("table:\n%s", table)
	}
}

// TestCountsHaveATableOfTheirOwn: instruction counts are exact, one a
// benchmark, taken at GOMAXPROCS=1 beside timings at 2: they get a table
// of their own, and do not make the run's names carry -N suffixes.
func TestCountsHaveATableOfTheirOwn(t *testing.T) {
	rows, err := Parse(strings.NewReader(sample+"BenchmarkPair/impl=Fast 80000 305.4 instr/op\n"), "counts", "Model")
	if err != nil {
		t.Fatal(err)
	}
	if MixedProcs(rows) {
		t.Error("a count at GOMAXPROCS=1 made the run mixed")
	}
	table := Format(rows)
	if !strings.Contains(table, "| Pair | Fast | 305 |") || strings.Contains(table, "| metric |") {
		t.Errorf("table:\n%s", table)
	}
}
