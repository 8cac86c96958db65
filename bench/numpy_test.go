package bench

import (
	"fmt"
	"os"
	"testing"

	"github.com/memverify/memverify/bench/numpy"
	"github.com/memverify/memverify/bench/overlapcases"
	spec "github.com/memverify/memverify/model/overlap"
)

// The NumPy peer (package bench/numpy) measures np.shares_memory on the
// pairs of the overlap benchmarks. numpyFamilies lists them, one family per
// benchmark that visits its pairs in turn, named as that benchmark is less
// its impl= level: the worst-case families and the corpus come from
// bench/overlapcases, as their benchmarks' do; the older benchmarks of
// overlap_test.go build their pairs in place, and numpyFamilies builds the
// same ones with the same generators and arguments. So the peer's lines
// (…/impl=NumPy) sit in the same groups as the Go checkers' and their
// ratios compare the same pairs.

// numpyFamilies returns every overlap family the peer measures.
func numpyFamilies() []numpy.Family {
	fams := []numpy.Family{{Name: "OverlapDense", Pairs: [][2]spec.View{{mustDense(0, 4, 64, 64), mustDense(32*64*4, 4, 64, 64)}}}}
	for _, shape := range [][]int64{{4096}, {16, 16, 16}, {4, 4, 16, 16}} {
		a, c := mustDense(0, 4, shape...), mustDense(2048*4, 4, shape...)
		fams = append(fams, numpy.Family{Name: fmt.Sprintf("OverlapDenseRanks/rank=%d", len(shape)), Pairs: [][2]spec.View{{a, c}}})
	}
	for rank := 1; rank <= 5; rank++ {
		fams = append(fams, numpy.Family{Name: fmt.Sprintf("OverlapRandom/rank=%d", rank), Pairs: overlapRandomPairs(rank, 1024, 7)})
	}
	a := spec.View{Offset: 0, ElemSize: 4, Shape: []int64{4, 3}, Strides: []int64{64, 28}}
	c := spec.View{Offset: 12, ElemSize: 4, Shape: []int64{4, 5}, Strides: []int64{64, 12}}
	fams = append(fams, numpy.Family{Name: "OverlapNumPyExample", Pairs: [][2]spec.View{{a, c}}})
	const n, row = 512, 512 * 4
	large := []struct {
		name string
		a, b spec.View
	}{
		{"strided", spec.View{Offset: 0, ElemSize: 4, Shape: []int64{n, (n + 6) / 7}, Strides: []int64{row, 28}},
			spec.View{Offset: 12, ElemSize: 4, Shape: []int64{n, (n - 3 + 2) / 3}, Strides: []int64{row, 12}}},
		{"interleaved", spec.View{Offset: 0, ElemSize: 4, Shape: []int64{n, n / 2}, Strides: []int64{row, 8}},
			spec.View{Offset: 4, ElemSize: 4, Shape: []int64{n, n / 2}, Strides: []int64{row, 8}}},
		{"dense", mustDense(0, 4, n/2+1, n), mustDense(n/2*row, 4, n/2, n)},
	}
	for _, l := range large {
		fams = append(fams, numpy.Family{Name: "OverlapLarge/" + l.name, Pairs: [][2]spec.View{{l.a, l.b}}})
	}
	for _, f := range overlapcases.Families(overlapcases.DefaultSeed) {
		// The corpus benchmark reports each pair's cost distribution;
		// the peer reports NumPy's beside it.
		fams = append(fams, numpy.Family{Name: f.Bench, Pairs: f.Pairs, PerPair: f.Name == "corpus"})
	}
	return fams
}

// TestNumPyPeerViews writes the views of numpyFamilies to the file that
// MEMVERIFY_NUMPY_VIEWS names: `verify bench` runs it in the benchmarks'
// test binary, so that the peer reads the views this build's generators
// make. Without the variable there is nothing to write.
func TestNumPyPeerViews(t *testing.T) {
	path := os.Getenv("MEMVERIFY_NUMPY_VIEWS")
	if path == "" {
		t.Skip("MEMVERIFY_NUMPY_VIEWS not set: verify bench sets it to have the views written")
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := numpy.WriteViews(f, numpyFamilies()); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestNumPyAgreement asks NumPy about every pair of every family and
// compares its answers with Exact's; where they differ, the brute-force
// model says which is wrong. Skipped where no Python with numpy is found.
func TestNumPyAgreement(t *testing.T) {
	dir := t.TempDir()
	peer, err := numpy.Find(dir)
	if err != nil {
		t.Skipf("NumPy peer skipped: %v", err)
	}
	t.Logf("NumPy peer: %v", peer)
	fams := numpyFamilies()
	views := dir + "/views.json"
	f, err := os.Create(views)
	if err != nil {
		t.Fatal(err)
	}
	if err := numpy.WriteViews(f, fams); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	ans, err := peer.Answers(views)
	if err != nil {
		t.Fatal(err)
	}
	checked, err := numpy.Check(fams, ans)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(checked)
	for _, d := range checked.Disagreements {
		t.Error(d)
	}
}
