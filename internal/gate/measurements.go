package gate

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Units the gate reads. Times are read in seconds, as benchfmt tidies
// ns/op; instructions are the unit the gate writes.
const (
	unitTime   = "sec/op"
	unitAllocs = "allocs/op"
	unitBytes  = "B/op"
	unitInstr  = "instr/op"
)

// Measurements are one side of a comparison: every sample of every
// benchmark, by the name go test printed (with its -GOMAXPROCS suffix,
// when it has one) and unit, in the order taken; the instruction counts;
// and the toolchain that counted them.
type Measurements struct {
	Toolchain Toolchain
	Samples   map[string]map[string][]float64
	Instr     map[string]Instr
}

// NewMeasurements returns empty measurements.
func NewMeasurements() *Measurements {
	return &Measurements{Samples: map[string]map[string][]float64{}, Instr: map[string]Instr{}}
}

// Add reads `go test -bench` output (or a saved run) into m. name names
// the input in errors. An instr/op value is an instruction count (one a
// benchmark: a second one is an error, not a sample); the toolchain lines
// of a saved run fill m.Toolchain, and one that disagrees with what m
// already holds is an error.
func (m *Measurements) Add(r io.Reader, name string) error {
	br := benchfmt.NewReader(r, name)
	for br.Scan() {
		res, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		if err := m.readConfig(res); err != nil {
			return err
		}
		bench := fullName(res)
		for _, v := range res.Values {
			if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
				file, line := res.Pos()
				return fmt.Errorf("%s:%d: %s: %v %s is not a finite number", file, line, bench, v.Value, v.Unit)
			}
			if v.Unit == unitInstr {
				if _, dup := m.Instr[bench]; dup {
					file, line := res.Pos()
					return fmt.Errorf("%s:%d: %s counted twice", file, line, bench)
				}
				m.Instr[bench] = Instr{PerOp: v.Value, N2: int(res.Iters)}
				continue
			}
			if m.Samples[bench] == nil {
				m.Samples[bench] = map[string][]float64{}
			}
			m.Samples[bench][v.Unit] = append(m.Samples[bench][v.Unit], v.Value)
		}
	}
	return br.Err()
}

// readConfig takes the toolchain from a result's configuration.
func (m *Measurements) readConfig(res *benchfmt.Result) error {
	t := m.Toolchain
	for _, c := range res.Config {
		switch c.Key {
		case keyGo:
			t.Go = string(c.Value)
		case keyValgrind:
			t.Valgrind = string(c.Value)
		case keyGOAMD64:
			t.GOAMD64 = string(c.Value)
		}
	}
	if m.Toolchain != (Toolchain{}) && t != m.Toolchain {
		return fmt.Errorf("one run holds counts of two toolchains: %s", m.Toolchain.Mismatch(t))
	}
	m.Toolchain = t
	return nil
}

// AddText is Add over bytes.
func (m *Measurements) AddText(data []byte, name string) error {
	return m.Add(bytes.NewReader(data), name)
}

// WriteTo writes m as a saved run: the toolchain, the instruction counts
// (one line per benchmark, with the extra iterations they were measured
// over), then the samples, one line per sample (a benchmark's units are
// written side by side while each has a sample left).
func (m *Measurements) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	if len(m.Instr) > 0 {
		b.WriteString(m.Toolchain.configLines())
	}
	for _, name := range sortedKeys(m.Instr) {
		in := m.Instr[name]
		fmt.Fprintf(&b, "%s\t%d\t%.4f %s\n", name, max(in.N2-in.N1, 1), in.PerOp, unitInstr)
	}
	for _, name := range sortedKeys(m.Samples) {
		units := m.Samples[name]
		for i := 0; ; i++ {
			var vals []string
			for _, u := range orderedUnits(units) {
				if i < len(units[u]) {
					v, unit := units[u][i], u
					if u == unitTime {
						// in ns/op, to 1e-4 ns: what go test prints, and no
						// digits of the conversion's rounding
						v, unit = math.Round(v*1e13)/1e4, "ns/op"
					}
					vals = append(vals, strconv.FormatFloat(v, 'f', -1, 64)+" "+unit)
				}
			}
			if len(vals) == 0 {
				break
			}
			fmt.Fprintf(&b, "%s\t1\t%s\n", name, strings.Join(vals, "\t"))
		}
	}
	n, err := w.Write(b.Bytes())
	return int64(n), err
}

// orderedUnits lists a benchmark's units, time first, as go test writes them.
func orderedUnits(units map[string][]float64) []string {
	rank := map[string]int{unitTime: 0, unitBytes: 1, unitAllocs: 2}
	out := sortedKeys(units)
	sort.SliceStable(out, func(i, j int) bool {
		ri, ok := rank[out[i]]
		if !ok {
			ri = 3
		}
		rj, ok := rank[out[j]]
		if !ok {
			rj = 3
		}
		return ri < rj
	})
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// addAllocations adds the allocation samples of go test output to m,
// leaving its times out.
func (m *Measurements) addAllocations(out []byte, name string) error {
	all := NewMeasurements()
	if err := all.AddText(out, name); err != nil {
		return err
	}
	for bench, units := range all.Samples {
		for _, u := range []string{unitAllocs, unitBytes} {
			if vs, ok := units[u]; ok {
				if m.Samples[bench] == nil {
					m.Samples[bench] = map[string][]float64{}
				}
				m.Samples[bench][u] = append(m.Samples[bench][u], vs...)
			}
		}
	}
	return nil
}

// fullName is a result's benchmark name as go test prints it: benchfmt
// drops the Benchmark prefix, which -bench patterns match.
func fullName(res *benchfmt.Result) string { return "Benchmark" + string(res.Name) }
