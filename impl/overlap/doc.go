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
//     pass: empty or not, inclusive bounds, and whether the view is in order
//     — its dims, innermost first, each stepping within the bytes the ones
//     inside it already cover, so that it touches every byte of its bounds.
//     Raw views take a fused, branch-light pass (quick.go) guarded by one
//     test after the loop: when the element size and every extent and
//     |stride| are below 2^28, the offset below 2^62 and the rank at most 8,
//     no product or sum in the pass can wrap, so it needs no per-term check. For views with
//     non-negative strides (row-major tensors and blocks of their rows: the
//     dense path), Exact itself runs that pass, simplified and inlined
//     (denseSpan, written out for ranks 1 and 2 as denseSpan2), over each
//     view and answers at once when both are in order. Anything outside the
//     guard — huge strides, addresses near 2^63, empty and invalid views —
//     goes to the careful pass (measure.go), every product and sum checked
//     with 128-bit intermediates, which also builds the errors: sentinels
//     of model/overlap wrapped with detail.
//  2. An empty view overlaps nothing; disjoint bounds overlap nothing; two
//     gap-free views whose bounds meet overlap. That is the O(rank) fast
//     path that dense tensors take. (A view not in order may still be
//     gap-free: a sorted test decides when it matters.)
//  3. One layout at two places (shifted.go): when the views differ only in
//     their offsets (and in the signs of their strides, and in the strides
//     of size-1 dims, none of which changes the bytes they touch relative to
//     their lowest byte), they overlap exactly when the distance between
//     their lowest bytes is Σ k·|s| + t with |k| < n per dim and |t| < the
//     element size. With the dims sorted by |stride| and each |stride| at
//     least the span of the dims below it (a nested layout, as every tile
//     and slice of a row-major tensor has), a mixed-radix descent with at
//     most two candidates per dim decides that in O(rank) on real layouts.
//     Tiles of one matrix, side by side, take this path. A layout that is
//     not nested goes on to the search.
//  4. Otherwise solve the bounded linear Diophantine equation. Reflecting
//     negative strides and then b's indices and byte turns "byte p of
//     element i of a is byte q of element j of b" into
//     Σ |sA|·i + Σ |sB|·j' + 1·(p+q') = hiB − loA with every variable between
//     0 and its bound (n−1 for a dim, eA+eB−2 for the byte term: the element
//     size is a coefficient-1 term). The mirror equation has right-hand side
//     hiA − loB; the smaller is solved. Terms of equal coefficient merge
//     (their bounds add); bounds are clamped to rhs/coefficient. The term
//     of coefficient 1 is kept apart as slack, and with it every term it
//     makes contiguous (c ≤ slack+1: the sums fill [0, slack + c·ub]); the
//     other terms then need only reach [r − slack, r]. An equation of at
//     most three terms (two matrices that share a stride, column slices of
//     one tensor) is built and searched on the stack (searchSmall and
//     the root of three.go), with the same nodes; larger ones in a
//     problem, whose tables are sized for 17 terms.
//  5. The two terms of largest bound are solved in closed form (pair.go),
//     as NumPy's mem_overlap solves its innermost pair: with g their gcd,
//     a·x + b·y = r needs x in one residue class modulo b/g (extended
//     Euclid, once per equation), within bounds that y's give x; with
//     slack, a·x + b·y must fall in [r − slack, r], which holds for some x
//     exactly when (hi − a·x) mod b stays within the window: a few x are
//     stepped through, a wide range is settled by Euclid's algorithm
//     (firstInRange) in O(log b). At the search's leaves (leaves.go), where
//     one pair is solved for a run of right-hand sides r − c·x, x stepping
//     by a constant, the run holds the pair in registers and divides by
//     reciprocals set up once per search (a high product in place of each
//     division, exact for right-hand sides below 2^31); without slack,
//     x's residue class moves by a constant from one leaf to the next, so
//     it is stepped, not solved again: below 2^31 no leaf divides. The
//     remaining terms are enumerated by a
//     depth-first search, by increasing bound: it prunes every node by the
//     reach of the remaining terms and by their gcd (what they leave modulo
//     it must be slack), and without slack enumerates each variable only
//     over the residue class that keeps the remainder divisible by the
//     later terms' gcd (modular inverse, 128-bit products). Each constraint
//     is necessary and the enumeration is exhaustive, so the answer is
//     exact. The search grows with the product of all bounds but the two
//     largest: two 1-D views, of any extent and element size, take one node
//     (their strides are the pair, their bytes the slack).
//
// A node is one call of the search: one value of every enumerated variable
// above it, the root being the empty assignment, and a leaf the closed form
// of the pair (or, with one term left, its range). An equation decided
// before the search (no term left but slack) counts none; one with at most
// two stride terms (two 1-D views among them) counts one, and is decided by
// the closed form without the search's tables (pairLeaf, small.go); two
// 1-D views take that path before the shifted-copy and gap-free tests, and
// Exact takes them in one function (exactLines, lines.go) from the raw
// views to the closed form; pairs of views of rank at most 2 take decide's
// tests and the small search fused as well (exactMatrices, matrices.go),
// with the same nodes. A leaf's reach test is its
// parent's (the parent enumerates only values that leave a reachable
// rest), so it is counted but not repeated. Beyond the cap
// (DefaultMaxWork = 2^16 nodes) the answer is TooHard, which a dependency
// tracker treats as Yes; the search is deterministic, so a cap at or above
// the nodes an uncapped call visits gives its answer.
//
// Every quantity after validation lies in [0, 2^63) or is a sum of at most 17
// such terms held in uint64 with saturation, so no step wraps.
//
// A dependency tracker measures each view once. Prepare validates and
// measures a view and keeps its own copy (Prepared); ExactPrepared then
// answers without validating again. Measure returns a view's Span — the
// view and its validated bounds, in named fields, Empty for a view that
// touches nothing — and ExactBounded answers for two spans, without copying
// anything. impl/tensormap interns view layouts, derives each entry's span
// from its lowest byte and layout, decides pairs of one layout with the
// layout's ShiftPlan (plan.go: a view enters a plan through Place, which
// checks its layout, and moves with At; Overlap refuses a view another plan
// placed, with ErrLayoutMismatch), and calls ExactBounded for other pairs
// whose bounds meet. PreparedChecker and
// BoundedChecker adapt both paths to a spec.Checker, so that the
// properties hold them to the model.
//
// GapFree, Covers and InternalOverlap (layout.go) answer the model's
// questions about one view's layout in O(rank) without allocating;
// InternalOverlap, exact, runs the search when the layout is not nested.
//
// Every checker here is a pure function of its arguments, safe for
// concurrent use. None allocates on any path but the error path, except
// Prepare, which copies the view it keeps (and so PreparedChecker, which
// prepares both views on every call: a caller with many queries prepares
// each view once).
//
// SeedGCD is the seed's hybrid rule, kept to be measured (see
// props.OverlapAccuracy): it is not exact and must not track dependencies.
//
// bugs.go plants the domain's seeded bugs; without the mutants build tag the
// seams compile away.
package overlap
