package gate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Binary is a benchmark test binary, as `go test -c` builds it, and how to
// run it.
type Binary struct {
	Label string   // "base", "change": how reports and progress name it
	Path  string   // the executable
	Dir   string   // the directory it runs in: its package's, as under go test
	Env   []string // added to the environment of its runs
}

// command returns the command that runs b with args, natively.
func (b Binary) command(ctx context.Context, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, b.Path, args...)
	cmd.Dir = b.Dir
	cmd.Env = append(append(os.Environ(), b.Env...), env...)
	return cmd
}

// run runs b natively on the benchmarks of pattern, one sample each.
func (b Binary) run(ctx context.Context, pattern, benchtime string, env []string, log io.Writer) ([]byte, error) {
	args := []string{"-test.run", "^$", "-test.bench", pattern, "-test.benchmem", "-test.count", "1", "-test.benchtime", benchtime}
	cmd := b.command(ctx, env, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if log != nil {
		fmt.Fprintf(log, "%s: %s -test.bench '%s' -test.benchtime %s\n", b.Label, filepath.Base(b.Path), pattern, benchtime)
	}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %s %s: %v\n%s%s", b.Label, b.Path, strings.Join(args, " "), err, tail(out.Bytes()), tail(errOut.Bytes()))
	}
	return out.Bytes(), nil
}

// Rounds times bins in count interleaved rounds, each run of each binary
// one sample of every benchmark of the patterns (one run a pattern):
// bins[0], bins[1], ..., bins[0], bins[1], ... A phase of a shared host
// then lands on every binary alike, where go test -count would give one
// binary all of it. It returns each binary's samples, in order.
func Rounds(ctx context.Context, bins []Binary, patterns []string, benchtime string, count int, log io.Writer) ([]*Measurements, error) {
	out := make([]*Measurements, len(bins))
	for i := range out {
		out[i] = NewMeasurements()
	}
	for r := 1; r <= count; r++ {
		if log != nil {
			fmt.Fprintf(log, "round %d of %d: %d binaries, -test.bench %s, -test.benchtime %s\n", r, count, len(bins), strings.Join(patterns, " "), benchtime)
		}
		for i, b := range bins {
			for _, pattern := range patterns {
				data, err := b.run(ctx, pattern, benchtime, nil, nil)
				if err != nil {
					return nil, err
				}
				if err := out[i].AddText(data, fmt.Sprintf("%s, round %d", b.Label, r)); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// Calibration is what a short run of a binary at GOMAXPROCS=1 found: every
// benchmark of the pattern, in the order run, with its time per op.
type Calibration struct {
	Names   []string
	NsPerOp map[string]float64
}

// Calibrate runs bin once at GOMAXPROCS=1 on the benchmarks of pattern,
// for benchtime each ("1x" to list them only), and returns them. Names at
// GOMAXPROCS=1 carry no -N suffix: they are the names the counted runs
// print, and the elements a pattern matches.
func Calibrate(ctx context.Context, bin Binary, pattern, benchtime string, log io.Writer) (Calibration, error) {
	c := Calibration{NsPerOp: map[string]float64{}}
	out, err := bin.run(ctx, pattern, benchtime, []string{"GOMAXPROCS=1"}, log)
	if err != nil {
		return c, err
	}
	r := benchfmt.NewReader(bytes.NewReader(out), bin.Label+" calibration")
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		name := fullName(res)
		if _, seen := c.NsPerOp[name]; !seen {
			c.Names = append(c.Names, name)
		}
		if v, ok := res.Value(unitTime); ok {
			c.NsPerOp[name] = v * 1e9
		} else {
			c.NsPerOp[name] = 0
		}
	}
	return c, r.Err()
}

// stripProcs maps a benchmark's name as a native run prints it (with its
// -GOMAXPROCS suffix) to its name at GOMAXPROCS=1, if known.
func stripProcs(name string, known map[string]float64) string {
	if _, ok := known[name]; ok {
		return name
	}
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, ok := known[name[:i]]; ok {
			return name[:i]
		}
	}
	return name
}

// without lists the calibrated benchmarks whose names re does not match.
func (c Calibration) without(re *regexp.Regexp) []string {
	var out []string
	for _, n := range c.Names {
		if !re.MatchString(n) {
			out = append(out, n)
		}
	}
	return out
}

// exclude drops the benchmarks re matches from what c measures (NsPerOp),
// keeping them in Names: patterns are made against every benchmark the
// binary has.
func (c *Calibration) exclude(re *regexp.Regexp) {
	for n := range c.NsPerOp {
		if re.MatchString(n) {
			delete(c.NsPerOp, n)
		}
	}
}

// calibrationTime is the -benchtime of the run that estimates each
// benchmark's cost before it is counted.
const calibrationTime = "10ms"

// time times the benchmarks of patterns briefly on bin, at GOMAXPROCS=1,
// into c.NsPerOp: the costs that choose their counted iterations.
func (c *Calibration) time(ctx context.Context, bin Binary, patterns []string, log io.Writer) error {
	for _, p := range patterns {
		t, err := Calibrate(ctx, bin, p, calibrationTime, log)
		if err != nil {
			return err
		}
		for n, ns := range t.NsPerOp {
			if _, ok := c.NsPerOp[n]; ok {
				c.NsPerOp[n] = ns
			}
		}
	}
	return nil
}
