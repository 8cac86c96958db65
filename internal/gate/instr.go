package gate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Instructions per op are counted by callgrind, in a process that runs one
// benchmark at a fixed iteration count (-test.benchtime=Nx), under
// GODEBUG=asyncpreemptoff=1 and GOMAXPROCS=1: without the first, the
// signals of asynchronous preemption crash Go binaries under valgrind;
// with one P, the benchmark's goroutine is the one that runs. The same
// process is run again at a second count, and the difference of the two
// totals is the work of the N₂ − N₁ extra iterations: start-up, setup, the
// framework and testing's probe at b.N = 1 cancel.
//
// Whole-process totals, and not collection toggled around the benchmark
// function: callgrind follows calls and returns, and a goroutine switch
// moves the stack under it, so it sees returns that did not happen; a
// toggle on a function's entry and exit then fires at the wrong times, and
// testing runs every benchmark in goroutines of its own (the counts of one
// benchmark toggled on testing.(*B).runN varied by 3% between identical
// runs; the totals below vary by about 0.1%).
//
// What varies between identical runs is the runtime's own work that
// follows wall time. sysmon runs on a thread of its own and is taken out
// (its calls are in the profile). The collector runs with GOGC=off (a
// soft GOMEMLIMIT as a safety net): its pacing would otherwise move
// cycles, and the marking work they do, between the runs (allocations are
// judged as counts, in their own right); the collection testing forces
// before each run stays, the same in both. What remains are the runtime's
// one-off events, whose number follows the run's wall time more than its
// work: a slow path of the page allocator, the scheduling of the
// collector's workers in those collections, a lock contended with sysmon.
// Each is 10⁴ to 10⁵ instructions, and a run on a loaded host meets a few
// (two identical runs of 7.6·10⁷ instructions differed by 1.1·10⁵ at a
// load of 14 on 2 cores); minWork keeps them under 0.1% of the difference.
//
// What the gate cannot cancel is work that differs between processes by
// design: a Go map's hash seed is drawn per process, so a benchmark that
// looks up the same few keys in a map (os.Getenv does) walks probe
// sequences of a length drawn anew in each run, and its count per op
// varies between processes by as much as the lookups' share of it (2% for
// a loop around os.Getenv). Such a benchmark should read its settings
// before its loop, or look up many keys.

// callgrindEnv is the environment of a counted run.
var callgrindEnv = []string{"GODEBUG=asyncpreemptoff=1", "GOMAXPROCS=1", "GOGC=off", "GOMEMLIMIT=2GiB"}

// excluded are functions whose calls are taken out of the total: sysmon
// runs on a thread of its own, its work follows wall time.
var excluded = []string{"runtime.sysmon"}

// minWork is the number of instructions the N₂ − N₁ extra iterations of a
// benchmark should execute, so that the runtime's one-off events stay under
// 0.1%, a tenth of the default tolerance. A run's cost is mostly
// valgrind's start-up (about 4 s on a loaded 2-core host, against 2 s for
// 1.5·10⁸ instructions), so the margin is cheap.
const minWork = 150e6

// instrPerNs converts a native time per op into the instructions Counts
// assumes. memverify's benchmarks run 6.6 (a random read of a 64k-entry
// map: misses) to 20 instructions a nanosecond on an idle host. A loaded
// host inflates times, and the counts then fall short: measureOne makes
// the second run again, larger, one more run of valgrind. Assuming fewer
// instructions for every benchmark would count 10⁹ where 1.5·10⁸ do, at
// 30 s a run.
const instrPerNs = 6

// Counts chooses the two iteration counts for a benchmark that takes
// about nsPerOp nanoseconds an op natively: N₂ the first of 1, 2, 5, 10,
// 20, 50, ... that makes the difference at least minWork instructions, N₁
// a fifth of it (at least 1, and below N₂). Round numbers keep the
// commands a report prints readable.
func Counts(nsPerOp float64) (n1, n2 int) { return countsFor(nsPerOp * instrPerNs) }

// countsFor is Counts for a benchmark of perOp instructions an op.
func countsFor(perOp float64) (n1, n2 int) {
	if perOp < 1 || math.IsNaN(perOp) {
		perOp = 1
	}
	steps := []int{1, 2, 5}
	for scale := 1; ; scale *= 10 {
		for _, s := range steps {
			n2 = s * scale
			if float64(n2)*0.8*perOp >= minWork && n2 >= 2 || n2 >= 1e8 {
				return min(max(n2/5, 1), n2-1), n2
			}
		}
	}
}

// Callgrind runs benchmark binaries under callgrind.
type Callgrind struct {
	Valgrind string    // the valgrind executable; "valgrind" when empty
	Dir      string    // the directory the binary runs in (its package's)
	Env      []string  // added to the environment of each run
	Log      io.Writer // progress; nil for none
}

// Leaf is one benchmark to measure, by its full name as go test prints it
// at GOMAXPROCS=1, with its two iteration counts.
type Leaf struct {
	Name   string
	N1, N2 int
}

// Instr is one benchmark's instruction count.
type Instr struct {
	PerOp        float64 // (Cost2 − Cost1) / (N2 − N1)
	N1, N2       int
	Cost1, Cost2 uint64
}

// Measure counts the instructions per op of each leaf in the binary bin
// and records them in m, with the allocations of the run at N₂ (exact
// counts, as good as a native run's; the times under valgrind mean
// nothing and are dropped). all names every benchmark the binary has, so
// that each process's pattern selects its leaf and no other. Up to jobs
// processes run at once.
func (c Callgrind) Measure(ctx context.Context, bin string, leaves []Leaf, all []string, jobs int, m *Measurements) error {
	type result struct {
		leaf Leaf
		in   Instr
		out  []byte
		err  error
	}
	jobs = max(jobs, 1)
	work := make(chan Leaf)
	results := make(chan result)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range jobs {
		go func() {
			for l := range work {
				in, out, err := c.measureOne(ctx, bin, l, all)
				results <- result{l, in, out, err}
			}
		}()
	}
	go func() {
		defer close(work)
		for _, l := range leaves {
			select {
			case work <- l:
			case <-ctx.Done():
				return
			}
		}
	}()
	var first error
	for range leaves {
		r := <-results
		if r.err != nil {
			if first == nil {
				first = r.err
				cancel()
			}
			continue
		}
		if first != nil {
			continue
		}
		m.Instr[r.leaf.Name] = r.in
		if err := m.addAllocations(r.out, "callgrind run of "+r.leaf.Name); err != nil {
			first = err
			cancel()
		}
	}
	return first
}

// measureOne counts one leaf's instructions per op from its runs at N₁
// and N₂, and returns the output of the run at N₂. N₂ comes from a timing
// (Counts), and a loaded host inflates times; and a benchmark with a large
// setup (a list of 100k blocks, built twice a run) carries that setup's
// noise into the difference. So when the two runs differ by less than
// minWork, or by less than 2.5 times what does not grow with N, the run at
// N₂ is made again with N₂ scaled up to reach it (twice at most); the run
// at N₁ stands.
func (c Callgrind) measureOne(ctx context.Context, bin string, l Leaf, all []string) (Instr, []byte, error) {
	pats := exactPatterns([]string{l.Name}, all)
	if len(pats) != 1 {
		return Instr{}, nil, fmt.Errorf("%s: no pattern selects it alone", l.Name)
	}
	c1, _, err := c.runOne(ctx, bin, pats[0], l.Name, l.N1)
	if err != nil {
		return Instr{}, nil, err
	}
	for try := 0; ; try++ {
		c2, out2, err := c.runOne(ctx, bin, pats[0], l.Name, l.N2)
		if err != nil {
			return Instr{}, nil, err
		}
		work := float64(c2) - float64(c1)
		perOp := max(work/float64(l.N2-l.N1), 1)
		// What does not grow with N: start-up, setup, the framework.
		fixed := max(float64(c1)-float64(l.N1)*perOp, 0)
		need := max(minWork, 2.5*fixed)
		if work >= 0.8*need || try == 2 || l.N2 >= 1e8 {
			return Instr{PerOp: work / float64(l.N2-l.N1), N1: l.N1, N2: l.N2, Cost1: c1, Cost2: c2}, out2, nil
		}
		_, n2 := countsFor(perOp * minWork / need) // a loop of at least need
		l.N2 = max(n2+l.N1, 2*l.N2)
	}
}

// runOne runs the one benchmark name under callgrind at nx and checks
// that it ran, alone.
func (c Callgrind) runOne(ctx context.Context, bin, pattern, name string, n int) (uint64, []byte, error) {
	cost, out, err := c.run(ctx, bin, pattern, n)
	if err != nil {
		return 0, nil, err
	}
	names, err := resultNames(out)
	if err != nil {
		return 0, nil, err
	}
	if len(names) != 1 || names[0] != name {
		return 0, nil, fmt.Errorf("-test.bench '%s' ran %q, want %s alone (did it skip, or fail?)\n%s", pattern, names, name, tail(out))
	}
	return cost, out, nil
}

// run runs bin under callgrind at -test.benchtime=nx on the benchmarks of
// pattern, and returns the instructions of each dump, the excluded calls
// taken out, and the benchmark output.
func (c Callgrind) run(ctx context.Context, bin, pattern string, n int) (uint64, []byte, error) {
	dir, err := os.MkdirTemp("", "gate-callgrind-")
	if err != nil {
		return 0, nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "callgrind.out")
	valgrind := c.Valgrind
	if valgrind == "" {
		valgrind = "valgrind"
	}
	args := append([]string{}, "--tool=callgrind", "--callgrind-out-file="+file,
		bin, "-test.run", "^$", "-test.bench", pattern, "-test.benchtime", strconv.Itoa(n)+"x",
		"-test.benchmem", "-test.count", "1")
	cmd := exec.CommandContext(ctx, valgrind, args...)
	cmd.Dir = c.Dir
	cmd.Env = append(append(os.Environ(), c.Env...), callgrindEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if c.Log != nil {
		fmt.Fprintf(c.Log, "callgrind: %s -test.bench '%s' -test.benchtime %dx\n", filepath.Base(bin), pattern, n)
	}
	if err := cmd.Run(); err != nil {
		return 0, nil, fmt.Errorf("%s %s: %v\n%s%s", valgrind, strings.Join(args, " "), err, tail(stdout.Bytes()), tail(stderr.Bytes()))
	}
	f, err := os.Open(file)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	parts, err := parseCallgrind(f)
	if err != nil {
		return 0, nil, err
	}
	var total uint64
	for _, p := range parts {
		total += cost(p)
	}
	return total, stdout.Bytes(), nil
}

// cost is a dump's instructions less the calls excluded.
func cost(p part) uint64 {
	c := p.total
	for _, fn := range excluded {
		for name, n := range p.into {
			if baseName(name) == fn && n <= c {
				c -= n
			}
		}
	}
	return c
}

// baseName drops callgrind's recursion suffix ("runtime.GC'2").
func baseName(fn string) string {
	if i := strings.IndexByte(fn, '\''); i > 0 {
		return fn[:i]
	}
	return fn
}

// resultNames lists the benchmarks of go test output in order.
func resultNames(out []byte) ([]string, error) {
	var names []string
	r := benchfmt.NewReader(bytes.NewReader(out), "callgrind run")
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			names = append(names, fullName(res))
		}
	}
	return names, r.Err()
}

// tail is the end of a process's output, for an error message.
func tail(b []byte) string {
	const n = 2000
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
