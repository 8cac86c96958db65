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
	for in, want := range map[string][2]string{
		"BenchmarkRegister/seq/impl=Sharded-2": {"Register/seq", "Sharded"},
		"BenchmarkOverlap/impl=Exact/rank=3":   {"Overlap/rank=3", "Exact"},
		"BenchmarkPlain":                       {"Plain", ""},
		"BenchmarkTrace/n=1000-16":             {"Trace/n=1000", ""},
	} {
		g, i := splitName(in)
		if g != want[0] || i != want[1] {
			t.Errorf("splitName(%q) = %q, %q; want %q, %q", in, g, i, want[0], want[1])
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
