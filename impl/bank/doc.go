// Package bank holds the optimised implementations of the bank contract
// (model/bank): FreeListOpt, a free list in the spirit of tt-metal's
// FreeListOpt, and Concurrent, banks safe for concurrent use over it.
//
// # FreeListOpt
//
// Blocks live in a node array (recycled slots, no per-operation allocation),
// linked in address order so that Free finds both neighbours in O(1) and
// coalesces at once. Allocated blocks are found by start address through a
// hash map. Free blocks are indexed by:
//
//   - an address-ordered treap whose subtrees carry their largest block size.
//     First fit, bottom-up or top-down, is one descent to the leftmost
//     (rightmost) block large enough, so the choice is exactly the model's:
//     the lowest (highest) feasible address, and the differential properties
//     compare addresses directly. The address limit constrains the descent
//     (only blocks at or above it), plus one look at the free block that
//     straddles it; AllocateAvoiding runs the same search in each window left
//     between the merged avoided ranges. The root's annotation is the largest
//     free block, so Stats is O(1).
//   - size-segregated free lists, one per power-of-two class of
//     size / alignment with a bitmap of non-empty classes (as in TLSF and
//     FreeListOpt), each list a treap ordered by (size, address) whose
//     subtrees carry their highest address. They serve the best-fit policy,
//     which is true best fit: the first non-empty class at or above the
//     request's holds the smallest feasible block, found in one descent (the
//     annotation skips blocks below the limit); ties go to the lowest address
//     bottom-up, the highest top-down. FreeListOpt's own "BEST" (first class
//     with a fit, first block by address in it) is not best fit and lives on
//     as a seeded bug. A first-fit list never reads the size lists, so it
//     does not keep them.
//
// Allocate, AllocateAt and Free cost O(log n) expected in the number of
// blocks (treap depth), AllocateAvoiding O((k+1) log n + k log k) for k
// avoided ranges, Stats O(1), Blocks and State O(n), Restore O(n log n).
// Carving keeps the free remainder in the node it came from whenever its
// position in the address order cannot change, so most operations refresh
// one root-to-node path instead of deleting and inserting.
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
