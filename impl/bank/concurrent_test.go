package bank_test

import (
	"testing"

	impl "github.com/memverify/memverify/impl/bank"
	spec "github.com/memverify/memverify/model/bank"
	"github.com/memverify/memverify/props/banktest"
)

// The concurrency properties of Concurrent, here so that `go test -race
// ./impl/bank` exercises them: short racy histories must be linearizable, and
// parallel clients must never see each other's bytes.
func TestConcurrentLinearizable(t *testing.T) {
	banktest.CheckLinearizable(t, func(c spec.BanksConfig) (spec.Banks, error) { return impl.NewConcurrent(c) })
}

func TestConcurrentStateMachine(t *testing.T) {
	banktest.CheckBanksStateMachine(t, func(c spec.BanksConfig) (spec.Banks, error) { return impl.NewConcurrent(c) })
}

func TestFreeListOptStateMachine(t *testing.T) {
	banktest.CheckFreeListStateMachine(t, func(c spec.Config) (spec.FreeList, error) { return impl.NewFreeListOpt(c) })
	banktest.CheckFreeListBestFit(t, func(c spec.Config) (spec.FreeList, error) { return impl.NewFreeListOpt(c) })
}

func TestConcurrentParallel(t *testing.T) {
	banktest.CheckParallel(t, func(c spec.BanksConfig) (spec.Banks, error) { return impl.NewConcurrent(c) })
}
