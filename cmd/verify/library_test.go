//go:build cgo

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memverify/memverify/cabi/examples"
)

// buildExample builds a C example into a temporary directory, skipping the
// test where the machine has no C compiler.
func buildExample(t *testing.T, name string, bugs ...string) string {
	t.Helper()
	path, err := examples.Build(t.TempDir(), name, bugs...)
	if errors.Is(err, examples.ErrNoCompiler) {
		t.Skipf("run -lib needs a C compiler to build the example: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunLibChecksACLibrary: run -lib runs every suite of the library's
// domain against the correct C example and passes, and names the library in
// the report; the same example with its seeded bug fails.
func TestRunLibChecksACLibrary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a C library and runs a domain's suites")
	}
	out := t.TempDir()
	stdout, stderr, code := verify(t, nil, "run", "-domain", "overlap", "-lib", buildExample(t, "overlap"),
		"-out", out, "-rapid.checks=50")
	if code != 0 {
		t.Fatalf("run -lib on the correct example: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "overlap/MatchesModel/impl=") || !strings.Contains(stdout, "passed, 0 failed") {
		t.Errorf("run -lib did not run the overlap suites:\n%s", stdout)
	}
	reports, _ := filepath.Glob(filepath.Join(out, "run-*", "report.json"))
	if len(reports) != 1 {
		t.Fatalf("want one report, found %v", reports)
	}
	if data, _ := os.ReadFile(reports[0]); !strings.Contains(string(data), `"library":`) {
		t.Errorf("the report does not name the library")
	}

	stdout, stderr, code = verify(t, nil, "run", "-domain", "overlap", "-property", "MatchesModel",
		"-lib", buildExample(t, "overlap", "MEMVERIFY_BUG_CLOSED_INTERVAL"), "-out", t.TempDir(), "-rapid.checks=200")
	if code != 1 || !strings.Contains(stdout, "--- FAIL overlap/MatchesModel") {
		t.Fatalf("run -lib on the buggy example: exit %d, want 1 with MatchesModel failing\n%s\n%s", code, stdout, stderr)
	}
}

// TestRunLibRefusesBadLibraries: a library that does not load, or exports no
// table of the domain asked for, is refused before any suite runs.
func TestRunLibRefusesBadLibraries(t *testing.T) {
	notALibrary := filepath.Join(t.TempDir(), "libnot.so")
	if err := os.WriteFile(notALibrary, []byte("not an ELF file"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"missing", []string{"-lib", filepath.Join(t.TempDir(), "libnone.so")}, "cannot load"},
		{"not a library", []string{"-lib", notALibrary}, "cannot load"},
		{"no table of the domain", []string{"-domain", "bank", "-lib", buildExample(t, "overlap")}, "exports no table of -domain bank"},
	} {
		out := t.TempDir()
		stdout, stderr, code := verify(t, nil, append([]string{"run", "-out", out}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 saying %q", c.name, code, stderr, c.want)
		}
		if strings.Contains(stdout, "impl=") {
			t.Errorf("%s: suites ran before the library was refused:\n%s", c.name, stdout)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("%s: wrote %d entries to -out before refusing", c.name, len(entries))
		}
	}
}
