package bank_test

import (
	"testing"

	spec "github.com/memverify/memverify/model/bank"
	"github.com/memverify/memverify/props"
)

// Every sentinel error of the model, each with the state left unchanged.
func TestModelErrors(t *testing.T) {
	props.CheckFreeListErrors(t, func(c spec.Config) (spec.FreeList, error) { return spec.NewModel(c) })
	props.CheckFreeListErrors(t, func(c spec.Config) (spec.FreeList, error) {
		if c.Policy == spec.FirstFit {
			c.Policy = spec.BestFit
		}
		return spec.NewModel(c)
	})
}

func TestBanksModelErrors(t *testing.T) {
	props.CheckBanksErrors(t, func(c spec.BanksConfig) (spec.Banks, error) { return spec.NewBanksModel(c) })
}
