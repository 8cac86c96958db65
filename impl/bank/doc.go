// Package bank holds the optimised implementations of the bank contract
// (model/bank): FreeListOpt, a free list in the spirit of tt-metal's
// FreeListOpt, and Concurrent, banks safe for concurrent use over it.
//
// # FreeListOpt
//
// The blocks live in one B+-tree keyed by address (btree.go), with one entry
// per allocated block that also holds the size of the free gap after it:
// entry (k, v) spans [k, next), next being the following entry's address
// (or the end of the range); its block is [k, next-v) and its gap
// [next-v, next). A head entry at the start of the range, with an empty
// block, holds the gap before the first allocation. The entries tile the
// range, so nothing else is stored: a block's size is implied by its
// neighbour, and two free blocks can never sit side by side. Each inner node
// keeps, per child, the child's smallest address and the largest gap below
// it.
//
//   - First fit, bottom-up or top-down, is one descent to the leftmost
//     (rightmost) child whose largest gap fits, so the choice is exactly the
//     model's: the lowest (highest) feasible address, and the differential
//     properties compare addresses directly. The address limit constrains
//     the descent (only entries at or above it), plus one look at the entry
//     that straddles it; AllocateAvoiding runs the same search in each
//     window left between the merged avoided ranges. The root's annotations
//     give the largest free block, so Stats is O(1).
//   - Allocate carves the block from a gap: the entry keeps the part of the
//     gap below it, a new entry right after it (most often in the same leaf)
//     takes the block and the rest of the gap.
//   - Free finds the block's entry by address in one descent; the block and
//     its gap join the gap of the entry before, which absorbs it. That is
//     coalescing on both sides in one step. An address that is not the start
//     of an allocated block is unknown.
//   - Best fit keeps a second B+-tree of the gaps ordered by (size,
//     address), annotated with the highest address below each child: the
//     smallest gap of at least the request at or above the limit is one
//     descent, the lowest such address bottom-up, the highest among the
//     equals top-down; that is true best fit. This tree is the issue's
//     size-segregated free lists taken to the limit, one class per size.
//     FreeListOpt's own "BEST" (the first power-of-two size class with a
//     fit, first block by address in it) is not best fit, and lives on as a
//     seeded bug. A first-fit list does not keep this tree.
//
// Why a B+-tree rather than a binary tree: the list was cache-bound. Nodes
// hold up to 31 entries with keys and values in separate arrays; the
// children of inner nodes live in a side array, so leaves (most nodes)
// carry nothing else. One entry per allocation keeps 100k live blocks in
// about 4k nodes of 256 bytes (about 1 MB, leaves four fifths full: see
// below), four levels deep (three at 1k and 10k), where the earlier version (a treap of 64-byte nodes, two per
// allocation, paths of over twenty nodes, plus a linked block list and a
// hash map from addresses to blocks) spread the same state over several
// times the memory and touched four structures per call. Slots above a
// changed entry are refreshed only while their summary changes. Nodes are
// recycled through a free list inside one arena: no allocation per
// operation once the arena has grown.
//
// Keys and values are stored as 32-bit counts of allocation units whenever
// the range allows it (index.go): an address as its distance from the
// range's start, a size as itself, both divided by the largest power of two
// dividing the alignment, which divides every offset and size the list
// stores, so the count is exact. A range of fewer than 2^32-1 units (with
// 32-byte units, 128 GiB) fits, which covers every real bank. An entry is
// then 8 bytes instead of 16, and a node of 31 entries is 256 bytes: the
// count and keys in two cache lines, the values in two more, so a search
// reads two lines a node, as a 15-entry node of 64-bit fields did, but the
// tree is half the size and a level shallower. That matters at 100k blocks,
// where the tree no longer fits a 1 MiB L2 and each line missed costs more
// than the work around it (measured at 100k: about half the simulated misses
// of a 1 MiB L2 and a fifth less time per operation, for the same number of
// instructions). A wider range keeps 64-bit counts, in nodes of 15
// entries (wideFan: two lines of keys, two of values; 31 was slower at 64
// bits). The tree is generic over the key type (btree[K], K uint32 or
// uint64, chosen when the list is made), each width compiled to its own
// code, and the list talks to it in bytes through index, which converts
// with a shift and an add and picks the width with one predictable branch.
// Searches round their bounds to counts in the direction that keeps them
// exact (a lower bound up, a key looked up down).
//
// Two further choices are about lists of 100k blocks and more, whose leaves
// no longer fit a 1 MiB L2, so that the random leaf Free reaches by address
// is most often a trip to L3:
//
//   - Fuller leaves. A full leaf lends entries to a neighbour with room
//     before it splits (btree.lend), and Restore builds leaves four fifths
//     full. Under the benchmark's random frees and first-fit allocations
//     leaves then settle about 80% full instead of 66% with halving splits
//     alone: at 100k blocks about 3.9k leaves instead of 4.8k, and a fifth
//     fewer simulated misses of a 1 MiB L2 per operation (callgrind: 2.2 to
//     1.7 bottom-up, 2.3 to 1.9 top-down).
//   - Overlapped misses. A search by address loads one word of each line of
//     the leaf it reaches, and of each inner node below the root, before its
//     binary search starts (btree.touch), so that the misses on those lines
//     overlap instead of following one another (the count, then a key, then
//     the value found, then the tail a removal shifts). In alternated runs
//     at 100k this made an operation 5-10% faster. The same on the
//     allocation's descent by largest gap made it slower (first fit keeps
//     coming back to the same region, so that path is mostly in cache) and
//     is not done.
//
// Both cost a few instructions at every size, won back by scanning four
// values a step when a node's largest is recomputed and by a shorter path
// for an insertion into a leaf with room: at 1k and 10k blocks the
// instruction count per operation is within about 1% of what it was before.
// Tried and not kept: leaves of 15 entries (two lines) under 31-entry inner
// nodes (as many simulated misses, 2.2 an operation at 100k, since a search
// of a 31-entry leaf rarely reads all four of its lines, and more
// instructions and time); the descent by largest gap passing over four
// slots a step (more instructions: it most often stops within the first
// few); huge pages for the arena and the benchmark's slice (no clear change
// at 100k, so the TLB is not what grows); leaves in 16 bits, offsets from a
// base, where their entries fit (half the simulated misses at 100k, but
// 4-9% faster there and 2-5% slower at 1k and 10k: bench/README.md, "Short
// leaves").
//
// NewFreeListOptWith builds the same list with narrower nodes or 64-bit
// keys (FreeListOptions). No caller needs them for speed; the catalogue runs
// FreeListOpt's properties under four layouts, so that the few dozen blocks
// of a generated range build trees of several levels and use both key
// widths.
//
// Allocate, AllocateAt and Free cost O(log n) in the number of blocks,
// AllocateAvoiding O((k+1) log n + k log k) for k avoided ranges, Stats
// O(1), Blocks and State O(n), Restore O(n log n) for the sort and O(n) to
// build the tree bottom-up (leaves four fifths full, the fill updates keep
// them at, so the next inserts neither split every leaf nor merge them).
//
// # Concurrent
//
// All banks share one FreeListOpt, so allocation and free serialise on one
// mutex. Buffer records sit in a single-writer open-addressing hash table
// (records.go): writers hold the mutex, readers take no lock, write nothing
// and finish within one pass over the table, so PageAddress, the per-page
// hot path, is wait-free. Records are published and withdrawn while the
// mutex is held, at the same instant as their blocks, which makes every
// method linearizable (the properties check it with porcupine and -race).
//
// bugs.go plants the seeded bugs of the domain behind bugs.On seams; they
// compile away without the mutants build tag.
package bank
