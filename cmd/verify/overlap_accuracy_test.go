package main

import (
	"testing"
)

// TestOverlapAccuracy measures the checkers on a fixed corpus: Exact must
// make no error, BBox must miss nothing, and the seed's rule must be seen to
// miss overlaps (it is the defect the domain exists to catch).
func TestOverlapAccuracy(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 500
	}
	for _, r := range OverlapAccuracyByFamily(n, 1) {
		if r.Family != "" {
			t.Logf("  %-10s %-8s pairs %5d overlapping %5d  FP %5d  FN %5d  TooHard %d",
				r.Family, r.Checker, r.Pairs, r.Overlapping, r.FalsePositives, r.FalseNegatives, r.TooHard)
		}
	}
	rows := OverlapAccuracy(n, 1)
	for _, r := range rows {
		t.Logf("%-8s pairs %5d overlapping %5d  FP %5d (%.1f%%)  FN %5d (%.1f%%)  TooHard %d  errors %d",
			r.Checker, r.Pairs, r.Overlapping, r.FalsePositives, 100*r.FalseAlarmRate(),
			r.FalseNegatives, 100*r.MissRate(), r.TooHard, r.Errors)
		if r.Pairs < n*9/10 {
			t.Errorf("%s: only %d of %d pairs were decided by the model", r.Checker, r.Pairs, n)
		}
		switch r.Checker {
		case "Exact":
			if r.FalsePositives+r.FalseNegatives+r.TooHard+r.Errors != 0 {
				t.Errorf("Exact is not exact: %+v", r)
			}
		case "BBox":
			if r.FalseNegatives+r.Errors != 0 {
				t.Errorf("BBox missed overlaps: %+v", r)
			}
		case "SeedGCD":
			if r.FalseNegatives == 0 {
				t.Errorf("the seed's rule missed nothing on %d pairs: the corpus is too easy", r.Pairs)
			}
		}
	}
}
