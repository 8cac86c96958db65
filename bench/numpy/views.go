package numpy

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	spec "github.com/memverify/memverify/model/overlap"
)

// Family is the pairs one overlap benchmark visits in turn. Name is the
// benchmark's name less its "Benchmark" prefix and its impl= level
// ("OverlapRandom/rank=3"): the peer's lines are named Benchmark<Name>/impl=NumPy.
type Family struct {
	Name  string
	Pairs [][2]spec.View
	// PerPair asks for the distribution of each pair's cost as well (the
	// NumPy line's p50-ns/pair and p99-ns/pair), as the Go benchmark of a
	// corpus reports it.
	PerPair bool
}

// jsonView is a view as peer.py reads it.
type jsonView struct {
	Offset  int64   `json:"offset"`
	Elem    int64   `json:"elem"`
	Shape   []int64 `json:"shape"`
	Strides []int64 `json:"strides"`
}

type jsonFamily struct {
	Name    string        `json:"name"`
	Pairs   [][2]jsonView `json:"pairs"`
	PerPair bool          `json:"per_pair,omitempty"`
}

type jsonViews struct {
	Families []jsonFamily `json:"families"`
}

// WriteViews writes fams as the JSON peer.py reads. Every view must be
// valid (spec.View.Validate): peer.py lays each family over one buffer
// from byte 0, which an invalid view (a negative offset, a byte below 0)
// would reach outside of.
func WriteViews(w io.Writer, fams []Family) error {
	var doc jsonViews
	for _, f := range fams {
		jf := jsonFamily{Name: f.Name, Pairs: make([][2]jsonView, len(f.Pairs)), PerPair: f.PerPair}
		for i, p := range f.Pairs {
			for k, v := range p {
				if err := v.Validate(); err != nil {
					return fmt.Errorf("%s pair %d: %w", f.Name, i, err)
				}
				jv := jsonView{v.Offset, v.ElemSize, v.Shape, v.Strides}
				if jv.Shape == nil { // a rank-0 view: [] in JSON, not null
					jv.Shape, jv.Strides = []int64{}, []int64{}
				}
				jf.Pairs[i][k] = jv
			}
		}
		doc.Families = append(doc.Families, jf)
	}
	return json.NewEncoder(w).Encode(doc)
}

// ReadViews reads a file WriteViews wrote.
func ReadViews(path string) ([]Family, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc jsonViews
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fams := make([]Family, len(doc.Families))
	for i, jf := range doc.Families {
		fams[i] = Family{Name: jf.Name, Pairs: make([][2]spec.View, len(jf.Pairs)), PerPair: jf.PerPair}
		for j, p := range jf.Pairs {
			for k, v := range p {
				fams[i].Pairs[j][k] = spec.View{Offset: v.Offset, ElemSize: v.Elem, Shape: v.Shape, Strides: v.Strides}
			}
		}
	}
	return fams, nil
}
