package main

// The seeded-bug campaign runs each bug in a child process of its own (a bug
// may corrupt memory, hang or panic), from a binary built with -tags mutants.
// This file is both sides of that: runChild starts a child and reads its
// report; mutantChild is what the child runs.
//
// The child writes its report, JSON, to a file the parent names
// (-child-report), never to stdout: rapid (RAPID_LOG, -rapid.v) and the code
// under test may print there, and a report mixed into their output could not
// be read. What the child prints is kept, its last few kilobytes, to explain
// a child that wrote no report.
//
// A bug's child rewrites its report after every suite, not only at the end:
// once the bug is killed, the child goes on through the other suites to fill
// its row of the kill matrix, and one of them may hang or crash under the
// bug. The parent, which must then kill the child or finds it dead, still
// reads the kill.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/internal/linear"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/suites"
)

// childReport is what a child process writes: the bug's result, or, for the
// unmutated baseline, every suite's.
type childReport struct {
	Mutant   *MutantResult `json:"mutant,omitempty"`
	Baseline []SuiteResult `json:"baseline,omitempty"`
}

// childJob is what one child process runs: a bug ("" for the unmutated
// baseline) against the suites of its domain, implementation and property
// filters, under each of seeds (comma-separated).
type childJob struct {
	bug, domain, property, impl, seeds string
	// progress, if set, gets each progress line the child writes (the
	// baseline's child writes one per suite run).
	progress func(line string)
}

// childTimeout bounds one child's run: a seeded bug may deadlock the code it
// sits in, and a hang must not stall the campaign. Six minutes is ample at
// the defaults (500 checks, rapid's 30 steps, three seeds) for the longest
// child, a domain's baseline, which runs every suite of the domain under
// every seed (refcount's, scheduled suites included, takes about three on a
// loaded two-core machine). A
// longer search is not a hang, so the bound grows in proportion to each of
// the three; it never drops below six minutes, since a suite that takes no
// steps costs as much with fewer of them.
func childTimeout(checks, steps, seeds int) time.Duration {
	const base = 6 * time.Minute
	scale := max(1, float64(checks)/defaultChecks) * max(1, float64(steps)/30) * max(1, float64(seeds)/3)
	return time.Duration(min(float64(base)*scale, math.MaxInt64/2)) // no overflow on an absurd budget
}

// childSuiteTimeout bounds one suite's run inside a child: a third of the
// child's own bound for one seed (a minute at the default budget, where the
// longest suite takes seconds). At the child's bound itself, the parent,
// which started its clock first, would always kill the child before the
// suite timed out, and a kill found earlier would go with it; this far
// below, a suite that a bug hangs fails on its own, and the child goes on.
func childSuiteTimeout() time.Duration {
	return childTimeout(flagInt("rapid.checks"), flagInt("rapid.steps"), 1) / 3
}

// timeout is the bound on the job's child.
func (job childJob) timeout() time.Duration {
	return childTimeout(flagInt("rapid.checks"), flagInt("rapid.steps"), strings.Count(job.seeds, ",")+1)
}

// runChild runs the mutant binary bin on one job, for at most timeout, and
// decodes its report. The report file is created in dir. When the child
// times out or fails, the error says so, and into holds whatever report the
// child wrote before (a bug's child writes one after every suite), if any.
func runChild(bin, dir string, job childJob, timeout time.Duration, into *childReport) error {
	f, err := os.CreateTemp(dir, "child-*.json")
	if err != nil {
		return fmt.Errorf("creating the child's report file: %w", err)
	}
	f.Close()
	report := f.Name()
	defer os.Remove(report)

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, childArgs(job, report)...)
	cmd.Env = childEnv()
	var stdout, stderr tailBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &progressTap{rest: &stderr, onLine: job.progress}
	runErr := cmd.Run()
	output := func() string {
		return fmt.Sprintf("stderr:\n%s\nstdout:\n%s", stderr.String(), stdout.String())
	}
	var rep childReport
	data, err := os.ReadFile(report)
	if err == nil {
		err = json.Unmarshal(data, &rep) // an empty file: the child wrote nothing yet
	}
	if err == nil {
		*into = rep
	}
	if ctx.Err() != nil {
		return fmt.Errorf("timed out after %v (hang?)\n%s", timeout, output())
	}
	if runErr != nil {
		return fmt.Errorf("child failed: %w\n%s", runErr, output())
	}
	if err != nil {
		return fmt.Errorf("child wrote no readable report: %w\n%s", err, output())
	}
	return nil
}

// childArgs are the child's command line: the job, where to write the
// report, and every flag of rapid's that is set here.
func childArgs(job childJob, report string) []string {
	args := []string{"mutant-child", "-bug", job.bug, "-domain", job.domain, "-property", job.property,
		"-impl", job.impl, "-seeds", job.seeds, "-child-report", report}
	return append(args, rapidArgs()...)
}

// rapidArgs are the flags of rapid's that are set here (the user's, and the
// budget verify sets), as -name=value, so that a campaign's children search
// as the user asked. -rapid.seed is left out: a child sets it to each of its
// job's seeds.
func rapidArgs() []string {
	var args []string
	flag.Visit(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "rapid.") && f.Name != "rapid.seed" {
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	return args
}

// childEnv is this process's environment without MEMVERIFY_BUG: a bug left
// switched on in the user's shell must not reach the unmutated baseline. The
// child also activates its bug (or none) explicitly. Drawings of histories
// that are not linearizable go to this run's histories directory.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MEMVERIFY_BUG=") && !strings.HasPrefix(kv, linear.HistoryDirEnv+"=") {
			env = append(env, kv)
		}
	}
	if historyDir != "" {
		if abs, err := filepath.Abs(historyDir); err == nil {
			env = append(env, linear.HistoryDirEnv+"="+abs)
		}
	}
	return env
}

// flagInt is the value of an int flag of rapid's, 0 if it is not one.
func flagInt(name string) int {
	if f := flag.Lookup(name); f != nil {
		n, _ := strconv.Atoi(f.Value.String())
		return n
	}
	return 0
}

// flagUint is the value of a uint64 flag of rapid's, 0 if it is not one.
func flagUint(name string) uint64 {
	if f := flag.Lookup(name); f != nil {
		n, _ := strconv.ParseUint(f.Value.String(), 10, 64)
		return n
	}
	return 0
}

// tailBuffer keeps the last tailBytes bytes written to it: enough to show
// why a child failed, without holding a verbose child's whole log.
type tailBuffer struct {
	buf       []byte
	truncated bool
}

const tailBytes = 4000

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
		t.truncated = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if len(t.buf) > tailBytes || t.truncated {
		return "..." + string(t.buf[max(0, len(t.buf)-tailBytes):])
	}
	return string(t.buf)
}

// mutantChild runs inside the mutant binary: it activates one bug (or none,
// for the baseline) and runs the suites of the bug's domain and
// implementation that match -property, the expected killer first, under each
// seed, until one fails. It writes its report to -child-report.
func mutantChild(o options) int {
	if !bugs.Enabled {
		fmt.Fprintln(os.Stderr, "verify: mutant-child needs a binary built with -tags mutants")
		return 2
	}
	if o.childReport == "" {
		fmt.Fprintln(os.Stderr, "verify: mutant-child needs -child-report, the file to write its report to")
		return 2
	}
	seeds, err := parseSeeds(o.seeds)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	// Explicitly, even for the baseline: bugs.On would otherwise fall back
	// on MEMVERIFY_BUG.
	if err := bugs.Activate(bugs.ID(o.bug)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	limit := childSuiteTimeout()
	historyDir, historyPrefix = os.Getenv(linear.HistoryDirEnv), o.bug
	var rep childReport
	var werr error
	if o.bug == "" {
		historyPrefix = "baseline"
		for _, seed := range seeds {
			for _, s := range suites.Select(o.domain, o.property, o.impl) {
				r := runSuite(s, seed, limit)
				rep.Baseline = append(rep.Baseline, r)
				fmt.Fprintf(os.Stderr, "%s%s seed %d %s %v\n", childProgressPrefix, r.Name, seed, r.Outcome, r.Duration.Round(time.Millisecond))
			}
		}
	} else {
		b, _ := bugs.Lookup(bugs.ID(o.bug)) // Activate refused any other
		res := huntBug(b, suites.Select(b.Domain, o.property, b.Impl), seeds, limit, func(so MutantResult) {
			if werr == nil {
				werr = writeChildReport(o.childReport, childReport{Mutant: &so})
			}
		})
		rep.Mutant = &res
	}
	if werr == nil {
		werr = writeChildReport(o.childReport, rep)
	}
	if werr != nil {
		fmt.Fprintf(os.Stderr, "verify: writing the child's report: %v\n", werr)
		return 1
	}
	return 0
}

// writeChildReport replaces the report at path with rep in one step (a
// write to a file beside it, then a rename), so that a parent that kills the
// child mid-write reads the previous report whole, never half of this one.
func writeChildReport(path string, rep childReport) error {
	data, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// huntBug runs suites against the active bug, the expected killer first,
// each under the seeds in turn until it fails, each run bounded by limit.
// After every run it passes the result so far to progress (the child writes
// it out), so that a kill outlives a later suite that hangs or crashes the
// process. A run that times out fails, like any other: under the bug, the
// property did not hold.
func huntBug(b bugs.Bug, suites []suites.Suite, seeds []uint64, limit time.Duration, progress func(MutantResult)) MutantResult {
	sort.SliceStable(suites, func(i, j int) bool { return suites[i].Property == b.Killer && suites[j].Property != b.Killer })
	res := MutantResult{Bug: b}
	start := time.Now()
	for _, s := range suites {
		for _, seed := range seeds {
			r := runSuite(s, seed, limit)
			if !res.Killed {
				res.Checks += r.Checks
				res.Duration = time.Since(start)
				if r.OutputError != "" && res.OutputError == "" {
					res.OutputError = r.Name + ": " + r.OutputError
				}
			}
			failed := r.Outcome == props.Failed
			if failed && !slices.Contains(res.KilledBy, s.Property) {
				res.KilledBy = append(res.KilledBy, s.Property)
			}
			if failed && !res.Killed {
				res.Killed, res.By, res.Expected = true, s.Property, s.Property == b.Killer
				res.Trace, res.History = r.Output, r.History
				res.Seed, res.Repro = mutantRepro(b, s, r)
			}
			progress(res)
			if failed {
				break // this property has killed the bug; on to the next
			}
		}
	}
	if !res.Killed {
		res.Duration = time.Since(start)
	}
	return res
}

// mutantRepro is the seed and the command that reproduce a kill. The seed
// is the failing check's, which rapid reports: go test's budget is 100
// checks, not the campaign's, and from the run's base seed the failure may
// lie beyond it; from the failing check's own seed it comes on the first
// check. A failure without rapid's seed (a panic outside rapid's checks, a
// timeout, or a report of rapid's not read) gets the base seed and the
// budget the child ran with.
func mutantRepro(b bugs.Bug, s suites.Suite, r SuiteResult) (uint64, string) {
	cmd := fmt.Sprintf("MEMVERIFY_BUG=%s %s -tags %s", b.ID, s.GoTest(), bugTags())
	seed := r.Seed
	if seed == 0 {
		seed = r.BaseSeed
	}
	return seed, cmd + seedFlags(r) + generationFlags() + noFailFile
}

// seedFlags are the flags of rapid's that replay failure r: the failing
// check's seed, or else the base seed and the budget.
func seedFlags(r SuiteResult) string {
	if r.Seed != 0 {
		return fmt.Sprintf(" -rapid.seed=%d", r.Seed)
	}
	return fmt.Sprintf(" -rapid.seed=%d -rapid.checks=%d", r.BaseSeed, flagInt("rapid.checks"))
}

// noFailFile ends every go test repro. Without it, the failing run writes a
// fail file under props/testdata/rapid/, which each later run of that suite
// replays before its own search: the repro of another bug, or of the same
// one after a fix, would first meet this failure, or rapid's complaint that
// the file "is no longer valid". verify itself writes none (main.go).
const noFailFile = " -rapid.nofailfile"

// generationFlags are the flags of rapid's, set here, that change which case
// a seed generates: a repro needs them beside the seed.
func generationFlags() string {
	var b strings.Builder
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "rapid.steps" {
			fmt.Fprintf(&b, " -%s=%s", f.Name, f.Value)
		}
	})
	return b.String()
}
