package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/memverify/memverify/internal/linear"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/suites"
	"pgregory.net/rapid"
)

// register is a one-value register: a write stores its input, a read
// returns the value.
var register = porcupine.Model{
	Init: func() any { return 0 },
	Step: func(state, input, output any) (bool, any) {
		if in := input.(int); in >= 0 {
			return true, in // a write
		}
		return output.(int) == state.(int), state // a read
	},
}

// TestAFailedLinearizabilityCheckKeepsItsHistory: a suite whose history is
// not linearizable leaves porcupine's drawing of the shrunk history in the
// run's histories directory, named after the suite, and its output and
// result point there; the drawings of the histories shrinking went
// through are not kept.
func TestAFailedLinearizabilityCheckKeepsItsHistory(t *testing.T) {
	setFlag(t, "rapid.nofailfile", "true")
	setFlag(t, "rapid.checks", "20")
	envBefore, envSet := os.LookupEnv(linear.HistoryDirEnv)
	dir := t.TempDir()
	old, oldPrefix := historyDir, historyPrefix
	historyDir, historyPrefix = filepath.Join(dir, "histories"), ""
	t.Cleanup(func() { historyDir, historyPrefix = old, oldPrefix })
	stale := suites.Suite{Domain: "d", Property: "Linearizable", Impl: "X", Run: func(t rapid.TB) {
		rapid.Check(t, func(t *rapid.T) {
			v := rapid.IntRange(1, 100).Draw(t, "v")
			// A read after a write has returned sees the old value.
			h := []porcupine.Operation{{ClientId: 0, Input: v, Call: 1, Output: 0, Return: 2}, {ClientId: 1, Input: -1, Call: 3, Output: 0, Return: 4}}
			if res := linear.Check(register, h, time.Second); res.Verdict != linear.Linearizable {
				t.Fatalf("write %d then read: %v", v, res)
			}
		})
	}}
	r := runSuite(stale, 1, time.Minute)
	if r.Outcome != props.Failed {
		t.Fatalf("the suite passed: %+v", r)
	}
	want := "histories/" + slug("d/Linearizable/impl=X-1") + ".html"
	if r.History != want || !strings.Contains(r.Output, "history drawn in "+want) || strings.Contains(r.Output, ".scratch-") {
		t.Errorf("history %q, output %q; want %s named in both", r.History, r.Output, want)
	}
	files, _ := filepath.Glob(filepath.Join(historyDir, "*"))
	if len(files) != 1 || filepath.Base(files[0]) != filepath.Base(want) {
		t.Errorf("the histories directory holds %v, want only %s", files, want)
	}
	if data, err := os.ReadFile(filepath.Join(dir, want)); err != nil || !strings.Contains(string(data), "<html") {
		t.Errorf("%s is not porcupine's drawing: %v", want, err)
	}
	if env, set := os.LookupEnv(linear.HistoryDirEnv); set != envSet || env != envBefore {
		t.Errorf("%s is %q after the suite, was %q", linear.HistoryDirEnv, env, envBefore)
	}
}
