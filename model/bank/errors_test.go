package bank_test

import (
	"errors"
	"testing"

	spec "github.com/memverify/memverify/model/bank"
	"github.com/memverify/memverify/props/banktest"
)

// Every sentinel error of the model, each with the state left unchanged.
func TestModelErrors(t *testing.T) {
	banktest.CheckFreeListErrors(t, func(c spec.Config) (spec.FreeList, error) { return spec.NewModel(c) })
	banktest.CheckFreeListErrors(t, func(c spec.Config) (spec.FreeList, error) {
		if c.Policy == spec.FirstFit {
			c.Policy = spec.BestFit
		}
		return spec.NewModel(c)
	})
}

func TestBanksModelErrors(t *testing.T) {
	banktest.CheckBanksErrors(t, func(c spec.BanksConfig) (spec.Banks, error) { return spec.NewBanksModel(c) })
}

// TestHelpersRefuseBadArguments: the exported helpers answer a sentinel
// error (or a documented zero) for arguments no configuration has, instead
// of dividing by zero or answering for a negative bank count.
func TestHelpersRefuseBadArguments(t *testing.T) {
	for _, c := range []struct {
		nbanks int
		align  int64
	}{{0, 1}, {-3, 1}, {2, 0}, {2, -1}} {
		if _, err := spec.Layout(2, 1, c.nbanks, c.align); !errors.Is(err, spec.ErrInvalidConfig) {
			t.Errorf("Layout(2, 1, %d, %d) = %v, want ErrInvalidConfig", c.nbanks, c.align, err)
		}
	}
	if n := (spec.Buffer{Size: 1}).Pages(); n != 0 {
		t.Errorf("Pages of a Buffer with no page size = %d, want 0", n)
	}
	if _, err := (spec.Config{}).AllocSize(1); !errors.Is(err, spec.ErrInvalidConfig) {
		t.Errorf("AllocSize on a Config with no alignment = %v, want ErrInvalidConfig", err)
	}
}
