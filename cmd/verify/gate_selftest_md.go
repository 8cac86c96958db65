package main

// The self-test's findings as Markdown, and the seeded performance
// regressions as `verify list` shows them.

import (
	"fmt"
	"strings"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/internal/gate"
	"github.com/memverify/memverify/suites"
)

// selftestMarkdown renders the self-test's findings.
func selftestMarkdown(s *selftestResult, cfg gate.Config, aa int) string {
	var b strings.Builder
	b.WriteString("## Gate self-test\n\n| seeded regression | kind | expected tier | caught by |\n|---|---|---|---|\n")
	for _, o := range s.Regressions {
		by := strings.Join(o.By, "<br>")
		switch {
		case len(o.Imprecise) > 0:
			by = "**imprecise**: also " + strings.Join(o.Imprecise, "<br>")
		case !o.Caught:
			by = "**missed**: " + strings.Join(o.Seen, "<br>")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", o.Regression.ID, o.Regression.Kind, o.Regression.Tier, by)
	}
	fmt.Fprintf(&b, "\nA/A comparisons (the same code against itself): %d. Hard tier: %d false alarms; the largest instruction difference %.3f%% (tolerance %.2g%%).\n",
		len(s.AA), s.FalseAlarms, 100*s.HardAANoise, 100*cfg.Tolerance)
	if cfg.Stat {
		rate := 0.0
		if s.StatJudged > 0 {
			rate = float64(s.StatCalled) / float64(s.StatJudged)
		}
		fmt.Fprintf(&b, "Statistical tier (advisory): %d of %d A/A comparisons called a timing faster or slower after confirmation; %d of %d timings judged (%.1f%%).\n",
			s.StatAlarms, len(s.AA), s.StatCalled, s.StatJudged, 100*rate)
	}
	for _, a := range s.AA {
		if len(a.Hard)+len(a.Stat) > 0 || a.GateFailed {
			fmt.Fprintf(&b, "- A/A %d–%d: %s\n", a.Pair[0], a.Pair[1], strings.Join(append(a.Hard, a.Stat...), "; "))
		}
	}
	return b.String()
}

// listRegressions prints the seeded performance regressions that match the
// filters, for `verify list`: they have no killer property, the gate's
// self-test catches them.
func listRegressions(o options) {
	var out []string
	for _, r := range bugs.Regressions() {
		if suites.Matches(o.domain, r.Domain) && suites.Matches(o.impl, r.Impl) {
			out = append(out, fmt.Sprintf("  %-40s %-10s tier %-11s %s", r.ID, r.Impl, r.Tier, r.Summary))
		}
	}
	if len(out) > 0 {
		fmt.Printf("seeded performance regressions (verify gate -selftest):\n%s\n", strings.Join(out, "\n"))
	}
}
