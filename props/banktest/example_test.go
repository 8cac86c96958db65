package banktest_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/memverify/memverify/model/bank"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/props/banktest"
	"pgregory.net/rapid"
)

// A free list is checked by pointing a Check function at a factory for it;
// here the model itself, through props.Run, which runs a property outside go
// test (in a test, pass the *testing.T instead).
func Example() {
	res := props.Run("FreeListStateMachine", func(t rapid.TB) {
		banktest.CheckFreeListStateMachine(t, func(c bank.Config) (bank.FreeList, error) {
			return bank.NewModel(c)
		})
	})
	fmt.Println(res.Outcome)
	// Output: pass
}

// lenientFree is a free list with a bug: it ignores ErrUnknownAddress from
// Free, so a double free passes unnoticed.
type lenientFree struct{ bank.FreeList }

func (l lenientFree) Free(a bank.Addr) error {
	if err := l.FreeList.Free(a); !errors.Is(err, bank.ErrUnknownAddress) {
		return err
	}
	return nil
}

// A bug is reported with the shrunk op trace: here one call shows it.
func Example_bug() {
	res := props.Run("FreeListStateMachine", func(t rapid.TB) {
		banktest.CheckFreeListStateMachine(t, func(c bank.Config) (bank.FreeList, error) {
			m, err := bank.NewModel(c)
			return lenientFree{m}, err
		})
	})
	fmt.Println(res.Outcome)
	_, listing, _ := strings.Cut(res.Output, "op trace (last step failed):\n")
	first, _, _ := strings.Cut(listing, "\n")
	fmt.Println(strings.Join(strings.Fields(first), " "))
	// Output:
	// FAIL
	// 1 Free(0x0) -> 0x0
}

// lockedBanks makes the model safe for concurrent use with one mutex: the
// simplest implementation the concurrent properties accept.
type lockedBanks struct {
	mu sync.Mutex
	m  bank.Banks
}

func (l *lockedBanks) Config() bank.BanksConfig { return l.m.Config() }

func (l *lockedBanks) AllocateBuffer(size, pageSize int64, dir bank.Direction) (bank.Addr, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.AllocateBuffer(size, pageSize, dir)
}

func (l *lockedBanks) AllocateSharded(size, pageSize int64, banks []int, dir bank.Direction) (bank.Addr, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.AllocateSharded(size, pageSize, banks, dir)
}

func (l *lockedBanks) FreeBuffer(addr bank.Addr) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.FreeBuffer(addr)
}

func (l *lockedBanks) PageAddress(addr bank.Addr, page int64) (int, bank.Addr, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.PageAddress(addr, page)
}

func (l *lockedBanks) Buffers() []bank.Buffer {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Buffers()
}

func (l *lockedBanks) Stats() bank.Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Stats()
}

func (l *lockedBanks) Blocks() []bank.Block {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Blocks()
}

// The concurrent properties take banks safe for concurrent use; the model
// behind one mutex is. Run them under -race too.
func ExampleCheckLinearizable() {
	factory := func(c bank.BanksConfig) (bank.Banks, error) {
		m, err := bank.NewBanksModel(c)
		return &lockedBanks{m: m}, err
	}
	for _, check := range []func(rapid.TB, banktest.BanksFactory){banktest.CheckLinearizable, banktest.CheckParallel} {
		res := props.Run("concurrent", func(t rapid.TB) { check(t, factory) })
		fmt.Println(res.Outcome)
	}
	// Output:
	// pass
	// pass
}
