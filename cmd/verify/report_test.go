package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/suites"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// fullReport is the report of a full run that passed, built from the real
// catalogue: every suite passed, every seeded bug killed by every property
// that runs against it, the overlap accuracy measured on a small corpus.
func fullReport(t *testing.T) *Report {
	t.Helper()
	r := newReport()
	r.Run.Command, r.Run.Full = "all", true
	for i, s := range suites.All() {
		r.Suites = append(r.Suites, SuiteResult{Name: s.Name(), Domain: s.Domain, Property: s.Property, Impl: s.Impl,
			Outcome: props.Passed, Checks: 500, BaseSeed: uint64(i + 1), Duration: time.Duration(i%7+1) * 90 * time.Millisecond})
	}
	c := &campaign{Seeds: []uint64{1, 2, 3}}
	for i, b := range bugs.Catalogue() {
		m := MutantResult{Bug: b, Killed: true, By: b.Killer, Expected: true, Seed: 7, Checks: i%40 + 1,
			Duration: time.Duration(i%13+1) * 130 * time.Millisecond, Wall: 4 * time.Second,
			Trace: "   1  Op() -> ok\n   2  Op() -> boom", Repro: "MEMVERIFY_BUG=" + string(b.ID) + " go test ./suites"}
		for _, s := range suites.Select(b.Domain, "", b.Impl) {
			m.KilledBy = append(m.KilledBy, s.Property)
		}
		c.Mutants = append(c.Mutants, m)
	}
	for _, s := range suites.Select("tensormap", "", "") {
		c.Baseline = append(c.Baseline, SuiteResult{Name: s.Name(), Domain: s.Domain, Property: s.Property, Impl: s.Impl, Outcome: props.Passed, Checks: 500, BaseSeed: 1})
	}
	c.Silent, c.Unjudged = silentProperties("", c.Mutants)
	r.Campaign = c
	r.Accuracy = &Accuracy{Pairs: 300, Seed: 1, Rows: OverlapAccuracyByFamily(300, 1), Duration: time.Second}
	r.Summary.Duration = 3 * time.Minute
	r.summarize()
	if r.Summary.Verdict != verdictPass {
		t.Fatalf("the full report does not pass: %v", r.Summary.Reasons)
	}
	return r
}

// TestMarkdownOfAFullRunIsShort: the Markdown of a passing full run is read
// in a minute: under 300 lines, the verdict in its first lines, no trace.
func TestMarkdownOfAFullRunIsShort(t *testing.T) {
	md := fullReport(t).markdown()
	lines := strings.Count(md, "\n")
	if lines >= 300 {
		t.Errorf("report.md of a full run has %d lines, want under 300", lines)
	}
	head := strings.Join(strings.SplitN(md, "\n", 4)[:3], "\n")
	if !strings.Contains(head, "PASS") || !strings.Contains(head, "all 103 seeded bugs killed") && !strings.Contains(head, "seeded bugs killed") {
		t.Errorf("the verdict is not on top:\n%s", head)
	}
	if strings.Contains(md, "Op() -> boom") {
		t.Error("a trace is in report.md, not in its own file")
	}
}

// compileSchema compiles a schema file of reports/schema.
func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	s, err := c.Compile(filepath.Join(moduleRoot(), "reports", "schema", name))
	if err != nil {
		t.Fatalf("compiling %s: %v", name, err)
	}
	return s
}

// validate checks data against schema s and that every key is snake_case
// when snake is set.
func validate(t *testing.T, s *jsonschema.Schema, what string, data []byte, snake bool) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s does not match its schema: %v", what, err)
	}
	if snake {
		for _, k := range keysOf(inst) {
			if !snakeRe.MatchString(k) {
				t.Errorf("%s: key %q is not snake_case", what, k)
			}
		}
	}
}

var snakeRe = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// keysOf lists every object key in a decoded JSON value.
func keysOf(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			out = append(append(out, k), keysOf(x)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, keysOf(x)...)
		}
	}
	return out
}

// TestReportJSONMatchesItsSchema validates report.json, of a synthetic full
// run with a failure of each kind and of real runs, against
// reports/schema/report.schema.json.
func TestReportJSONMatchesItsSchema(t *testing.T) {
	s := compileSchema(t, "report.schema.json")
	r := fullReport(t)
	r.Suites[0].Outcome, r.Suites[0].Output, r.Suites[0].Repro = props.Failed, "boom", "go run ./cmd/verify run"
	r.Campaign.Mutants[0].Killed, r.Campaign.Mutants[0].KilledBy = false, nil
	r.Campaign.Mutants[1].Error = "timed out after 3m0s (hang?)"
	r.Run.Shard = &Shard{Index: 1, Count: 2, Items: 10, Fingerprint: "ab", Costs: "x"}
	r.Errors = []string{"building with -tags mutants: exit status 1"}
	r.summarize()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, s, "a synthetic report", data, true)

	out := t.TempDir()
	file := benchFile(t, "BenchmarkPair/impl=Model-2 1000000 50 ns/op 0 B/op 0 allocs/op", "BenchmarkPair/impl=Fast-2 1000000 25 ns/op 0 B/op 0 allocs/op")
	for _, args := range [][]string{
		append(append([]string{"run"}, cheapSuite...), "-rapid.checks", "2", "-out", out),
		{"bench", "-file", file, "-out", out},
	} {
		if _, stderr, code := verify(t, nil, args...); code != 0 {
			t.Fatalf("verify %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	runs, _ := filepath.Glob(filepath.Join(out, "*", "report.json"))
	if len(runs) != 2 {
		t.Fatalf("want two run directories, got %v", runs)
	}
	for _, p := range runs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		validate(t, s, p, data, true)
	}
}

// TestMutationReportMatchesItsSchema validates mutation-report.json
// against the mutation-testing-report-schema, and checks that each bug is
// placed on its bugs.On seam.
func TestMutationReportMatchesItsSchema(t *testing.T) {
	r := fullReport(t)
	r.Campaign.Mutants[0].Killed, r.Campaign.Mutants[0].KilledBy = false, nil
	r.Campaign.Mutants[1].Error = "timed out after 3m0s (hang?)"
	r.Campaign.Mutants[2].Error = "child failed: exit status 2"
	data, err := r.mutationReport()
	if err != nil {
		t.Fatal(err)
	}
	validate(t, compileSchema(t, "mutation-testing-report-schema.json"), mutationReportName, data, false)
	var mr mutationReport
	if err := json.Unmarshal(data, &mr); err != nil {
		t.Fatal(err)
	}
	statuses := map[string]string{}
	for path, f := range mr.Files {
		src := strings.Split(f.Source, "\n")
		for _, m := range f.Mutants {
			statuses[m.ID] = m.Status
			if strings.HasPrefix(m.ID, "zz-") {
				continue // registered by the mutant build's tests, with no seam in the module's code
			}
			if line := m.Location.Start.Line; line > len(src) || !strings.Contains(src[line-1], "bugs.On(") {
				t.Errorf("%s is placed at %s:%d, which is not a bugs.On seam", m.ID, path, line)
			}
		}
	}
	if len(statuses) != len(bugs.Catalogue()) {
		t.Errorf("%d of %d bugs are in the report", len(statuses), len(bugs.Catalogue()))
	}
	want := map[string]string{string(r.Campaign.Mutants[0].Bug.ID): "Survived", string(r.Campaign.Mutants[1].Bug.ID): "Timeout",
		string(r.Campaign.Mutants[2].Bug.ID): "RuntimeError", string(r.Campaign.Mutants[3].Bug.ID): "Killed"}
	for id, st := range want {
		if statuses[id] != st {
			t.Errorf("%s has status %q, want %q", id, statuses[id], st)
		}
	}
}

// TestEachCommandWritesARunDirectoryOfItsOwn: two runs never share a
// directory, and a narrowed run leaves latest alone.
func TestEachCommandWritesARunDirectoryOfItsOwn(t *testing.T) {
	out := t.TempDir()
	args := append(append([]string{"run"}, cheapSuite...), "-rapid.checks", "2", "-out", out)
	for range 2 {
		if _, stderr, code := verify(t, nil, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "run-*"))
	if len(dirs) != 2 {
		t.Fatalf("two runs wrote %v, want two directories", dirs)
	}
	for _, d := range dirs {
		for _, f := range []string{"report.json", "report.md", "report.html"} {
			if _, err := os.Stat(filepath.Join(d, f)); err != nil {
				t.Errorf("%s lacks %s", d, f)
			}
		}
	}
	if _, err := os.Lstat(filepath.Join(out, latestName)); err == nil {
		t.Error("a narrowed run made latest")
	}
	_, stderr, code := verify(t, nil, append(args[:len(args)-1:len(args)-1], filepath.Join(out, latestName))...)
	if code != 2 || !strings.Contains(stderr, "run's directory") {
		t.Errorf("-out naming latest: exit %d, stderr %q; want 2", code, stderr)
	}
	_, stderr, code = verify(t, nil, append(args[:len(args)-1:len(args)-1], dirs[0])...)
	if code != 2 || !strings.Contains(stderr, "run's directory") {
		t.Errorf("-out naming a run directory: exit %d, stderr %q; want 2", code, stderr)
	}
}

// TestLatestNamesTheNewestFullRunThatPassed: a failed or narrowed run
// never replaces latest; a directory left where latest goes is kept.
func TestLatestNamesTheNewestFullRunThatPassed(t *testing.T) {
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(out, latestName), 0o755); err != nil { // as verify wrote before
		t.Fatal(err)
	}
	save := func(full, pass bool) string {
		r := fullReport(t)
		r.Run.Full = full
		if !pass {
			r.Suites[0].Outcome = props.Failed
		}
		r.Summary.Started = r.Summary.Started.Add(time.Duration(len(mustGlob(t, filepath.Join(out, "all-*")))) * time.Hour)
		captureStdout(t, func() {
			if !r.save(out) {
				t.Fatal("save failed")
			}
		})
		return r.Run.Dir
	}
	latest := func() string {
		l, _ := os.Readlink(filepath.Join(out, latestName))
		return l
	}
	first := save(true, true)
	if latest() != first {
		t.Fatalf("latest is %q after a full run that passed, want %q", latest(), first)
	}
	if moved := mustGlob(t, filepath.Join(out, "latest-before-*")); len(moved) != 1 {
		t.Errorf("the old latest directory was not kept aside: %v", moved)
	}
	save(true, false)
	save(false, true)
	if latest() != first {
		t.Errorf("latest is %q after a failed and a narrowed run, want still %q", latest(), first)
	}
	second := save(true, true)
	if latest() != second {
		t.Errorf("latest is %q, want the newest full run %q", latest(), second)
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFiltersAreCheckedBeforeAnyWork: a filter that names nothing lists
// what it could name, and the command writes nothing.
func TestFiltersAreCheckedBeforeAnyWork(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-domain", "nosuch"}, "the domains are: bank, overlap, refcount, sizeclass, tensormap"},
		{[]string{"all", "-domain", "bank,nosuch"}, "-domain nosuch: no such domain"},
		{[]string{"mutants", "-property", "Nope"}, "no such property; the properties are:"},
		{[]string{"run", "-impl", "Nope"}, "no such implementation"},
		{[]string{"mutants", "-bug", "bank/nope"}, "no such seeded bug"},
		{[]string{"run", "-domain", "bank", "-property", "MatchesModel"}, "no suite matches the filters"},
		{[]string{"mutants", "-seeds", "0"}, "bad seed"},
		{[]string{"run", "-shard", "4/3"}, "want i/n"},
	} {
		out := filepath.Join(t.TempDir(), "reports")
		stdout, stderr, code := verify(t, nil, append(c.args, "-out", out)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("verify %s: exit %d, stderr %q; want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil || stdout != "" {
			t.Errorf("verify %s wrote %s or printed %q before refusing", strings.Join(c.args, " "), out, stdout)
		}
	}
}

// TestTracesGoToFilesOfTheirOwn: a failure's output is in traces/, linked
// from report.md and report.html.
func TestTracesGoToFilesOfTheirOwn(t *testing.T) {
	r := fullReport(t)
	r.Suites[3].Outcome, r.Suites[3].Output = props.Failed, "[rapid] failed after 3 tests\n   1  Op() -> boom\nboom"
	dir := t.TempDir()
	r.setDir(dir)
	captureStdout(t, func() {
		if err := r.write(dir); err != nil {
			t.Fatal(err)
		}
	})
	file := traceFile("suite", r.Suites[3].Name)
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil || !strings.Contains(string(data), "Op() -> boom") {
		t.Fatalf("%s: %v %q", file, err, data)
	}
	for _, page := range []string{"report.md", "report.html"} {
		data, _ := os.ReadFile(filepath.Join(dir, page))
		if !strings.Contains(string(data), file) {
			t.Errorf("%s does not link %s", page, file)
		}
		if strings.Contains(string(data), "Op() -> boom") {
			t.Errorf("%s holds the trace itself", page)
		}
	}
	if !slices.ContainsFunc(r.Summary.Failures, func(f Failure) bool { return f.Trace == file && f.What == "boom" }) {
		t.Errorf("the summary's failure does not name its trace: %+v", r.Summary.Failures)
	}
}

// TestProgressEstimatesTheTimeLeft: a step's line has its count and, until
// the last, the time left.
func TestProgressEstimatesTheTimeLeft(t *testing.T) {
	p := newProgress(3, 6)
	if c, eta := p.step(1); c != "[1/3]" || !strings.Contains(eta, "left") {
		t.Errorf("first step: %q %q", c, eta)
	}
	p.step(2)
	if c, eta := p.step(3); c != "[3/3]" || strings.Contains(eta, "left") {
		t.Errorf("last step: %q %q", c, eta)
	}
	var got []string
	var rest bytes.Buffer
	tap := &progressTap{rest: &rest, onLine: func(l string) { got = append(got, l) }}
	fmt.Fprintf(tap, "noise\n%sa/B/impl=C seed 1 pass 1ms\npartial", childProgressPrefix)
	fmt.Fprintf(tap, " line\n")
	if !slices.Equal(got, []string{"a/B/impl=C seed 1 pass 1ms"}) || rest.String() != "noise\npartial line\n" {
		t.Errorf("progress lines %q, the rest %q", got, rest.String())
	}
}
