package bank_test

import (
	"bytes"
	"testing"

	spec "github.com/memverify/memverify/model/bank"
)

// Writes land in their own bank only; unwritten bytes read as zero, across
// the simulator's chunk boundaries too.
func TestMemoryRoundTrip(t *testing.T) {
	cfg := spec.BanksConfig{Offsets: []spec.Addr{0, 0}, List: spec.Config{Offset: 0x100, Size: 0x3000, Alignment: 1}}
	m, err := spec.NewMemory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte{0xab}, 5000) // spans two chunk boundaries
	if err := m.Write(1, 0x200, data); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 5002)
	if err := m.Read(1, 0x1ff, got); err != nil {
		t.Fatal(err)
	}
	if got[0] != 0 || got[5001] != 0 || !bytes.Equal(got[1:5001], data) {
		t.Errorf("bank 1 read back %x...%x, want 00 then the data then 00", got[:4], got[4998:])
	}
	if err := m.Read(0, 0x200, got[:5000]); err != nil || !bytes.Equal(got[:5000], make([]byte, 5000)) {
		t.Errorf("bank 0 changed by a write to bank 1 (err %v)", err)
	}
}
