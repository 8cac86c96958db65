// Package tensormap holds the optimised TensorMap of the seed
// (seeds/tensormap-overlap.md), checked against the model in
// model/tensormap.
//
// Ring is a single-goroutine structure; Insert, Lookup and Retire allocate
// nothing when they succeed:
//
//   - A ring-buffer pool of Capacity entries, filled in insertion order.
//     Tasks arrive in order, so the slot the next Insert takes holds the
//     oldest entry; if that one is still live, all are, and the Insert fails
//     with ErrPoolExhausted (the seed's ring overwrites it: a lost
//     dependency). Each slot is split by who reads it (entry.go): a 32-byte
//     node (storage, task, lowest byte, 32-bit extent, next link; two per
//     cache line) is all a chain walk reads; a link (back link, per-task
//     chain) serves Insert, Retire and unlinking; an entry keeps a copy of
//     the view (rank ≤ 4 inline; ranks 5 to 8 in a wide array allocated on
//     first use) for the solver. At 64 Ki live entries (128 Ki slots) the
//     nodes take 4 MiB, so a lookup of a random storage usually finds its
//     chain in the caches even when the views are not. (With whole entries
//     in the chain — 64 bytes plus the dims in a separate array, or 128
//     bytes with them inline — every chain step is a line of a 16–25 MiB
//     working set, and a lookup of a random storage costs several misses.)
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
// after two cheap filters: the byte bounds kept in each node (computed by
// overlap.Bounds, the solver's own validating pass, at Insert and once per
// lookup) must meet, and an entry with the query's lowest or highest byte
// overlaps it at once (a non-empty view touches both: this settles the same
// view written and read from the node alone). With the
// default solver the map calls overlap.ExactBounded, which starts at the
// bounds instead of validating and measuring both views again; tiles of one
// tensor, the commonest pair whose bounds meet without overlapping, take
// its shifted-copy path in O(rank). TooHard and solver errors count as
// dependencies.
//
// Costs: Insert O(1); Retire O(entries retired) plus O(window) for a jump
// past the window; Lookup and LookupAll O(live entries in the storage's
// chain) solver calls at most; Len O(log Capacity).
//
// In builds with the mutants tag, chain walks are bounded by the pool size,
// so that a seeded bug which corrupts a chain into a cycle shows as a wrong
// answer rather than a hang; the bound compiles away otherwise.
package tensormap
