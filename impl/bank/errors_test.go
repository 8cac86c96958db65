package bank_test

import (
	"testing"

	impl "github.com/memverify/memverify/impl/bank"
	spec "github.com/memverify/memverify/model/bank"
	"github.com/memverify/memverify/props"
)

// Every sentinel error, each with the state left unchanged, for both
// policies of FreeListOpt and for Concurrent.
func TestFreeListOptErrors(t *testing.T) {
	for _, p := range []spec.Policy{spec.FirstFit, spec.BestFit} {
		t.Run(p.String(), func(t *testing.T) {
			props.CheckFreeListErrors(t, func(c spec.Config) (spec.FreeList, error) {
				if c.Policy == spec.FirstFit {
					c.Policy = p
				}
				return impl.NewFreeListOpt(c)
			})
		})
	}
}

func TestConcurrentErrors(t *testing.T) {
	props.CheckBanksErrors(t, func(c spec.BanksConfig) (spec.Banks, error) { return impl.NewConcurrent(c) })
}
