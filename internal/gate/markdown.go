package gate

import (
	"fmt"
	"strings"
)

// Markdown renders r for a pull-request comment or a CI job summary: the
// verdict, the regressions, the improvements, then how many were
// unchanged, each change with its figures and the command that measures
// it again.
func Markdown(r *Result) string {
	var b strings.Builder
	fails := r.Failures()
	if r.Pass {
		b.WriteString("## Benchmark gate: pass\n\n")
	} else {
		fmt.Fprintf(&b, "## Benchmark gate: FAIL (%d regressions)\n\n", len(fails))
	}
	fmt.Fprintf(&b, "Base: %s. Change: %s.", r.Base, r.Change)
	if r.Toolchain.Go != "" {
		fmt.Fprintf(&b, " Counted with %s.", r.Toolchain)
	}
	b.WriteString("\n\n")
	var slower, faster []Change
	if r.Geomean != nil {
		switch r.Geomean.Verdict {
		case Slower:
			slower = append(slower, *r.Geomean)
		case Faster:
			faster = append(faster, *r.Geomean)
		}
	}
	for _, c := range r.Changes {
		switch c.Verdict {
		case Slower:
			slower = append(slower, c)
		case Faster:
			faster = append(faster, c)
		}
	}
	writeTable(&b, "Regressions", slower)
	writeTable(&b, "Improvements", faster)
	writeUnchanged(&b, r)
	if len(r.Notes) > 0 {
		b.WriteString("<details><summary>Notes</summary>\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
		b.WriteString("\n</details>\n")
	}
	if r.Command != "" {
		fmt.Fprintf(&b, "\nThe gate: `%s`\n", r.Command)
	}
	return b.String()
}

// writeTable renders changes under a heading, with what fails the gate
// marked; nothing when there are none.
func writeTable(b *strings.Builder, title string, cs []Change) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(b, "### %s\n\n| benchmark | measure | tier | base | change | Δ | figures |\n|---|---|---|---:|---:|---:|---|\n", title)
	for _, c := range cs {
		tier := string(c.Tier)
		if c.Fails {
			tier = "**" + tier + " (fails)**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", c.Bench, c.Measure, tier,
			figure(c.Measure, c.Base), figure(c.Measure, c.Change), c.DeltaText(), c.Figures)
	}
	b.WriteString("\n")
	var repro []string
	for _, c := range cs {
		if c.Repro != "" {
			repro = append(repro, fmt.Sprintf("- %s (%s): `%s`", c.Bench, c.Measure, c.Repro))
		}
	}
	if len(repro) > 0 {
		fmt.Fprintf(b, "To measure again:\n\n%s\n\n", strings.Join(repro, "\n"))
	}
}

// writeUnchanged counts what neither tier called a change.
func writeUnchanged(b *strings.Builder, r *Result) {
	hard, stat := r.Count(Hard, Inconclusive), r.Count(Statistical, Inconclusive)
	fmt.Fprintf(b, "Unchanged: %d hard-tier measures (instructions within the tolerance, allocations equal)", hard)
	if r.Count(Statistical, Slower)+r.Count(Statistical, Faster)+stat > 0 {
		fmt.Fprintf(b, "; %d timings inconclusive (least effect %.1f%%: the larger of the minimum and the noise floor of this job, %.1f%%)",
			stat, 100*r.MinEffect, 100*r.NoiseFloor)
	}
	b.WriteString(".\n\n")
}

// figure renders a figure in its measure's unit.
func figure(measure string, v float64) string {
	switch measure {
	case unitTime:
		return duration(v)
	case unitInstr:
		return fmt.Sprintf("%.1f", v)
	case "", "instr/op ratio":
		return fmt.Sprintf("%.4f", v)
	}
	return fmt.Sprintf("%g", v)
}
