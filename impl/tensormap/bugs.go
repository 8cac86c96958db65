package tensormap

import "github.com/memverify/memverify/internal/bugs"

// Seeded bugs of the tensormap domain, all in Ring. Each is a defect a real
// TensorMap has had or easily could have (see seeds/tensormap-overlap.md).
const (
	BugTrustOrder        bugs.ID = "tensormap/trust-out-of-order"
	BugEvictLive         bugs.ID = "tensormap/evict-live"
	BugHashOffset        bugs.ID = "tensormap/hash-offset"
	BugRetireOffByOne    bugs.ID = "tensormap/retire-off-by-one"
	BugSilentTruncation  bugs.ID = "tensormap/lookupall-silent-truncation"
	BugTooHardNo         bugs.ID = "tensormap/toohard-no-dependency"
	BugStaleTaskHead     bugs.ID = "tensormap/stale-task-head"
	BugBBoxOnly          bugs.ID = "tensormap/bbox-only"
	BugNoStorageCheck    bugs.ID = "tensormap/no-storage-check"
	BugNoDedup           bugs.ID = "tensormap/lookupall-duplicates"
	BugRetireBackwards   bugs.ID = "tensormap/retire-backwards"
	BugTruncateHead      bugs.ID = "tensormap/truncate-from-head"
	BugExtent32          bugs.ID = "tensormap/extent-32-bits"
	BugLayoutIgnoresElem bugs.ID = "tensormap/layout-ignores-elem"
	BugLayoutUncounted   bugs.ID = "tensormap/layout-uncounted"
	BugSolverErrorNo     bugs.ID = "tensormap/solver-error-no-dependency"
	BugWalkCap           bugs.ID = "tensormap/chain-walk-cap"
)

// walkCap is how many entries of a chain a lookup visits under BugWalkCap.
const walkCap = 8

func init() {
	const sm, th = "StateMachine", "TooHardIsDependency"
	reg := func(id bugs.ID, killer, summary string) {
		bugs.Register(bugs.Bug{ID: id, Domain: "tensormap", Impl: "Ring", Summary: summary, Killer: killer})
	}
	reg(BugTrustOrder, sm, "Insert accepts out-of-order task ids, so chains stop being sorted and truncation at a retired entry drops live ones behind it")
	reg(BugEvictLive, sm, "a ring full of live entries overwrites the oldest live one instead of refusing the insert (a lost dependency)")
	reg(BugHashOffset, sm, "buckets hash the storage base plus the view offset, so views of one storage that start elsewhere are never compared")
	reg(BugRetireOffByOne, sm, "lazy invalidation treats the retire threshold task itself as retired (task > threshold instead of >=)")
	reg(BugSilentTruncation, sm, "LookupAll stops at its limit and returns no error, silently dropping producers")
	reg(BugTooHardNo, th, "a TooHard verdict from the overlap solver is treated as independent instead of as a dependency")
	reg(BugSolverErrorNo, th, "an error from a custom solver on views the map validated is treated as independent instead of as a dependency")
	reg(BugStaleTaskHead, sm, "per-task chain heads are trusted without checking which task now owns the slot they name (after slot reuse or a window wrap), so retire cleanup unlinks another task's live entry")
	reg(BugBBoxOnly, sm, "overlap decided by bounding boxes alone (the seed's extended TensorMap), reporting producers that touch no common byte")
	reg(BugNoStorageCheck, sm, "entries in one bucket are compared without checking the storage, so a hash collision between storages creates a dependency")
	reg(BugNoDedup, sm, "LookupAll lists a producer once per overlapping entry instead of once")
	reg(BugRetireBackwards, sm, "Retire below the threshold lowers it, reviving retired tasks whose chains may already be cut")
	reg(BugExtent32, sm, "a view layout keeps its extent in 32 bits, so a view spanning more than 4 GiB hides its far bytes from lookups")
	reg(BugLayoutIgnoresElem, sm, "view layouts are interned by shape and strides without the element size, so an int8 view and a float32 view of one shape share bounds")
	reg(BugLayoutUncounted, sm, "a layout found in the table is not counted for the new slot, so it is forgotten and its id reused while other live entries still name it")
	reg(BugWalkCap, sm, "Lookup and LookupAll give up a bucket chain after 8 entries, a bound meant to stop a walk of a corrupted chain, so in a storage with more live entries the older producers are never found")
	reg(BugTruncateHead, sm, "chain truncation clears the bucket head instead of the link before the first retired entry, dropping the live entries in front of it")
}
