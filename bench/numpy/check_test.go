package numpy

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	spec "github.com/memverify/memverify/model/overlap"
)

// answers builds NumPy's answers for one family by hand.
func answers(name string, shares []string, may []bool) Answers {
	var a Answers
	a.Families = append(a.Families, struct {
		Name     string   `json:"name"`
		Shares   []string `json:"shares"`
		MayShare []bool   `json:"may_share"`
	}{name, shares, may})
	return a
}

// TestCheckNamesTheWrongSide: a pair on which NumPy's answer differs from
// Exact's is a disagreement, and the model says which side is wrong; a
// may_share_memory "no" on a pair that overlaps is one too; NumPy's
// too-hard agrees with anything.
func TestCheckNamesTheWrongSide(t *testing.T) {
	row := spec.View{ElemSize: 4, Shape: []int64{8}, Strides: []int64{4}}
	shifted := spec.View{Offset: 16, ElemSize: 4, Shape: []int64{8}, Strides: []int64{4}}
	far := spec.View{Offset: 64, ElemSize: 4, Shape: []int64{8}, Strides: []int64{4}}
	fams := []Family{{Name: "F", Pairs: [][2]spec.View{{row, shifted}, {row, far}, {row, shifted}, {row, shifted}}}}
	got, err := Check(fams, answers("F", []string{"no", "no", "too-hard", "yes"}, []bool{true, false, true, false}))
	if err != nil {
		t.Fatal(err)
	}
	if got.Pairs != 4 || len(got.Disagreements) != 2 {
		t.Fatalf("checked %d pairs, %d disagreements, want 4 and 2: %v", got.Pairs, len(got.Disagreements), got.Disagreements)
	}
	for i, want := range []struct {
		pair  int
		numpy string
	}{{0, "no"}, {3, "may_share_memory: no"}} {
		d := got.Disagreements[i]
		if d.Pair != want.pair || d.NumPy != want.numpy || d.Wrong() != "NumPy" {
			t.Errorf("disagreement %d: %v; want pair %d, NumPy %q, NumPy wrong", i, d, want.pair, want.numpy)
		}
	}
	if !strings.Contains(got.String(), "disagree on 2 of 4 pairs") {
		t.Errorf("summary %q", got)
	}
}

// TestCheckRefusesAnswersOfOtherViews: answers for another family, or for
// a different number of pairs, are an error, not an agreement.
func TestCheckRefusesAnswersOfOtherViews(t *testing.T) {
	v := spec.View{ElemSize: 1, Shape: []int64{2}, Strides: []int64{1}}
	fams := []Family{{Name: "F", Pairs: [][2]spec.View{{v, v}}}}
	if _, err := Check(fams, answers("G", []string{"yes"}, []bool{true})); err == nil {
		t.Error("answers for family G were taken for F")
	}
	if _, err := Check(fams, answers("F", []string{"yes", "yes"}, []bool{true, true})); err == nil {
		t.Error("two answers were taken for one pair")
	}
}

// TestViewsRoundTrip: what WriteViews writes, ReadViews reads back, and a
// view that is not valid is refused rather than written.
func TestViewsRoundTrip(t *testing.T) {
	fams := []Family{{Name: "F", Pairs: [][2]spec.View{{
		{Offset: 60, ElemSize: 4, Shape: []int64{4, 5}, Strides: []int64{64, -12}},
		{ElemSize: 8},
	}}}}
	var buf bytes.Buffer
	if err := WriteViews(&buf, fams); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "views.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := ReadViews(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := back[0].Pairs[0][0].String(), fams[0].Pairs[0][0].String(); got != want {
		t.Errorf("read back %s, want %s", got, want)
	}
	if got := back[0].Pairs[0][1]; len(got.Shape) != 0 || got.ElemSize != 8 {
		t.Errorf("a rank-0 view read back as %v", got)
	}
	bad := []Family{{Name: "F", Pairs: [][2]spec.View{{{Offset: -1, ElemSize: 1}, {ElemSize: 1}}}}}
	if err := WriteViews(&buf, bad); err == nil {
		t.Error("a view with a negative offset was written")
	}
}
