package goals

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memverify/memverify/internal/benchcmp"
)

// parse reads benchmark lines as the goals read them, each line taken as
// six identical samples: enough for benchmath to bound a median, with an
// interval of the value alone, so that a test states the figure exactly.
func parse(t *testing.T, lines ...string) []benchcmp.Row {
	t.Helper()
	var six []string
	for _, l := range lines {
		for range 6 {
			six = append(six, l)
		}
	}
	return parseOnce(t, six...)
}

// parseOnce reads benchmark lines, one sample each.
func parseOnce(t *testing.T, lines ...string) []benchcmp.Row {
	t.Helper()
	rows, err := benchcmp.Parse(strings.NewReader(strings.Join(lines, "\n")+"\n"), "test", "Model")
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func verdict(t *testing.T, vs []Verdict, goal string) Verdict {
	t.Helper()
	for _, v := range vs {
		if strings.HasPrefix(v.Goal, goal) {
			return v
		}
	}
	t.Fatalf("no goal %q", goal)
	return Verdict{}
}

func TestBoundAndAllocs(t *testing.T) {
	vs := Judge(parse(t,
		"BenchmarkOverlapDense/impl=Exact-2 1000000 9.5 ns/op 0 B/op 0 allocs/op",
		"BenchmarkSizeclassPair/class=1M/impl=Sharded-2 1000000 20 ns/op 0 B/op 0 allocs/op",
		"BenchmarkSizeclassPair/class=2M/impl=Sharded-2 1000000 20 ns/op 8 B/op 1 allocs/op",
	))
	if v := verdict(t, vs, "the dense path"); v.Status != Met || len(v.Cases) != 1 {
		t.Errorf("dense at 9.5 ns: %+v", v)
	}
	// Within the time bound, but one class allocates.
	if v := verdict(t, vs, "a cached pair"); v.Status != NotMet {
		t.Errorf("an allocating pair: %+v", v)
	}
	if v := verdict(t, vs, "insert+lookup"); v.Status != NotMeasured || len(v.Cases) != 0 {
		t.Errorf("a goal without its benchmarks must not count as met: %+v", v)
	}

	vs = Judge(parse(t, "BenchmarkOverlapDense/impl=Exact-2 1000000 10.5 ns/op 0 B/op 0 allocs/op"))
	if v := verdict(t, vs, "the dense path"); v.Status != NotMet {
		t.Errorf("dense at 10.5 ns: %+v", v)
	}
	if Missed(vs) != 1 {
		t.Errorf("Missed = %d, want 1", Missed(vs))
	}
}

func TestRatio(t *testing.T) {
	lines := []string{
		"BenchmarkSizeclassParallel/impl=Mutex-2 1000000 60 ns/op",
		"BenchmarkSizeclassParallel/impl=Sharded-2 1000000 19 ns/op",
		"BenchmarkSizeclassParallel/impl=LockFree-2 1000000 21 ns/op",
	}
	v := verdict(t, Judge(parse(t, lines...)), "Sharded and LockFree at least 3×")
	if v.Status != NotMet || len(v.Cases) != 2 || !v.Cases[0].Met || v.Cases[1].Met {
		t.Errorf("3.16× and 2.86× against a 3× goal: %+v", v)
	}
}

func TestPairedGrowth(t *testing.T) {
	// One sample of the sweep: the per-size times, then the ratios that the
	// sample measured within itself, which alone are judged.
	// Top-down meets the goal throughout; bottom-up is the case under test.
	sweep := func(mid, large string) Verdict {
		return verdict(t, Judge(parse(t,
			"BenchmarkBankFreeListSweep/dir=BottomUp/impl=FreeListOpt-2 1000 400 ns/op@100k 300 ns/op@10k 200 ns/op@1k "+large+" x@100k/1k "+mid+" x@10k/1k",
			"BenchmarkBankFreeListSweep/dir=TopDown/impl=FreeListOpt-2 1000 300 ns/op@100k 250 ns/op@10k 200 ns/op@1k 1.5 x@100k/1k 1.25 x@10k/1k",
		)), "its cost per operation")
	}
	// log2(100k)/log2(1k) = 1.667 and log2(10k)/log2(1k) = 1.333. The
	// per-size medians here (×1.50, ×2.00) do not decide.
	v := sweep("1.30", "1.65")
	if v.Status != Met || len(v.Cases) != 2 {
		t.Errorf("×1.30 and ×1.65: %+v", v)
	}
	if want := "1k 200.0ns, 10k 300.0ns, 100k 400.0ns; within each sample 1k→10k ×1.30 [1.30, 1.30] (goal ≤ ×1.33), 1k→100k ×1.65 [1.65, 1.65] (goal ≤ ×1.67)"; v.Cases[0].Measured != want {
		t.Errorf("measured %q, want %q", v.Cases[0].Measured, want)
	}
	if v := sweep("1.30", "1.70"); v.Status != NotMet {
		t.Errorf("×1.70 at 100k: %+v", v)
	}
	if v := sweep("1.35", "1.60"); v.Status != NotMet {
		t.Errorf("×1.35 at 10k: %+v", v)
	}
	// One direction alone is half the goal.
	v = verdict(t, Judge(parse(t,
		"BenchmarkBankFreeListSweep/dir=BottomUp/impl=FreeListOpt-2 1000 400 ns/op@100k 300 ns/op@10k 200 ns/op@1k 1.6 x@100k/1k 1.3 x@10k/1k",
	)), "its cost per operation")
	if v.Status != PartlyMeasured || !strings.Contains(strings.Join(v.Missing, ";"), "dir=TopDown") {
		t.Errorf("bottom-up alone: %+v; want partly measured, TopDown missing", v)
	}
}

func TestFormatShowsMisses(t *testing.T) {
	vs := Judge(parse(t, "BenchmarkOverlapDense/impl=Exact-2 1000000 10.5 ns/op"))
	table := Format(vs)
	if !strings.Contains(table, "**OverlapDense/impl=Exact: 10.5ns [10.5ns, 10.5ns] (goal ≤ 10.0ns)**") || !strings.Contains(table, "| **not met** |") {
		t.Errorf("table:\n%s", table)
	}
}

// TestBaselineMeasuresEveryGoal guards against a goal whose benchmarks were
// renamed: it would judge nothing and read as "not measured" forever. Each
// run of the baseline must measure every goal but the pending.
func TestBaselineMeasuresEveryGoal(t *testing.T) {
	files, err := filepath.Glob("../../reports/baseline/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no baseline runs: %v", err)
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := benchcmp.Parse(f, name, "Model")
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if onlyCounts(rows) {
			continue // instruction counts, judged pooled with the campaigns (TestBaselinePassesTheGate)
		}
		for _, v := range Gated(Judge(rows)) {
			if v.Status.Unjudged() {
				t.Errorf("%s: %s: %q matches no benchmark", filepath.Base(name), v.Domain, v.Goal)
			}
		}
	}
}

func TestFormatRunsShowsEachRun(t *testing.T) {
	fast := Judge(parse(t, "BenchmarkOverlapDense/impl=Exact-2 1000000 8.5 ns/op"))
	slow := Judge(parse(t, "BenchmarkOverlapDense/impl=Exact-2 1000000 12 ns/op"))
	table := FormatRuns([]string{"quiet", "busy"}, [][]Verdict{fast, slow})
	want := "| overlap | the dense path at most 10 ns | met: OverlapDense/impl=Exact 8.5ns [8.5ns, 8.5ns] (goal ≤ 10.0ns) | **not met: OverlapDense/impl=Exact 12.0ns [12.0ns, 12.0ns] (goal ≤ 10.0ns)** |"
	if !strings.Contains(table, want) || !strings.Contains(table, "| refcount | a register+unregister pair at most 100 ns sequentially | not measured: no benchmark matches RefcountPair | not measured: no benchmark matches RefcountPair |") {
		t.Errorf("table:\n%s", table)
	}
}

// TestGoalWithAnUnmeasuredCheckIsNotMet: "a cached pair at most 30 ns, with
// zero allocations" measured without -benchmem has its time but not its
// allocations; half a goal measured is not a goal met.
func TestGoalWithAnUnmeasuredCheckIsNotMet(t *testing.T) {
	vs := Judge(parse(t, "BenchmarkSizeclassPair/class=1M/impl=Sharded-2 1000000 20 ns/op"))
	v := verdict(t, vs, "a cached pair")
	if v.Status != PartlyMeasured {
		t.Errorf("time measured, allocations not: status %q, want \"partly measured\" (%+v)", v.Status, v)
	}
	if Missed(vs) != 0 {
		t.Errorf("Missed = %d: a goal partly measured within its bounds missed nothing", Missed(vs))
	}
	// A miss among the measured checks is still a miss.
	vs = Judge(parse(t, "BenchmarkSizeclassPair/class=1M/impl=Sharded-2 1000000 40 ns/op"))
	if v := verdict(t, vs, "a cached pair"); v.Status != NotMet {
		t.Errorf("40 ns against 30 ns, allocations not measured: status %q, want \"not met\"", v.Status)
	}
}

// TestPartlyMeasuredGoalsNameWhatIsMissing: every implementation,
// reference and size a goal names must be measured. A run that measured
// some of them, within their bounds, has not met the goal: it is partly
// measured, and says what is missing.
func TestPartlyMeasuredGoalsNameWhatIsMissing(t *testing.T) {
	// RefcountPairParallel in full and within its bound, for the cases
	// below to add to.
	pairParallel := []string{
		"BenchmarkRefcountPairParallel/impl=Model-2 1000000 100 ns/op",
		"BenchmarkRefcountPairParallel/impl=Sharded-2 1000000 40 ns/op",
		"BenchmarkRefcountPairParallel/impl=LockFree-2 1000000 40 ns/op",
	}
	const parallel = "Sharded and LockFree at least 2× the mutex model"
	for _, c := range []struct {
		what, goal string
		lines      []string
		status     Status
		missing    string
	}{
		{"Sharded alone of the two the goal names", "a register+unregister pair",
			[]string{"BenchmarkRefcountPair/impl=Sharded-2 1000000 60 ns/op"},
			PartlyMeasured, "RefcountPair/impl=LockFree not in the run"},
		{"a group without its reference", parallel,
			append([]string{
				"BenchmarkRefcountBufferParallel/impl=Sharded-2 1000000 40 ns/op",
				"BenchmarkRefcountBufferParallel/impl=LockFree-2 1000000 40 ns/op",
			}, pairParallel...),
			PartlyMeasured, "reference RefcountBufferParallel/impl=Model not in the run"},
		{"an implementation at 0 ns/op", parallel,
			append([]string{
				"BenchmarkRefcountBufferParallel/impl=Model-2 1000000 100 ns/op",
				"BenchmarkRefcountBufferParallel/impl=Sharded-2 1000000 0 ns/op",
				"BenchmarkRefcountBufferParallel/impl=LockFree-2 1000000 40 ns/op",
			}, pairParallel...),
			PartlyMeasured, "RefcountBufferParallel/impl=Sharded at 0 ns/op: no time measured"},
		{"an implementation at 0 ns/op, alone", parallel,
			[]string{
				"BenchmarkRefcountBufferParallel/impl=Model-2 1000000 100 ns/op",
				"BenchmarkRefcountBufferParallel/impl=Sharded-2 1000000 0 ns/op",
			},
			NotMeasured, "RefcountBufferParallel/impl=Sharded at 0 ns/op: no time measured"},
		{"a reference at 0 ns/op", parallel,
			append([]string{
				"BenchmarkRefcountBufferParallel/impl=Model-2 1000000 0 ns/op",
				"BenchmarkRefcountBufferParallel/impl=Sharded-2 1000000 40 ns/op",
				"BenchmarkRefcountBufferParallel/impl=LockFree-2 1000000 40 ns/op",
			}, pairParallel...),
			PartlyMeasured, "reference RefcountBufferParallel/impl=Model at 0 ns/op: no time measured"},
		{"a sweep without its 10k ratio", "its cost per operation",
			[]string{"BenchmarkBankFreeListSweep/dir=BottomUp/impl=FreeListOpt-2 1000 300 ns/op@100k 200 ns/op@1k 1.50 x@100k/1k"},
			PartlyMeasured, "BankFreeListSweep/dir=BottomUp/impl=FreeListOpt x@10k/1k"},
		{"one of the four ranks the goal names", "Exact at most 300 ns",
			[]string{"BenchmarkOverlapRandom/rank=1/impl=Exact-2 1000000 40 ns/op"},
			PartlyMeasured, "no benchmark matches OverlapRandom/rank=2"},
	} {
		v := verdict(t, Judge(parse(t, c.lines...)), c.goal)
		if v.Status != c.status || !slices.Contains(v.Missing, c.missing) {
			t.Errorf("%s: status %q, missing %q; want %q, missing %q", c.what, v.Status, v.Missing, c.status, c.missing)
		}
		if table := Format([]Verdict{v}); !strings.Contains(table, "not measured: ") || !strings.Contains(table, c.missing) {
			t.Errorf("%s: the table does not name what is missing:\n%s", c.what, table)
		}
	}
}

// TestNoAllocsJudgesEverySample: allocs/op are exact counts. One sample in
// five that allocates shows an allocating path, which the median (0) hides.
func TestNoAllocsJudgesEverySample(t *testing.T) {
	var lines []string
	for _, a := range []string{"0", "0", "1", "0", "0"} {
		for _, g := range []string{"RefcountPair", "RefcountLookup"} {
			lines = append(lines,
				"Benchmark"+g+"/impl=Sharded-2 1000000 60 ns/op 0 B/op 0 allocs/op",
				"Benchmark"+g+"/impl=LockFree-2 1000000 40 ns/op 16 B/op "+a+" allocs/op")
		}
	}
	v := verdict(t, Judge(parse(t, lines...)), "no allocation")
	if v.Status != NotMet {
		t.Fatalf("a sample with one allocation: status %q, want \"not met\" (%+v)", v.Status, v)
	}
	if c, _ := v.Tightest(); c.Name != "RefcountLookup/impl=LockFree" && c.Name != "RefcountPair/impl=LockFree" || c.Measured != "1 allocs/op in its worst sample (median 0)" {
		t.Errorf("worst case %+v, want LockFree's 1 allocs/op in its worst sample", c)
	}
}

// TestGOMAXPROCSAreJudgedApart: a run at -cpu 1,2 measures each GOMAXPROCS
// apart; each is a case of its own, named with go test's -N suffix.
func TestGOMAXPROCSAreJudgedApart(t *testing.T) {
	vs := Judge(parse(t,
		"BenchmarkOverlapDense/impl=Exact 1000000 8 ns/op",
		"BenchmarkOverlapDense/impl=Exact-2 1000000 12 ns/op",
	))
	v := verdict(t, vs, "the dense path")
	if v.Status != NotMet || len(v.Cases) != 2 || v.Cases[0].Name != "OverlapDense/impl=Exact" || !v.Cases[0].Met || v.Cases[1].Name != "OverlapDense/impl=Exact-2" || v.Cases[1].Met {
		t.Errorf("8 ns at GOMAXPROCS=1 and 12 ns at 2: %+v", v)
	}
}

// TestStatusReadsAsText: the report's JSON carries a status as its text,
// and reads it back; a value outside the four is refused, not written as a
// number.
func TestStatusReadsAsText(t *testing.T) {
	v := Verdict{Domain: "overlap", Goal: "g", Status: PartlyMeasured}
	data, err := json.Marshal(v)
	if err != nil || !strings.Contains(string(data), `"status":"partly measured"`) {
		t.Fatalf("marshalled %s, %v", data, err)
	}
	var back Verdict
	if err := json.Unmarshal(data, &back); err != nil || back.Status != PartlyMeasured {
		t.Errorf("read back %+v, %v", back, err)
	}
	for _, s := range []Status{NotMeasured, PartlyMeasured, NotMet, Met} {
		var got Status
		text, _ := s.MarshalText()
		if err := got.UnmarshalText(text); err != nil || got != s {
			t.Errorf("%v: round trip gave %v, %v", s, got, err)
		}
	}
	if _, err := json.Marshal(Verdict{Status: Status(9)}); err == nil {
		t.Error("an unknown status was written")
	}
	if err := json.Unmarshal([]byte(`{"status":"done"}`), &back); err == nil {
		t.Error("an unknown status was read")
	}
	if !NotMeasured.Unjudged() || !PartlyMeasured.Unjudged() || NotMet.Unjudged() || Met.Unjudged() {
		t.Error("Unjudged: want true for not measured and partly measured only")
	}
}

// TestThreeVerdictsFromIntervals: a bound is met when the median's 95%
// interval lies below it, missed only when the interval lies above it, and
// inconclusive when the interval holds it or cannot be bounded.
func TestThreeVerdictsFromIntervals(t *testing.T) {
	dense := func(ns ...string) Verdict {
		var lines []string
		for _, v := range ns {
			lines = append(lines, "BenchmarkOverlapDense/impl=Exact-2 1000000 "+v+" ns/op")
		}
		return verdict(t, Judge(parseOnce(t, lines...)), "the dense path")
	}
	for _, c := range []struct {
		what string
		ns   []string
		want Status
	}{
		{"every sample below", []string{"8.1", "8.4", "8.2", "8.9", "8.3", "8.5", "8.6", "8.0"}, Met},
		{"every sample above", []string{"11.1", "11.4", "11.2", "11.9", "11.3", "11.5", "11.6", "11.0"}, NotMet},
		{"an interval across the bound", []string{"9.1", "9.6", "10.3", "10.8", "9.8", "10.1", "9.9", "10.4"}, Inconclusive},
		{"too few samples to bound", []string{"12", "12", "12"}, Inconclusive},
	} {
		v := dense(c.ns...)
		if v.Status != c.want {
			t.Errorf("%s: %s, want %s (%+v)", c.what, v.Status, c.want, v.Cases)
		}
		if c.want.FailsGate() != (c.want == NotMet) {
			t.Errorf("%s: FailsGate = %v", c.what, c.want.FailsGate())
		}
	}
	if !NotMeasured.FailsGate() || !PartlyMeasured.FailsGate() || Inconclusive.FailsGate() || Met.FailsGate() {
		t.Error("FailsGate: want a gate to fail on not met and on not measured in full only")
	}
}

// TestRatioGoalsUseTheIntervalOfTheRatio: a ratio is judged on the
// interval its two medians' intervals allow.
func TestRatioGoalsUseTheIntervalOfTheRatio(t *testing.T) {
	var lines []string
	for i, m := range []string{"58", "60", "62", "59", "61", "60"} {
		s := []string{"18", "22", "19", "21", "20", "20"}[i]
		lines = append(lines,
			"BenchmarkSizeclassParallel/impl=Mutex-2 1000000 "+m+" ns/op",
			"BenchmarkSizeclassParallel/impl=Sharded-2 1000000 "+s+" ns/op")
	}
	v := verdict(t, Judge(parseOnce(t, lines...)), "Sharded and LockFree at least 3×")
	c := v.Cases[0]
	if c.Met || !c.Inconclusive || !strings.Contains(c.Measured, "3.00× [") {
		t.Errorf("60 ns against 20 ns, each ±10%%: %+v; want inconclusive with the ratio's interval", c)
	}
}

// TestGrowthIsJudgedOnInstructionsWhereCounted: the bank free list's
// growth is a goal about work: with instruction counts of its three sizes
// it is judged on them, exactly; without, on the sweep's times.
func TestGrowthIsJudgedOnInstructionsWhereCounted(t *testing.T) {
	counts := func(bottomUp100k string) []string {
		return []string{
			"BenchmarkBankFreeList/live=1k/dir=BottomUp/impl=FreeListOpt 80000 2711 instr/op",
			"BenchmarkBankFreeList/live=10k/dir=BottomUp/impl=FreeListOpt 80000 3005 instr/op",
			"BenchmarkBankFreeList/live=100k/dir=BottomUp/impl=FreeListOpt 80000 " + bottomUp100k + " instr/op",
			"BenchmarkBankFreeList/live=1k/dir=TopDown/impl=FreeListOpt 80000 2748 instr/op",
			"BenchmarkBankFreeList/live=10k/dir=TopDown/impl=FreeListOpt 80000 3054 instr/op",
			"BenchmarkBankFreeList/live=100k/dir=TopDown/impl=FreeListOpt 80000 3703 instr/op",
		}
	}
	// The sweep's times miss the goal; the counts decide.
	sweep := "BenchmarkBankFreeListSweep/dir=BottomUp/impl=FreeListOpt-2 1000 500 ns/op@100k 300 ns/op@10k 200 ns/op@1k 2.5 x@100k/1k 1.5 x@10k/1k"
	v := verdict(t, Judge(parseOnce(t, append(counts("3518"), sweep)...)), "its cost per operation")
	if v.Status != Met || len(v.Cases) != 2 || !strings.Contains(v.Cases[0].Measured, "1k→100k ×1.30 (goal ≤ ×1.67)") {
		t.Errorf("×1.30 in instructions: %+v", v)
	}
	if v := verdict(t, Judge(parseOnce(t, counts("4800")...)), "its cost per operation"); v.Status != NotMet {
		t.Errorf("×1.77 in instructions: %s, want not met (%+v)", v.Status, v.Cases)
	}
	// One count missing: the times judge, as before.
	v = verdict(t, Judge(parseOnce(t, append(counts("3518")[1:], sweep)...)), "its cost per operation")
	if v.Status == Met || !strings.Contains(strings.Join(v.Missing, ";"), "BankFreeListSweep/dir=TopDown") {
		t.Errorf("a count missing: %+v; want the sweep's times judged", v)
	}
}

// onlyCounts reports whether rows hold instruction counts alone.
func onlyCounts(rows []benchcmp.Row) bool {
	for _, r := range rows {
		if r.Unit != benchcmp.UnitInstr {
			return false
		}
	}
	return len(rows) > 0
}

// TestBaselinePassesTheGate: the committed baseline, pooled, misses no
// goal and measures every one in full (verify bench -file
// 'reports/baseline/*.txt' -gate), and the bank list's growth, a goal
// about work, is judged on its instruction counts.
func TestBaselinePassesTheGate(t *testing.T) {
	files, err := filepath.Glob("../../reports/baseline/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no baseline runs: %v", err)
	}
	var pooled []string
	var campaigns [][]benchcmp.Row
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		pooled = append(pooled, string(data))
		rows, err := benchcmp.Parse(strings.NewReader(string(data)), name, "Model")
		if err != nil {
			t.Fatal(err)
		}
		campaigns = append(campaigns, rows)
	}
	rows, err := benchcmp.Parse(strings.NewReader(strings.Join(pooled, "\n")), "baseline", "Model")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	for _, v := range JudgeCampaigns(rows, names, campaigns) {
		if v.FailsGate() {
			t.Errorf("%s: %q %s: %+v %v", v.Domain, v.Goal, v.Status, v.Cases, v.Missing)
		}
		if strings.HasPrefix(v.Goal, "its cost per operation") && (len(v.Cases) == 0 || !strings.Contains(v.Cases[0].Measured, "instructions per op")) {
			t.Errorf("the bank growth goal is not judged on instruction counts: %+v", v.Cases)
		}
	}
}

// A pending goal is judged and shown like any other, and never gates.
func TestPendingGoalsAreShownNotGated(t *testing.T) {
	missed := Verdict{Goal: "g", Status: NotMet, Pending: "not in the baseline yet"}
	unmeasured := Verdict{Goal: "h", Status: NotMeasured, Pending: "not in the baseline yet"}
	gated := Verdict{Goal: "i", Status: NotMet}
	if missed.FailsGate() || unmeasured.FailsGate() || !gated.FailsGate() {
		t.Fatalf("FailsGate: pending missed %v, pending unmeasured %v, gated missed %v; want false, false, true",
			missed.FailsGate(), unmeasured.FailsGate(), gated.FailsGate())
	}
	if g := Gated([]Verdict{missed, gated, unmeasured}); len(g) != 1 || g[0].Goal != "i" {
		t.Fatalf("Gated = %+v, want the one goal not pending", g)
	}
	if table := Format([]Verdict{missed}); !strings.Contains(table, "pending, not gated: not in the baseline yet") {
		t.Fatalf("Format does not say the goal is pending:\n%s", table)
	}
}
