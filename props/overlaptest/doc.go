// Package overlaptest checks an overlap checker: a function that decides
// whether two strided views of one storage touch a common byte (an
// overlap.Checker). Point its Check functions at your own checker, as
// testing/fstest.TestFS is pointed at a file system:
//
//	func TestMine(t *testing.T) {
//		overlaptest.CheckExact(t, mine.Overlap)
//	}
//
// Each Check function is one property, named as the suite that runs it
// (overlap/<Property>/impl=<Impl>, see `go run ./cmd/verify list`):
//
// Against the brute-force model (overlap.Overlap):
//
//	CheckMatchesModel         the same verdict and error as the model, on every pair
//	CheckNeverMisses          never No where the model says Yes: all a conservative filter promises
//
// Model-free: a checker is held to its own word, so these run on the model too:
//
//	CheckSymmetric            c(a, b) = c(b, a)
//	CheckEmptyAndSelf         an empty view overlaps nothing; any other view overlaps itself
//	CheckTranslateInvariant   moving both views, to 0 or to 2^63-1, changes nothing
//	CheckFlipInvariant        reversing a dim changes nothing
//	CheckPermuteInvariant     permuting dims changes nothing
//	CheckReshapeInvariant     splitting, merging or inserting size-1 dims changes nothing
//	CheckScaleInvariant       multiplying every byte quantity by k changes nothing
//	CheckRejectsInvalid       ErrInvalidView exactly for the views Validate refuses
//
// Of a checker with a work cap (a CappedChecker):
//
//	CheckTooHardOnlyAboveCap  TooHard exactly when the search needs more than the cap
//
// Of the questions about one view's layout, each against the model's own
// answer (GapFree, Covers, InternalOverlap), on single views or pairs drawn
// as above, some at the edges of validity:
//
//	CheckGapFreeMatchesModel          touches every byte of its bounds
//	CheckCoversMatchesModel           every byte of b is a byte of a (the model's sound rule)
//	CheckInternalOverlapMatchesModel  touches a byte through two elements
//
// All at once:
//
//	CheckExact                every property above but NeverMisses and TooHardOnlyAboveCap
//
// Every property takes an overlap.Checker, except CheckTooHardOnlyAboveCap,
// which takes a CappedChecker, and the three about one view's layout, which
// take a function of the model's signature. A checker is a pure function, so there are no
// concurrent properties here: run `go test -race` on the code that shares
// your checker's state, if it has any.
//
// # What the generators draw
//
// Pairs draws a pair from one of eight families, each aimed at a way of
// getting overlap wrong: independent random strided views; slices,
// reversals, transposes and byte reinterpretations of one dense tensor; a
// view and a copy moved by about an element or to touch its end; strides
// near one another (p, p±1, 2p+1), where gcd and bounds both matter; sparse
// views with strides of 2^33 to 2^44 bytes anywhere up to 2^63-1; stride-0
// dims and strides below the element size; views of rank 5 to 8; and one
// layout at two places. Half the pairs overlap by construction (an element
// of b is placed on a chosen byte of a), and about one in six is moved next to
// the top of the address space. Every view touches at most 8 KiB, so the
// brute-force model decides each pair at once and any sensible work cap is
// far away. CheckRejectsInvalid draws views at the edges of validity
// instead: extents that wrap 2^64, offsets at 2^63-1, rank 9, element sizes
// below 1, strides of ±2^63. UniformPairs draws plain random views with no
// aiming, the workload on which a rule is usually measured.
//
// # How a failure prints
//
// A failing property prints the queries that show the failure, with the
// answer the checker gave, as an op trace; for a checker that compares
// element starts only, ignoring the element size:
//
//	answer No, the model says Yes (random family)
//	op trace (last step failed):
//	   1  Overlap({off=0 elem=2 shape=[] strides=[]}, {off=1 elem=2 shape=[] strides=[]}) -> No
//
// followed by rapid's seed to replay it. An invariance prints two queries:
// the pair before and after the transform. rapid shrinks the pair: every
// rare variation (an empty dim, a byte view, a flipped stride, a move to the
// top of the address space) is drawn so that shrinking switches it off, so
// the pair printed keeps one only where the failure needs it. A pair
// shrinks within the family it was found in: two plain strided views near 0
// for the first family, rank 5 for the high-rank one.
//
// # Budgets
//
// Each property runs rapid's default number of checks (-rapid.checks, 100),
// one pair per check; the whole set runs in about a second against an exact
// checker.
package overlaptest
