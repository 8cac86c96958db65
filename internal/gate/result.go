package gate

import "fmt"

// Verdict is how one benchmark fared in one measure. There are three,
// never two: a change the measurements cannot tell apart from none is
// Inconclusive, not "same". In the hard tier, whose counts are exact,
// Inconclusive means within the tolerance.
type Verdict int

const (
	// Inconclusive: no change the gate can stand behind (the zero value,
	// so that a verdict nothing judged never reads as a change).
	Inconclusive Verdict = iota
	// Slower: the change does more work, or takes longer, beyond doubt.
	Slower
	// Faster: the change does less work, or takes less time, beyond doubt.
	Faster
)

var verdictText = [...]string{Inconclusive: "inconclusive", Slower: "slower", Faster: "faster"}

func (v Verdict) String() string {
	if v < 0 || int(v) >= len(verdictText) {
		return fmt.Sprintf("Verdict(%d)", int(v))
	}
	return verdictText[v]
}

// MarshalText writes the verdict as its text.
func (v Verdict) MarshalText() ([]byte, error) {
	if v < 0 || int(v) >= len(verdictText) {
		return nil, fmt.Errorf("gate: no verdict %d", int(v))
	}
	return []byte(verdictText[v]), nil
}

// UnmarshalText reads a verdict written by MarshalText.
func (v *Verdict) UnmarshalText(b []byte) error {
	for i, t := range verdictText {
		if string(b) == t {
			*v = Verdict(i)
			return nil
		}
	}
	return fmt.Errorf("gate: unknown verdict %q", b)
}

// Tier says which tier judged a change.
type Tier string

const (
	Hard        Tier = "hard"        // exact counts; fails the gate
	Statistical Tier = "statistical" // timings; advisory unless strict
)

// Change is one benchmark's verdict in one measure.
type Change struct {
	Bench   string  `json:"bench"`
	Measure string  `json:"measure"` // instr/op, allocs/op, B/op, sec/op
	Tier    Tier    `json:"tier"`
	Base    float64 `json:"base"`   // the base's figure: a count, or a median
	Change  float64 `json:"change"` // the change's figure
	// Delta is Change/Base − 1 (0 when Base is 0 and Change is too; from
	// 0 to more, a large number: JSON has no infinity).
	Delta float64 `json:"delta"`
	// RatioLo and RatioHi bound Change/Base at 95% for timings (the
	// interval the two medians' intervals allow); 0 when not known, and
	// for exact counts, whose ratio is exact.
	RatioLo float64 `json:"ratio_lo,omitempty"`
	RatioHi float64 `json:"ratio_hi,omitempty"`
	Verdict Verdict `json:"verdict"`
	// Figures says how the verdict was reached: the bound, the p-value,
	// the intervals, the confirmation round.
	Figures string `json:"figures"`
	// MinEffect is the least change in time the statistical tier called
	// one for this benchmark (the larger of the job's noise floor and
	// Config.MinEffect).
	MinEffect float64 `json:"min_effect,omitempty"`
	// Fails is set when the change fails the gate: a hard-tier Slower,
	// and a statistical Slower under Config.Strict.
	Fails bool `json:"fails,omitempty"`
	// Repro is the command that measures this benchmark alone again.
	Repro string `json:"repro,omitempty"`
}

// Result is a comparison of a change against its base.
type Result struct {
	Base      string    `json:"base"`   // what the base is (a commit, a file)
	Change    string    `json:"change"` // what the change is
	Toolchain Toolchain `json:"toolchain"`
	Command   string    `json:"command,omitempty"` // the command that ran the gate
	// Changes holds every benchmark and measure judged, regressions first,
	// then improvements, then the inconclusive ones.
	Changes []Change `json:"changes"`
	// Geomean is the hard tier's verdict on the geometric mean of the
	// instruction counts' ratios, when any were counted.
	Geomean *Change `json:"geomean,omitempty"`
	// NoiseFloor is the statistical tier's typical A/A difference (the
	// base against itself: the median over benchmarks) and MinEffect the
	// least change it calls a change.
	NoiseFloor float64 `json:"noise_floor,omitempty"`
	MinEffect  float64 `json:"min_effect,omitempty"`
	// Notes say what was not compared, and why (a benchmark on one side
	// only, a tier not run).
	Notes []string `json:"notes,omitempty"`
	// Pass is false when a change fails the gate.
	Pass bool `json:"pass"`
	// Old and New are the measurements judged, when Compare took them
	// (saved as benchmark text beside the report).
	Old, New *Measurements `json:"-"`
}

// Failures are the changes that fail the gate, the geometric mean's
// included.
func (r *Result) Failures() []Change {
	var out []Change
	if r.Geomean != nil && r.Geomean.Fails {
		out = append(out, *r.Geomean)
	}
	for _, c := range r.Changes {
		if c.Fails {
			out = append(out, c)
		}
	}
	return out
}

// Count counts the changes of tier (any tier when "") with verdict v.
func (r *Result) Count(tier Tier, v Verdict) int {
	n := 0
	for _, c := range r.Changes {
		if (tier == "" || c.Tier == tier) && c.Verdict == v {
			n++
		}
	}
	return n
}

// Find returns the change of bench in measure, if judged.
func (r *Result) Find(bench, measure string) (Change, bool) {
	for _, c := range r.Changes {
		if c.Bench == bench && c.Measure == measure {
			return c, true
		}
	}
	return Change{}, false
}

// delta is new/old − 1, with the cases a count can reach: from 0 to 0 is
// no change, from 0 to more is a large number (JSON has no infinity).
func delta(old, new float64) float64 {
	switch {
	case old == new:
		return 0
	case old == 0:
		return 1e9
	}
	return new/old - 1
}

// DeltaText renders a change's Delta: "+2.40%", or "0 → 1" where the base
// was 0 (a change from nothing has no percentage).
func (c Change) DeltaText() string {
	if c.Base == 0 && c.Change != 0 {
		return fmt.Sprintf("%g → %g", c.Base, c.Change)
	}
	return fmt.Sprintf("%+.2f%%", 100*c.Delta)
}
