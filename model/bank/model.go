package bank

import (
	"fmt"
	"slices"
)

// Model is the reference FreeList: a slice of blocks that tiles the range in
// address order, searched linearly. Every operation is O(blocks); it is
// written to be checked against the contract by reading, not to be fast.
type Model struct {
	cfg    Config
	blocks []Block // tiles [Offset, End) in address order; no two free blocks adjacent
}

var _ FreeList = (*Model)(nil)

// NewModel returns a model free list of one free block over the whole range.
func NewModel(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Model{cfg: cfg, blocks: []Block{{Addr: cfg.Offset, Size: cfg.Size}}}, nil
}

// Config implements FreeList.
func (m *Model) Config() Config { return m.cfg }

// Allocate implements FreeList.
func (m *Model) Allocate(size int64, dir Direction, limit Addr) (Addr, error) {
	if err := CheckDirection(dir); err != nil {
		return 0, err
	}
	n, err := m.cfg.AllocSize(size)
	if err != nil {
		return 0, err
	}
	a, ok := m.choose(n, dir, nil, limit, m.cfg.Policy)
	if !ok {
		return 0, fmt.Errorf("%w: %d bytes %v above %#x", ErrOutOfMemory, n, dir, uint64(limit))
	}
	m.carve(a, n)
	return a, nil
}

// AllocateAvoiding implements FreeList. It is first fit whatever the policy:
// the caller asks for a place clear of another allocator's blocks, and the
// lowest (highest) such place is what BankManager's dependency path picks.
func (m *Model) AllocateAvoiding(size int64, dir Direction, avoid []Range, limit Addr) (Addr, error) {
	if err := CheckDirection(dir); err != nil {
		return 0, err
	}
	n, err := m.cfg.AllocSize(size)
	if err != nil {
		return 0, err
	}
	for _, r := range avoid {
		if r.Start > r.End {
			return 0, fmt.Errorf("%w: avoided range %v ends before it starts", ErrInvalidAddress, r)
		}
	}
	a, ok := m.choose(n, dir, avoid, limit, FirstFit)
	if !ok {
		return 0, fmt.Errorf("%w: %d bytes %v above %#x avoiding %v", ErrOutOfMemory, n, dir, uint64(limit), avoid)
	}
	m.carve(a, n)
	return a, nil
}

// AllocateAt implements FreeList.
func (m *Model) AllocateAt(addr Addr, size int64) error {
	n, err := m.cfg.AllocSize(size)
	if err != nil {
		return err
	}
	if uint64(addr)%uint64(m.cfg.Alignment) != 0 || addr < m.cfg.Offset || addr >= m.cfg.End() ||
		uint64(n) > uint64(m.cfg.End()-addr) {
		return fmt.Errorf("%w: [%#x, +%d) is unaligned or outside the range", ErrInvalidAddress, uint64(addr), n)
	}
	for _, b := range m.blocks {
		if b.Addr <= addr && addr < b.Addr+Addr(b.Size) {
			if b.Allocated || uint64(addr-b.Addr)+uint64(n) > uint64(b.Size) {
				return fmt.Errorf("%w: [%#x, +%d)", ErrNotFree, uint64(addr), n)
			}
		}
	}
	m.carve(addr, n)
	return nil
}

// Free implements FreeList.
func (m *Model) Free(addr Addr) error {
	i := slices.IndexFunc(m.blocks, func(b Block) bool { return b.Addr == addr && b.Allocated })
	if i < 0 {
		return fmt.Errorf("%w: %#x", ErrUnknownAddress, uint64(addr))
	}
	m.blocks[i].Allocated = false
	if i+1 < len(m.blocks) && !m.blocks[i+1].Allocated {
		m.blocks[i].Size += m.blocks[i+1].Size
		m.blocks = slices.Delete(m.blocks, i+1, i+2)
	}
	if i > 0 && !m.blocks[i-1].Allocated {
		m.blocks[i-1].Size += m.blocks[i].Size
		m.blocks = slices.Delete(m.blocks, i, i+1)
	}
	return nil
}

// Stats implements FreeList.
func (m *Model) Stats() Stats {
	s := Stats{TotalAllocatable: m.cfg.Size}
	for _, b := range m.blocks {
		if b.Allocated {
			s.Allocated += b.Size
		} else {
			s.Free += b.Size
			s.LargestFree = max(s.LargestFree, b.Size)
		}
	}
	return s
}

// Blocks implements FreeList.
func (m *Model) Blocks() []Block { return slices.Clone(m.blocks) }

// State implements FreeList.
func (m *Model) State() State {
	s := State{Offset: m.cfg.Offset, Size: m.cfg.Size, Alignment: m.cfg.Alignment, MinAllocation: m.cfg.MinAllocation}
	for _, b := range m.blocks {
		if b.Allocated {
			s.Allocations = append(s.Allocations, Region{Addr: b.Addr, Size: b.Size})
		}
	}
	return s
}

// Restore implements FreeList: it checks the whole state before changing
// anything, then lays the sorted regions out with the free gaps between them.
func (m *Model) Restore(s State) error {
	if !m.cfg.Compatible(s) {
		return fmt.Errorf("%w: state of [%#x, +%d) align %d min %d into [%#x, +%d) align %d min %d",
			ErrIncompatibleState, uint64(s.Offset), s.Size, s.Alignment, s.MinAllocation,
			uint64(m.cfg.Offset), m.cfg.Size, m.cfg.Alignment, m.cfg.MinAllocation)
	}
	rs := slices.Clone(s.Allocations)
	slices.SortFunc(rs, func(x, y Region) int { return cmpAddr(x.Addr, y.Addr) })
	var blocks []Block
	next := m.cfg.Offset // the first address not yet laid out
	for _, r := range rs {
		n, err := m.cfg.AllocSize(r.Size)
		if err != nil || n != r.Size || uint64(r.Addr)%uint64(m.cfg.Alignment) != 0 ||
			r.Addr < next || r.Addr >= m.cfg.End() || uint64(n) > uint64(m.cfg.End()-r.Addr) {
			return fmt.Errorf("%w: region [%#x, +%d) is not an aligned allocation inside the range, clear of the others",
				ErrIncompatibleState, uint64(r.Addr), r.Size)
		}
		if r.Addr > next {
			blocks = append(blocks, Block{Addr: next, Size: int64(r.Addr - next)})
		}
		blocks = append(blocks, Block{Addr: r.Addr, Size: n, Allocated: true})
		next = r.Addr + Addr(n)
	}
	if next < m.cfg.End() {
		blocks = append(blocks, Block{Addr: next, Size: int64(m.cfg.End() - next)})
	}
	m.blocks = blocks
	return nil
}
