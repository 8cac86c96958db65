//go:build !sched

package suites_test

import (
	"flag"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/sched"
)

// scheduledRun selects, in a build with the sched tag, the scheduled suites
// (TestSuites/<domain>/<...Scheduled>/impl=<name>) and the tests of
// scheduled_on_test.go, whose subtests are named the same way.
const scheduledRun = "^(TestSuites|TestScheduledDeterminism|TestScheduledExplore)$//Scheduled$"

// TestScheduledSuites runs the scheduled suites under the scheduler. go
// test ./... builds without tags, and there the scheduled suites are stress
// runs (TestSuites runs them so); the scheduler needs -tags sched, so this
// test runs them, with the tests that only a sched build has (one seed
// twice, the same schedules; every schedule of small scenarios), in a
// child go test built with it, at their go test budgets. The child's
// rapid flags are this run's (-rapid.checks scales every budget), and a
// binary with seeded bugs builds its child with them too. -short skips it.
func TestScheduledSuites(t *testing.T) {
	if testing.Short() {
		t.Skip("the scheduled suites build a test binary with -tags sched: not under -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no go command to build the sched binary with: %v", err)
	}
	tags := sched.Tag
	if bugs.Enabled {
		tags = "mutants," + tags
	}
	args := []string{"test", "-count=1", "-tags", tags, ".", "-run", scheduledRun, "-rapid.nofailfile"}
	flag.Visit(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "rapid.") && f.Name != "rapid.nofailfile" {
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	if testing.Verbose() {
		args = append(args, "-v")
	}
	start := time.Now()
	out, err := exec.Command("go", args...).CombinedOutput() // go test runs a test in its package's directory
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("go %s: %v\n%s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond), out)
}
