package bank_test

import (
	"errors"
	"testing"

	impl "github.com/memverify/memverify/impl/bank"
	spec "github.com/memverify/memverify/model/bank"
	"github.com/memverify/memverify/props/banktest"
)

// Every sentinel error, each with the state left unchanged, for both
// policies of FreeListOpt and for Concurrent.
func TestFreeListOptErrors(t *testing.T) {
	for _, p := range []spec.Policy{spec.FirstFit, spec.BestFit} {
		t.Run(p.String(), func(t *testing.T) {
			banktest.CheckFreeListErrors(t, func(c spec.Config) (spec.FreeList, error) {
				if c.Policy == spec.FirstFit {
					c.Policy = p
				}
				return impl.NewFreeListOpt(c)
			})
		})
	}
}

func TestConcurrentErrors(t *testing.T) {
	banktest.CheckBanksErrors(t, func(c spec.BanksConfig) (spec.Banks, error) { return impl.NewConcurrent(c) })
}

// A node width FreeListOptWith cannot build is refused, not clamped.
func TestFreeListOptionsOutOfRange(t *testing.T) {
	cfg := spec.Config{Size: 64, Alignment: 8}
	for _, w := range []int{-1, impl.MinNodeWidth - 1, impl.MaxNodeWidth + 1} {
		if l, err := impl.NewFreeListOptWith(cfg, impl.FreeListOptions{NodeWidth: w}); !errors.Is(err, spec.ErrInvalidConfig) {
			t.Errorf("NodeWidth %d: %v, %v; want ErrInvalidConfig", w, l, err)
		}
	}
	for _, o := range []impl.FreeListOptions{{}, {NodeWidth: impl.MinNodeWidth}, {NodeWidth: impl.MaxNodeWidth, WideKeys: true}} {
		if _, err := impl.NewFreeListOptWith(cfg, o); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
}
