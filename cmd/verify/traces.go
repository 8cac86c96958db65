package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memverify/memverify/props"
)

// A trace is a failure's whole output: rapid's report and the shrunk op
// sequence, often hundreds of lines. The Markdown and HTML pages link to it
// from the failure's row instead of holding it, so that a page reads in a
// minute; report.json keeps it too, as the source of every file.

// traceItem is one file of traces/.
type traceItem struct{ file, header, body string }

// traces lists every trace the report links to.
func (r *Report) traces() []traceItem {
	var out []traceItem
	for _, s := range r.Suites {
		if s.Outcome == props.Failed {
			out = append(out, traceItem{traceFile("suite", s.Name), s.Name + "\nreproduce: " + s.Repro, s.Output})
		}
	}
	if c := r.Campaign; c != nil {
		for _, b := range c.Baseline {
			if b.Outcome == props.Failed {
				out = append(out, traceItem{traceFile("baseline", fmt.Sprintf("%s-%d", b.Name, b.BaseSeed)),
					fmt.Sprintf("%s, unmutated, seed %d\nreproduce: %s", b.Name, b.BaseSeed, b.Repro), b.Output})
			}
		}
		for _, m := range c.Mutants {
			if t := mutantTrace(m); t != "" {
				out = append(out, traceItem{traceFile("bug", string(m.Bug.ID)), fmt.Sprintf("%s (%s): %s\nreproduce: %s", m.Bug.ID, m.Bug.Impl, m.Bug.Summary, m.Repro), t})
			}
		}
	}
	return out
}

// mutantTrace is what a bug's trace file holds: the kill's shrunk
// counterexample, or why its run gave no verdict, and why it was cut off.
func mutantTrace(m MutantResult) string {
	var parts []string
	if m.Killed {
		parts = append(parts, fmt.Sprintf("killed by %s after %d checks, %v", m.By, m.Checks, m.Duration.Round(1e6)), m.Trace)
	}
	if m.Error != "" {
		parts = append(parts, "the run did not reach a verdict:", m.Error)
	}
	if m.CutOff != "" {
		parts = append(parts, "cut off after the kill (its row of the kill matrix may lack properties):", m.CutOff)
	}
	return strings.Join(parts, "\n\n")
}

// writeTraces writes each trace under dir.
func (r *Report) writeTraces(dir string) error {
	items := r.traces()
	if len(items) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(dir, "traces"), 0o755); err != nil {
		return err
	}
	for _, t := range items {
		text := t.header + "\n\n" + strings.TrimRight(t.body, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(dir, t.file), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
