package numpy

import (
	"fmt"

	impl "github.com/memverify/memverify/impl/overlap"
	spec "github.com/memverify/memverify/model/overlap"
)

// Disagreement is one pair on which NumPy and Exact answer differently, or
// on which np.may_share_memory calls a pair Exact finds overlapping
// disjoint (bounds that cannot be right).
type Disagreement struct {
	Family string
	Pair   int
	A, B   spec.View
	NumPy  string // np.shares_memory's answer, or "may_share_memory: no"
	Exact  spec.Verdict
	// Model is the brute-force model's verdict, the judge, when it could
	// decide the pair (ModelErr is empty).
	Model    spec.Verdict
	ModelErr string
}

// Wrong names the side the model finds wrong: "NumPy", "Exact", or ""
// when the model could not decide.
func (d Disagreement) Wrong() string {
	if d.ModelErr != "" {
		return ""
	}
	if d.Model == d.Exact {
		return "NumPy"
	}
	return "Exact"
}

func (d Disagreement) String() string {
	judge := "the model could not decide: " + d.ModelErr
	if d.ModelErr == "" {
		judge = fmt.Sprintf("the model says %v: %s is wrong", d.Model, d.Wrong())
	}
	return fmt.Sprintf("%s pair %d: %v and %v: NumPy %s, Exact %v; %s", d.Family, d.Pair, d.A, d.B, d.NumPy, d.Exact, judge)
}

// Checked is the outcome of Check: how many pairs were compared, and
// every disagreement.
type Checked struct {
	Pairs, Families int
	Disagreements   []Disagreement
}

// Check compares NumPy's answers with Exact's on every pair of fams, in
// the order WriteViews wrote them. Exact's TooHard agrees with any answer
// (it is a Yes for a dependency tracker, and the model then judges
// nothing); NumPy's too-hard and overflow agree with any answer too, for
// the same reason. A family NumPy did not answer, or answered for a
// different number of pairs, is an error: the two sides did not read the
// same views.
func Check(fams []Family, ans Answers) (Checked, error) {
	var c Checked
	if len(ans.Families) != len(fams) {
		return c, fmt.Errorf("NumPy answered %d families of %d", len(ans.Families), len(fams))
	}
	for i, f := range fams {
		af := ans.Families[i]
		if af.Name != f.Name || len(af.Shares) != len(f.Pairs) || len(af.MayShare) != len(f.Pairs) {
			return c, fmt.Errorf("NumPy's answers for %s (%d pairs) do not match the family %s (%d pairs)", af.Name, len(af.Shares), f.Name, len(f.Pairs))
		}
		c.Families++
		for j, p := range f.Pairs {
			c.Pairs++
			exact, err := impl.Exact(p[0], p[1])
			if err != nil {
				return c, fmt.Errorf("%s pair %d: Exact: %w", f.Name, j, err)
			}
			np := af.Shares[j]
			switch {
			case exact == spec.TooHard, np == "too-hard", np == "overflow":
				continue
			case (np == "yes") != (exact == spec.Yes):
			case !af.MayShare[j] && exact == spec.Yes:
				np = "may_share_memory: no"
			default:
				continue
			}
			d := Disagreement{Family: f.Name, Pair: j, A: p[0], B: p[1], NumPy: np, Exact: exact}
			if d.Model, err = spec.Overlap(p[0], p[1]); err != nil {
				d.ModelErr = err.Error()
			}
			c.Disagreements = append(c.Disagreements, d)
		}
	}
	return c, nil
}

// String summarises the check in one line.
func (c Checked) String() string {
	if len(c.Disagreements) == 0 {
		return fmt.Sprintf("NumPy agrees with Exact on all %d pairs of %d families", c.Pairs, c.Families)
	}
	return fmt.Sprintf("NumPy and Exact disagree on %d of %d pairs of %d families", len(c.Disagreements), c.Pairs, c.Families)
}
