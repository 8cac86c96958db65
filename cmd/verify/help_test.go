package main

import (
	"flag"
	"slices"
	"strings"
	"sync"
	"testing"
)

// usageText is the usage as help prints it, with verify's flags defined on
// the test binary's command line (once: a flag set refuses a second
// definition).
func usageText(t *testing.T) string {
	t.Helper()
	defineOnce.Do(func() {
		var o options
		var bo benchOptions
		defineFlags(&o, &bo)
	})
	var b strings.Builder
	writeUsage(&b)
	return b.String()
}

var defineOnce sync.Once

// TestHelpGoesToStandardOutput: help asked for is the output, not an error:
// on stdout, exit 0, whichever way it is asked.
func TestHelpGoesToStandardOutput(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"-help"}, {"run", "-h"}, {"bench", "-help"}} {
		stdout, stderr, code := verify(t, nil, args...)
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "usage: go run ./cmd/verify [all|run|mutants|bench|gate|merge|list|help]") {
			t.Errorf("verify %s: exit %d, stderr %q, stdout starts %.60q; want 0, nothing on stderr, the usage on stdout", strings.Join(args, " "), code, stderr, stdout)
		}
	}
	// A command line verify refuses still goes to stderr, with exit 2.
	for _, args := range [][]string{{"help", "extra"}, {"help", "-domain", "bank"}, {"nope"}, {"list", "-nope"}} {
		stdout, stderr, code := verify(t, nil, args...)
		if code != 2 || stdout != "" || stderr == "" {
			t.Errorf("verify %s: exit %d, stdout %q; want 2 and the error on stderr", strings.Join(args, " "), code, stdout)
		}
	}
}

// readsLines returns, for each command the usage shows, the flags its
// "reads" line names.
func readsLines(t *testing.T, usage string) map[string]string {
	t.Helper()
	out := map[string]string{}
	cmd := ""
	for _, line := range strings.Split(usage, "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") {
			cmd = f[0]
		}
		if _, reads, ok := strings.Cut(line, " reads "); ok && cmd != "" {
			out[cmd] = reads
		}
	}
	return out
}

// TestUsageSaysWhichFlagsEachCommandTakes checks each command's "reads"
// line against what the command accepts: every flag it names is taken,
// every other flag of the usage is refused. -bug is among them where it is
// taken (all, mutants, list).
func TestUsageSaysWhichFlagsEachCommandTakes(t *testing.T) {
	usage := usageText(t)
	reads := readsLines(t, usage)
	var names []string
	flag.VisitAll(func(f *flag.Flag) {
		if strings.Contains(usage, "\n  -"+f.Name+" ") || strings.Contains(usage, "\n  -"+f.Name+"\n") {
			names = append(names, f.Name)
		}
	})
	if !slices.Contains(names, "bug") || !slices.Contains(names, "rapid.seed") || slices.Contains(names, "child-report") {
		t.Fatalf("the usage's flags are %v: want -bug and rapid's, and not -child-report", names)
	}
	for _, cmd := range userCommands {
		if cmd == "help" {
			continue
		}
		line, ok := reads[cmd]
		if !ok {
			t.Errorf("the usage has no reads line for %s:\n%s", cmd, usage)
			continue
		}
		for _, name := range names {
			listed := slices.Contains(strings.Fields(strings.ReplaceAll(line, ",", "")), "-"+name)
			if strings.HasPrefix(name, "rapid.") {
				listed = strings.Contains(line, "rapid's flags") && !strings.Contains(line, "but -"+name)
			}
			if err := refuseFlags(cmd, []string{name}); listed != (err == nil) {
				t.Errorf("%s: the usage says it reads -%s: %v; verify %s -%s is refused: %v", cmd, name, listed, cmd, name, err)
			}
		}
	}
	for _, cmd := range []string{"all", "mutants", "list"} {
		if !strings.Contains(reads[cmd], "-bug") {
			t.Errorf("%s takes -bug, but its reads line does not say so: %q", cmd, reads[cmd])
		}
	}
}

// TestUsageNamesTheCommandsEachFlagIsFor: a flag's description that opens
// with commands ("all, mutants: ...") names each command that reads it, and
// no other.
func TestUsageNamesTheCommandsEachFlagIsFor(t *testing.T) {
	usageText(t)
	for _, name := range []string{"bench", "count", "benchtime", "file", "gate", "domain", "property", "impl", "seeds", "out", "jobs", "bug", "shard"} {
		f := flag.Lookup(name)
		prefix, _, ok := strings.Cut(f.Usage, ": ")
		if !ok {
			t.Errorf("-%s: %q does not say which commands read it", name, f.Usage)
			continue
		}
		said := strings.Split(prefix, ", ")
		var reading []string
		for _, cmd := range userCommands {
			if applies(cmd, name) {
				reading = append(reading, cmd)
			}
		}
		slices.Sort(said)
		slices.Sort(reading)
		if !slices.Equal(said, reading) {
			t.Errorf("-%s: the usage says %v read it; %v do", name, said, reading)
		}
	}
}

// TestEveryCommandOfTheUsageRuns: each command the usage lists is one that
// verify knows, with its lines of help.
func TestEveryCommandOfTheUsageRuns(t *testing.T) {
	for _, cmd := range userCommands {
		if _, ok := commandFlags[cmd]; !ok || len(commandHelp[cmd]) == 0 {
			t.Errorf("the usage lists %s, which has no flags entry or no help", cmd)
		}
	}
	for cmd := range commandFlags {
		if !slices.Contains(userCommands, cmd) && cmd != "mutant-child" {
			t.Errorf("command %s is not in the usage", cmd)
		}
	}
	u := usageText(t)
	for _, want := range []string{"-domain", "-gate", "-bug string", "rapid: number of checks to perform (default 500)", "do not write fail files on test failures (default true)"} {
		if !strings.Contains(u, want) {
			t.Errorf("usage lacks %q:\n%s", want, u)
		}
	}
	for _, hidden := range []string{"-test.", "-child-report", "mutant-child"} {
		if strings.Contains(u, hidden) {
			t.Errorf("usage shows %q, which no user sets:\n%s", hidden, u)
		}
	}
}
