// Package bank is the specification of a bank address-space allocator and of
// buffers whose pages are interleaved over banks (tt-metal's FreeListOpt and
// BankManager, seed bank-interleaving.md).
//
// # Overview
//
// A FreeList manages [Offset, Offset+Size) in blocks that tile the range in
// address order. Allocate takes align(max(size, MinAllocation)) bytes; first fit
// picks the lowest feasible address bottom-up and the highest top-down, never
// below the address limit. Free coalesces with free neighbours on both sides,
// so no two free blocks are ever adjacent. State and Restore extract and
// override the layout (trace capture and replay).
//
// Banks put N banks over one shared FreeList: a buffer occupies the same
// bank-local range [addr, addr+perBank) in every bank, and page i lives in bank
// i mod N at addr + Offsets[bank] + (i div N) × align(pageSize), so each bank
// holds ceil(pages / N) pages. A sharded buffer goes round a listed subset of
// the banks instead. Memory simulates the banks' bytes, so a property can fill
// every live buffer with its own pattern and prove no operation on one buffer
// touches another.
//
// Model and BanksModel are the reference implementations: a slice of blocks
// searched linearly and a map of buffers. Ops (Op, BanksOp) are the calls as
// data, with comparable results.
//
// # Decisions the seed leaves open
//
//   - The limit constrains the choice: a free block that starts below the limit
//     is used from the first aligned address at or above it. FreeListOpt checks
//     the limit only after allocating and leaks the block; that is a seeded bug.
//   - Top-down first fit takes the free block with the highest address and
//     carves its top end: the highest feasible address overall.
//   - AllocateAvoiding is first fit whatever the policy (BankManager's
//     dependency path picks the lowest, or highest, free place clear of its
//     neighbours' blocks). The result is the lowest (highest) aligned address a
//     with [a, a+n) inside one free block, a ≥ limit, overlapping no avoided
//     range; an empty avoided range avoids nothing; Start > End is
//     ErrInvalidAddress.
//   - Best fit is true best fit, not FreeListOpt's "BEST" (first size class with
//     any fit, first block in it): the smallest free block holding a feasible
//     place, ties by address (lowest bottom-up, highest top-down); placement
//     inside the block follows the direction. The implementation is checked
//     against this mode of the model, so best fit is verified exactly too.
//   - Check order of a FreeList call: size first (ErrInvalidSize), then
//     addresses or avoided ranges (ErrInvalidAddress), then placement
//     (ErrOutOfMemory, ErrNotFree). (Banks.AllocateSharded checks its bank
//     list before the size.)
//     AllocateAt's whole range [addr, addr+n) must lie in the managed range
//     (else ErrInvalidAddress) and inside one free block (else ErrNotFree).
//     A request larger than the whole range is ErrOutOfMemory, not a bad size.
//   - Free of an unknown address is ErrUnknownAddress. FreeListOpt ignores it
//     silently, which hides double frees; that is a seeded bug.
//   - Configurations: Alignment ≥ 1 (any, not only powers of two, as tt-metal's
//     align), Size a positive multiple of it (so every block end is aligned and
//     top-down placement needs no rounding), Offset aligned, the range below
//     2^64; else ErrInvalidConfig. Stats.LargestFree is 0 when nothing is free.
//   - Restore checks the whole state before changing anything: matching
//     configuration (policy excepted: a layout means the same under either),
//     then every region an allocation size (aligned, at least the minimum),
//     aligned, inside the range and disjoint from the others; else
//     ErrIncompatibleState. It replaces live allocations, it does not add to them.
//   - Banks: a buffer of size bytes has ceil(size / pageSize) pages (the last
//     may be partial); one alignment rounds both blocks and pages; the seed's
//     aligned_size, align_up(size / N, pageSize), under-allocates and is a
//     seeded bug. The limit of BanksConfig applies to every buffer. Offsets are
//     unsigned: tt-metal's negative offsets of storage-only cores are not
//     modelled. Bank counts are any number from 1 to MaxBanks (the power-of-two
//     rule of tt-metal is a device restriction, not a contract of the layout).
//   - Memory gives each bank its own bytes, bounds-checked against that bank:
//     an access that leaves its bank is ErrOutOfBounds, not a write elsewhere.
package bank
