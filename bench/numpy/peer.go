package numpy

import (
	"bytes"
	"context"
	_ "embed" // peer.py
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

//go:embed peer.py
var script []byte

// Peer is a Python interpreter that imports numpy, with peer.py written
// where it can run it.
type Peer struct {
	Python string // the interpreter's path, as found
	NumPy  string // numpy's version
	// Passed over says, for each interpreter tried before Python, why it
	// was not used ("python3 on PATH has no numpy").
	PassedOver []string
	// Log, if set, receives what peer.py says beside its results (a
	// family left out of a round).
	Log    io.Writer
	script string
}

// ErrNoNumPy is returned by Find when no interpreter it tries imports
// numpy. Its message, wrapped with what was tried, is the one line a
// caller prints when it skips the peer.
var ErrNoNumPy = errors.New("python3 has no numpy (apt-get install python3-numpy)")

// EnvPython names the variable that sets the interpreter: when it is set,
// Find tries it alone.
const EnvPython = "MEMVERIFY_PYTHON"

// candidates are the interpreters Find tries, in order: the one
// MEMVERIFY_PYTHON names, alone; else python3 on PATH (a pyenv or virtual
// environment a user chose), then Debian's /usr/bin/python3, which has
// numpy once python3-numpy is installed.
func candidates() []string {
	if p := os.Getenv(EnvPython); p != "" {
		return []string{p}
	}
	return []string{"python3", "/usr/bin/python3"}
}

// Find writes peer.py under dir and returns a Peer on the first
// interpreter that imports numpy, or an error wrapping ErrNoNumPy that
// says what each one lacked.
func Find(dir string) (*Peer, error) {
	path := filepath.Join(dir, "peer.py")
	if err := os.WriteFile(path, script, 0o644); err != nil {
		return nil, err
	}
	p := &Peer{script: path}
	for _, py := range candidates() {
		exe, err := exec.LookPath(py)
		if err != nil {
			p.PassedOver = append(p.PassedOver, py+": not found")
			continue
		}
		out, err := p.run(exe, time.Minute, "version")
		if err != nil {
			p.PassedOver = append(p.PassedOver, fmt.Sprintf("%s (%s): %v", py, exe, err))
			continue
		}
		p.Python, p.NumPy = exe, strings.TrimSpace(string(out))
		return p, nil
	}
	return nil, fmt.Errorf("%w; tried %s", ErrNoNumPy, strings.Join(p.PassedOver, "; "))
}

// String says which interpreter the peer runs, for a log.
func (p *Peer) String() string {
	s := fmt.Sprintf("%s, numpy %s", p.Python, p.NumPy)
	if len(p.PassedOver) > 0 {
		s += " (passed over " + strings.Join(p.PassedOver, "; ") + ")"
	}
	return s
}

// Bench times NumPy on the families of the views file and returns its Go
// benchmark lines. benchtime is go test's: a duration per line, or Nx for
// N calls; procs is the GOMAXPROCS suffix the Go lines carry (-procs).
func (p *Peer) Bench(views, benchtime string, procs int) ([]byte, error) {
	args := []string{"bench", views, "--procs", strconv.Itoa(procs)}
	if n, ok := strings.CutSuffix(benchtime, "x"); ok {
		calls, err := strconv.Atoi(n)
		if err != nil || calls < 1 {
			return nil, fmt.Errorf("-benchtime %q: not a count of calls", benchtime)
		}
		args = append(args, "--calls", n)
	} else {
		d, err := time.ParseDuration(benchtime)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("-benchtime %q: not a duration", benchtime)
		}
		args = append(args, "--seconds", strconv.FormatFloat(d.Seconds(), 'g', -1, 64))
	}
	return p.run(p.Python, 30*time.Minute, args...)
}

// Answers is NumPy's answer on every pair of every family.
type Answers struct {
	Python   string `json:"python"`
	NumPy    string `json:"numpy"`
	Families []struct {
		Name string `json:"name"`
		// Shares is np.shares_memory's answer per pair: "yes", "no", or
		// "too-hard" or "overflow" where NumPy raised instead.
		Shares []string `json:"shares"`
		// MayShare is np.may_share_memory's: false only when the bounds
		// are disjoint.
		MayShare []bool `json:"may_share"`
	} `json:"families"`
}

// Answers asks NumPy about every pair of the views file.
func (p *Peer) Answers(views string) (Answers, error) {
	var a Answers
	out, err := p.run(p.Python, 30*time.Minute, "answers", views)
	if err != nil {
		return a, err
	}
	if err := json.Unmarshal(out, &a); err != nil {
		return a, fmt.Errorf("reading NumPy's answers: %w", err)
	}
	return a, nil
}

// run runs peer.py under exe and returns its standard output; an error
// carries the last line of its standard error.
func (p *Peer) run(exe string, limit time.Duration, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, append([]string{p.script}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		if msg != "" {
			return nil, fmt.Errorf("%s: %s", filepath.Base(exe), msg)
		}
		return nil, fmt.Errorf("%s %s: %w", filepath.Base(exe), args[0], err)
	}
	if p.Log != nil {
		p.Log.Write(stderr.Bytes()) // the peer's notes (a round without NumPyNet)
	}
	return stdout.Bytes(), nil
}
