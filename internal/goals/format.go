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
	var tightest *Case
	met := 0
	for i := range cases {
		c := &cases[i]
		if !c.Met {
			lines = append(lines, caseLine(*c))
			continue
		}
		met++
		if tightest == nil || c.slack < tightest.slack {
			tightest = c
		}
	}
	if tightest != nil {
		lines = append(lines, fmt.Sprintf("%d of %d cases met; closest to its bound: %s", met, len(cases), caseLine(*tightest)))
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
