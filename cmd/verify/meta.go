package main

// What a report says about where and how it was made: the commit (and
// whether the tree had changes), the machine, and the budget. Shards are
// merged only when these agree (merge.go), so they are read the same way
// everywhere.

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// Machine describes the host a run ran on.
type Machine struct {
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPUs     int    `json:"cpus"`
	CPUModel string `json:"cpu_model,omitempty"`
	Hostname string `json:"hostname,omitempty"`
}

// String is the machine in one phrase: "linux/amd64, 2 CPUs (AMD EPYC …), host".
func (m Machine) String() string {
	s := m.OS + "/" + m.Arch + ", " + plural(m.CPUs, "CPU")
	if m.CPUModel != "" {
		s += " (" + m.CPUModel + ")"
	}
	if m.Hostname != "" {
		s += ", " + m.Hostname
	}
	return s
}

func thisMachine() Machine {
	m := Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), CPUModel: cpuModel()}
	m.Hostname, _ = os.Hostname()
	return m
}

// cpuModel is the processor's name where the system says it (Linux's
// /proc/cpuinfo), else "".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return ""
}

// Source is the code a run checked: the commit, and whether the work tree
// differed from it (then the report describes code no commit holds).
type Source struct {
	Commit string `json:"commit"` // "unknown" outside a git work tree
	Dirty  bool   `json:"dirty"`
}

// String is the commit in one phrase: "1a2b3c4d5e6f (with uncommitted changes)".
func (s Source) String() string {
	c := s.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if s.Dirty {
		return c + " (with uncommitted changes)"
	}
	return c + " (clean)"
}

// thisSource asks git about the module's work tree. Files git ignores (the
// run directories among them) do not make it dirty; untracked files do,
// since a build includes them.
func thisSource() Source {
	root := moduleRoot()
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return Source{Commit: "unknown"}
	}
	s := Source{Commit: strings.TrimSpace(string(out))}
	status, err := exec.Command("git", "-C", root, "status", "--porcelain").Output()
	s.Dirty = err != nil || len(strings.TrimSpace(string(status))) > 0
	return s
}

// Budget is how hard a run searched: rapid's checks and steps per suite,
// and the seeds each seeded bug (and its unmutated baseline) ran under.
type Budget struct {
	Checks int      `json:"checks"`
	Steps  int      `json:"steps"`
	Seeds  []uint64 `json:"seeds,omitempty"`
	// RapidFlags are every flag of rapid's set for the run (the budget
	// verify sets included), as -name=value: with the seeds, what a repro
	// or a shard needs to search the same way.
	RapidFlags []string `json:"rapid_flags,omitempty"`
}

// thisBudget is the budget the flags set, with the campaign's seeds.
func thisBudget(seeds []uint64) Budget {
	return Budget{Checks: flagInt("rapid.checks"), Steps: flagInt("rapid.steps"), Seeds: seeds, RapidFlags: rapidArgs()}
}

// plural is "1 CPU", "2 CPUs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
