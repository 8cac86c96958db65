package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

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

// runBench runs the benchmarks in bench/ (or reads a file of earlier results),
// and reports each implementation against the model of its group with
// benchstat's statistics.
func runBench(o options, bo benchOptions) int {
	var data []byte
	name := bo.file
	if bo.file != "" {
		var err error
		if data, err = os.ReadFile(bo.file); err != nil {
			fmt.Fprintf(os.Stderr, "verify bench: %v\n", err)
			return 2
		}
	} else {
		args := []string{"test", "./bench", "-run", "^$", "-bench", bo.pattern, "-benchmem",
			"-count", fmt.Sprint(bo.count), "-benchtime", bo.benchtime}
		fmt.Printf("go %s\n", joinArgs(args))
		var buf bytes.Buffer
		cmd := exec.Command("go", args...)
		cmd.Dir = moduleRoot()
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&buf, os.Stdout), os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "verify bench: %v\n", err)
			return 1
		}
		data, name = buf.Bytes(), "bench.txt"
		if err := os.MkdirAll(o.out, 0o755); err == nil {
			os.WriteFile(filepath.Join(o.out, "bench.txt"), data, 0o644)
		}
	}
	rows, err := benchcmp.Parse(bytes.NewReader(data), name, "Model")
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
	fmt.Printf("\nGoals (%d of %d measured goals missed in this run):\n\n%s", goals.Missed(verdicts), measured(verdicts), goals.Format(verdicts))
	rep := newReport()
	rep.Bench, rep.Goals = rows, verdicts
	if err := rep.write(o.out); err != nil {
		fmt.Fprintf(os.Stderr, "verify: writing the report: %v\n", err)
	}
	if bo.gate && goals.Missed(verdicts) > 0 {
		fmt.Fprintf(os.Stderr, "verify bench: %d goals not met (-gate)\n", goals.Missed(verdicts))
		return 1
	}
	return 0
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
