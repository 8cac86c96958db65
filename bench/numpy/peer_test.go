package numpy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	spec "github.com/memverify/memverify/model/overlap"
)

// TestPeerWritesGoBenchmarkLines runs peer.py on NumPy's documented
// example: three lines, named as the Go benchmark's group with impl=NumPy,
// NumPyMayShare and NumPyNet and the GOMAXPROCS suffix, each a count and
// ns/op. Skipped where no Python with numpy is found.
func TestPeerWritesGoBenchmarkLines(t *testing.T) {
	dir := t.TempDir()
	p, err := Find(dir)
	if err != nil {
		t.Skipf("NumPy peer skipped: %v", err)
	}
	a := spec.View{Offset: 0, ElemSize: 4, Shape: []int64{4, 3}, Strides: []int64{64, 28}}
	b := spec.View{Offset: 12, ElemSize: 4, Shape: []int64{4, 5}, Strides: []int64{64, 12}}
	views := filepath.Join(dir, "views.json")
	f, err := os.Create(views)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteViews(f, []Family{{Name: "OverlapNumPyExample", Pairs: [][2]spec.View{{a, b}}}}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, err := p.Bench(views, "2000x", 2)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	impls := []string{"NumPy", "NumPyMayShare", "NumPyNet"}
	if len(lines) < 2 || len(lines) > 3 { // NumPyNet is left out of a round that cannot resolve it
		t.Fatalf("peer.py printed %q, want the lines of %v", out, impls)
	}
	for i, l := range lines {
		f := strings.Fields(l)
		if want := "BenchmarkOverlapNumPyExample/impl=" + impls[i] + "-2"; len(f) != 4 || f[0] != want || f[3] != "ns/op" {
			t.Errorf("line %q, want %s N x ns/op", l, want)
		}
	}
	if _, err := p.Bench(views, "soon", 2); err == nil {
		t.Error("-benchtime soon was accepted")
	}
}
