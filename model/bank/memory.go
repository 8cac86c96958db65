package bank

import (
	"fmt"
	"math/bits"
	"slices"
)

// chunk is the granule in which Memory materialises a bank's bytes, so that
// a simulator of large banks costs only what is touched.
const chunk = 4096

// Memory is a byte-level simulator of the banks' memory. Bank b holds the
// absolute addresses [Offsets[b] + List.Offset, Offsets[b] + List.End());
// bytes never written read as zero. Every access is bounds-checked against
// its bank: an access that leaves the bank is refused whole (ErrOutOfBounds),
// as a NoC write to a wrong address would be a fault, not a silent wrap.
// Memory is not safe for concurrent use.
type Memory struct {
	cfg   BanksConfig
	banks []map[uint64][]byte // per bank: chunk index (relative to the bank's base) → bytes
}

// NewMemory returns zeroed memory for the banks of cfg.
func NewMemory(cfg BanksConfig) (*Memory, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Offsets = slices.Clone(cfg.Offsets)
	m := &Memory{cfg: cfg, banks: make([]map[uint64][]byte, len(cfg.Offsets))}
	for i := range m.banks {
		m.banks[i] = map[uint64][]byte{}
	}
	return m, nil
}

// Write copies data to bank at absolute address addr.
func (m *Memory) Write(bank int, addr Addr, data []byte) error {
	rel, err := m.check(bank, addr, len(data))
	if err != nil {
		return err
	}
	for len(data) > 0 {
		c := m.chunk(bank, rel/chunk)
		n := copy(c[rel%chunk:], data)
		data, rel = data[n:], rel+uint64(n)
	}
	return nil
}

// Read copies len(buf) bytes of bank at absolute address addr into buf.
func (m *Memory) Read(bank int, addr Addr, buf []byte) error {
	rel, err := m.check(bank, addr, len(buf))
	if err != nil {
		return err
	}
	for len(buf) > 0 {
		var n int
		if c, ok := m.banks[bank][rel/chunk]; ok {
			n = copy(buf, c[rel%chunk:])
		} else {
			n = min(len(buf), int(chunk-rel%chunk))
			clear(buf[:n])
		}
		buf, rel = buf[n:], rel+uint64(n)
	}
	return nil
}

// check returns addr relative to the bank's base if [addr, addr+n) lies in the bank.
func (m *Memory) check(bank int, addr Addr, n int) (uint64, error) {
	if bank < 0 || bank >= len(m.banks) {
		return 0, fmt.Errorf("%w: bank %d of %d", ErrInvalidBank, bank, len(m.banks))
	}
	base := uint64(m.cfg.Offsets[bank]) + uint64(m.cfg.List.Offset)
	end, carry := bits.Add64(uint64(addr), uint64(n), 0)
	if uint64(addr) < base || carry != 0 || end > base+uint64(m.cfg.List.Size) {
		return 0, fmt.Errorf("%w: [%#x, +%d) outside bank %d [%#x, +%d)",
			ErrOutOfBounds, uint64(addr), n, bank, base, m.cfg.List.Size)
	}
	return uint64(addr) - base, nil
}

func (m *Memory) chunk(bank int, i uint64) []byte {
	c, ok := m.banks[bank][i]
	if !ok {
		c = make([]byte, chunk)
		m.banks[bank][i] = c
	}
	return c
}
