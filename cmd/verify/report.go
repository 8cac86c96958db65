package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memverify/memverify/internal/benchcmp"
	"github.com/memverify/memverify/internal/goals"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/suites"
	"github.com/montanaflynn/stats"
)

// Report is everything one verify run found, as structured values: the
// Markdown and JSON files are both built from it, and tools that track runs
// over time can read the JSON.
type Report struct {
	Started   time.Time       `json:"started"`
	GoVersion string          `json:"go_version"`
	Platform  string          `json:"platform"`
	Suites    []SuiteResult   `json:"suites,omitempty"`
	Campaign  *campaign       `json:"mutants,omitempty"`
	Bench     []benchcmp.Row  `json:"bench,omitempty"`
	Goals     []goals.Verdict `json:"goals,omitempty"`
	GoalRuns  []RunVerdicts   `json:"goals_by_run,omitempty"`
	Accuracy  *Accuracy       `json:"overlap_accuracy,omitempty"`
}

func newReport() *Report {
	return &Report{Started: time.Now().UTC(), GoVersion: runtime.Version(),
		Platform: fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())}
}

// save writes the report under dir. On failure it prints the error and
// returns false, and the command must then fail: a run whose report was lost
// must not pass for one that has it.
func (r *Report) save(dir string) bool {
	if err := r.write(dir); err != nil {
		fmt.Fprintf(os.Stderr, "verify: writing the report: %v\n", err)
		return false
	}
	return true
}

// write stores the report as report.json and report.md under dir.
func (r *Report) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding report.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), js, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(r.markdown()), 0o644); err != nil {
		return err
	}
	fmt.Printf("report written to %s/report.md and report.json\n", dir)
	return nil
}

func (r *Report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# memverify report\n\n%s · %s · %s\n\n", r.Started.Format(time.RFC3339), r.GoVersion, r.Platform)
	if len(r.Suites) > 0 {
		r.suitesMarkdown(&b)
	}
	if r.Accuracy != nil {
		fmt.Fprintf(&b, "## Overlap accuracy\n\nEvery checker against the brute-force model on %d generated pairs of strided views (seed %d), then by generator family. A false negative is a missed dependency: a data race in the runtime.\n\n%s\n",
			r.Accuracy.Pairs, r.Accuracy.Seed, accuracyText(r.Accuracy.Rows, false))
	}
	if r.Campaign != nil {
		r.campaignMarkdown(&b)
	}
	if len(r.Bench) > 0 {
		fmt.Fprintf(&b, "## Benchmarks\n\nMedians with 95%% confidence intervals; \"vs ref\" is the model's median over the implementation's, from the same run, with the Mann-Whitney p-value.\n\n%s\n", benchcmp.Format(r.Bench))
	}
	if len(r.Goals) > 0 {
		fmt.Fprintf(&b, "## Goals\n\nEach performance goal (internal/goals), judged on the medians above.\n\n%s\n", goals.Format(r.Goals))
	}
	if len(r.GoalRuns) > 0 {
		fmt.Fprintf(&b, "### Goals run by run\n\nEach cell: the case closest to its bound, or the worst miss.\n\n%s\n", formatRuns(r.GoalRuns))
	}
	return b.String()
}

func (r *Report) suitesMarkdown(b *strings.Builder) {
	failed := 0
	var secs []float64
	fmt.Fprintf(b, "## Property suites\n\n| domain | property | impl | checks | result | time |\n|---|---|---|---:|---|---:|\n")
	for _, s := range r.Suites {
		fmt.Fprintf(b, "| %s | %s | %s | %d | %s | %v |\n", s.Domain, s.Property, s.Impl, s.Checks, s.Outcome, s.Duration.Round(time.Millisecond))
		secs = append(secs, s.Duration.Seconds())
		if s.Outcome == props.Failed {
			failed++
		}
	}
	fmt.Fprintf(b, "\n%d suites, %d failed. %s\n", len(r.Suites), failed, summary("suite time", secs, "s"))
	for _, s := range r.Suites {
		if s.Outcome == props.Failed {
			fmt.Fprintf(b, "\n### FAIL %s\n\n```\n%s\n```\nReproduce: `%s`\n", s.Name, strings.TrimSpace(s.Output), s.Repro)
		}
	}
	for _, s := range r.Suites {
		if s.OutputError != "" {
			fmt.Fprintf(b, "\n**%s**: %s\n", s.Name, unreadNote(s.OutputError))
		}
	}
	b.WriteString("\n")
}

// campaignMarkdown renders the campaign: one table row per bug, each on one
// line (a bug whose child could not run says "error" there, and its error
// and repro follow the table, as does why a killed bug's child was cut off),
// the kill matrix, the baseline, and every kill's trace and repro.
func (r *Report) campaignMarkdown(b *strings.Builder) {
	c := r.Campaign
	killed, survived, errored := 0, 0, 0
	var secs, checks []float64
	fmt.Fprintf(b, "## Seeded bugs\n\nEach bug is switched on in a binary built with `-tags mutants` and run against the properties of its domain and implementation, the expected killer first, under seeds %v.\n\n", c.Seeds)
	fmt.Fprintf(b, "| bug | impl | summary | result | killed by | checks | time |\n|---|---|---|---|---|---:|---:|\n")
	for _, m := range c.Mutants {
		res := "**survived**"
		switch {
		case m.Error != "":
			res = "**error**"
			errored++
		case m.Killed:
			res = "killed"
			killed++
			secs = append(secs, m.Duration.Seconds())
			checks = append(checks, float64(m.Checks))
		default:
			survived++
		}
		by := m.By
		if m.Killed && !m.Expected {
			by += " (expected " + m.Bug.Killer + ")"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s | %d | %v |\n", cell(string(m.Bug.ID)), cell(m.Bug.Impl), cell(m.Bug.Summary), res, cell(by), m.Checks, m.Duration.Round(time.Millisecond))
	}
	counts := ""
	if rest := campaignCounts(survived, errored); rest != "" {
		counts = " " + strings.TrimPrefix(rest, "; ") + "."
	}
	fmt.Fprintf(b, "\n**killed %d of %d.**%s %s %s\n", killed, len(c.Mutants), counts, summary("time to kill", secs, "s"), summary("checks to kill", checks, ""))
	for _, m := range c.Mutants {
		switch {
		case m.Error != "":
			fmt.Fprintf(b, "\n### %s — error\n\nThe child did not run to a verdict:\n\n```\n%s\n```\nReproduce: `%s`\n", m.Bug.ID, strings.TrimSpace(m.Error), m.Repro)
		case m.CutOff != "":
			fmt.Fprintf(b, "\n### %s — cut off after the kill\n\nThe kill stands, but the child stopped before every property had run against the bug, so its row of the kill matrix may lack some:\n\n```\n%s\n```\n", m.Bug.ID, strings.TrimSpace(m.CutOff))
		}
		if m.OutputError != "" {
			fmt.Fprintf(b, "\n**%s**: %s\n", m.Bug.ID, unreadNote(m.OutputError))
		}
	}
	b.WriteString(killMatrix(c))
	base := 0
	for _, s := range c.Baseline {
		if s.Outcome == props.Failed {
			base++
		}
	}
	fmt.Fprintf(b, "\nThe unmutated build ran %d suite runs under the same seeds: %d failed.\n", len(c.Baseline), base)
	for _, m := range c.Mutants {
		if m.Killed {
			fmt.Fprintf(b, "\n### %s — killed by %s\n\n```\n%s\n```\nReproduce: `%s`\n", m.Bug.ID, m.By, strings.TrimSpace(m.Trace), m.Repro)
		}
	}
}

// killMatrix is the property × bug table, one per domain: ✔ where the
// property failed on the bug, "✔ first" for the property that failed first
// (the catalogue's expected killer is tried first).
func killMatrix(c *campaign) string {
	var b strings.Builder
	var domains []string
	for _, m := range c.Mutants {
		if !slices.Contains(domains, m.Bug.Domain) {
			domains = append(domains, m.Bug.Domain)
		}
	}
	sort.Strings(domains)
	for _, d := range domains {
		var names []string
		for _, m := range c.Mutants {
			for _, p := range m.KilledBy {
				if m.Bug.Domain == d && !slices.Contains(names, p) {
					names = append(names, p)
				}
			}
		}
		if len(names) == 0 {
			continue
		}
		sort.Strings(names)
		fmt.Fprintf(&b, "\n### Kill matrix: %s\n\n| bug | %s |\n|---|%s\n", d, strings.Join(names, " | "), strings.Repeat("---|", len(names)))
		for _, m := range c.Mutants {
			if m.Bug.Domain != d {
				continue
			}
			row := make([]string, len(names))
			for i, p := range names {
				switch {
				case m.Killed && m.By == p:
					row[i] = "✔ first"
				case slices.Contains(m.KilledBy, p):
					row[i] = "✔"
				}
			}
			fmt.Fprintf(&b, "| `%s` | %s |\n", m.Bug.ID, strings.Join(row, " | "))
		}
	}
	for _, p := range c.Silent {
		fmt.Fprintf(&b, "\n**Property %s killed no seeded bug**: it has never been seen to fail.\n", p)
	}
	if len(c.Unjudged) > 0 {
		fmt.Fprintf(&b, "\n%s.\n", unjudgedNote(c.Unjudged))
	}
	return b.String()
}

// cell makes s one Markdown table cell: on one line, its bars escaped.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// summary describes a sample in one phrase: median, 90th percentile, max.
func summary(what string, xs []float64, unit string) string {
	if len(xs) == 0 {
		return ""
	}
	med, _ := stats.Median(xs)
	p90, _ := stats.Percentile(xs, 90)
	mx, _ := stats.Max(xs)
	return fmt.Sprintf("%s: median %.3g%s, p90 %.3g%s, max %.3g%s.", what, med, unit, p90, unit, mx, unit)
}

// runAll is the main job: every suite, then every seeded bug, one report.
func runAll(o options) int {
	rep := newReport()
	rep.Suites = runSuites(o)
	failed := printSuiteSummary(rep.Suites)
	fmt.Println()
	if suites.Matches(o.domain, "overlap") {
		rep.Accuracy = measureAccuracy()
		fmt.Println()
	}
	c, err := runMutants(o)
	code := 0
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify mutants: %v\n", err)
		code = 1
	} else {
		rep.Campaign = &c
		code = printCampaignSummary(c)
	}
	if !rep.save(o.out) || failed > 0 {
		code = 1
	}
	return code
}
