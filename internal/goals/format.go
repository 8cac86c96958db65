package goals

import (
	"fmt"
	"strings"
)

// shown is how many cases a goal lists in full; a goal with more lists the
// cases that miss and the met case closest to its bound, and counts the rest.
const shown = 4

// Format renders verdicts as a Markdown table, one row per goal: its cases,
// each with its figure and bound (the ones that miss in bold), what the run
// did not measure, and the status.
func Format(vs []Verdict) string {
	var b strings.Builder
	b.WriteString("| domain | goal | measured | status |\n|---|---|---|---|\n")
	for _, v := range vs {
		status := v.Status.String()
		if v.Status == NotMet {
			status = "**not met**"
		}
		if v.Pending != "" {
			status += " (pending, not gated: " + v.Pending + ")"
		}
		lines := caseLines(v.Cases)
		if len(v.Missing) > 0 {
			lines = append(lines, "not measured: "+missingList(v.Missing, shown))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", v.Domain, v.Goal, strings.Join(lines, "<br>"), status)
	}
	return b.String()
}

// missingList names the first n of missing and counts the rest: a run
// without -benchmem misses the allocations of every case of a goal, and
// the first few say what happened.
func missingList(missing []string, n int) string {
	if len(missing) <= n {
		return strings.Join(missing, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(missing[:n], "; "), len(missing)-n)
}

func caseLines(cases []Case) []string {
	var lines []string
	if len(cases) <= shown {
		for _, c := range cases {
			lines = append(lines, caseLine(c))
		}
		return lines
	}
	var met []Case
	for _, c := range cases {
		if c.Met {
			met = append(met, c)
		} else {
			lines = append(lines, caseLine(c))
		}
	}
	if t, ok := (Verdict{Cases: met}).Tightest(); ok {
		lines = append(lines, fmt.Sprintf("%d of %d cases met; closest to its bound: %s", len(met), len(cases), caseLine(t)))
	}
	return lines
}

func caseLine(c Case) string {
	s := c.Name + ": " + c.Measured
	switch {
	case c.Inconclusive:
		s += " (inconclusive)"
	case !c.Met:
		s = "**" + s + "**"
	}
	return s
}

// Unmeasured returns the verdicts of the goals that were not measured in
// full and that miss nothing measured: "not measured" and "partly
// measured". A gate cannot call them met, nor missed.
func Unmeasured(vs []Verdict) []Verdict {
	var out []Verdict
	for _, v := range vs {
		if v.Status.Unjudged() {
			out = append(out, v)
		}
	}
	return out
}

// Missed counts the goals that were measured and not met.
func Missed(vs []Verdict) int {
	n := 0
	for _, v := range vs {
		if v.Status == NotMet {
			n++
		}
	}
	return n
}

// Tightest is the case of v with the least slack: the worst miss, or the
// met case closest to its bound.
func (v Verdict) Tightest() (Case, bool) {
	if len(v.Cases) == 0 {
		return Case{}, false
	}
	t := v.Cases[0]
	for _, c := range v.Cases[1:] {
		if c.slack < t.slack {
			t = c
		}
	}
	return t, true
}

// FormatRuns renders the verdicts of several runs side by side, one row per
// goal and one column per run: each cell is the status, the run's tightest
// case and the first thing the run did not measure.
func FormatRuns(names []string, runs [][]Verdict) string {
	var b strings.Builder
	b.WriteString("| domain | goal |")
	for _, n := range names {
		b.WriteString(" " + n + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(names)) + "\n")
	for i, g := range All {
		fmt.Fprintf(&b, "| %s | %s |", g.Domain, g.Text)
		for _, vs := range runs {
			v := vs[i]
			cell := v.Status.String()
			if c, ok := v.Tightest(); ok {
				cell += ": " + c.Name + " " + c.Measured
			}
			switch {
			case len(v.Missing) > 0 && len(v.Cases) == 0:
				cell += ": " + missingList(v.Missing, 1)
			case len(v.Missing) > 0:
				cell += "; not measured: " + missingList(v.Missing, 1)
			}
			if v.Status == NotMet {
				cell = "**" + cell + "**"
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}
