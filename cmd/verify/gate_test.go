package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/internal/gate"
)

// savedRun writes a saved run of the gate: the toolchain, instruction
// counts, and samples.
func savedRun(t *testing.T, name, goVersion string, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	text := "instr-go: " + goVersion + "\ninstr-valgrind: valgrind-3.19.0\ninstr-goamd64: v1\n" + strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGateJudgesSavedRuns: two saved runs are judged as a measured pair
// would be: exit 0 on no change, 1 on a regression (named, with its
// figures, in gate.md and gate.json), 2 on counts of two toolchains.
func TestGateJudgesSavedRuns(t *testing.T) {
	base := savedRun(t, "base.txt", "go1.26.8", "BenchmarkA 80000 300 instr/op", "BenchmarkB 80000 1000 instr/op", "BenchmarkB 1 0 B/op 0 allocs/op")
	same := savedRun(t, "same.txt", "go1.26.8", "BenchmarkA 80000 300.5 instr/op", "BenchmarkB 80000 1000 instr/op", "BenchmarkB 1 0 B/op 0 allocs/op")
	worse := savedRun(t, "worse.txt", "go1.26.8", "BenchmarkA 80000 310 instr/op", "BenchmarkB 80000 1000 instr/op", "BenchmarkB 1 16 B/op 1 allocs/op")
	other := savedRun(t, "other.txt", "go1.25.0", "BenchmarkA 80000 300 instr/op")

	out := t.TempDir()
	if stdout, stderr, code := verify(t, nil, "gate", "-old", base, "-new", same, "-out", out); code != 0 || !strings.Contains(stdout, "Benchmark gate: pass") {
		t.Errorf("no change: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code := verify(t, nil, "gate", "-old", base, "-new", worse, "-out", out)
	if code != 1 || !strings.Contains(stdout, "### Regressions") || !strings.Contains(stdout, "+3.33% instructions") {
		t.Errorf("3%% more instructions and an allocation: exit %d\n%s%s", code, stdout, stderr)
	}
	if pages, _ := filepath.Glob(filepath.Join(out, "gate-*", "gate.html")); len(pages) != 2 {
		t.Errorf("gate.html files: %q", pages)
	} else if data, _ := os.ReadFile(pages[1]); !strings.Contains(string(data), "<svg") || !strings.Contains(string(data), "BenchmarkA") {
		t.Errorf("gate.html has no plot of BenchmarkA")
	}
	runs, _ := filepath.Glob(filepath.Join(out, "gate-*", "gate.json"))
	if len(runs) != 2 {
		t.Fatalf("gate.json files: %q", runs)
	}
	var r gate.Result
	for _, f := range runs {
		data, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(data, &r) != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !r.Pass {
			break
		}
	}
	if r.Pass || len(r.Failures()) != 4 {
		t.Errorf("gate.json: %+v; want four failures (instructions, their geometric mean, allocs/op, B/op)", r.Failures())
	}
	if _, stderr, code := verify(t, nil, "gate", "-old", base, "-new", other, "-out", out); code != 2 || !strings.Contains(stderr, `Go "go1.26.8" against "go1.25.0"`) {
		t.Errorf("two toolchains: exit %d, %s", code, stderr)
	}
}

func TestGateRefusesFlagsThatDoNotGoTogether(t *testing.T) {
	for _, args := range [][]string{
		{"gate", "-old", "a.txt"},
		{"gate", "-old", "a.txt", "-new", "b.txt", "-base", "HEAD~1"},
		{"gate", "-tier", "soft"},
		{"gate", "-count", "1"},
		{"gate", "-selftest", "-base", "HEAD"},
		{"gate", "-exclude", "("},
		{"gate", "-file", "x.txt"},
	} {
		if _, stderr, code := verify(t, nil, args...); code != 2 || stderr == "" {
			t.Errorf("verify %s: exit %d, %q; want 2 and why", strings.Join(args, " "), code, stderr)
		}
	}
}

// TestInertTwinIsAnotherIDOfTheSameLength: the self-test counts a
// regression against a twin that activates nothing, whose name costs its
// seams what the regression's does.
func TestInertTwinIsAnotherIDOfTheSameLength(t *testing.T) {
	for _, r := range bugs.Regressions() {
		twin := inertTwin(r.ID)
		if len(twin) != len(r.ID) || twin == r.ID || twin[:len(twin)-1] != r.ID[:len(r.ID)-1] {
			t.Errorf("%s: twin %s", r.ID, twin)
		}
		if _, ok := bugs.Lookup(twin); ok {
			t.Errorf("%s: twin %s is a bug", r.ID, twin)
		}
		if _, ok := bugs.LookupRegression(twin); ok {
			t.Errorf("%s: twin %s is a regression", r.ID, twin)
		}
	}
}

// TestSeededRegressionsAreCatalogued: at least five, of different kinds,
// none of them in the seeded-bug catalogue (the mutants campaign would
// count each as a survivor), each naming benchmarks bench/ has.
func TestSeededRegressionsAreCatalogued(t *testing.T) {
	regs := bugs.Regressions()
	kinds := map[string]bool{}
	for _, r := range regs {
		kinds[r.Kind] = true
		if _, ok := bugs.Lookup(r.ID); ok {
			t.Errorf("%s is in the seeded-bug catalogue too", r.ID)
		}
		for _, b := range append(append([]string{}, r.Benches...), r.Spares...) {
			top := gate.TopLevel(b)
			found := false
			for _, f := range []string{"bank", "overlap", "refcount", "sizeclass", "tensormap"} {
				data, err := os.ReadFile(filepath.Join(moduleRoot(), "bench", f+"_test.go"))
				if err == nil && strings.Contains(string(data), "func "+top+"(") {
					found = true
				}
			}
			if !found {
				t.Errorf("%s names %s, which bench/ does not define", r.ID, top)
			}
		}
	}
	if len(regs) < 5 || len(kinds) < 5 {
		t.Errorf("%d regressions of %d kinds; want at least five of five", len(regs), len(kinds))
	}
	for _, b := range selectBugs(options{}) {
		if _, ok := bugs.LookupRegression(b.ID); ok {
			t.Errorf("the mutants campaign selects regression %s", b.ID)
		}
	}
}

func TestExactNameAnchorsEachLevel(t *testing.T) {
	for in, want := range map[string]string{
		"BenchmarkA/x=1.5/impl=B-2": `^BenchmarkA$/^x=1\.5$/^impl=B$`,
		"BenchmarkA":                `^BenchmarkA$`,
	} {
		if got := exactName(in); got != want {
			t.Errorf("exactName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSelftestRunsTheRegressionsOfItsTiers: -tier hard sets aside the
// regressions only the statistical tier can catch, and the other way round.
func TestSelftestRunsTheRegressionsOfItsTiers(t *testing.T) {
	regs := []bugs.Regression{{ID: "a/hard", Tier: "hard"}, {ID: "b/timed", Tier: "statistical"}}
	for _, c := range []struct {
		hard, stat bool
		run, aside int
	}{{true, true, 2, 0}, {true, false, 1, 1}, {false, true, 1, 1}} {
		cfg := gate.DefaultConfig
		cfg.Hard, cfg.Stat = c.hard, c.stat
		run, aside := regressionsOfTiers(regs, cfg)
		if len(run) != c.run || len(aside) != c.aside {
			t.Errorf("hard %v, stat %v: run %v, aside %v", c.hard, c.stat, run, aside)
		}
		for _, r := range run {
			if r.Tier == "hard" && !c.hard || r.Tier == "statistical" && !c.stat {
				t.Errorf("hard %v, stat %v: runs %s", c.hard, c.stat, r.ID)
			}
		}
	}
}
