package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/memverify/memverify/internal/benchcmp"
	"github.com/memverify/memverify/internal/goals"
)

// benchOptions are the flags of `verify bench`.
type benchOptions struct {
	pattern   string
	count     int
	benchtime string
	file      string
	gate      bool // exit 1 unless every goal is measured in full and met
}

// runBench runs the benchmarks in bench/ in interleaved rounds (benchRounds)
// or reads files of earlier results, reports each implementation against the
// model of its group with benchstat's statistics, and judges the performance
// goals. Several files (-file a.txt,b.txt or a glob) are pooled for the
// table, and each is also judged alone: on a shared host a goal can hold in
// one run and not the next, and the reader should see which. Saved results
// are read and judged before the run directory is made: a file that cannot
// be read leaves nothing behind.
func runBench(o options, bo benchOptions) int {
	var runs []benchRun
	var judged benchJudged
	if bo.file != "" {
		var err error
		if runs, err = readRuns(bo.file); err != nil {
			fmt.Fprintf(os.Stderr, "verify bench: %v\n", err)
			return 2
		}
		if judged, err = judgeRuns(runs); err != nil {
			fmt.Fprintf(os.Stderr, "verify bench: %v\n", err)
			return 1
		}
	}
	rep, code := begin("bench", &o)
	if code >= 0 {
		return code
	}
	code = 0
	rep.Gate = bo.gate
	if bo.file != "" {
		var names []string
		for _, r := range runs {
			names = append(names, r.name)
		}
		rep.BenchSource = "the files " + strings.Join(names, ", ")
	} else {
		np := &numpyPeer{pattern: bo.pattern, benchtime: bo.benchtime}
		data, err := benchRoundsWith(moduleRoot(), "bench", bo.pattern, bo.benchtime, bo.count, os.Stdout, np)
		if err == nil {
			rep.BenchSource = fmt.Sprintf("this run: %d interleaved rounds of -benchtime %s", bo.count, bo.benchtime) + np.source()
			rep.Errors = append(rep.Errors, np.errs...) // Exact wrong where NumPy is right, or the peer failed
			if err := saveSamples(rep.dir, data); err != nil {
				fmt.Fprintf(os.Stderr, "verify bench: %v\n", err)
				code = 1 // the samples are measured: still judge them, then fail
			}
			judged, err = judgeRuns([]benchRun{{"bench.txt", data}})
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "verify bench: %v\n", err)
			rep.Errors = append(rep.Errors, err.Error())
			finish(rep)
			return 1
		}
	}
	printJudged(judged)
	rep.Bench, rep.Goals = judged.rows, judged.verdicts
	if len(judged.perRun) > 1 {
		rep.GoalRuns = judged.perRun
	}
	if bo.gate && !gatePasses(judged.verdicts, os.Stderr) {
		code = 1
	}
	if finish(rep) != 0 {
		code = 1
	}
	return code
}

// benchJudged is a set of runs read and judged: the pooled table, the
// goals on it, and the goals on each run alone.
type benchJudged struct {
	rows     []benchcmp.Row
	verdicts []goals.Verdict
	perRun   []RunVerdicts
}

// judgeRuns reads each run alone first, so that an error names its own
// file and line, not a position in the pooled text; then pools them.
func judgeRuns(runs []benchRun) (benchJudged, error) {
	var j benchJudged
	var err error
	if j.perRun, err = judgeEach(runs); err != nil {
		return j, err
	}
	var pooled []byte
	for _, r := range runs {
		pooled = append(pooled, r.data...)
		pooled = append(pooled, '\n')
	}
	if j.rows, err = benchcmp.Parse(bytes.NewReader(pooled), runs[0].name, "Model"); err != nil {
		return j, fmt.Errorf("reading results: %w", err)
	}
	if len(j.rows) == 0 {
		return j, fmt.Errorf("no benchmark results")
	}
	var names []string
	var each [][]benchcmp.Row
	for _, r := range j.perRun {
		names, each = append(names, r.Run), append(each, r.rows)
	}
	j.verdicts = goals.JudgeCampaigns(j.rows, names, each)
	return j, nil
}

// printJudged prints the table and the goals, and each run's goals when
// there are several.
func printJudged(j benchJudged) {
	fmt.Printf("\n%s", benchcmp.Format(j.rows))
	what := "this run"
	if len(j.perRun) > 1 {
		what = fmt.Sprintf("the %d runs pooled", len(j.perRun))
	}
	incomplete := ""
	if unmeasured := goals.Unmeasured(j.verdicts); len(unmeasured) > 0 {
		incomplete = fmt.Sprintf("; %d of %d goals not measured in full", len(unmeasured), len(j.verdicts))
	}
	fmt.Printf("\nGoals (%d of %d measured goals missed in %s%s):\n\n%s", goals.Missed(j.verdicts), measured(j.verdicts), what, incomplete, goals.Format(j.verdicts))
	if len(j.perRun) > 1 {
		fmt.Printf("\nGoals run by run (each cell: the case closest to its bound, or the worst miss):\n\n%s", formatRuns(j.perRun))
	}
}

// gatePasses reports whether no goal was missed and every goal was
// measured in full, and names on w each goal that was not. A goal missed
// (its interval beyond its bound) fails the gate, and so does one the run
// did not measure, or measured in part: a gate that passes when a
// benchmark was renamed, or when -bench selected too little, would guard
// nothing while reading as green. An inconclusive goal passes: its
// interval holds its bound, and failing it would fail on the host's
// weather.
//
// A pending goal (goals.Goal.Pending) is shown and never gated.
func gatePasses(vs []goals.Verdict, w io.Writer) bool {
	gated := goals.Gated(vs)
	missed, unmeasured := goals.Missed(gated), goals.Unmeasured(gated)
	if missed > 0 {
		fmt.Fprintf(w, "verify bench: %d goals not met (-gate)\n", missed)
	}
	for _, v := range unmeasured {
		fmt.Fprintf(w, "verify bench: -gate: %s: %q %s: %s\n", v.Domain, v.Goal, v.Status, strings.Join(v.Missing, "; "))
	}
	return missed == 0 && len(unmeasured) == 0
}

// saveSamples keeps a run's samples as bench.txt under dir, for benchstat.
func saveSamples(dir string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("saving the samples: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.txt"), data, 0o644); err != nil {
		return fmt.Errorf("saving the samples: %w", err)
	}
	return nil
}

// RunVerdicts are the goals judged on one run alone.
type RunVerdicts struct {
	Run   string          `json:"run"`
	Goals []goals.Verdict `json:"goals"`
	rows  []benchcmp.Row  // the run's own rows, for goals judged campaign by campaign
}

// judgeEach judges the goals on each run by itself.
func judgeEach(runs []benchRun) ([]RunVerdicts, error) {
	var out []RunVerdicts
	for _, r := range runs {
		rows, err := benchcmp.Parse(bytes.NewReader(r.data), r.name, "Model")
		if err != nil {
			return nil, fmt.Errorf("reading results: %w", err) // err names the file and line
		}
		out = append(out, RunVerdicts{Run: filepath.Base(r.name), Goals: goals.Judge(rows), rows: rows})
	}
	return out, nil
}

// formatRuns renders the verdicts of several runs side by side.
func formatRuns(rv []RunVerdicts) string {
	names := make([]string, len(rv))
	each := make([][]goals.Verdict, len(rv))
	for i, r := range rv {
		names[i], each[i] = r.Run, r.Goals
	}
	return goals.FormatRuns(names, each)
}

// benchRun is the output of one benchmark run.
type benchRun struct {
	name string
	data []byte
}

// readRuns reads the files of a comma-separated list, each entry a path or
// a glob, in order. A file named twice (a repeated entry, overlapping globs,
// ./a.txt and a.txt) is read once: read again, its samples would count
// twice in the pooled medians and narrow their intervals with no new
// measurement.
func readRuns(list string) ([]benchRun, error) {
	var runs []benchRun
	seen := map[string]bool{}
	for _, pat := range strings.Split(list, ",") {
		paths, err := filepath.Glob(pat)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", pat, err)
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("%s: no such file", pat)
		}
		for _, p := range paths {
			abs, err := filepath.Abs(p) // cleaned
			if err != nil {
				return nil, err
			}
			if seen[abs] {
				continue
			}
			seen[abs] = true
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			runs = append(runs, benchRun{p, data})
		}
	}
	return runs, nil
}

// measured counts the goals the run had benchmarks for, in whole or in part.
func measured(vs []goals.Verdict) int {
	n := 0
	for _, v := range vs {
		if v.Status != goals.NotMeasured {
			n++
		}
	}
	return n
}

func joinArgs(args []string) string {
	var b bytes.Buffer
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a == "^$" {
			a = "'^$'"
		}
		b.WriteString(a)
	}
	return b.String()
}
