package banktest

import (
	"fmt"

	"github.com/memverify/memverify/model/bank"
)

// FreeListInvariants checks what must hold of any free list at rest, from its
// dump and statistics alone: the blocks tile [Offset, End) exactly, in address
// order, each aligned and non-empty; no two free blocks are adjacent (free
// coalesces on both sides); and Stats equals the sums over the blocks.
func FreeListInvariants(cfg bank.Config, blocks []bank.Block, st bank.Stats) error {
	if len(blocks) == 0 {
		return fmt.Errorf("Blocks() is empty: the range [%#x, %#x) is not tiled", uint64(cfg.Offset), uint64(cfg.End()))
	}
	want := bank.Stats{TotalAllocatable: cfg.Size}
	next := cfg.Offset
	for i, b := range blocks {
		switch {
		case b.Addr != next:
			return fmt.Errorf("block %d %v starts at %#x, want %#x (gap or overlap)", i, b, uint64(b.Addr), uint64(next))
		case b.Size <= 0 || b.Size%cfg.Alignment != 0 || uint64(b.Addr)%uint64(cfg.Alignment) != 0:
			return fmt.Errorf("block %d %v is empty or unaligned (alignment %d)", i, b, cfg.Alignment)
		case uint64(b.Size) > uint64(cfg.End()-b.Addr):
			return fmt.Errorf("block %d %v runs past the end %#x", i, b, uint64(cfg.End()))
		case i > 0 && !b.Allocated && !blocks[i-1].Allocated:
			return fmt.Errorf("free blocks %v and %v are adjacent: free did not coalesce", blocks[i-1], b)
		}
		if b.Allocated {
			want.Allocated += b.Size
		} else {
			want.Free += b.Size
			want.LargestFree = max(want.LargestFree, b.Size)
		}
		next = b.Addr + bank.Addr(b.Size)
	}
	if next != cfg.End() {
		return fmt.Errorf("blocks end at %#x, want %#x", uint64(next), uint64(cfg.End()))
	}
	if st != want {
		return fmt.Errorf("Stats() = %+v, the sums over Blocks() are %+v", st, want)
	}
	return nil
}

// PageMappingInvariants checks the page mapping of banks b: every page of
// every live buffer maps to bank Banks[i mod n] (n = the buffer's banks) at an
// absolute address whose bank-local slot, align(PageSize) bytes, lies inside
// the buffer's allocated block, on a slot boundary; no bank holds more than
// ceil(pages / n) of a buffer's pages; and no two pages of any live buffers
// share a byte of a bank. Pages outside a buffer are ErrInvalidAddress.
func PageMappingInvariants(b bank.Banks) error {
	cfg := b.Config()
	blockAt := map[bank.Addr]bank.Block{}
	for _, blk := range b.Blocks() {
		if blk.Allocated {
			blockAt[blk.Addr] = blk
		}
	}
	type slot struct {
		inBank int
		lo     bank.Addr
	}
	owner := map[slot]string{}
	for _, buf := range b.Buffers() {
		blk, ok := blockAt[buf.Addr]
		if !ok {
			return fmt.Errorf("buffer at %#x has no allocated block", uint64(buf.Addr))
		}
		stride, _ := bank.AlignUp(uint64(buf.PageSize), uint64(cfg.List.Alignment))
		n := int64(len(buf.Banks))
		rows := buf.Pages()/n + min(buf.Pages()%n, 1) // ceil, without a sum that could wrap
		perBank := map[int]int64{}
		for i := int64(0); i < buf.Pages(); i++ {
			inBank, abs, err := b.PageAddress(buf.Addr, i)
			if err != nil {
				return fmt.Errorf("PageAddress(%#x, %d) of a %d-page buffer: %v", uint64(buf.Addr), i, buf.Pages(), err)
			}
			if inBank != buf.Banks[i%n] {
				return fmt.Errorf("page %d of buffer %#x over banks %v is in bank %d", i, uint64(buf.Addr), buf.Banks, inBank)
			}
			local := abs - cfg.Offsets[inBank]
			if abs < cfg.Offsets[inBank] || local < buf.Addr || uint64(local-buf.Addr)%stride != 0 ||
				uint64(local-buf.Addr)+stride > uint64(blk.Size) {
				return fmt.Errorf("page %d of buffer %#x maps to bank %d at %#x (local %#x): not a slot of its block %v",
					i, uint64(buf.Addr), inBank, uint64(abs), uint64(local), blk)
			}
			if perBank[inBank]++; perBank[inBank] > rows {
				return fmt.Errorf("bank %d holds more than ceil(%d / %d) = %d pages of buffer %#x", inBank, buf.Pages(), n, rows, uint64(buf.Addr))
			}
			// Slots of different buffers may have different strides: claim
			// every alignment granule the page's bytes touch.
			name := fmt.Sprintf("page %d of buffer %#x", i, uint64(buf.Addr))
			for g := uint64(0); g < uint64(buf.PageLen(i)); g += uint64(cfg.List.Alignment) {
				s := slot{inBank, local + bank.Addr(g)}
				if prev, dup := owner[s]; dup {
					return fmt.Errorf("%s and %s share bank %d at local %#x", prev, name, inBank, uint64(s.lo))
				}
				owner[s] = name
			}
		}
		for _, bad := range []int64{-1, buf.Pages()} {
			if _, _, err := b.PageAddress(buf.Addr, bad); bank.ErrName(err) != "ErrInvalidAddress" {
				return fmt.Errorf("PageAddress(%#x, %d) of a %d-page buffer: %v, want ErrInvalidAddress", uint64(buf.Addr), bad, buf.Pages(), err)
			}
		}
	}
	return nil
}
