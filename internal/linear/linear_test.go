package linear

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// register is the sequential model of one integer register: write(v) stores v,
// read returns the stored value.
type regOp struct {
	write bool
	v     int
}

var registerModel = porcupine.Model{
	Init: func() any { return 0 },
	Step: func(state, in, out any) (bool, any) {
		op := in.(regOp)
		if op.write {
			return true, op.v
		}
		return out.(int) == state.(int), state
	},
}

func TestCheckAcceptsAtomicRegister(t *testing.T) {
	var (
		rec Recorder
		mu  sync.Mutex
		val int
		wg  sync.WaitGroup
	)
	for c := 0; c < 4; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				if i%2 == 0 {
					rec.Do(c, regOp{write: true, v: c*100 + i}, func() any { mu.Lock(); val = c*100 + i; mu.Unlock(); return nil })
				} else {
					rec.Do(c, regOp{}, func() any { mu.Lock(); defer mu.Unlock(); return val })
				}
			}
		}(c)
	}
	wg.Wait()
	if r := Check(registerModel, rec.History(), 10*time.Second); r.Verdict != Linearizable {
		t.Fatalf("a mutex-guarded register must be linearizable: %v", r)
	}
}

func TestCheckRejectsStaleRead(t *testing.T) {
	t.Setenv(HistoryDirEnv, t.TempDir())
	var rec Recorder
	rec.Do(0, regOp{write: true, v: 1}, func() any { return nil })
	rec.Do(1, regOp{}, func() any { return 0 }) // reads a value overwritten before the read began
	r := Check(registerModel, rec.History(), 10*time.Second)
	if r.Verdict != NotLinearizable {
		t.Fatalf("a stale read must not be linearizable: %v", r)
	}
	if d := Describe(rec.History()); !strings.Contains(d, "client 1 [  3,  4]") {
		t.Errorf("Describe does not list the stale read with its interval:\n%s", d)
	}
	if r.Visualization == "" {
		t.Errorf("an illegal history should be drawn for the reader")
	}
}
