package sizeclasstest

import (
	"fmt"
	"slices"

	spec "github.com/memverify/memverify/model/sizeclass"
)

// checkPoolInvariants checks what must hold of any pool between calls, with
// no model: every free block is in exactly one cache and no block in use is
// in any; every block in frozen (addresses seen frozen before, updated here)
// is still held and still frozen; the bytes of the blocks equal
// Stats.Reserved and the device's live bytes, and the blocks are exactly the
// device's live blocks; the device saw no double free or unknown free; after
// Close the device holds nothing. Every Pool property runs it, the
// concurrent ones once no call is running.
func checkPoolInvariants(p spec.Pool, dev *spec.SimDevice, frozen map[spec.Addr]bool, closed bool) error {
	if v := dev.Violations(); len(v) > 0 {
		return fmt.Errorf("device misuse: %v", v)
	}
	if closed {
		if live := dev.Live(); len(live) > 0 {
			return fmt.Errorf("leak: the device still holds %v after Close", live)
		}
		return nil
	}
	blocks := p.Blocks()
	held := map[spec.Addr]bool{}
	var sum int64
	addrs := make([]spec.Addr, 0, len(blocks))
	for _, b := range blocks {
		held[b.Addr] = true
		addrs = append(addrs, b.Addr)
		sum += b.Size
		if err := checkBlock(b, frozen); err != nil {
			return err
		}
	}
	for a := range frozen {
		if !held[a] {
			return fmt.Errorf("frozen block %v was returned to the device", a)
		}
	}
	st := p.Stats()
	if st.Reserved != sum || dev.Stats().Used != sum {
		return fmt.Errorf("blocks hold %d bytes, Stats.Reserved %d, the device %d", sum, st.Reserved, dev.Stats().Used)
	}
	if live := dev.Live(); !slices.Equal(live, addrs) {
		return fmt.Errorf("pool holds %v, the device %v", addrs, live)
	}
	return nil
}

// checkBlock checks one block of the dump: listed in the caches once if
// free and never if in use, and still frozen if it was; it adds a frozen
// block to frozen.
func checkBlock(b spec.Block, frozen map[spec.Addr]bool) error {
	switch {
	case b.Cached > 1:
		return fmt.Errorf("block %v is listed %d times in the caches", b.Addr, b.Cached)
	case b.InUse && b.Cached != 0:
		return fmt.Errorf("block %v is in use and cached", b.Addr)
	case !b.InUse && b.Cached != 1:
		return fmt.Errorf("block %v is free but in no cache", b.Addr)
	}
	if frozen[b.Addr] && !b.Frozen {
		return fmt.Errorf("block %v was frozen and is no longer", b.Addr)
	}
	if b.Frozen {
		frozen[b.Addr] = true
	}
	return nil
}
