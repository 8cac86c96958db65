package main

// The report. Every command keeps what it found as the structured values
// below, and every file of its run directory is rendered from them alone:
// report.json (the source; schema in reports/schema/report.schema.json),
// report.md and report.html (summary first, then one section per domain,
// then the details), traces/ (each failure's full output, linked from its
// row), histories/ (porcupine's drawings of histories that are not
// linearizable) and, for a seeded-bug campaign, mutation-report.json in the
// format mutation-testing tools share. `verify merge` rebuilds all of them
// from shards' report.json files, so nothing a report shows may exist only
// in printed text.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/memverify/memverify/internal/benchcmp"
	"github.com/memverify/memverify/internal/goals"
)

// schemaVersion is report.json's format. It grows by one when a field
// changes meaning or goes; a new optional field leaves it alone.
const schemaVersion = 1

// Report is everything one verify run found.
type Report struct {
	SchemaVersion int            `json:"schema_version"`
	Summary       Summary        `json:"summary"`
	Run           RunInfo        `json:"run"`
	Suites        []SuiteResult  `json:"suites,omitempty"`
	Campaign      *campaign      `json:"mutants,omitempty"`
	Accuracy      *Accuracy      `json:"overlap_accuracy,omitempty"`
	Bench         []benchcmp.Row `json:"bench,omitempty"`
	// BenchSource says where the benchmark results come from: this run,
	// the files it read, or an earlier bench run of the same commit.
	BenchSource string          `json:"bench_source,omitempty"`
	Goals       []goals.Verdict `json:"goals,omitempty"`
	GoalRuns    []RunVerdicts   `json:"goals_by_run,omitempty"`
	// Gate is set when the goals decide the verdict (bench -gate); else a
	// missed goal is a note, not a failure.
	Gate bool `json:"gate,omitempty"`
	// Errors are what kept a part of the run from a result (a campaign
	// whose mutant binary did not build): each fails the run.
	Errors []string `json:"errors,omitempty"`

	dir string // the run directory, once made
}

// RunInfo is what ran: the command, its filters, its shard.
type RunInfo struct {
	Command  string    `json:"command"`
	Args     []string  `json:"args"`
	Library  string    `json:"library,omitempty"` // run -lib: the C or C++ library whose suites ran
	Filters  Filters   `json:"filters"`
	Shard    *Shard    `json:"shard,omitempty"`
	Merged   []string  `json:"merged_from,omitempty"` // the shards' run directories, for a merge
	Machines []Machine `json:"machines,omitempty"`    // each shard's machine, for a merge
	Finished time.Time `json:"finished"`
	Dir      string    `json:"dir"` // the run directory's name
	// Full is set for an unfiltered, unsharded run of every suite and
	// seeded bug (or a merge of every shard of one): only such a run, if
	// it passed, becomes <out>/latest.
	Full bool `json:"full"`
}

// Filters are the selection the run was narrowed to ("" selects all).
type Filters struct {
	Domain   string `json:"domain,omitempty"`
	Property string `json:"property,omitempty"`
	Impl     string `json:"impl,omitempty"`
	Bug      string `json:"bug,omitempty"`
}

func (f Filters) any() bool { return f != Filters{} }

// newReport starts a report: its start is now, before any work.
func newReport() *Report {
	src := thisSource()
	return &Report{SchemaVersion: schemaVersion, Summary: Summary{
		Started: time.Now().UTC(), GoVersion: runtime.Version(), Machine: thisMachine(),
		Commit: src.Commit, Dirty: src.Dirty,
		Budget: thisBudget(nil),
	}, Run: RunInfo{Args: os.Args[1:]}}
}

// save finishes the report and writes it to its run directory (made under
// out now, if the command did not make it at its start). On failure it
// prints the error and returns false, and the command must then fail: a
// run whose report was lost must not pass for one that has it.
func (r *Report) save(out string) bool {
	if r.dir == "" {
		dir, err := makeRunDir(out, r.command(), "", r.Summary.Started)
		if err != nil {
			fmt.Fprintf(os.Stderr, "verify: writing the report: %v\n", err)
			return false
		}
		r.setDir(dir)
	}
	if r.Run.Finished.IsZero() {
		r.Run.Finished = time.Now().UTC()
		r.Summary.Duration = r.Run.Finished.Sub(r.Summary.Started)
	}
	r.summarize()
	if err := r.write(r.dir); err != nil {
		fmt.Fprintf(os.Stderr, "verify: writing the report: %v\n", err)
		return false
	}
	if r.Run.Full && r.Summary.Verdict == verdictPass {
		if err := pointLatest(r.dir); err != nil {
			fmt.Fprintf(os.Stderr, "verify: %v\n", err)
			return false
		}
		fmt.Printf("%s now names this run\n", filepath.Join(filepath.Dir(r.dir), latestName))
	}
	return true
}

func (r *Report) command() string {
	if r.Run.Command == "" {
		return "report"
	}
	return r.Run.Command
}

func (r *Report) setDir(dir string) {
	r.dir = dir
	r.Run.Dir = filepath.Base(dir)
}

// write renders the report into dir: every format, from the same values.
func (r *Report) write(dir string) error {
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding report.json: %w", err)
	}
	files := []struct {
		name string
		data func() ([]byte, error)
	}{
		{"report.json", func() ([]byte, error) { return append(js, '\n'), nil }},
		{"report.md", func() ([]byte, error) { return []byte(r.markdown()), nil }},
		{"report.html", r.html},
	}
	if r.Campaign != nil && len(r.Campaign.Mutants) > 0 {
		files = append(files, struct {
			name string
			data func() ([]byte, error)
		}{mutationReportName, r.mutationReport})
	}
	for _, f := range files {
		data, err := f.data()
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), data, 0o644); err != nil {
			return err
		}
	}
	if err := r.writeTraces(dir); err != nil {
		return err
	}
	os.Remove(filepath.Join(dir, "histories")) // if no drawing was kept: an empty directory says nothing
	fmt.Printf("report written to %s/ (report.html, report.md, report.json)\n", dir)
	return nil
}
