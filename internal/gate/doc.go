// Package gate judges a change to a Go module's code against a base by its
// benchmarks, as a CI gate: it fails a change that made a benchmark do more
// work, and never fails one for the weather of a shared host.
//
// The design in one page. Two benchmark binaries (the base's and the
// change's test binaries of one package) are measured on the same machine,
// in two tiers.
//
// The hard tier is deterministic and fails the gate. Allocations per op and
// bytes per op, exact counts, must not grow; instructions per op, counted
// by callgrind (instr.go), must not grow beyond a tolerance (1% per
// benchmark and 0.5% on the geometric mean, by default). Instruction counts
// are taken for benchmarks that run on one goroutine; a benchmark that
// calls b.RunParallel (found in its source, parallel.go) is timed, not
// counted: its instructions depend on how its goroutines interleave.
// Counts carry the toolchain that took them (toolchain.go: Go, valgrind,
// GOAMD64), and counts of different toolchains are refused, never
// compared.
//
// The statistical tier is advisory unless Config.Strict is set. Both
// binaries are timed in interleaved rounds (base, change, base, change, ...
// one sample of every benchmark per run, rounds.go), so that a phase of the
// host lands on both. Each benchmark's samples are compared with
// golang.org/x/perf/benchmath: the Mann-Whitney U test at Config.Alpha, and
// the difference of the medians against a least effect that is never below
// the noise floor of the same job, measured by comparing the base's samples
// with themselves (odd rounds against even ones; stat.go). A change that
// passes both is measured again in fresh rounds before it is called slower
// or faster. The verdict is one of three: faster, slower, inconclusive.
//
// Results are structured values (result.go), rendered as Markdown for a
// pull-request comment (markdown.go) and as JSON; a saved run is plain
// `go test -bench` text with instr/op results and the toolchain as
// configuration lines, so that benchstat reads it too (measurements.go).
//
// The package knows nothing of memverify's domains: it takes binaries,
// patterns and source directories. cmd/verify's gate command builds the
// binaries (of a git worktree of the base, and of the working tree) and
// runs the self-test, which checks the gate against seeded performance
// regressions and A/A comparisons.
package gate
