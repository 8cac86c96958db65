package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memverify/memverify/bench/numpy"
	spec "github.com/memverify/memverify/model/overlap"
)

// TestNumPyPeerSkipsWithoutNumPy: where the interpreter has no numpy, the
// peer says so in one line that names the package, and its rounds add
// nothing: the benchmarks go on without it.
func TestNumPyPeerSkipsWithoutNumPy(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "python3")
	// What a python3 without numpy answers peer.py: its message, exit 3.
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$0 has no numpy\" >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(numpy.EnvPython, fake)
	p := &numpyPeer{pattern: "Overlap", benchtime: "1x"}
	fams := []numpy.Family{{Name: "OverlapDense", Pairs: [][2]spec.View{{{ElemSize: 1, Shape: []int64{4}, Strides: []int64{1}}, {ElemSize: 1, Shape: []int64{4}, Strides: []int64{1}}}}}}
	var log strings.Builder
	if err := p.start(fams, dir, &log); err != nil {
		t.Fatal(err)
	}
	const want = "NumPy peer skipped: python3 has no numpy (apt-get install python3-numpy)"
	if lines := strings.Split(strings.TrimSpace(log.String()), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], want) {
		t.Errorf("log %q, want one line starting %q", log.String(), want)
	}
	if !strings.Contains(p.source(), want) {
		t.Errorf("the report's source line %q does not say the peer was skipped", p.source())
	}
	var out strings.Builder
	if err := p.round(&out, &log); err != nil || out.Len() > 0 {
		t.Errorf("a skipped peer's round wrote %q, %v", out.String(), err)
	}
}

// TestBenchMatcherFollowsGoTest: a -bench pattern selects the peer's lines
// as go test selects benchmarks, level by level, unanchored.
func TestBenchMatcherFollowsGoTest(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{".", "BenchmarkOverlapDense/impl=NumPy", true},
		{"Overlap", "BenchmarkOverlapRandom/rank=3/impl=NumPy", true},
		{"Refcount", "BenchmarkOverlapDense/impl=NumPy", false},
		{"OverlapRandom/rank=3", "BenchmarkOverlapRandom/rank=3/impl=NumPyNet", true},
		{"OverlapRandom/rank=3", "BenchmarkOverlapRandom/rank=4/impl=NumPy", false},
		{"Overlap/impl=(Exact|NumPy)$", "BenchmarkOverlapDense/impl=NumPy", true},
		{"Overlap/impl=(Exact|NumPy)$", "BenchmarkOverlapDense/impl=NumPyNet", false},
		{"Overlap/[a-z]/x", "BenchmarkOverlapDense/impl=NumPy", false}, // deeper than the name
	}
	for _, c := range cases {
		match, err := benchMatcher(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := match(c.name); got != c.want {
			t.Errorf("-bench %q on %s: %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
	if _, err := benchMatcher("Overlap/("); err == nil {
		t.Error("a pattern that does not compile was accepted")
	}
}
