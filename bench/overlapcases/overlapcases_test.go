package overlapcases_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/memverify/memverify/bench/overlapcases"
	impl "github.com/memverify/memverify/impl/overlap"
	spec "github.com/memverify/memverify/model/overlap"
)

// TestFamilies checks what the package promises a runner: stable names,
// the same pairs from the same seed, valid views within MaxBytes, and
// bounds that meet (a family of disjoint bounds would measure nothing).
func TestFamilies(t *testing.T) {
	want := []string{"near-equal/n=256", "near-equal/n=1024", "near-equal/n=4096",
		"sparse-3d/n=8", "sparse-3d/n=16", "high-rank/rank=5", "high-rank/rank=8", "corpus"}
	if got := overlapcases.Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	fams := overlapcases.Families(overlapcases.DefaultSeed)
	for _, f := range fams {
		again, err := overlapcases.Get(f.Name, overlapcases.DefaultSeed)
		if err != nil || !reflect.DeepEqual(again, f) {
			t.Errorf("%s: Get differs from Families (%v)", f.Name, err)
		}
		meet, yes := 0, 0
		for i, p := range f.Pairs {
			for _, v := range p {
				lo, hi, ok := v.Bounds()
				if !ok || lo < 0 || hi >= overlapcases.MaxBytes {
					t.Fatalf("%s pair %d: %v invalid, empty or outside [0, MaxBytes): %v", f.Name, i, v, v.Validate())
				}
				if !slices.Contains([]int64{1, 2, 4, 8}, v.ElemSize) {
					t.Fatalf("%s pair %d: element size %d", f.Name, i, v.ElemSize)
				}
			}
			loA, hiA, _ := p[0].Bounds()
			loB, hiB, _ := p[1].Bounds()
			if loA <= hiB && loB <= hiA {
				meet++
			}
			if got, _ := impl.Exact(p[0], p[1]); got == spec.Yes {
				yes++
			}
		}
		t.Logf("%-18s %5d pairs, bounds meet in %5d, Exact Yes in %5d", f.Name, len(f.Pairs), meet, yes)
		if meet < len(f.Pairs)/2 {
			t.Errorf("%s: bounds meet in only %d of %d pairs", f.Name, meet, len(f.Pairs))
		}
	}
	if n := len(fams[len(fams)-1].Pairs); n < 10000 {
		t.Errorf("the corpus has %d pairs, want at least 10,000", n)
	}
	if of := overlapcases.Of("OverlapNearEqual", overlapcases.DefaultSeed); len(of) != 3 || !reflect.DeepEqual(of[0], fams[0]) {
		t.Errorf("Of(OverlapNearEqual) returns %d families", len(of))
	}
	if _, err := overlapcases.Get("nope", 1); err == nil {
		t.Error("Get of an unknown family: no error")
	}
}
