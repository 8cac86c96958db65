package main

import (
	"sort"

	impl "github.com/memverify/memverify/impl/overlap"
	spec "github.com/memverify/memverify/model/overlap"
	"github.com/memverify/memverify/props/overlaptest"
)

// AccuracyRow is how one checker fared against the brute-force model over a
// corpus of view pairs.
type AccuracyRow struct {
	Checker        string `json:"checker"`
	Family         string `json:"family"`          // the generator family of the pairs; "" for all of them
	Pairs          int    `json:"pairs"`           // pairs the model could decide
	Overlapping    int    `json:"overlapping"`     // of which the model says they share a byte
	FalsePositives int    `json:"false_positives"` // Yes where the model says No
	FalseNegatives int    `json:"false_negatives"` // No where the model says Yes: lost dependencies
	TooHard        int    `json:"too_hard"`        // gave up (counted apart from the two above)
	Errors         int    `json:"errors"`          // an error where the model gave an answer, or the reverse
}

// MissRate is the share of overlapping pairs the checker missed.
func (r AccuracyRow) MissRate() float64 {
	if r.Overlapping == 0 {
		return 0
	}
	return float64(r.FalseNegatives) / float64(r.Overlapping)
}

// FalseAlarmRate is the share of disjoint pairs the checker called overlapping.
func (r AccuracyRow) FalseAlarmRate() float64 {
	if d := r.Pairs - r.Overlapping; d > 0 {
		return float64(r.FalsePositives) / float64(d)
	}
	return 0
}

// AccuracyCheckers are the checkers OverlapAccuracy measures, in report order:
// the bounding box, the seed's hybrid GCD rule, and the exact solver.
var AccuracyCheckers = []struct {
	Name  string
	Check spec.Checker
}{
	{"BBox", impl.BBox},
	{"SeedGCD", impl.SeedGCD},
	{"Exact", impl.Exact},
}

// OverlapAccuracy measures every checker of AccuracyCheckers against the
// model on n pairs drawn from overlaptest.Pairs, deterministically from
// seed: one row per checker, in AccuracyCheckers order.
func OverlapAccuracy(n int, seed uint64) []AccuracyRow {
	rows := overlapAccuracy(n, seed, false)
	return rows[:len(AccuracyCheckers)]
}

// OverlapAccuracyByFamily is OverlapAccuracy broken down by generator
// family: the rows for all pairs come first (Family ""), then one row per
// checker for each family, families sorted by name. It adds n pairs of
// overlaptest.UniformPairs as the family "uniform" (not counted in the "" rows).
func OverlapAccuracyByFamily(n int, seed uint64) []AccuracyRow {
	return overlapAccuracy(n, seed, true)
}

func overlapAccuracy(n int, seed uint64, byFamily bool) []AccuracyRow {
	rows := map[string][]AccuracyRow{}
	rowsFor := func(fam string) []AccuracyRow {
		if rows[fam] == nil {
			rows[fam] = make([]AccuracyRow, len(AccuracyCheckers))
			for i, c := range AccuracyCheckers {
				rows[fam][i] = AccuracyRow{Checker: c.Name, Family: fam}
			}
		}
		return rows[fam]
	}
	rowsFor("")
	// add tallies one pair: in the rows of all pairs when overall, and in
	// its family's rows when broken down by family.
	add := func(p overlaptest.ViewPair, overall bool) {
		op := spec.Op{A: p.A, B: p.B}
		want := op.Apply(spec.Overlap)
		if want.Err != "" {
			return
		}
		for j, c := range AccuracyCheckers {
			got := op.Apply(c.Check)
			if overall {
				tally(&rowsFor("")[j], want, got)
			}
			if byFamily {
				tally(&rowsFor(p.Family)[j], want, got)
			}
		}
	}
	gen := overlaptest.Pairs()
	for i := range n {
		add(gen.Example(int(seed)+i), true)
	}
	if byFamily {
		uni := overlaptest.UniformPairs()
		for i := range n {
			add(uni.Example(int(seed)+i), false)
		}
	}
	fams := make([]string, 0, len(rows))
	for f := range rows {
		fams = append(fams, f)
	}
	sort.Strings(fams) // "" first
	var out []AccuracyRow
	for _, f := range fams {
		out = append(out, rows[f]...)
	}
	return out
}

func tally(row *AccuracyRow, want, got spec.Result) {
	row.Pairs++
	if want.Verdict == spec.Yes {
		row.Overlapping++
	}
	switch {
	case got.Err != "":
		row.Errors++
	case got.Verdict == spec.TooHard:
		row.TooHard++
	case got.Verdict == spec.Yes && want.Verdict == spec.No:
		row.FalsePositives++
	case got.Verdict == spec.No && want.Verdict == spec.Yes:
		row.FalseNegatives++
	}
}
