package suites

import (
	impl "github.com/memverify/memverify/impl/bank"
	spec "github.com/memverify/memverify/model/bank"
	"github.com/memverify/memverify/props/banktest"
	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

// freeListOptLayouts are the tree layouts FreeListOpt's suites run under.
// The properties' ranges hold a few dozen blocks, one or two leaves of the
// default 31-entry nodes: nodes of 4 entries make the same blocks a tree of
// several levels, which splits, lends between leaves, merges and refreshes
// annotations across levels, and 64-bit keys take the code that ranges of
// 2^32 units and more use.
var freeListOptLayouts = []impl.FreeListOptions{
	{},
	{NodeWidth: impl.MinNodeWidth},
	{NodeWidth: impl.MinNodeWidth, WideKeys: true},
	{WideKeys: true},
}

func init() {
	var opt []banktest.FreeListFactory
	for _, o := range freeListOptLayouts {
		opt = append(opt, func(c spec.Config) (spec.FreeList, error) { return impl.NewFreeListOptWith(c, o) })
	}
	lists := []struct {
		name  string
		makes []banktest.FreeListFactory
	}{
		{"Model", []banktest.FreeListFactory{func(c spec.Config) (spec.FreeList, error) { return spec.NewModel(c) }}},
		{"FreeListOpt", opt},
	}
	each := func(check func(rapid.TB, banktest.FreeListFactory), makes []banktest.FreeListFactory) func(rapid.TB) {
		return func(t rapid.TB) {
			for _, f := range makes {
				check(t, f)
			}
		}
	}
	for _, l := range lists {
		// Against the model itself the differential part proves nothing, but the
		// invariants, the final free-all and the round trip still check the model.
		Add(
			Suite{Domain: "bank", Property: "FreeListStateMachine", Impl: l.name, Run: each(banktest.CheckFreeListStateMachine, l.makes)},
			Suite{Domain: "bank", Property: "FreeListBestFit", Impl: l.name, Run: each(banktest.CheckFreeListBestFit, l.makes)},
			Suite{Domain: "bank", Property: "FreeListRoundTrip", Impl: l.name, Run: each(banktest.CheckFreeListRoundTrip, l.makes)},
		)
	}
}

func init() {
	banks := []struct {
		name string
		make banktest.BanksFactory
	}{
		{"Model", func(c spec.BanksConfig) (spec.Banks, error) { return spec.NewBanksModel(c) }},
		{"Concurrent", func(c spec.BanksConfig) (spec.Banks, error) { return impl.NewConcurrent(c) }},
	}
	for _, b := range banks {
		Add(
			Suite{Domain: "bank", Property: "BanksStateMachine", Impl: b.name,
				Run: func(t rapid.TB) { banktest.CheckBanksStateMachine(t, b.make) }},
			Suite{Domain: "bank", Property: "PageMapping", Impl: b.name,
				Run: func(t rapid.TB) { banktest.CheckPageMapping(t, b.make) }},
			Suite{Domain: "bank", Property: "Isolation", Impl: b.name,
				Run: func(t rapid.TB) { banktest.CheckIsolation(t, b.make) }},
		)
	}
}

func init() {
	concurrent := func(c spec.BanksConfig) (spec.Banks, error) { return impl.NewConcurrent(c) }
	// The model is sequential: these properties are for implementations safe
	// for concurrent use.
	Add(
		Suite{Domain: "bank", Property: "Linearizable", Impl: "Concurrent",
			Run: func(t rapid.TB) { banktest.CheckLinearizable(t, concurrent) }},
		Suite{Domain: "bank", Property: "Parallel", Impl: "Concurrent",
			Run: func(t rapid.TB) { banktest.CheckParallel(t, concurrent) }},
		// Under the scheduler (scheduled.go).
		scheduledSuite("bank", "Scheduled", "Concurrent", func(t rapid.TB, o sched.Options) {
			banktest.CheckScheduled(t, concurrent, o)
		}),
	)
}

func init() {
	Add(
		Suite{Domain: "bank", Property: "FreeListErrors", Impl: "Model",
			Run: func(t rapid.TB) {
				banktest.CheckFreeListErrors(t, func(c spec.Config) (spec.FreeList, error) { return spec.NewModel(c) })
			}},
		Suite{Domain: "bank", Property: "FreeListErrors", Impl: "FreeListOpt",
			Run: func(t rapid.TB) {
				for _, o := range freeListOptLayouts {
					banktest.CheckFreeListErrors(t, func(c spec.Config) (spec.FreeList, error) { return impl.NewFreeListOptWith(c, o) })
				}
			}},
		Suite{Domain: "bank", Property: "BanksErrors", Impl: "Model",
			Run: func(t rapid.TB) {
				banktest.CheckBanksErrors(t, func(c spec.BanksConfig) (spec.Banks, error) { return spec.NewBanksModel(c) })
			}},
		Suite{Domain: "bank", Property: "BanksErrors", Impl: "Concurrent",
			Run: func(t rapid.TB) {
				banktest.CheckBanksErrors(t, func(c spec.BanksConfig) (spec.Banks, error) { return impl.NewConcurrent(c) })
			}},
	)
}
