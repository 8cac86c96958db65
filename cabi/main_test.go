//go:build cgo

package cabi_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/memverify/memverify/cabi"
	"github.com/memverify/memverify/cabi/examples"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/suites"
)

// buildDir holds the libraries the tests build, once per test binary.
var buildDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "memverify-cabi-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	builtMu sync.Mutex
	built   = map[string]*cabi.Library{}
)

// example builds (once) and opens the example called name, with bugs
// compiled in; it skips the test when the machine has no C compiler.
func example(t testing.TB, name string, bugs ...string) *cabi.Library {
	t.Helper()
	key := strings.Join(append([]string{name}, bugs...), " ")
	builtMu.Lock()
	defer builtMu.Unlock()
	if lib := built[key]; lib != nil {
		return lib
	}
	path, err := examples.Build(buildDir, name, bugs...)
	if errors.Is(err, examples.ErrNoCompiler) {
		t.Skipf("the C examples need a C compiler: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	lib, err := cabi.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	built[key] = lib
	return lib
}

// runSuites runs every suite of domain against lib (the table
// suites.Library builds, which verify run -lib runs too), one subtest each,
// and prints the library's ABI violations when one fails.
func runSuites(t *testing.T, lib *cabi.Library, domain string) {
	run, skipped, err := suites.Library(lib, domain)
	if err != nil {
		t.Fatal(err)
	}
	for _, why := range skipped {
		t.Logf("skipped %s", why)
	}
	for _, s := range run {
		t.Run(s.Property, func(t *testing.T) {
			s.Run(t)
			if t.Failed() {
				t.Logf("ABI violations of %s: %q", lib.Path(), lib.Violations())
			}
		})
	}
}

// mustKill runs the suite of domain named killer against a library with a
// seeded bug and fails unless the suite fails.
func mustKill(t *testing.T, lib *cabi.Library, domain, killer string) {
	t.Helper()
	run, _, err := suites.Library(lib, domain)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range run {
		if s.Property != killer {
			continue
		}
		defer setFlag(t, "rapid.nofailfile", "true")()
		defer setFlag(t, "rapid.shrinktime", "1s")() // the kill is the point, not the shortest trace
		// An example's bug may need a draw of a few percent of checks
		// (overlap's closed interval: two views that merely touch), which
		// rapid's default 100 checks miss about once in a hundred runs; a
		// test that shows the kill must show it every run.
		defer setFlag(t, "rapid.checks", "2000")()
		res := props.Run(killer, s.Run)
		if res.Outcome != props.Failed {
			t.Fatalf("%s of %s: %s, want it to fail (the bug survived)\n%s", killer, lib.Path(), res.Outcome, res.Output)
		}
		t.Logf("%s killed the bug of %s in %v", killer, lib.Path(), res.Duration.Round(1e6))
		return
	}
	t.Fatalf("no suite %q", killer)
}

// setFlag sets a flag for the rest of the test and returns the function
// that restores it.
func setFlag(t *testing.T, name, value string) func() {
	f := flag.Lookup(name)
	if f == nil {
		t.Fatalf("no flag -%s", name)
	}
	old := f.Value.String()
	if err := f.Value.Set(value); err != nil {
		t.Fatal(err)
	}
	return func() { f.Value.Set(old) }
}
