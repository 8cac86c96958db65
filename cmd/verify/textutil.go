package main

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/montanaflynn/stats"
)

func splitLines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// slug makes name safe as a file name: letters, digits, '.', '-' and '_'
// stay; every run of anything else becomes one '_'.
func slug(name string) string {
	var b strings.Builder
	under := false
	for _, r := range name {
		ok := r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-' || r == '_')
		switch {
		case ok:
			b.WriteRune(r)
			under = false
		case !under:
			b.WriteByte('_')
			under = true
		}
	}
	return b.String()
}

// traceFile is where a failure's full output is kept, relative to the run
// directory: traces/<kind>-<name>.txt.
func traceFile(kind, name string) string { return "traces/" + kind + "-" + slug(name) + ".txt" }

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
