package catalog

import (
	impl "github.com/memverify/memverify/impl/bank"
	spec "github.com/memverify/memverify/model/bank"
	"github.com/memverify/memverify/props"
	"pgregory.net/rapid"
)

func init() {
	lists := []struct {
		name string
		make props.FreeListFactory
	}{
		{"Model", func(c spec.Config) (spec.FreeList, error) { return spec.NewModel(c) }},
		{"FreeListOpt", func(c spec.Config) (spec.FreeList, error) { return impl.NewFreeListOpt(c) }},
	}
	for _, l := range lists {
		// Against the model itself the differential part proves nothing, but the
		// invariants, the final free-all and the round trip still check the model.
		Add(
			Suite{Domain: "bank", Property: "FreeListStateMachine", Impl: l.name,
				Run: func(t rapid.TB) { props.CheckFreeList(t, l.make) }},
			Suite{Domain: "bank", Property: "FreeListBestFit", Impl: l.name,
				Run: func(t rapid.TB) { props.CheckFreeListBestFit(t, l.make) }},
			Suite{Domain: "bank", Property: "FreeListRoundTrip", Impl: l.name,
				Run: func(t rapid.TB) { props.CheckFreeListRoundTrip(t, l.make) }},
		)
	}
}

func init() {
	banks := []struct {
		name string
		make props.BanksFactory
	}{
		{"Model", func(c spec.BanksConfig) (spec.Banks, error) { return spec.NewBanksModel(c) }},
		{"Concurrent", func(c spec.BanksConfig) (spec.Banks, error) { return impl.NewConcurrent(c) }},
	}
	for _, b := range banks {
		Add(
			Suite{Domain: "bank", Property: "BanksStateMachine", Impl: b.name,
				Run: func(t rapid.TB) { props.CheckBanks(t, b.make) }},
			Suite{Domain: "bank", Property: "PageMapping", Impl: b.name,
				Run: func(t rapid.TB) { props.CheckBanksPageMapping(t, b.make) }},
			Suite{Domain: "bank", Property: "Isolation", Impl: b.name,
				Run: func(t rapid.TB) { props.CheckBanksIsolation(t, b.make) }},
		)
	}
}

func init() {
	concurrent := func(c spec.BanksConfig) (spec.Banks, error) { return impl.NewConcurrent(c) }
	// The model is sequential: these properties are for implementations safe
	// for concurrent use.
	Add(
		Suite{Domain: "bank", Property: "Linearizable", Impl: "Concurrent",
			Run: func(t rapid.TB) { props.CheckBanksLinearizable(t, concurrent) }},
		Suite{Domain: "bank", Property: "Parallel", Impl: "Concurrent",
			Run: func(t rapid.TB) { props.CheckBanksParallel(t, concurrent) }},
	)
}

func init() {
	Add(
		Suite{Domain: "bank", Property: "FreeListErrors", Impl: "Model",
			Run: func(t rapid.TB) {
				props.CheckFreeListErrors(t, func(c spec.Config) (spec.FreeList, error) { return spec.NewModel(c) })
			}},
		Suite{Domain: "bank", Property: "FreeListErrors", Impl: "FreeListOpt",
			Run: func(t rapid.TB) {
				props.CheckFreeListErrors(t, func(c spec.Config) (spec.FreeList, error) { return impl.NewFreeListOpt(c) })
			}},
		Suite{Domain: "bank", Property: "BanksErrors", Impl: "Model",
			Run: func(t rapid.TB) {
				props.CheckBanksErrors(t, func(c spec.BanksConfig) (spec.Banks, error) { return spec.NewBanksModel(c) })
			}},
		Suite{Domain: "bank", Property: "BanksErrors", Impl: "Concurrent",
			Run: func(t rapid.TB) {
				props.CheckBanksErrors(t, func(c spec.BanksConfig) (spec.Banks, error) { return impl.NewConcurrent(c) })
			}},
	)
}
