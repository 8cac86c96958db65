package banktest

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/memverify/memverify/model/bank"
	"pgregory.net/rapid"
)

// CheckParallel runs clients in parallel against factory's banks (which
// must be safe for concurrent use), each on buffers of its own: allocate,
// fill every page with the client's pattern through PageAddress in a shared
// simulated memory, yield, read every page back, free. Buffers live at the
// same time must never share a byte, so a client that reads back anything but
// its own pattern, or whose buffer vanished or moved, has been hit by another
// client's operation. At the end no buffer is left, nothing is allocated and
// one free block spans the range. Run it under -race too.
func CheckParallel(t rapid.TB, factory BanksFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := drawBanksConfig(rt)
		b, err := factory(cfg)
		if err != nil {
			rt.Fatalf("factory refused the valid configuration %+v: %v", cfg, err)
		}
		mem, err := bank.NewMemory(cfg)
		if err != nil {
			rt.Fatalf("%v", err)
		}
		var memMu sync.Mutex // the simulator is not safe for concurrent use; the banks are
		const clients = 4
		var scripts [clients][]bank.BanksOp
		for c := range scripts {
			for range rapid.IntRange(1, 6).Draw(rt, "rounds") {
				scripts[c] = append(scripts[c], drawBanksAlloc(rt, cfg))
			}
		}
		errs := make(chan error, clients)
		var wg sync.WaitGroup
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for round, op := range scripts[c] {
					if err := parallelRound(b, mem, &memMu, op, uint64(c)<<32|uint64(round)+1); err != nil {
						errs <- fmt.Errorf("client %d round %d: %w", c, round, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			rt.Fatalf("banks %+v: %v", cfg, err)
		}
		if live := b.Buffers(); len(live) > 0 {
			rt.Fatalf("every client freed its buffers, but Buffers() = %+v", live)
		}
		want := []bank.Block{{Addr: cfg.List.Offset, Size: cfg.List.Size}}
		if got := b.Blocks(); !slices.Equal(got, want) {
			rt.Fatalf("every client freed its buffers, but Blocks() = %v", got)
		}
	})
}

// parallelRound is one client round: allocate, fill, yield, verify, free.
func parallelRound(b bank.Banks, mem *bank.Memory, mu *sync.Mutex, op bank.BanksOp, seed uint64) error {
	r := op.Apply(b)
	if r.Err != "" {
		return nil // a refused or failed allocation is the state machine's business
	}
	buf := bank.Buffer{Addr: r.Addr, Size: op.Size, PageSize: op.PageSize}
	access := func(write bool) error {
		for i := int64(0); i < buf.Pages(); i++ {
			inBank, abs, err := b.PageAddress(buf.Addr, i)
			if err != nil {
				return fmt.Errorf("%v -> %#x, then PageAddress(%#x, %d): %v", op, uint64(buf.Addr), uint64(buf.Addr), i, err)
			}
			data := make([]byte, buf.PageLen(i))
			mu.Lock()
			if write {
				for j := range data {
					data[j] = patternByte(seed, i, int64(j))
				}
				err = mem.Write(inBank, abs, data)
			} else {
				err = mem.Read(inBank, abs, data)
			}
			mu.Unlock()
			if err != nil {
				return fmt.Errorf("page %d of buffer %#x: %v", i, uint64(buf.Addr), err)
			}
			for j, c := range data {
				if w := patternByte(seed, i, int64(j)); !write && c != w {
					return fmt.Errorf("byte %d of page %d of buffer %#x (bank %d, %#x) is %#x, not this client's %#x: another client's operation changed it",
						j, i, uint64(buf.Addr), inBank, uint64(abs)+uint64(j), c, w)
				}
			}
		}
		return nil
	}
	if err := access(true); err != nil {
		return err
	}
	runtime.Gosched()
	if err := access(false); err != nil {
		return err
	}
	if err := b.FreeBuffer(buf.Addr); err != nil {
		return fmt.Errorf("FreeBuffer(%#x) of a live buffer: %v", uint64(buf.Addr), err)
	}
	return nil
}
