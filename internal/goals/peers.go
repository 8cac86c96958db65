package goals

// Goals against peers measured in the same run: NumPy on the overlap
// families (bench/numpy's lines, impl=NumPy and impl=NumPyNet), and the
// memory each implementation keeps per live object against the peer it
// is compared with (the metric B/live-entry of bench/memory_test.go).

import (
	"fmt"

	"github.com/memverify/memverify/internal/benchcmp"
)

// numpyFamilies are the overlap benchmarks the NumPy peer measures, each
// a pattern of Judge's (alternatives in {a,b}, one brace per pattern).
var numpyFamilies = []string{
	"OverlapDense",
	"OverlapDenseRanks/rank={1,3,4}",
	"OverlapRandom/rank={1,2,3,4,5}",
	"OverlapNumPyExample",
	"OverlapLarge/{dense,interleaved,strided}",
	"OverlapNearEqual/n={256,1024,4096}",
	"OverlapSparse3D/n={8,16}",
	"OverlapHighRank/rank={5,8}",
	"OverlapCorpus",
}

// numpySolves are the families on which NumPy has to solve: some pair's
// bounds intersect, so np.shares_memory goes past the test
// np.may_share_memory stops at (the peer gives NumPyNet only for these).
var numpySolves = numpyFamilies

// againstNumPy: Exact at least times ref on every family of fams.
func againstNumPy(fams []string, ref string, times float64) []check {
	var cs []check
	for _, f := range fams {
		cs = append(cs, faster(f, ref, []string{"Exact"}, times))
	}
	return cs
}

// unitMemory is the metric of the memory benchmarks.
const unitMemory = "B/live-entry"

// lighter: on every group matching pattern, each of impls keeps at most
// ref's bytes per live object, judged on the interval of the ratio of
// ref's median to impl's (at least 1), as faster judges times, or on the
// medians where the samples are too few to bound it (lighterCase). buys says,
// per implementation, what bytes beyond the peer's pay for: it is shown
// beside a case whose median is above ref's, so that a reader of a missed
// goal reads why it is missed.
func lighter(pattern, ref string, impls []string, buys map[string]string) check {
	return func(r run) judged {
		bs, missing := r.find(pattern)
		j := judged{missing: missing}
		for _, impl := range impls {
			for _, b := range bs {
				row, ok := r.row(b, impl, unitMemory)
				refRow, refOK := r.row(b, ref, unitMemory)
				if !ok {
					j.missing = append(j.missing, r.name(b, impl)+" "+unitMemory+" not in the run")
				}
				if !refOK {
					j.missing = append(j.missing, "reference "+r.name(b, ref)+" "+unitMemory+" not in the run")
				}
				if !ok || !refOK {
					continue
				}
				j.cases = append(j.cases, lighterCase(r.name(b, impl), ref, row, refRow, buys[impl]))
			}
		}
		return j
	}
}

// lighterCase judges one implementation's bytes against its peer's.
func lighterCase(name, ref string, row, refRow benchcmp.Row, buys string) Case {
	m, rm := row.Median, refRow.Median
	bounded := !row.Unbounded && !refRow.Unbounded && row.Lo > 0
	lo, hi := 0.0, 0.0
	if bounded {
		lo, hi = refRow.Lo/row.Hi, refRow.Hi/row.Lo
	}
	met, inconclusive := verdictOf(lo, hi, 1, false, bounded)
	bytes := func(x float64) string { return fmt.Sprintf("%.1f B", x) }
	measured := fmt.Sprintf("%s %s against %s's %s (goal ≤ %s's)", bytes(m), ci(row.Lo, row.Hi, !row.Unbounded, bytes), ref, bytes(rm), ref)
	if !bounded {
		// Too few samples for an interval. Bytes per live object are not
		// a timing: the structure built is the same in every sample, and
		// what else the heap gains between the two readings is a few
		// bytes over N objects, so the medians are judged as they are.
		met, inconclusive = m <= rm, false
		measured += ", judged on the medians"
	}
	if m > rm && buys != "" {
		measured += "; the bytes buy " + buys
	}
	slack := 0.0
	if m > 0 {
		slack = rm / m
	}
	return Case{Name: name, Measured: measured, Met: met, Inconclusive: inconclusive, slack: slack}
}

// What the implementations' bytes buy where they keep more per live object
// than the peer they are compared with (bench/memory_test.go measures it).
var (
	refcountBuys = map[string]string{
		"Sharded": "an open-addressing table per shard of 48-byte slots (key and state word, which IsRegistered " +
			"reads without the lock, buffer record, count, size, kind) kept under half full, so that lookups take " +
			"no lock and stay linearizable (a buffer's holders appear at one instant); a buffer adds its record",
		"LockFree": "a table of 32-byte atomic slots (key, a state word with a generation against ABA, size, record) " +
			"kept at most a quarter full after a rebuild and sized for freed keys too, so that every operation " +
			"is one compare-and-swap over short probe runs; a buffer's record lists every holder's share",
	}
	sizeclassBuys = map[string]string{
		"Mutex": "a record per block (address, class, size asked for, state) that Free looks up, so that a double " +
			"free or an unknown pointer is refused, Stats and Trim account for and return every cached block, and " +
			"cached blocks outlive a collection (sync.Pool drops them at the second GC: device memory leaked)",
		"Sharded": "the per-block records Mutex keeps, in a table read without a lock (each slot the key beside the pointer, " +
			"so that a lookup reads no line another P writes), and per-P caches with central lists",
		"LockFree": "the per-block records Mutex keeps, in a table read without a lock (each slot the key beside the pointer, " +
			"so that a lookup reads no line another P writes), and per-P private slots and stacks",
	}
)
