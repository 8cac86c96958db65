package main

// NumPy as a peer in `verify bench`'s rounds. The benchmarks' test binary
// writes the views of its overlap families (TestNumPyPeerViews, in bench/),
// the families the -bench pattern selects are kept, and in every round,
// after the Go benchmarks, peer.py times NumPy on them: its lines join the
// round's, so that NumPy's medians and the Go checkers' come from the same
// minutes of the host and one table. Before the first round NumPy's answers
// are checked against Exact's on every pair. Without a Python that imports
// numpy the peer is skipped, in one line, and the rounds go on.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/memverify/memverify/bench/numpy"
)

// roundPeer is a peer measured in each round of benchRoundsWith.
type roundPeer interface {
	// prepare runs once the test binary bin is built; pkgDir is its
	// package's directory and dir a scratch directory for the peer.
	prepare(bin, pkgDir, dir string, log io.Writer) error
	// round measures the peer once and writes its benchmark lines to out.
	round(out, log io.Writer) error
}

// viewsTest is the test of bench/ that writes the peer's views, and the
// variable naming the file it writes.
const viewsTest, viewsEnv = "TestNumPyPeerViews", "MEMVERIFY_NUMPY_VIEWS"

// numpyPeer is NumPy in `verify bench`'s rounds. After the rounds, note
// says what it did for the report's source line (which interpreter, how
// the answers compared), and errs lists the errors of the run: each pair
// on which the model found Exact wrong and NumPy right, and a peer that
// failed in a round (it is left out of the rounds after, and the Go
// benchmarks go on). A pair on which NumPy is wrong is a note, not an
// error of ours.
type numpyPeer struct {
	pattern, benchtime string

	peer  *numpy.Peer
	views string // the views of the selected families, for peer.py
	match func(name string) bool
	procs int
	note  string
	errs  []string
}

// prepare never stops the rounds: a peer that cannot start is an error of
// the run (errs), and the Go benchmarks are measured without it.
func (p *numpyPeer) prepare(bin, pkgDir, dir string, log io.Writer) error {
	if err := p.setup(bin, pkgDir, dir, log); err != nil {
		p.fail(log, "NumPy peer failed, left out of the rounds: %v", err)
	}
	return nil
}

// fail records an error of the peer, says it, and leaves the peer out of
// the rounds from here on.
func (p *numpyPeer) fail(log io.Writer, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintln(log, msg)
	p.errs, p.peer = append(p.errs, msg), nil
}

// setup writes the views, keeps the selected families, finds NumPy and
// checks its answers.
func (p *numpyPeer) setup(bin, pkgDir, dir string, log io.Writer) error {
	all := filepath.Join(dir, "numpy-views-all.json")
	cmd := exec.Command(bin, "-test.run", "^"+viewsTest+"$")
	cmd.Dir, cmd.Env = pkgDir, append(os.Environ(), viewsEnv+"="+all)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("writing the NumPy peer's views: %v\n%s", err, out)
	}
	fams, err := numpy.ReadViews(all)
	if errors.Is(err, os.ErrNotExist) {
		return nil // a package without overlap families: no peer
	} else if err != nil {
		return err
	}
	return p.start(fams, dir, log)
}

// start keeps the families -bench selects, finds NumPy, and checks its
// answers; without NumPy it says so once and leaves the rounds alone.
func (p *numpyPeer) start(fams []numpy.Family, dir string, log io.Writer) error {
	var err error
	if p.match, err = benchMatcher(p.pattern); err != nil {
		return err
	}
	var chosen []numpy.Family
	for _, f := range fams {
		for _, impl := range []string{"NumPy", "NumPyNet", "NumPyMayShare"} {
			if p.match("Benchmark" + f.Name + "/impl=" + impl) {
				chosen = append(chosen, f)
				break
			}
		}
	}
	if len(chosen) == 0 {
		return nil // -bench selects no overlap family
	}
	if p.peer, err = numpy.Find(dir); err != nil {
		p.note = "NumPy peer skipped: " + err.Error()
		fmt.Fprintln(log, p.note)
		return nil
	}
	p.peer.Log = log
	fmt.Fprintf(log, "NumPy peer: %v, on %d overlap families\n", p.peer, len(chosen))
	p.views, p.procs = filepath.Join(dir, "numpy-views.json"), runtime.GOMAXPROCS(0)
	if err := writeViews(p.views, chosen); err != nil {
		return err
	}
	return p.check(chosen, log)
}

// check compares NumPy's answers with Exact's on the chosen families.
func (p *numpyPeer) check(fams []numpy.Family, log io.Writer) error {
	ans, err := p.peer.Answers(p.views)
	if err != nil {
		return fmt.Errorf("asking NumPy: %w", err)
	}
	c, err := numpy.Check(fams, ans)
	if err != nil {
		return err
	}
	p.note = fmt.Sprintf("NumPy (%s, numpy %s) timed in every round; %v", p.peer.Python, p.peer.NumPy, c)
	fmt.Fprintln(log, c)
	for i, d := range c.Disagreements {
		fmt.Fprintf(log, "  %v\n", d)
		if i < 3 { // the report names the first few; the log has them all
			p.note += "; " + d.String()
		}
		if d.Wrong() == "Exact" {
			p.errs = append(p.errs, "Exact is wrong where NumPy is right: "+d.String())
		}
	}
	return nil
}

func (p *numpyPeer) round(out, log io.Writer) error {
	if p.peer == nil {
		return nil
	}
	lines, err := p.peer.Bench(p.views, p.benchtime, p.procs)
	if err != nil {
		p.fail(log, "NumPy peer failed, left out of the rounds from here on: %v", err)
		return nil
	}
	// peer.py prints its three lines per family; keep those -bench selects.
	sc := bufio.NewScanner(bytes.NewReader(lines))
	for sc.Scan() {
		name, _, _ := strings.Cut(sc.Text(), "\t")
		if p.procs > 1 {
			name = strings.TrimSuffix(name, fmt.Sprintf("-%d", p.procs))
		}
		if p.match(name) {
			fmt.Fprintln(out, sc.Text())
		}
	}
	return sc.Err()
}

// source says, after the rounds, what the peer did: for the report's
// line on where the results come from.
func (p *numpyPeer) source() string {
	if p.note == "" {
		return ""
	}
	return "; " + p.note
}

func writeViews(path string, fams []numpy.Family) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := numpy.WriteViews(f, fams); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
