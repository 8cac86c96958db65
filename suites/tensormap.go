package suites

import (
	impl "github.com/memverify/memverify/impl/tensormap"
	spec "github.com/memverify/memverify/model/tensormap"
	"github.com/memverify/memverify/props/tensormaptest"
	"pgregory.net/rapid"
)

func init() {
	// Both properties compare against the model, so running them on the
	// model itself would prove nothing: they run on the implementations.
	impls := []struct {
		name string
		make tensormaptest.MapFactory
	}{
		{"Ring", func(cfg spec.Config) (spec.Map, error) { return impl.New(cfg) }},
	}
	for _, im := range impls {
		Add(
			Suite{Domain: "tensormap", Property: "StateMachine", Impl: im.name,
				Run: func(t rapid.TB) { tensormaptest.CheckStateMachine(t, im.make) }},
			Suite{Domain: "tensormap", Property: "TooHardIsDependency", Impl: im.name,
				Run: func(t rapid.TB) { tensormaptest.CheckTooHardIsDependency(t, im.make) }},
		)
	}
}
