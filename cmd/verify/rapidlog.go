package main

// What verify learns from rapid, and how.
//
// The seed a suite runs under is chosen here, not read back: runSuite sets
// -rapid.seed for the run (a campaign's seed, the user's, or a random one).
// rapid v1.3.0 reads its flags from package variables at every rapid.Check
// call (the budget when the call starts, the seed in baseSeed), not once at
// start-up, so a seed set between two suites is the seed of every Check of
// the second; verify runs one suite at a time, so no Check reads the flag
// while it changes. (A suite abandoned after its timeout may still run, and
// could read a later suite's seed; its result is already recorded.) With the
// seed known, every failure has a repro: that seed and the budget replay the
// run exactly.
//
// Two figures exist only in rapid's log text: how many checks ran (rapid
// returns nothing from Check) and the seed of the failing check, from which
// a repro fails on its first check rather than after the whole budget.
// They are read here and nowhere else, by readRapid, and what it cannot
// read is an error in the result (SuiteResult.OutputError), never a zero
// passed off as a count: once rapid has logged anything, a suite that passed
// must show rapid's summary, and a failure inside a check must show rapid's
// failure report with its repro line. A suite with no line of rapid's at all
// ran no rapid check (a few suites replay one fixed sequence): its count is
// 0, and rightly so. That leaves one change of rapid's that a run cannot
// tell from such a suite, a summary without the "[rapid] " prefix; so
// TestReadRapidOnRealRuns runs real rapid checks through props.Run
// (passing, failing, panicking, several Checks in one suite) and checks
// what is read, and a rapid whose text differs in any way fails that test
// before it reaches a report.
//
// Reading the text was chosen over counting calls of the property (a
// suite's property is rapid's to call: shrinking and replays call it too)
// and over go test -json (verify runs suites in-process, with a TB of its
// own; there is no go test whose events could be read).

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/memverify/memverify/props"
)

// rapidReport is what rapid's output says about one suite's run.
type rapidReport struct {
	// Checks is the number of checks the suite's rapid.Check calls ran,
	// the failing one included.
	Checks int
	// Seed is the seed of the failing check, as rapid names it in its
	// repro line; 0 when nothing failed in a check, or when rapid replayed
	// a fail file and named no seed.
	Seed uint64
	// Output is the run's output without rapid's repro line, which names
	// the suite as verify ran it and matches no test under go test.
	Output string
	// Err says what of the output could not be read: Checks and Seed are
	// then incomplete.
	Err error
}

// The lines of rapid v1.3.0 (engine.go, checkTB) that readRapid reads. Each
// begins a line of its own: rapid logs it with one call of the TB.
var (
	rapidPassedRe = regexp.MustCompile(`^\[rapid\] OK, passed (\d+) tests`)
	rapidFailedRe = regexp.MustCompile(`^\[rapid\] (?:failed|panic) after (\d+) tests`)
	rapidTooFewRe = regexp.MustCompile(`^\[rapid\] only generated (\d+) valid tests`)
	rapidFlakyRe  = regexp.MustCompile(`^\[rapid\] flaky test, can not reproduce a failure`)
	rapidReproRe  = regexp.MustCompile(`^To (?:try to )?reproduce, specify -run=`)
	rapidSeedRe   = regexp.MustCompile(` -rapid\.seed=(\d+)`)
)

const rapidPrefix = "[rapid] "

// readRapid reads what rapid reported of run r: the checks it ran and the
// failing check's seed. rapid writes one summary per rapid.Check call: a
// pass ("OK, passed N tests"), or a failure ("failed after N tests", "panic
// after N tests", "flaky test") followed, some lines later, by its repro
// line, or "only generated N valid tests".
func readRapid(r props.Result) rapidReport {
	lines := strings.SplitAfter(r.Output, "\n")
	rep := rapidReport{}
	summaries, lastSummary, lastRapid := 0, -1, -1
	failure := -1 // the line of rapid's failure report, which a repro line follows
	for i, line := range lines {
		var m []string
		switch {
		case match(rapidPassedRe, line, &m), match(rapidTooFewRe, line, &m):
			rep.add(m[1], 0)
		case match(rapidFailedRe, line, &m):
			rep.add(m[1], 1) // and the failing check itself
			failure = i
		case match(rapidFlakyRe, line, &m):
			rep.Err = errors.New("rapid reported a flaky failure, which it gives no count of checks for")
			failure = i
		default:
			if strings.HasPrefix(line, rapidPrefix) {
				lastRapid = i
			}
			continue
		}
		summaries++
		lastSummary = i
	}
	if failure >= 0 {
		var err error
		rep.Seed, lines, err = readRepro(lines, failure)
		rep.Err = errors.Join(rep.Err, err)
	}
	rep.Output = strings.Join(lines, "")
	switch {
	case r.Outcome == props.Passed && summaries == 0 && lastRapid >= 0:
		// rapid logged lines, so a check ran, and every check that
		// passes ends with its summary.
		rep.Err = errors.Join(rep.Err, errors.New("rapid logged lines but no summary (\"[rapid] OK, passed N tests\") in a form this version reads"))
	case r.Outcome == props.Failed && !r.TimedOut && failure < 0 && lastRapid > lastSummary:
		// rapid logged a check's lines after its last summary, and the
		// run failed without a failure report: the report is there, in
		// a form not read here.
		rep.Err = errors.Join(rep.Err, errors.New("the run failed inside a rapid check, but rapid's failure report (\"[rapid] failed after N tests\") is not in a form this version reads"))
	}
	return rep
}

// readRepro reads the seed from the repro line that follows rapid's
// failure report at lines[from], and returns the lines without it.
func readRepro(lines []string, from int) (uint64, []string, error) {
	for i := from + 1; i < len(lines); i++ {
		if !rapidReproRe.MatchString(lines[i]) {
			continue
		}
		line := lines[i]
		rest := append(lines[:i:i], lines[i+1:]...)
		if m := rapidSeedRe.FindStringSubmatch(line); m != nil {
			seed, err := strconv.ParseUint(m[1], 10, 64)
			if err != nil {
				return 0, rest, fmt.Errorf("rapid's repro line names a seed that is not one: %q", strings.TrimSpace(line))
			}
			return seed, rest, nil
		}
		if strings.Contains(line, "-rapid.failfile=") {
			return 0, rest, nil // a fail file replayed: rapid names no seed
		}
		return 0, rest, fmt.Errorf("rapid's repro line names no seed: %q", strings.TrimSpace(line))
	}
	return 0, lines, errors.New("rapid's failure report has no repro line (\"To reproduce, specify -run=... -rapid.seed=N\")")
}

// match reports whether re matches line, its submatches in *m.
func match(re *regexp.Regexp, line string, m *[]string) bool {
	*m = re.FindStringSubmatch(line)
	return *m != nil
}

// add counts the checks of one summary: the number it names, plus extra.
func (rep *rapidReport) add(digits string, extra int) {
	n, err := strconv.Atoi(digits)
	if err != nil {
		rep.Err = errors.Join(rep.Err, fmt.Errorf("rapid's count of checks %s is not a number of checks: %w", digits, err))
		return
	}
	rep.Checks += n + extra
}

// unreadNote says that a result's figures from rapid's output are
// incomplete, and why.
func unreadNote(err string) string {
	return "rapid's output not read in full, so its count of checks (and a failure's seed) may be incomplete: " + err
}
