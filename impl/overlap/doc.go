// Package overlap holds the optimised checkers of strided-view overlap, each
// a spec.Checker held to the brute-force model of model/overlap.
//
// BBox compares the inclusive byte bounds of the two views. It is O(rank),
// allocation-free, and conservative: it never misses an overlap, and calls
// many disjoint strided views overlapping.
//
// Exact (and Solver, for a custom work cap) is exact:
//
//  1. Validate both views exactly as the model does and measure each in one
//     pass: empty or not, inclusive bounds (overflow-checked with 128-bit
//     products), and whether the view is gap-free — its dims, size-1 and
//     stride-0 dims dropped and sorted by |stride|, each step within the span
//     the smaller ones already cover, so that it touches every byte of its
//     bounds (dense views, their broadcasts, sliding windows).
//  2. An empty view overlaps nothing; disjoint bounds overlap nothing; two
//     gap-free views whose bounds meet overlap. This is the O(rank) fast path
//     that dense tensors take.
//  3. Otherwise solve the bounded linear Diophantine equation. Reflecting
//     negative strides and then b's indices and byte turns "byte p of element
//     i of a is byte q of element j of b" into
//     Σ |sA|·i + Σ |sB|·j' + 1·(p+q') = hiB − loA with every variable between
//     0 and its bound (n−1 for a dim, eA+eB−2 for the byte term: the element
//     size is a coefficient-1 term). The mirror equation has right-hand side
//     hiA − loB; the smaller is solved. Terms of equal coefficient merge
//     (their bounds add); bounds are clamped to rhs/coefficient.
//  4. A depth-first search over the terms in decreasing coefficient order
//     prunes every node by the reach of the remaining terms and by their gcd,
//     enumerates each variable only over the residue class that keeps the
//     remainder divisible by the later terms' gcd (modular inverse, 128-bit
//     products), and checks that the last term can still make up the
//     remainder modulo the gcd of the others (so a byte term does not hide
//     the strides' structure). Each constraint is necessary and the
//     enumeration is exhaustive, so the answer is exact. Nodes are counted;
//     beyond the cap (DefaultMaxWork = 2^16) the answer is TooHard, which a
//     dependency tracker treats as Yes.
//
// Every quantity after validation lies in [0, 2^63) or is a sum of at most 17
// such terms held in uint64 with saturation, so no step wraps. Views whose
// extents are below 2^28 and strides below 2^31 (nearly all real ones) are
// measured by a plain int64 loop that cannot wrap; the rest by the careful
// one.
//
// Prepare validates and measures a view once (Prepared); ExactPrepared then
// answers a query between prepared views without validating again, which is
// what a dependency tracker wants: it prepares each entry's view at insert
// and pays only the comparison on every lookup.
//
// Every checker here is a pure function of its arguments: safe for
// concurrent use, no allocation on any path but the error path.
//
// SeedGCD is the seed's hybrid rule, kept to be measured (see
// props.OverlapAccuracy): it is not exact and must not track dependencies.
//
// bugs.go plants the domain's seeded bugs; without the mutants build tag the
// seams compile away.
package overlap
