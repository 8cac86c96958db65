package gate

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCompareCatchesWorkAndAllocations runs the hard tier for real, on the
// benchmarks of testdata/benchpkg under callgrind: the same binary against
// itself shows no change; with GATE_TEST_SLOWER set, 3% more work and one
// allocation more are caught, and the RunParallel benchmark is not
// counted.
func TestCompareCatchesWorkAndAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("counts instructions under callgrind: about a minute")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind is not installed")
	}
	dir, err := filepath.Abs("testdata/benchpkg")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "benchpkg.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	c := DefaultConfig
	c.Stat = false
	base := Binary{Label: "base", Path: bin, Dir: dir}
	slower := Binary{Label: "change", Path: bin, Dir: dir, Env: []string{"GATE_TEST_SLOWER=1"}}

	r, err := Compare(context.Background(), base, base, dir, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Changes {
		if c.Measure == unitInstr {
			t.Logf("A/A %s: %.1f against %.1f instr/op, %+.3f%%", c.Bench, c.Change, c.Base, 100*c.Delta)
		}
	}
	if !r.Pass || r.Count(Hard, Slower)+r.Count(Hard, Faster) != 0 {
		t.Errorf("the base against itself: %+v", r.Changes)
	}
	for _, name := range []string{"BenchmarkWork/size=small", "BenchmarkWork/size=large"} {
		c, ok := r.Find(name, unitInstr)
		if !ok || c.Base < 300 || abs(c.Delta) > 0.002 {
			t.Errorf("%s: %+v; want at least 300 instructions an op (100 rounds of a multiply and an add), the same twice within 0.2%%", name, c)
		}
	}
	if _, ok := r.Find("BenchmarkParallel", unitInstr); ok {
		t.Error("the RunParallel benchmark was counted")
	}

	r, err = Compare(context.Background(), base, slower, dir, c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pass {
		t.Fatalf("3%% more work and an allocation more passed: %+v", r.Changes)
	}
	for _, k := range [][2]string{{"BenchmarkWork/size=small", unitInstr}, {"BenchmarkAlloc", unitAllocs}, {"BenchmarkAlloc", unitBytes}} {
		if c, ok := r.Find(k[0], k[1]); !ok || c.Verdict != Slower || !c.Fails {
			t.Errorf("%s %s: %+v, want slower, failing", k[0], k[1], c)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
