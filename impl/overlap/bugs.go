package overlap

import "github.com/memverify/memverify/internal/bugs"

// Seeded bugs of the overlap domain. Each is a defect that real strided-overlap
// code has had or easily gets (see the notes on NumPy's, PyTorch's and the PTO
// runtime's solvers), planted behind a bugs.On seam.
const (
	BugSeedGCD        bugs.ID = "overlap/seed-gcd"
	BugElemIgnored    bugs.ID = "overlap/elem-ignored"
	BugTruncMod       bugs.ID = "overlap/trunc-mod"
	BugGCDSign        bugs.ID = "overlap/gcd-sign"
	BugSize1Stride    bugs.ID = "overlap/size1-stride"
	BugEmptyPhantom   bugs.ID = "overlap/empty-phantom"
	BugExtentOverflow bugs.ID = "overlap/extent-overflow"
	BugEndOverflow    bugs.ID = "overlap/end-overflow"
	BugResidueWrap    bugs.ID = "overlap/residue-overflow"
	BugMergeMax       bugs.ID = "overlap/merge-bounds"
	BugReachShort     bugs.ID = "overlap/reach-off-by-one"
	BugCapOffByOne    bugs.ID = "overlap/cap-off-by-one"
	BugDenseOneSide   bugs.ID = "overlap/dense-one-side"
	BugTermsTruncated bugs.ID = "overlap/terms-truncated"
	BugBoxNegStride   bugs.ID = "overlap/bbox-negative-stride"
	BugBoxTouching    bugs.ID = "overlap/bbox-touching"
	BugBoxInt32       bugs.ID = "overlap/int32-offsets"
	// BugShiftOneCandidate: the shifted-copy path tries only k = ⌊r/m⌋.
	BugShiftOneCandidate bugs.ID = "overlap/shift-one-candidate"
	BugZeroMaxWork       bugs.ID = "overlap/zero-max-work"
	BugPreparedCap       bugs.ID = "overlap/prepared-cap-ignored"
	BugPrepareAliases    bugs.ID = "overlap/prepare-aliases"
)

func init() {
	bugs.Register(
		bugs.Bug{ID: BugSeedGCD, Domain: "overlap", Impl: "Exact", Killer: "MatchesModel",
			Summary: "after the bounding box, the seed's hybrid GCD rule decides (bounds and element size ignored)"},
		bugs.Bug{ID: BugElemIgnored, Domain: "overlap", Impl: "Exact", Killer: "MatchesModel",
			Summary: "element size ignored: only element start addresses are compared"},
		bugs.Bug{ID: BugTruncMod, Domain: "overlap", Impl: "Exact", Killer: "MatchesModel",
			Summary: "modular inverse normalised with Go's truncating % instead of a floor mod, so a negative Bezout coefficient wraps"},
		bugs.Bug{ID: BugGCDSign, Domain: "overlap", Impl: "Exact", Killer: "FlipInvariant",
			Summary: "a negative stride enters the gcd and the equation with its sign unfixed (converted to unsigned as is)"},
		bugs.Bug{ID: BugSize1Stride, Domain: "overlap", Impl: "Exact", Killer: "ReshapeInvariant",
			Summary: "the gap test stops at the first size-1 dim, as if every dim beyond it were trivial"},
		bugs.Bug{ID: BugEmptyPhantom, Domain: "overlap", Impl: "Exact", Killer: "EmptyAndSelf",
			Summary: "an empty view is not short-cut and keeps a phantom element at its offset"},
		bugs.Bug{ID: BugExtentOverflow, Domain: "overlap", Impl: "Exact", Killer: "RejectsInvalid",
			Summary: "(n-1)*stride multiplied without an overflow check, so a view past 2^63 wraps into range"},
		bugs.Bug{ID: BugEndOverflow, Domain: "overlap", Impl: "Exact", Killer: "TranslateInvariant",
			Summary: "the exclusive end offset+extent+elem is formed in int64, so a view ending at byte 2^63-1 is refused"},
		bugs.Bug{ID: BugResidueWrap, Domain: "overlap", Impl: "Exact", Killer: "MatchesModel",
			Summary: "the residue product r*inverse mod m is taken in 64 bits and wraps for moduli above 2^32"},
		bugs.Bug{ID: BugMergeMax, Domain: "overlap", Impl: "Exact", Killer: "MatchesModel",
			Summary: "terms with equal strides are merged by the larger bound instead of the sum of bounds"},
		bugs.Bug{ID: BugReachShort, Domain: "overlap", Impl: "Exact", Killer: "MatchesModel",
			Summary: "the suffix reach leaves out the last term, so the lower bound of a term is too high"},
		bugs.Bug{ID: BugCapOffByOne, Domain: "overlap", Impl: "Exact", Killer: "TooHardOnlyAboveCap",
			Summary: "the work cap trips at MaxWork nodes instead of above it"},
		bugs.Bug{ID: BugDenseOneSide, Domain: "overlap", Impl: "Exact", Killer: "Symmetric",
			Summary: "the gap-free fast path, for a gap-free first view, skips the test that the second view has an end within its bounds"},
		bugs.Bug{ID: BugTermsTruncated, Domain: "overlap", Impl: "Exact", Killer: "PermuteInvariant",
			Summary: "the term buffer holds MaxRank terms, so the terms past eight are dropped"},
		bugs.Bug{ID: BugBoxNegStride, Domain: "overlap", Impl: "BBox", Killer: "NeverMisses",
			Summary: "the lowest address is taken as the offset, ignoring negative strides"},
		bugs.Bug{ID: BugBoxTouching, Domain: "overlap", Impl: "BBox", Killer: "NeverMisses",
			Summary: "inclusive bounds compared with <, so boxes sharing exactly one byte are disjoint"},
		bugs.Bug{ID: BugBoxInt32, Domain: "overlap", Impl: "BBox", Killer: "ScaleInvariant",
			Summary: "bounds compared as int32, as the seed's region offsets are"},
		bugs.Bug{ID: BugShiftOneCandidate, Domain: "overlap", Impl: "Exact", Killer: "MatchesModel",
			Summary: "the shifted-copy path tries only the quotient below the distance, missing overlaps reached from the multiple above it"},
		bugs.Bug{ID: BugZeroMaxWork, Domain: "overlap", Impl: "Solver", Killer: "MatchesModel",
			Summary: "Solve reads only a negative MaxWork as the default, so the zero Solver gives up on its first search node"},
		bugs.Bug{ID: BugPreparedCap, Domain: "overlap", Impl: "SolvePrepared", Killer: "TooHardOnlyAboveCap",
			Summary: "SolvePrepared searches with DefaultMaxWork whatever the Solver's MaxWork"},
		bugs.Bug{ID: BugPrepareAliases, Domain: "overlap", Impl: "SolvePrepared", Killer: "MatchesModel",
			Summary: "Prepare keeps the caller's Shape and Strides instead of copies, so a caller reusing them changes the prepared view"},
	)
}
