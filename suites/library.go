//go:build cgo

package suites

import (
	"fmt"

	"github.com/memverify/memverify/cabi"
	"github.com/memverify/memverify/props/banktest"
	"github.com/memverify/memverify/props/overlaptest"
	"github.com/memverify/memverify/props/refcounttest"
	"github.com/memverify/memverify/props/sizeclasstest"
	"github.com/memverify/memverify/props/tensormaptest"
	"pgregory.net/rapid"
)

// librarySuite is a row of a library's table: a property, whether it calls
// the implementation from several goroutines at once, and how it runs.
type librarySuite struct {
	property   string
	concurrent bool
	run        func(rapid.TB)
}

// Library returns the suites of domain run against a C or C++ library opened
// with cabi.Open: every property of the domain, for each interface the
// library's table offers, under the implementation name the table gives.
// The concurrent properties run only against a table that claims
// MEMVERIFY_CONCURRENT; skipped names the others, each with the reason.
// A library without a table of the domain is an error.
func Library(lib *cabi.Library, domain string) (run []Suite, skipped []string, err error) {
	rows, err := libraryRows(lib, domain)
	if err != nil {
		return nil, nil, err
	}
	impl := lib.Name(domain)
	for _, r := range rows {
		s := Suite{Domain: domain, Property: r.property, Impl: impl, Run: r.run}
		if r.concurrent && !lib.Concurrent(domain) {
			skipped = append(skipped, s.Name()+": the table does not claim MEMVERIFY_CONCURRENT")
			continue
		}
		run = append(run, s)
	}
	return run, skipped, nil
}

func libraryRows(lib *cabi.Library, domain string) ([]librarySuite, error) {
	switch domain {
	case cabi.DomainRefcount:
		return refcountLibrary(lib)
	case cabi.DomainSizeclass:
		return sizeclassLibrary(lib)
	case cabi.DomainBank:
		return bankLibrary(lib)
	case cabi.DomainOverlap:
		return overlapLibrary(lib)
	case cabi.DomainTensorMap:
		return tensormapLibrary(lib)
	}
	return nil, fmt.Errorf("suites: no domain %q (domains: %v)", domain, cabi.Domains())
}

func refcountLibrary(lib *cabi.Library) ([]librarySuite, error) {
	rt, err := lib.Refcount()
	if err != nil {
		return nil, err
	}
	f := rt.RegistryFactory()
	return []librarySuite{
		{"StateMachine", false, func(t rapid.TB) { refcounttest.CheckStateMachine(t, f) }},
		{"BytesSaturate", false, func(t rapid.TB) { refcounttest.CheckBytesSaturate(t, f) }},
		{"DisjointParallel", true, func(t rapid.TB) { refcounttest.CheckDisjointParallel(t, f) }},
		{"Linearizable", true, func(t rapid.TB) { refcounttest.CheckLinearizable(t, f) }},
		{"LastReleaseRace", true, func(t rapid.TB) { refcounttest.CheckLastReleaseRace(t, f) }},
	}, nil
}

func sizeclassLibrary(lib *cabi.Library) ([]librarySuite, error) {
	st, err := lib.Sizeclass()
	if err != nil {
		return nil, err
	}
	pool, deferred, streams := st.PoolFactory(), st.DeferredFactory(), st.StreamsFactory()
	var out []librarySuite
	if st.HasPool() {
		out = append(out,
			librarySuite{"StateMachine", false, func(t rapid.TB) { sizeclasstest.CheckStateMachine(t, pool) }},
			librarySuite{"Concurrent", true, func(t rapid.TB) { sizeclasstest.CheckConcurrent(t, pool) }},
			librarySuite{"Exclusive", true, func(t rapid.TB) { sizeclasstest.CheckExclusive(t, pool) }},
			librarySuite{"DoubleFreeRace", true, func(t rapid.TB) { sizeclasstest.CheckDoubleFreeRace(t, pool) }},
			librarySuite{"Linearizable", true, func(t rapid.TB) { sizeclasstest.CheckLinearizable(t, pool) }},
			librarySuite{"CloseRace", true, func(t rapid.TB) { sizeclasstest.CheckCloseRace(t, pool) }},
			librarySuite{"PinnedTrimRace", true, func(t rapid.TB) { sizeclasstest.CheckPinnedTrimRace(t, pool) }},
			librarySuite{"FreeRacingAlloc", true, func(t rapid.TB) { sizeclasstest.CheckFreeRacingAlloc(t, pool) }},
		)
	}
	if st.HasDeferred() {
		out = append(out,
			librarySuite{"DeferredStateMachine", false, func(t rapid.TB) { sizeclasstest.CheckDeferredStateMachine(t, deferred) }},
			librarySuite{"DeferredConcurrent", true, func(t rapid.TB) { sizeclasstest.CheckDeferredConcurrent(t, deferred) }},
		)
	}
	if st.HasStreams() {
		out = append(out,
			librarySuite{"StreamOrdered", false, func(t rapid.TB) { sizeclasstest.CheckStreamOrdered(t, streams) }},
			librarySuite{"StreamConcurrent", true, func(t rapid.TB) { sizeclasstest.CheckStreamConcurrent(t, streams) }},
			librarySuite{"StreamsFreeRacingAlloc", true, func(t rapid.TB) { sizeclasstest.CheckStreamsFreeRacingAlloc(t, streams) }},
		)
	}
	return out, nil
}

func bankLibrary(lib *cabi.Library) ([]librarySuite, error) {
	bt, err := lib.Bank()
	if err != nil {
		return nil, err
	}
	list, banks := bt.FreeListFactory(), bt.BanksFactory()
	var out []librarySuite
	if bt.HasFreeList() {
		out = append(out,
			librarySuite{"FreeListStateMachine", false, func(t rapid.TB) { banktest.CheckFreeListStateMachine(t, list) }},
			librarySuite{"FreeListBestFit", false, func(t rapid.TB) { banktest.CheckFreeListBestFit(t, list) }},
			librarySuite{"FreeListRoundTrip", false, func(t rapid.TB) { banktest.CheckFreeListRoundTrip(t, list) }},
			librarySuite{"FreeListErrors", false, func(t rapid.TB) { banktest.CheckFreeListErrors(t, list) }},
		)
	}
	if bt.HasBanks() {
		out = append(out,
			librarySuite{"BanksStateMachine", false, func(t rapid.TB) { banktest.CheckBanksStateMachine(t, banks) }},
			librarySuite{"PageMapping", false, func(t rapid.TB) { banktest.CheckPageMapping(t, banks) }},
			librarySuite{"Isolation", false, func(t rapid.TB) { banktest.CheckIsolation(t, banks) }},
			librarySuite{"BanksErrors", false, func(t rapid.TB) { banktest.CheckBanksErrors(t, banks) }},
			librarySuite{"Linearizable", true, func(t rapid.TB) { banktest.CheckLinearizable(t, banks) }},
			librarySuite{"Parallel", true, func(t rapid.TB) { banktest.CheckParallel(t, banks) }},
		)
	}
	return out, nil
}

func overlapLibrary(lib *cabi.Library) ([]librarySuite, error) {
	ot, err := lib.Overlap()
	if err != nil {
		return nil, err
	}
	c := ot.Checker()
	out := []librarySuite{
		{"MatchesModel", false, func(t rapid.TB) { overlaptest.CheckMatchesModel(t, c) }},
		{"NeverMisses", false, func(t rapid.TB) { overlaptest.CheckNeverMisses(t, c) }},
		{"Symmetric", false, func(t rapid.TB) { overlaptest.CheckSymmetric(t, c) }},
		{"EmptyAndSelf", false, func(t rapid.TB) { overlaptest.CheckEmptyAndSelf(t, c) }},
		{"TranslateInvariant", false, func(t rapid.TB) { overlaptest.CheckTranslateInvariant(t, c) }},
		{"FlipInvariant", false, func(t rapid.TB) { overlaptest.CheckFlipInvariant(t, c) }},
		{"PermuteInvariant", false, func(t rapid.TB) { overlaptest.CheckPermuteInvariant(t, c) }},
		{"ReshapeInvariant", false, func(t rapid.TB) { overlaptest.CheckReshapeInvariant(t, c) }},
		{"ScaleInvariant", false, func(t rapid.TB) { overlaptest.CheckScaleInvariant(t, c) }},
		{"RejectsInvalid", false, func(t rapid.TB) { overlaptest.CheckRejectsInvalid(t, c) }},
	}
	if capped, ok := ot.CappedChecker(); ok {
		out = append(out, librarySuite{"TooHardOnlyAboveCap", false, func(t rapid.TB) { overlaptest.CheckTooHardOnlyAboveCap(t, capped) }})
	}
	return out, nil
}

func tensormapLibrary(lib *cabi.Library) ([]librarySuite, error) {
	mt, err := lib.TensorMap()
	if err != nil {
		return nil, err
	}
	f := mt.MapFactory()
	return []librarySuite{
		{"StateMachine", false, func(t rapid.TB) { tensormaptest.CheckStateMachine(t, f) }},
		{"TooHardIsDependency", false, func(t rapid.TB) { tensormaptest.CheckTooHardIsDependency(t, f) }},
	}, nil
}
