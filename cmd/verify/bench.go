package main

import (
	"bytes"
	"fmt"
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
	gate      bool // exit 1 when a measured goal is not met
}

// runBench runs the benchmarks in bench/ in interleaved rounds (benchRounds)
// or reads files of earlier results, reports each implementation against the
// model of its group with benchstat's statistics, and judges the performance
// goals. Several files (-file a.txt,b.txt or a glob) are pooled for the
// table, and each is also judged alone: on a shared host a goal can hold in
// one run and not the next, and the reader should see which.
func runBench(o options, bo benchOptions) int {
	var runs []benchRun
	if bo.file != "" {
		var err error
		if runs, err = readRuns(bo.file); err != nil {
			fmt.Fprintf(os.Stderr, "verify bench: %v\n", err)
			return 2
		}
	} else {
		data, err := benchRounds(moduleRoot(), "bench", bo.pattern, bo.benchtime, bo.count, os.Stdout)
		if err != nil {
			fmt.Fprintf(os.Stderr, "verify bench: %v\n", err)
			return 1
		}
		runs = []benchRun{{"bench.txt", data}}
		if err := os.MkdirAll(o.out, 0o755); err == nil {
			os.WriteFile(filepath.Join(o.out, "bench.txt"), data, 0o644)
		}
	}
	var pooled []byte
	for _, r := range runs {
		pooled = append(pooled, r.data...)
		pooled = append(pooled, '\n')
	}
	rows, err := benchcmp.Parse(bytes.NewReader(pooled), runs[0].name, "Model")
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify bench: reading results: %v\n", err)
		return 1
	}
	if len(rows) == 0 {
		fmt.Fprintln(os.Stderr, "verify bench: no benchmark results")
		return 1
	}
	fmt.Printf("\n%s", benchcmp.Format(rows))
	verdicts := goals.Judge(rows)
	what := "this run"
	if len(runs) > 1 {
		what = fmt.Sprintf("the %d runs pooled", len(runs))
	}
	fmt.Printf("\nGoals (%d of %d measured goals missed in %s):\n\n%s", goals.Missed(verdicts), measured(verdicts), what, goals.Format(verdicts))
	rep := newReport()
	rep.Bench, rep.Goals = rows, verdicts
	if len(runs) > 1 {
		if rep.GoalRuns, err = judgeEach(runs); err != nil {
			fmt.Fprintf(os.Stderr, "verify bench: %v\n", err)
			return 1
		}
		fmt.Printf("\nGoals run by run (each cell: the case closest to its bound, or the worst miss):\n\n%s", formatRuns(rep.GoalRuns))
	}
	if err := rep.write(o.out); err != nil {
		fmt.Fprintf(os.Stderr, "verify: writing the report: %v\n", err)
	}
	if bo.gate && goals.Missed(verdicts) > 0 {
		fmt.Fprintf(os.Stderr, "verify bench: %d goals not met (-gate)\n", goals.Missed(verdicts))
		return 1
	}
	return 0
}

// RunVerdicts are the goals judged on one run alone.
type RunVerdicts struct {
	Run   string          `json:"run"`
	Goals []goals.Verdict `json:"goals"`
}

// judgeEach judges the goals on each run by itself.
func judgeEach(runs []benchRun) ([]RunVerdicts, error) {
	var out []RunVerdicts
	for _, r := range runs {
		rows, err := benchcmp.Parse(bytes.NewReader(r.data), r.name, "Model")
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", r.name, err)
		}
		out = append(out, RunVerdicts{Run: filepath.Base(r.name), Goals: goals.Judge(rows)})
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
// a glob, in order.
func readRuns(list string) ([]benchRun, error) {
	var runs []benchRun
	for _, pat := range strings.Split(list, ",") {
		paths, err := filepath.Glob(pat)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", pat, err)
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("%s: no such file", pat)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			runs = append(runs, benchRun{p, data})
		}
	}
	return runs, nil
}

// measured counts the goals the run had benchmarks for.
func measured(vs []goals.Verdict) int {
	n := 0
	for _, v := range vs {
		if v.Status != "not measured" {
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
