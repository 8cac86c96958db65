// Package tensormap holds the optimised TensorMap of the seed
// (seeds/tensormap-overlap.md), checked against the model in
// model/tensormap.
//
// Ring is a single-goroutine structure; Insert, Lookup and Retire allocate
// nothing when they succeed, except an Insert that brings more distinct
// view layouts than the map has held before:
//
//   - A ring-buffer pool of Capacity entries, filled in insertion order.
//     Tasks arrive in order, so the slot the next Insert takes holds the
//     oldest entry; if that one is still live, all are, and the Insert fails
//     with ErrPoolExhausted (the seed's ring overwrites it: a lost
//     dependency). Each slot is split by who reads it (entry.go): a 32-byte
//     node (storage, task, lowest byte, next link, layout id; two per cache
//     line) is all a chain walk and the solver read; a link (back link,
//     per-task chain) serves Insert, Retire and unlinking.
//   - View layouts interned (layouts.go): a view is its offset plus a
//     layout (element size, shape, strides, and the extent and the span
//     below the offset that they imply). The map keeps each layout once,
//     counted by the slots that name it, and a slot only its id. A runtime
//     splits a few tensor shapes into many tiles, so 64 Ki live entries
//     typically share a handful of layouts, which stay in the caches, and
//     the whole per-slot state is 40 bytes: 5 MiB for 128 Ki slots. Insert
//     finds a known layout by comparing the dims with the last one found,
//     or by hash, and then needs no measuring: the bounds follow from the
//     offset. (Copying each view into its slot, as before, took 136 bytes a
//     slot; at 64 Ki live entries the per-slot state outgrew the part of the
//     last-level cache this machine gives one process, and a lookup of a
//     random storage cost about three misses to memory instead of one:
//     callgrind, with a simulated 4 MiB last level, counted 3.5 misses per
//     op on the rows trace and 4.5 on tiles, against 1.2 and 1.1 now: see
//     bench/README.md.)
//   - Buckets hashed by the storage base only (Fibonacci hashing, a power of
//     two at least Capacity): every view of a storage shares one chain, so
//     views starting at different offsets are always compared. Chains are
//     doubly linked, newest first; a new entry goes to the head. A slot
//     does not store its bucket: unlinking the head of a chain hashes the
//     storage again, and prev = unlinked marks a slot in no chain. Since
//     tasks never decrease, each chain is sorted by task, and once a retired
//     entry is seen everything behind it is retired too.
//   - Lazy invalidation: Retire moves a threshold; an entry below it is
//     dead wherever it sits. A lookup that meets the first dead entry of a
//     chain cuts the chain there (chain truncation) and marks the cut
//     entries unlinked; a slot being reused is unlinked in O(1) if it still
//     sits in a chain.
//   - Per-task chains (the seed's task_entry_head, a window of the next
//     power of two ≥ Capacity slots indexed by task id): Retire walks the
//     chains of the tasks it retires and unlinks their entries at once, so
//     lookups do not step over them. A head is followed only if the slot it
//     names still holds an entry of that task, since slot reuse and window
//     wrap-around make heads stale. Only the last window of retired tasks is
//     cleaned; a longer jump leaves the rest to truncation and slot reuse.
//
// Overlap is decided by the exact solver of impl/overlap (or Config.Solver),
// after two cheap filters: the byte bounds of each entry (its node's lowest
// byte and its layout's extent) and the query's (from its layout when the
// map holds it, else by overlap.Bounds, the solver's own validating pass)
// must meet, and an entry with the query's lowest or highest byte overlaps
// it at once (a non-empty view touches both: this settles the same view
// written and read from the node alone). With the default solver, an entry
// of the query's own layout — the tiles of one tensor, the commonest pair
// whose bounds meet without overlapping — is decided by the layout's shift
// plan (impl/overlap's shifted-copy descent, planned once when the layout
// was interned, with the view that interned it placed by the plan and moved
// to each entry's lowest byte) in O(rank); any other pair goes to
// overlap.ExactBounded,
// which starts at the bounds instead of validating and measuring both
// views again. TooHard and solver errors count as dependencies.
//
// Imports: no implementation package imports another, with one stated
// exception, and this package is it. The tensormap implementation decides
// overlap with impl/overlap (imported as implov: Bounds, PlanShift, Placed
// and ExactBounded), as the seed's design does: its TensorMap calls the overlap
// check the same seed defines. The dependency runs one way (impl/overlap
// knows nothing of maps), and the solver stays replaceable through
// Config.Solver.
//
// Costs: Insert O(rank), expected (a hash probe for a layout that is not the
// last one found); Retire O(entries retired) plus O(window) for a jump
// past the window; Lookup and LookupAll O(live entries in the storage's
// chain) solver calls at most; Len O(log Capacity).
//
// In builds with the mutants tag, chain walks are bounded by the pool size,
// so that a seeded bug which corrupts a chain into a cycle shows as a wrong
// answer rather than a hang; the bound compiles away otherwise.
package tensormap
