package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets a test run the command as a user does: with
// MEMVERIFY_TEST_MAIN=1 in its environment the test binary is verify itself,
// so exit codes and messages are checked end to end, without a build.
func TestMain(m *testing.M) {
	if os.Getenv("MEMVERIFY_TEST_MAIN") == "1" {
		main() // exits
	}
	os.Exit(m.Run())
}

// verify runs the command with args (and env added to the environment) and
// returns what it printed and its exit code.
func verify(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "MEMVERIFY_TEST_MAIN=1"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("verify %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}

// benchFile writes a small benchmark run without a reference implementation.
func benchFile(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "run-1.txt")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// unwritable is a report directory that cannot be created: its parent is a
// regular file.
func unwritable(t *testing.T) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(f, "report")
}

// A cheap suite: one property of one implementation, a few checks.
var cheapSuite = []string{"-domain", "bank", "-property", "FreeListErrors", "-impl", "Model"}

// TestAnUnwritableOutIsRefusedBeforeAnyWork: an -out that cannot hold a
// run directory is found before the first suite runs or the first
// benchmark file is judged, not after minutes of work.
func TestAnUnwritableOutIsRefusedBeforeAnyWork(t *testing.T) {
	file := benchFile(t, "BenchmarkPair/impl=Fast-2 1000000 25 ns/op 0 B/op 0 allocs/op")
	for _, args := range [][]string{
		{"bench", "-file", file, "-out", unwritable(t)},
		append(append([]string{"run"}, cheapSuite...), "-rapid.checks", "2", "-out", unwritable(t)),
		{"mutants", "-domain", "tensormap", "-out", unwritable(t)},
	} {
		stdout, stderr, code := verify(t, nil, args...)
		if code != 2 || !strings.Contains(stderr, "-out") || strings.Contains(stdout, "running") || strings.Contains(stdout, "building") {
			t.Errorf("verify %s: exit %d, want 2 with the error and no work done (stdout %q, stderr %q)", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}

func TestBenchRefusesNonFiniteValues(t *testing.T) {
	file := benchFile(t, "BenchmarkPair/impl=Fast-2 1000000 25 ns/op", "BenchmarkPair/impl=Fast-2 1000000 NaN ns/op")
	_, stderr, code := verify(t, nil, "bench", "-file", file, "-out", t.TempDir())
	if code == 0 || !strings.Contains(stderr, "run-1.txt:2") || !strings.Contains(stderr, "Pair/impl=Fast") {
		t.Errorf("a NaN sample: exit %d, stderr %q; want an error naming the file, line and benchmark", code, stderr)
	}
}

func TestBudgetBelowOneIsRefused(t *testing.T) {
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"-rapid.checks", "0"}},
		{nil, []string{"-rapid.checks", "-1"}},
		{[]string{"RAPID_CHECKS=0"}, nil},
		// With no step a state machine draws no action: its suites pass
		// having checked nothing.
		{nil, []string{"-rapid.steps", "0"}},
		{nil, []string{"-rapid.steps", "-3"}},
		{[]string{"RAPID_STEPS=0"}, nil},
	} {
		args := append(append([]string{"run"}, cheapSuite...), "-out", t.TempDir())
		_, stderr, code := verify(t, c.env, append(args, c.args...)...)
		if code != 2 || !strings.Contains(stderr, "at least 1") {
			t.Errorf("%v %v: exit %d, stderr %q; want 2 and a clear error", c.env, c.args, code, stderr)
		}
	}
}

// TestFlagsACommandDoesNotUseAreRefused: a filter that a command ignores
// would make its output look filtered when it is not.
func TestFlagsACommandDoesNotUseAreRefused(t *testing.T) {
	file := benchFile(t, "BenchmarkPair/impl=Fast-2 1000000 25 ns/op")
	for _, args := range [][]string{
		{"bench", "-file", file, "-out", t.TempDir(), "-domain", "refcount"},
		{"bench", "-file", file, "-out", t.TempDir(), "-rapid.checks", "5"},
		append([]string{"run", "-seeds", "4", "-out", t.TempDir()}, cheapSuite...),
		append([]string{"run", "-gate", "-out", t.TempDir()}, cheapSuite...),
		{"list", "-out", t.TempDir()},
		{"list", "-bench", "Refcount"},
	} {
		_, stderr, code := verify(t, nil, args...)
		if code != 2 || !strings.Contains(stderr, "does not apply") {
			t.Errorf("verify %s: exit %d, stderr %q; want 2 and the flag refused", strings.Join(args, " "), code, stderr)
		}
	}
}

func TestListFailsWhenNothingMatches(t *testing.T) {
	if _, stderr, code := verify(t, nil, "list", "-property", "Nope"); code != 2 || !strings.Contains(stderr, "match") {
		t.Errorf("list -property Nope: exit %d, stderr %q; want 2", code, stderr)
	}
	stdout, _, code := verify(t, nil, "list", "-property", "MatchesModel")
	if code != 0 || !strings.Contains(stdout, "overlap/MatchesModel/impl=Exact") {
		t.Fatalf("list -property MatchesModel: exit %d:\n%s", code, stdout)
	}
	_, bugList, _ := strings.Cut(stdout, "seeded bugs:")
	for _, line := range strings.Split(strings.TrimSpace(bugList), "\n") {
		if !strings.Contains(line, "killer MatchesModel") {
			t.Errorf("list -property MatchesModel lists a bug another property is expected to kill: %q", line)
		}
	}
}
