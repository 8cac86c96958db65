package main

// `verify gate`: a change judged against its base by the benchmarks of one
// package, as internal/gate does it. This file builds what the gate
// compares: the base's tree (exported from git), both test binaries, and
// the outputs (gate.md for a pull request, gate.json, and both sides'
// measurements as benchmark text, in a run directory of their own).

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/memverify/memverify/internal/gate"
)

// gateOptions are the flags of `verify gate`.
type gateOptions struct {
	base, old, new, pkg, tier string
	exclude                   string
	strict, selftest          bool
	alpha, minEffect          float64
	tolerance, geomean        float64
	aa                        int
}

// gateOpts holds the parsed flags of gate (defineGateFlags).
var gateOpts gateOptions

// defineGateFlags registers the flags only gate reads.
func defineGateFlags(g *gateOptions) {
	flag.StringVar(&g.base, "base", "", "gate: the base, a git revision (default: the merge base of HEAD with the main branch)")
	flag.StringVar(&g.old, "old", "", "gate: judge two saved runs instead of measuring: the base's (with -new)")
	flag.StringVar(&g.new, "new", "", "gate: the change's saved run (with -old)")
	flag.StringVar(&g.pkg, "pkg", "./bench", "gate: the package whose benchmarks judge the change, as go test names it from the current directory")
	flag.StringVar(&g.exclude, "exclude", "", "gate: leave out the benchmarks whose full name matches this regular expression (e.g. 'impl=Model$'), of those -bench selects")
	flag.StringVar(&g.tier, "tier", "all", "gate: the tiers to run: hard (allocations and instructions, which fail the gate), stat (times, advisory), or all")
	flag.BoolVar(&g.strict, "strict", false, "gate: a confirmed slower time fails the gate too")
	flag.Float64Var(&g.alpha, "alpha", 0.05, "gate: the significance level of the statistical tier's Mann-Whitney test")
	flag.Float64Var(&g.minEffect, "min-effect", 5, "gate: the least change in time, in percent, the statistical tier calls one (never below the noise floor it measures)")
	flag.Float64Var(&g.tolerance, "tolerance", 1, "gate: how much, in percent, one benchmark's instructions per op may grow")
	flag.Float64Var(&g.geomean, "geomean-tolerance", 0.5, "gate: how much, in percent, the geometric mean of the instruction ratios may grow")
	flag.BoolVar(&g.selftest, "selftest", false, "gate: check the gate itself: A/A comparisons and every seeded performance regression")
	flag.IntVar(&g.aa, "aa", 10, "gate: the A/A comparisons of -selftest (the same code against itself)")
}

// gateConfig turns the flags into the gate's configuration.
func gateConfig(g gateOptions, bo benchOptions, o options) (gate.Config, error) {
	cfg := gate.DefaultConfig
	cfg.Bench, cfg.Benchtime, cfg.Count, cfg.Jobs = bo.pattern, bo.benchtime, bo.count, o.jobs
	switch g.tier {
	case "all":
	case "hard":
		cfg.Stat = false
	case "stat":
		cfg.Hard = false
	default:
		return cfg, fmt.Errorf("-tier %q: want hard, stat or all", g.tier)
	}
	if g.exclude != "" {
		re, err := regexp.Compile(g.exclude)
		if err != nil {
			return cfg, fmt.Errorf("-exclude: %v", err)
		}
		cfg.Exclude = re
	}
	cfg.Strict, cfg.Alpha = g.strict, g.alpha
	cfg.MinEffect, cfg.Tolerance, cfg.GeomeanTolerance = g.minEffect/100, g.tolerance/100, g.geomean/100
	switch {
	case cfg.Count < 2 && cfg.Stat:
		return cfg, fmt.Errorf("-count %d: the statistical tier needs at least 2 rounds", cfg.Count)
	case g.alpha <= 0 || g.alpha >= 1:
		return cfg, fmt.Errorf("-alpha %g: want a level between 0 and 1", g.alpha)
	case g.minEffect < 0 || g.tolerance < 0 || g.geomean < 0:
		return cfg, errors.New("-min-effect, -tolerance and -geomean-tolerance are percentages, not below 0")
	case (g.old == "") != (g.new == ""):
		return cfg, errors.New("-old and -new go together: the base's saved run and the change's")
	case g.old != "" && (g.base != "" || g.selftest):
		return cfg, errors.New("-old and -new judge saved runs: -base and -selftest do not apply")
	case g.selftest && g.base != "":
		return cfg, errors.New("-selftest compares the seeded regressions with the code they are seeded in: -base does not apply")
	case g.aa < 1:
		return cfg, fmt.Errorf("-aa %d: want at least one A/A comparison", g.aa)
	}
	cfg.Log = os.Stderr
	return cfg, nil
}

// runGate runs `verify gate` and returns its exit code: 0 pass, 1 a
// regression, 2 a usage or environment error.
func runGate(o options, bo benchOptions) int {
	cfg, err := gateConfig(gateOpts, bo, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify gate: %v\n", err)
		return 2
	}
	ctx := context.Background()
	switch {
	case gateOpts.selftest:
		return runGateSelftest(ctx, o, gateOpts, cfg)
	case gateOpts.old != "":
		return gateFiles(o, gateOpts, cfg)
	}
	return gateBase(ctx, o, gateOpts, cfg)
}

// gateFiles judges two saved runs.
func gateFiles(o options, g gateOptions, cfg gate.Config) int {
	sides := [2]*gate.Measurements{gate.NewMeasurements(), gate.NewMeasurements()}
	for i, name := range []string{g.old, g.new} {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "verify gate: %v\n", err)
			return 2
		}
		err = sides[i].Add(f, name)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "verify gate: %v\n", err)
			return 2
		}
	}
	r, candidates, err := gate.Judge(sides[0], sides[1], cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify gate: %v\n", err)
		return 2
	}
	gate.Settle(r, candidates, cfg)
	r.Base, r.Change = "`"+g.old+"`", "`"+g.new+"`"
	r.Command = "verify gate " + strings.Join(os.Args[2:], " ")
	return gateOutput(o, r, nil)
}

// gateBase measures the working tree against the base revision.
func gateBase(ctx context.Context, o options, g gateOptions, cfg gate.Config) int {
	tree, err := repoOf(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify gate: %v\n", err)
		return 2
	}
	rev, how, err := tree.resolveBase(ctx, g.base)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify gate: %v\n", err)
		return 2
	}
	tmp, err := os.MkdirTemp("", "verify-gate-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify gate: %v\n", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	base, change, err := tree.binaries(ctx, rev, g.pkg, tmp, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify gate: %v\n", err)
		return 2
	}
	cfg.Repro = func(bench string, tier gate.Tier) string {
		return fmt.Sprintf("%s gate -base %s -pkg %s -tier %s -bench '%s'", tree.verifyCommand(), short(rev), g.pkg, tierFlag(tier), exactName(bench))
	}
	r, err := gate.Compare(ctx, base, change, change.Dir, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify gate: %v\n", err)
		return 2
	}
	r.Base = fmt.Sprintf("`%s` (%s)", short(rev), how)
	r.Change = tree.describeChange(ctx)
	r.Command = tree.verifyCommand() + " gate " + strings.Join(os.Args[2:], " ")
	return gateOutput(o, r, []*gate.Measurements{r.Old, r.New})
}

// gateOutput writes the result: its Markdown to standard output (and to
// the job summary of GitHub Actions, when there is one), and gate.md,
// gate.json, gate.html and the sides' measurements to a run directory. It
// returns the exit code.
func gateOutput(o options, r *gate.Result, sides []*gate.Measurements) int {
	md := gate.Markdown(r)
	fmt.Print("\n" + md)
	if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, md)
			f.Close()
		}
	}
	code := 0
	if !r.Pass {
		code = 1
	}
	dir, err := makeRunDir(o.out, "gate", "", time.Now())
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify gate: %v\n", err)
		return max(code, 2)
	}
	data, _ := json.MarshalIndent(r, "", "  ")
	files := map[string][]byte{"gate.md": []byte(md), "gate.json": append(data, '\n')}
	for i, m := range sides {
		var b strings.Builder
		m.WriteTo(&b)
		files[[]string{"base.txt", "change.txt"}[i]] = []byte(b.String())
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "verify gate: %v\n", err)
			return max(code, 2)
		}
	}
	if err := writeGateHTML(dir, r); err != nil {
		fmt.Fprintf(os.Stderr, "verify gate: gate.html: %v\n", err)
		return max(code, 2)
	}
	fmt.Printf("written to %s\n", dir)
	return code
}

// repo is the git repository the gate runs in, and where the current
// directory is within it.
type repo struct {
	top, prefix string // the work tree's root; the current directory below it
}

// repoOf finds the repository of the current directory.
func repoOf(ctx context.Context) (repo, error) {
	top, err := gitOut(ctx, "", "rev-parse", "--show-toplevel")
	if err != nil {
		return repo{}, fmt.Errorf("the gate compares git revisions, and this is not a git work tree: %w", err)
	}
	prefix, err := gitOut(ctx, "", "rev-parse", "--show-prefix")
	if err != nil {
		return repo{}, err
	}
	return repo{top: top, prefix: prefix}, nil
}

// mainBranches are the refs the default base is the merge base with, the
// first that exists.
var mainBranches = []string{"origin/HEAD", "origin/main", "origin/master", "main", "master"}

// resolveBase returns the commit of rev, or by default the merge base of
// HEAD with the main branch, and says which it is.
func (t repo) resolveBase(ctx context.Context, rev string) (sha, how string, err error) {
	if rev != "" {
		sha, err := gitOut(ctx, t.top, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
		if err != nil {
			return "", "", fmt.Errorf("-base %s: no such commit in this clone (a shallow clone may lack it: fetch more history)", rev)
		}
		return sha, rev, nil
	}
	for _, b := range mainBranches {
		if _, err := gitOut(ctx, t.top, "rev-parse", "--verify", "--quiet", b); err != nil {
			continue
		}
		sha, err := gitOut(ctx, t.top, "merge-base", "HEAD", b)
		if err != nil {
			return "", "", fmt.Errorf("no merge base of HEAD with %s (a shallow clone may lack it: fetch more history, or give -base)", b)
		}
		return sha, "merge base with " + b, nil
	}
	return "", "", fmt.Errorf("no main branch (%s) to take the merge base with: give -base", strings.Join(mainBranches, ", "))
}

// binaries exports the base's tree at rev into tmp and builds the test
// binaries of pkg there and in the working tree, with tags if any. The
// base is exported with git archive rather than checked out as a
// worktree: it leaves the repository as it was, even when the gate is
// stopped half way.
func (t repo) binaries(ctx context.Context, rev, pkg, tmp string, tags []string) (base, change gate.Binary, err error) {
	baseTree := filepath.Join(tmp, "base")
	if err := os.MkdirAll(baseTree, 0o755); err != nil {
		return base, change, err
	}
	archive := exec.CommandContext(ctx, "git", "archive", "--format=tar", rev)
	archive.Dir = t.top
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", baseTree)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return base, change, err
	}
	untar.Stdin = pipe
	if err := untar.Start(); err != nil {
		return base, change, fmt.Errorf("tar: %w", err)
	}
	if err := archive.Run(); err != nil {
		return base, change, fmt.Errorf("git archive %s: %w", short(rev), err)
	}
	if err := untar.Wait(); err != nil {
		return base, change, fmt.Errorf("extracting the base's tree: %w", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return base, change, err
	}
	base = gate.Binary{Label: "base", Path: filepath.Join(tmp, "base.test"), Dir: filepath.Join(baseTree, t.prefix, pkg)}
	change = gate.Binary{Label: "change", Path: filepath.Join(tmp, "change.test"), Dir: filepath.Join(cwd, pkg)}
	for _, b := range []struct {
		bin gate.Binary
		dir string
	}{{base, filepath.Join(baseTree, t.prefix)}, {change, cwd}} {
		if err := buildTest(ctx, b.dir, pkg, b.bin.Path, tags); err != nil {
			return base, change, fmt.Errorf("%s: %w", b.bin.Label, err)
		}
	}
	return base, change, nil
}

// buildTest builds the test binary of pkg, from dir, to out.
func buildTest(ctx context.Context, dir, pkg, out string, tags []string) error {
	args := []string{"test", "-c", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	args = append(args, pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	fmt.Fprintf(os.Stderr, "in %s: go %s\n", dir, strings.Join(args, " "))
	if data, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, data)
	}
	return nil
}

// describeChange names the working tree: its commit, and whether it has
// changes not committed.
func (t repo) describeChange(ctx context.Context) string {
	head, err := gitOut(ctx, t.top, "rev-parse", "HEAD")
	if err != nil {
		return "the working tree"
	}
	s := fmt.Sprintf("the working tree at `%s`", short(head))
	if out, err := gitOut(ctx, t.top, "status", "--porcelain", "--untracked-files=no"); err == nil && out != "" {
		s += ", with changes not committed"
	}
	return s
}

// verifyCommand is how a user runs verify here: from memverify's own
// tree, go run ./cmd/verify; from another module, by its module path.
func (t repo) verifyCommand() string {
	if _, err := os.Stat(filepath.Join(t.top, "cmd", "verify", "gate.go")); err == nil {
		return "go run ./cmd/verify"
	}
	return "go run github.com/memverify/memverify/cmd/verify@latest"
}

func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Stderr = io.Discard
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// tierFlag is the -tier value that runs tier alone.
func tierFlag(t gate.Tier) string {
	if t == gate.Hard {
		return "hard"
	}
	return "stat"
}

// exactName is a -bench pattern for one benchmark by its printed name: its
// -GOMAXPROCS suffix dropped, each level anchored.
func exactName(name string) string {
	if i := strings.LastIndexByte(name, '-'); i > 0 && strings.Trim(name[i+1:], "0123456789") == "" && i+1 < len(name) {
		name = name[:i]
	}
	var levels []string
	for _, e := range strings.Split(name, "/") {
		levels = append(levels, "^"+regexp.QuoteMeta(e)+"$")
	}
	return strings.Join(levels, "/")
}
