package main

// Porcupine's drawings of histories that are not linearizable. The
// linearizability checks (internal/linear) draw a history that fails into
// the directory MEMVERIFY_HISTORY_DIR names. A property that fails is shrunk
// through many failing histories, and each is drawn; only the last, the
// shrunk counterexample the failure's output names, is worth keeping. So
// each suite runs with a scratch directory of its own: after the run the
// drawing the output names moves to <run>/histories/<name>.html, the
// output names that path instead, and the scratch directory goes.
//
// A campaign's children draw into the parent's run directory: the parent
// passes its histories directory in MEMVERIFY_HISTORY_DIR, and each child
// names its files after its bug.

import (
	"os"
	"path/filepath"
	"regexp"

	"github.com/memverify/memverify/internal/linear"
)

// historyDir is where this process keeps drawings ("" to keep none), and
// historyPrefix what their names start with (a child's bug).
var historyDir, historyPrefix string

// drawnRe finds the drawing a failure's output names.
var drawnRe = regexp.MustCompile(`history drawn in (\S+\.html)`)

// historyScratch points the linearizability checks at a fresh scratch
// directory, and returns it with the function that restores the
// environment; "" and a no-op when no drawing is kept.
func historyScratch() (string, func()) {
	if historyDir == "" {
		return "", func() {}
	}
	if err := os.MkdirAll(historyDir, 0o755); err != nil {
		return "", func() {}
	}
	dir, err := os.MkdirTemp(historyDir, ".scratch-")
	if err != nil {
		return "", func() {}
	}
	prev, had := os.LookupEnv(linear.HistoryDirEnv)
	os.Setenv(linear.HistoryDirEnv, dir)
	return dir, func() {
		if had {
			os.Setenv(linear.HistoryDirEnv, prev)
		} else {
			os.Unsetenv(linear.HistoryDirEnv)
		}
	}
}

// keepHistory moves the drawing output names (the last, if several) out of
// scratch to the histories directory as <prefix>_<name>.html, removes
// scratch, and returns the output with the new path and that path
// relative to the run directory ("" if nothing was drawn).
func keepHistory(scratch, name, output string) (string, string) {
	if scratch == "" {
		return output, ""
	}
	defer os.RemoveAll(scratch)
	ms := drawnRe.FindAllStringSubmatch(output, -1)
	if len(ms) == 0 {
		return output, ""
	}
	drawn := ms[len(ms)-1][1]
	if filepath.Dir(drawn) != scratch {
		return output, "" // not this run's
	}
	base := slug(name) + ".html"
	if historyPrefix != "" {
		base = slug(historyPrefix) + "_" + base
	}
	kept := filepath.Join(historyDir, base)
	if err := os.Rename(drawn, kept); err != nil {
		return output, ""
	}
	os.Chmod(kept, 0o644) // made private by os.CreateTemp; a report's files are read by anyone who reads the report
	rel := "histories/" + base
	// Earlier drawings (rapid's first failure, before shrinking) went
	// with the scratch directory: their mentions say so.
	output = drawnRe.ReplaceAllStringFunc(output, func(m string) string {
		switch path := drawnRe.FindStringSubmatch(m)[1]; {
		case path == drawn:
			return "history drawn in " + rel
		case filepath.Dir(path) == scratch:
			return "history drawn, not kept (only the last failing history is)"
		}
		return m
	})
	return output, rel
}
