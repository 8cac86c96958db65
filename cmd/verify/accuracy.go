package main

import (
	"fmt"
	"strings"
	"time"
)

// accuracyPairs and accuracySeed fix the generated corpus of the overlap
// accuracy table, so that reports compare across runs.
const (
	accuracyPairs = 20000
	accuracySeed  = 1
)

// Accuracy is how each overlap checker fared against the brute-force model on
// a generated corpus of view pairs: the seed's hybrid rule beside the bounding
// box and the exact solver.
type Accuracy struct {
	Pairs    int           `json:"pairs"`
	Seed     uint64        `json:"seed"`
	Rows     []AccuracyRow `json:"rows"`
	Duration time.Duration `json:"duration_ns"`
}

func measureAccuracy() *Accuracy {
	start := time.Now()
	a := &Accuracy{Pairs: accuracyPairs, Seed: accuracySeed, Rows: OverlapAccuracyByFamily(accuracyPairs, accuracySeed)}
	a.Duration = time.Since(start)
	fmt.Printf("overlap accuracy on %d generated pairs (seed %d), %v:\n%s", accuracyPairs, accuracySeed,
		time.Since(start).Round(time.Millisecond), accuracyText(a.Rows, true))
	return a
}

// accuracyText renders the rows; overall only: the rows over every family.
func accuracyText(rows []AccuracyRow, overallOnly bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| family | checker | pairs | overlapping | false positives | false negatives (missed) | TooHard | errors |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		if overallOnly && r.Family != "" {
			continue
		}
		fam := r.Family
		if fam == "" {
			fam = "all"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d (%.1f%% of disjoint) | %d (%.1f%% of overlapping) | %d | %d |\n",
			fam, r.Checker, r.Pairs, r.Overlapping, r.FalsePositives, 100*r.FalseAlarmRate(),
			r.FalseNegatives, 100*r.MissRate(), r.TooHard, r.Errors)
	}
	return b.String()
}
