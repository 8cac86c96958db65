package bank

import (
	"fmt"
	"slices"
)

// BanksModel is the reference Banks: a model free list and a map of buffers.
type BanksModel struct {
	cfg     BanksConfig
	list    *Model
	buffers map[Addr]Buffer
}

var _ Banks = (*BanksModel)(nil)

// NewBanksModel returns empty model banks.
func NewBanksModel(cfg BanksConfig) (*BanksModel, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	list, err := NewModel(cfg.List)
	if err != nil {
		return nil, err
	}
	cfg.Offsets = slices.Clone(cfg.Offsets)
	return &BanksModel{cfg: cfg, list: list, buffers: map[Addr]Buffer{}}, nil
}

// Config implements Banks.
func (m *BanksModel) Config() BanksConfig {
	c := m.cfg
	c.Offsets = slices.Clone(c.Offsets)
	return c
}

// AllocateBuffer implements Banks.
func (m *BanksModel) AllocateBuffer(size, pageSize int64, dir Direction) (Addr, error) {
	all := make([]int, len(m.cfg.Offsets))
	for i := range all {
		all[i] = i
	}
	return m.allocate(size, pageSize, all, dir)
}

// AllocateSharded implements Banks.
func (m *BanksModel) AllocateSharded(size, pageSize int64, banks []int, dir Direction) (Addr, error) {
	if err := CheckShards(banks, len(m.cfg.Offsets)); err != nil {
		return 0, err
	}
	return m.allocate(size, pageSize, slices.Clone(banks), dir)
}

// CheckShards reports ErrInvalidBank unless banks is a non-empty list of
// distinct banks below n.
func CheckShards(banks []int, n int) error {
	if len(banks) == 0 {
		return fmt.Errorf("%w: empty shard list", ErrInvalidBank)
	}
	seen := map[int]bool{}
	for _, b := range banks {
		if b < 0 || b >= n || seen[b] {
			return fmt.Errorf("%w: shard list %v over %d banks", ErrInvalidBank, banks, n)
		}
		seen[b] = true
	}
	return nil
}

func (m *BanksModel) allocate(size, pageSize int64, banks []int, dir Direction) (Addr, error) {
	perBank, err := Layout(size, pageSize, len(banks), m.cfg.List.Alignment)
	if err != nil {
		return 0, err
	}
	a, err := m.list.Allocate(perBank, dir, m.cfg.Limit)
	if err != nil {
		return 0, err
	}
	m.buffers[a] = Buffer{Addr: a, Size: size, PageSize: pageSize, Banks: banks, PerBank: perBank}
	return a, nil
}

// FreeBuffer implements Banks.
func (m *BanksModel) FreeBuffer(addr Addr) error {
	if _, ok := m.buffers[addr]; !ok {
		return fmt.Errorf("%w: no buffer at %#x", ErrUnknownAddress, uint64(addr))
	}
	delete(m.buffers, addr)
	return m.list.Free(addr)
}

// PageAddress implements Banks.
func (m *BanksModel) PageAddress(addr Addr, page int64) (int, Addr, error) {
	b, ok := m.buffers[addr]
	if !ok {
		return 0, 0, fmt.Errorf("%w: no buffer at %#x", ErrUnknownAddress, uint64(addr))
	}
	if page < 0 || page >= b.Pages() {
		return 0, 0, fmt.Errorf("%w: page %d of a %d-page buffer", ErrInvalidAddress, page, b.Pages())
	}
	n := int64(len(b.Banks))
	bank := b.Banks[page%n]
	stride, _ := AlignUp(uint64(b.PageSize), uint64(m.cfg.List.Alignment)) // Layout checked it
	return bank, addr + m.cfg.Offsets[bank] + Addr(page/n)*Addr(stride), nil
}

// Buffers implements Banks.
func (m *BanksModel) Buffers() []Buffer {
	out := make([]Buffer, 0, len(m.buffers))
	for _, b := range m.buffers {
		b.Banks = slices.Clone(b.Banks)
		out = append(out, b)
	}
	slices.SortFunc(out, func(x, y Buffer) int { return cmpAddr(x.Addr, y.Addr) })
	return out
}

// Stats implements Banks.
func (m *BanksModel) Stats() Stats { return m.list.Stats() }

// Blocks implements Banks.
func (m *BanksModel) Blocks() []Block { return m.list.Blocks() }

func cmpAddr(a, b Addr) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
