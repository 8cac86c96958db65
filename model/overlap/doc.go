// Package overlap is the specification of strided-view overlap: do two views
// of one storage touch a common byte?
//
// A View is an offset, an element size, a shape and strides, all in bytes from
// the storage base. Element i (a multi-index) touches the half-open byte range
// [Offset + Σ i[d]·Strides[d], … + ElemSize). Overlap(a, b) answers Yes when
// some byte is touched by both views, No otherwise; it decides by listing the
// bytes (brute force), which is slow and obviously right, and is the reference
// every checker in impl/overlap is held to. Checkers share the Checker type;
// queries are data (Op, Result) so properties, fuzz targets and traces share
// them.
//
// The seed (tensormap-overlap.md §12) claims its "hybrid" rule — bounding
// boxes, then a GCD test — is 100% precise. It is not: the GCD test ignores
// the index bounds and the element size, so it misses real overlaps (a lost
// dependency: a data race in the runtime) and reports false ones. Here the
// model is exact by construction, and the seed's rule survives only as a
// measured peer (impl/overlap.SeedGCD) and as a seeded bug.
//
// # Choices the seed leaves open, decided
//
//   - Validity (ErrInvalidView): rank at most MaxRank (8); one stride per dim;
//     ElemSize ≥ 1; no negative extent; Offset ≥ 0 always, even for an empty
//     view (it is an address); and for a non-empty view every byte touched in
//     [0, 2^63). The last byte may be exactly 2^63−1. An empty view's strides
//     are not checked: it touches nothing, so they reach nothing. Both views
//     of a query are validated before anything else is decided, so an invalid
//     view is refused even next to an empty one.
//   - Rank 0 is one element at Offset (PTO's LogicalTensor convention, not
//     its numel() of 0): a scalar occupies bytes.
//   - A zero anywhere in Shape makes the view empty. An empty view touches
//     nothing and overlaps nothing, itself included: a task that reads no byte
//     depends on no one.
//   - A size-1 dim's stride means nothing and may be anything, even ±2^63; it
//     is ignored by validation, bounds and every checker.
//   - Strides may be negative (the lowest byte is Offset + Σ (n−1)·s over the
//     negative strides), zero (broadcast: the bytes are touched repeatedly),
//     or smaller than the element (sliding windows). Offsets and strides need
//     not be multiples of the element size, and two views may have different
//     element sizes (dtype reinterpretation).
//   - Verdicts: No, Yes, and TooHard for a checker that gave up within a work
//     cap (a dependency tracker treats it as Yes). The model never answers
//     TooHard; it refuses views that touch more than MaxTouches bytes with
//     ErrTooLarge instead. A failed query's verdict is No and carries the error.
//   - InternalOverlap(v) asks whether v touches a byte through two different
//     elements; empty views answer No.
//   - Covers(a, b) is sound, not complete: true only when b is empty, or a is
//     GapFree and b's bounds lie in a's. It never claims a byte a lacks, so
//     pruning on it never loses a dependency.
//   - The transforms are the seed's shallow ones plus the deep Clone: Slice
//     (start, stop, step of either sign; no index wrap, no clamping: out of
//     range is ErrBadTransform), Transpose (a permutation), Reshape (only
//     without a copy, following the contiguous runs of the view; else
//     ErrBadTransform), and Clone (a dense row-major view at offset 0 of a new
//     storage: storages are told apart by the caller, as the seed's raw_base
//     is). Dense builds the row-major view of a shape.
//   - Every size and address computation is overflow-checked; a view whose
//     extent does not fit is invalid, never wrapped.
package overlap
