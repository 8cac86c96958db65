package goals

import (
	"fmt"
	"strings"
)

// shown is how many cases a goal lists in full; a goal with more lists the
// cases that miss and the met case closest to its bound, and counts the rest.
const shown = 4

// Format renders verdicts as a Markdown table, one row per goal: its cases,
// each with its figure and bound (the ones that miss in bold), and the
// status.
func Format(vs []Verdict) string {
	var b strings.Builder
	b.WriteString("| domain | goal | measured | status |\n|---|---|---|---|\n")
	for _, v := range vs {
		status := v.Status
		if status == "not met" {
			status = "**not met**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", v.Domain, v.Goal, strings.Join(caseLines(v.Cases), "<br>"), status)
	}
	return b.String()
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
	if !c.Met {
		s = "**" + s + "**"
	}
	return s
}

// Missed counts the goals that were measured and not met.
func Missed(vs []Verdict) int {
	n := 0
	for _, v := range vs {
		if v.Status == "not met" {
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
// goal and one column per run: each cell is the status and the run's
// tightest case.
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
			cell := v.Status
			if c, ok := v.Tightest(); ok {
				cell += ": " + c.Name + " " + c.Measured
			}
			if v.Status == "not met" {
				cell = "**" + cell + "**"
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}
