package overlap

import (
	"math/rand/v2"
	"testing"

	spec "github.com/memverify/memverify/model/overlap"
)

// TestLinesAgree holds exactLines to the careful path (measure, decide and
// the problem's search) on pairs of vectors: strides nearly equal (s and
// s±δ, the pairs whose search once grew with the extent), equal, of one
// byte, 0 and of either sign, extents up to 4096, element sizes 1 to 8 —
// so that merged terms, absorbed ones, a single term and both closed forms
// (with slack and without) all come up. Both answers are counted, so that a
// generator that reached only one would show.
func TestLinesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 37))
	var answers [2]int
	for range 100000 {
		s := int64(1 + r.IntN(300))
		strides := []int64{s, s + int64(r.IntN(5)), s - int64(r.IntN(3)), -s, 1, 0}
		a := randomView(r, 1, 4096, strides)
		b := randomView(r, 1, 4096, strides)
		a.ElemSize, b.ElemSize = int64(1)<<r.IntN(4), int64(1)<<r.IntN(4)
		got := agreesWithCareful(t, "exactLines", exactLines, a, b)
		answers[b2n(got == spec.Yes)]++
	}
	if answers[0] < 10000 || answers[1] < 10000 {
		t.Errorf("pairs No / Yes: %d / %d: the generator misses one answer", answers[0], answers[1])
	}
}

// agreesWithCareful runs a fused path on a valid pair, fails the test
// where it turns the pair away or answers otherwise than the careful
// path, and returns its answer.
func agreesWithCareful(t *testing.T, name string, fused func(a, b *spec.View) (spec.Verdict, bool), a, b spec.View) spec.Verdict {
	t.Helper()
	got, ok := fused(&a, &b)
	if !ok {
		t.Fatalf("%s(%v, %v) turned the pair away", name, a, b)
	}
	want, err := exactCareful(a, b)
	if err != nil || got != want {
		t.Fatalf("%s(%v, %v) = %v; the careful path says %v, %v", name, a, b, got, want, err)
	}
	return got
}
