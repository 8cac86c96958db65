package main

// The summary block: the verdict and why, where and how the run ran, the
// counts, and every failure with its one-line repro. Every format opens
// with it, and it is computed from the results alone (summarize), so a
// merged report's summary is the one an unsharded run would have had.

import (
	"fmt"
	"strings"
	"time"

	"github.com/memverify/memverify/internal/goals"
	"github.com/memverify/memverify/props"
)

// The two verdicts.
const (
	verdictPass = "pass"
	verdictFail = "fail"
)

// Summary is the report's first block.
type Summary struct {
	Verdict string `json:"verdict"` // "pass" or "fail"
	// Reasons are why the run failed, one line per kind of failure; empty
	// on a pass.
	Reasons []string `json:"reasons,omitempty"`
	// Notes are what a reader should know that fails nothing: properties
	// whose silence was not judged, goals missed without -gate.
	Notes     []string      `json:"notes,omitempty"`
	Commit    string        `json:"commit"`
	Dirty     bool          `json:"dirty"`
	GoVersion string        `json:"go_version"`
	Machine   Machine       `json:"machine"`
	Started   time.Time     `json:"started"`
	Duration  time.Duration `json:"duration_ns"`
	Budget    Budget        `json:"budget"`
	Counts    Counts        `json:"counts"`
	// OverlapAccuracy is each checker's rates over every generated pair.
	OverlapAccuracy []AccuracyRow `json:"overlap_accuracy,omitempty"`
	Failures        []Failure     `json:"failures,omitempty"`
}

// Counts are the run's headline numbers.
type Counts struct {
	Suites         int `json:"suites"`
	SuitesPassed   int `json:"suites_passed"`
	SuitesFailed   int `json:"suites_failed"`
	SuitesSkipped  int `json:"suites_skipped"`
	Bugs           int `json:"bugs"`
	BugsKilled     int `json:"bugs_killed"`
	BugsSurvived   int `json:"bugs_survived"`
	BugsErrored    int `json:"bugs_errored"`
	BaselineRuns   int `json:"baseline_runs"`
	BaselineFailed int `json:"baseline_failed"`
	// SilentProperties killed no seeded bug though run against every one
	// they could kill; UnjudgedProperties killed none of those they ran
	// against, but did not run against all.
	SilentProperties   int `json:"silent_properties"`
	UnjudgedProperties int `json:"unjudged_properties"`
	Goals              int `json:"goals"`
	GoalsMet           int `json:"goals_met"`
	GoalsMissed        int `json:"goals_missed"`
	GoalsUnmeasured    int `json:"goals_unmeasured"`
	GoalsInconclusive  int `json:"goals_inconclusive"`
}

// Failure is one thing that failed the run, with how to see it again.
type Failure struct {
	// Kind is one of: suite (a property failed on a correct build),
	// baseline (the same, in the campaign's unmutated run), survived (a
	// seeded bug no property killed), error (a bug's run that ended
	// without a verdict), silent (a property that killed no bug), goal (a
	// performance goal missed under -gate), run (a part of the run that
	// could not produce results).
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	What    string `json:"what"`
	Repro   string `json:"repro,omitempty"`
	Trace   string `json:"trace_file,omitempty"`   // relative to the run directory
	History string `json:"history_file,omitempty"` // porcupine's drawing, if any
}

// summarize fills the verdict, reasons, notes, counts and failures from
// the results.
func (r *Report) summarize() {
	s := &r.Summary
	s.Counts, s.Failures, s.Reasons, s.Notes = Counts{}, nil, nil, nil
	r.summarizeSuites()
	r.summarizeCampaign()
	r.summarizeGoals()
	for _, e := range r.Errors {
		s.Failures = append(s.Failures, Failure{Kind: "run", Name: r.command(), What: firstLine(e)})
		s.Reasons = append(s.Reasons, "could not run: "+firstLine(e))
	}
	if r.Accuracy != nil {
		s.OverlapAccuracy = nil
		for _, row := range r.Accuracy.Rows {
			if row.Family == "" {
				s.OverlapAccuracy = append(s.OverlapAccuracy, row)
			}
		}
	}
	s.Verdict = verdictPass
	if len(s.Reasons) > 0 {
		s.Verdict = verdictFail
	}
}

func (r *Report) summarizeSuites() {
	s := &r.Summary
	for _, res := range r.Suites {
		s.Counts.Suites++
		switch res.Outcome {
		case props.Passed:
			s.Counts.SuitesPassed++
		case props.Failed:
			s.Counts.SuitesFailed++
			s.Failures = append(s.Failures, Failure{Kind: "suite", Name: res.Name, What: failureLine(res.Output),
				Repro: res.Repro, Trace: traceFile("suite", res.Name), History: res.History})
		case props.Skipped:
			s.Counts.SuitesSkipped++
		}
	}
	if n := s.Counts.SuitesFailed; n > 0 {
		s.Reasons = append(s.Reasons, fmt.Sprintf("%s of %d failed on the correct build", plural(n, "suite"), s.Counts.Suites))
	}
}

func (r *Report) summarizeCampaign() {
	c, s := r.Campaign, &r.Summary
	if c == nil {
		return
	}
	s.Budget.Seeds = c.Seeds
	for _, b := range c.Baseline {
		s.Counts.BaselineRuns++
		if b.Outcome == props.Failed {
			s.Counts.BaselineFailed++
			s.Failures = append(s.Failures, Failure{Kind: "baseline", Name: fmt.Sprintf("%s (seed %d)", b.Name, b.BaseSeed),
				What: failureLine(b.Output), Repro: b.Repro, Trace: traceFile("baseline", fmt.Sprintf("%s-%d", b.Name, b.BaseSeed)), History: b.History})
		}
	}
	for _, m := range c.Mutants {
		s.Counts.Bugs++
		id := string(m.Bug.ID)
		switch {
		case m.Error != "":
			s.Counts.BugsErrored++
			s.Failures = append(s.Failures, Failure{Kind: "error", Name: id, What: firstLine(m.Error), Repro: m.Repro, Trace: traceFile("bug", id)})
		case m.Killed:
			s.Counts.BugsKilled++
		default:
			s.Counts.BugsSurvived++
			s.Failures = append(s.Failures, Failure{Kind: "survived", Name: id,
				What: m.Bug.Summary + " (expected killer " + m.Bug.Killer + ")", Repro: survivorRepro(m)})
		}
	}
	s.Counts.SilentProperties, s.Counts.UnjudgedProperties = len(c.Silent), len(c.Unjudged)
	for _, p := range c.Silent {
		s.Failures = append(s.Failures, Failure{Kind: "silent", Name: p, What: "killed no seeded bug: it has never been seen to fail",
			Repro: fmt.Sprintf("go run ./cmd/verify mutants -domain %s", domainOf(p))})
	}
	add := func(n int, what string) {
		if n > 0 {
			s.Reasons = append(s.Reasons, what)
		}
	}
	add(s.Counts.BaselineFailed, fmt.Sprintf("the unmutated baseline failed %d of %d runs: the campaign proves nothing until it passes", s.Counts.BaselineFailed, s.Counts.BaselineRuns))
	add(s.Counts.BugsSurvived, fmt.Sprintf("%s of %d survived", plural(s.Counts.BugsSurvived, "seeded bug"), s.Counts.Bugs))
	add(s.Counts.BugsErrored, fmt.Sprintf("%s of %d could not run to a verdict", plural(s.Counts.BugsErrored, "seeded bug"), s.Counts.Bugs))
	add(len(c.Silent), fmt.Sprintf("%s killed no seeded bug", plural(len(c.Silent), "property")))
	if len(c.Unjudged) > 0 {
		s.Notes = append(s.Notes, unjudgedNote(c.Unjudged))
	}
}

func (r *Report) summarizeGoals() {
	s := &r.Summary
	gatedBad := 0 // missed or not measured in full, and not pending
	for _, v := range r.Goals {
		if v.FailsGate() {
			gatedBad++
		}
		s.Counts.Goals++
		switch {
		case v.Status == goals.Met:
			s.Counts.GoalsMet++
		case v.Status.Unjudged():
			s.Counts.GoalsUnmeasured++
		case v.Status == goals.Inconclusive:
			s.Counts.GoalsInconclusive++
		default:
			s.Counts.GoalsMissed++
		}
		if v.FailsGate() && r.Gate {
			s.Failures = append(s.Failures, Failure{Kind: "goal", Name: v.Domain + ": " + v.Goal, What: v.Status.String(),
				Repro: "go run ./cmd/verify bench -gate"})
		}
	}
	bad := s.Counts.GoalsMissed + s.Counts.GoalsUnmeasured
	switch {
	case bad == 0:
	case r.Gate && gatedBad > 0:
		s.Reasons = append(s.Reasons, fmt.Sprintf("%d of %d performance goals not met in full (-gate)", gatedBad, s.Counts.Goals))
	case r.Gate:
		s.Notes = append(s.Notes, fmt.Sprintf("%d of %d performance goals not met in full, each pending (not gated)", bad, s.Counts.Goals))
	default:
		s.Notes = append(s.Notes, fmt.Sprintf("%d of %d performance goals not met in full (advisory: bench -gate fails on them)", bad, s.Counts.Goals))
	}
}

// headline is the verdict's reason in one line.
func (s Summary) headline() string {
	if s.Verdict == verdictFail {
		if len(s.Reasons) == 1 {
			return s.Reasons[0]
		}
		return fmt.Sprintf("%d kinds of failure (below)", len(s.Reasons))
	}
	c := s.Counts
	var parts []string
	if c.Suites > 0 {
		parts = append(parts, fmt.Sprintf("all %d suites passed", c.Suites))
	}
	if c.Bugs > 0 {
		parts = append(parts, fmt.Sprintf("all %d seeded bugs killed", c.Bugs))
		if c.UnjudgedProperties == 0 {
			parts = append(parts, "every property killed one")
		}
	}
	if c.Goals > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d goals met", c.GoalsMet, c.Goals))
	}
	if len(parts) == 0 {
		return "nothing failed"
	}
	return joinPhrases(parts)
}

// joinPhrases is "a, b and c".
func joinPhrases(ps []string) string {
	switch len(ps) {
	case 0:
		return ""
	case 1:
		return ps[0]
	}
	out := ps[0]
	for _, p := range ps[1 : len(ps)-1] {
		out += ", " + p
	}
	return out + " and " + ps[len(ps)-1]
}

// failureLine is the line of a failure's output that says what failed:
// the last line that is not rapid's bookkeeping, else the first.
func failureLine(output string) string {
	var last string
	for _, l := range splitLines(output) {
		if l != "" && !hasAnyPrefix(l, "[rapid]", "    ", "\t") {
			last = l
		}
	}
	if last == "" {
		return firstLine(output)
	}
	return last
}

// survivorRepro runs a surviving bug's domain under it, as go test would.
func survivorRepro(m MutantResult) string {
	return fmt.Sprintf("MEMVERIFY_BUG=%s go test -tags %s ./suites -run '^TestSuites$/^%s$'%s", m.Bug.ID, mutantTags, m.Bug.Domain, noFailFile)
}

// domainOf is the domain of "domain/property".
func domainOf(p string) string {
	d, _, _ := strings.Cut(p, "/")
	return d
}
