package refcounttest

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/memverify/memverify/internal/draw"
	spec "github.com/memverify/memverify/model/refcount"
	"pgregory.net/rapid"
)

// CheckLastReleaseRace drops the last references of a shared buffer from
// several goroutines at the same instant, many times, and checks that exactly
// one free happens, with the real pointer, size and kind, and that afterwards
// nothing of the buffer is registered. It targets the classic refcount races:
// a drop done as check-then-subtract (a missed or doubled transition to
// zero), and a free performed by more than one of the racing releases.
// Meanwhile readers ask IsRegistered of every holder over and over: a holder
// is only released during the race, so once a reader is told it is gone, it
// must stay gone. (A holder's last drop and the buffer's count are two words
// in a sharded registry; a reader that meets the drop half done must not see
// the holder come back.)
func CheckLastReleaseRace(t rapid.TB, factory RegistryFactory) {
	t.Helper()
	workers := max(4, runtime.GOMAXPROCS(0))
	rapid.Check(t, func(rt *rapid.T) {
		race := lastReleaseRace{aliases: rapid.IntRange(1, workers-1).Draw(rt, "aliases")}
		if draw.Rarely(rt, 4, "wide") {
			// More than 10 holders: LockFree keeps such a buffer's counts
			// copy on write, a path of its own through every release.
			race.aliases = rapid.IntRange(10, 15).Draw(rt, "wide-aliases")
		}
		race.shareRetains = rapid.Bool().Draw(rt, "retain")
		race.log = &freeLog{}
		race.r = factory(race.log)
		for round := range lastReleaseRounds {
			if err := race.round(); err != "" {
				rt.Fatalf("round %d: %s", round, err)
			}
		}
	})
}

// lastReleaseRounds is how many times CheckLastReleaseRace registers and
// races to release one buffer in one registry; lastReleaseReaders is how many
// goroutines ask IsRegistered during each race.
const lastReleaseRounds, lastReleaseReaders = 20, 2

// lastReleaseReal is the buffer's real pointer; its aliases follow it, 8
// bytes apart.
const lastReleaseReal = spec.Addr(0x7000)

// lastReleaseRace is one case of CheckLastReleaseRace: a registry, and the
// shape of the buffer whose last references race.
type lastReleaseRace struct {
	r            spec.Registry
	log          *freeLog
	aliases      int
	shareRetains bool // the real pointer's holders share one pointer: retained, and the aliases released
}

// round registers the buffer, races its last releases and checks the result.
func (c lastReleaseRace) round() string {
	holders, err := c.setUp()
	if err != "" {
		return err
	}
	errs, back := c.race(holders)
	for _, p := range back {
		if p != 0 {
			return fmt.Sprintf("IsRegistered(%#x) answered false, then true, while its holders were only being released", uint64(p))
		}
	}
	for i, err := range errs {
		if err != nil {
			return fmt.Sprintf("racing Unregister(%#x) failed: %v", uint64(holders[i]), err)
		}
	}
	frees := c.log.take()
	if len(frees) != 1 || frees[0] != (freeCall{lastReleaseReal, 0x100, spec.AlignedAlloc}) {
		return fmt.Sprintf("%d holders released at once (shared pointer: %v) freed %v; want exactly one Free(%#x, 256, AlignedAlloc)",
			len(holders), c.shareRetains, frees, uint64(lastReleaseReal))
	}
	for _, p := range holders {
		if c.r.IsRegistered(p) || c.r.Refs(p) != 0 {
			return fmt.Sprintf("%#x still registered after the last release", uint64(p))
		}
	}
	if s := c.r.Stats(); s != (spec.Stats{}) {
		return fmt.Sprintf("Stats() = %+v after the last release, want zero", s)
	}
	return ""
}

// setUp registers the buffer and returns the pointers whose releases race,
// one per reference.
func (c lastReleaseRace) setUp() ([]spec.Addr, string) {
	list := make([]spec.Addr, c.aliases)
	for i := range list {
		list[i] = lastReleaseReal + spec.Addr(8*(i+1))
	}
	if _, err := c.r.RegisterBuffer(lastReleaseReal, 0x100, list, spec.AlignedAlloc); err != nil {
		return nil, fmt.Sprintf("RegisterBuffer: %v", err)
	}
	if !c.shareRetains {
		return append([]spec.Addr{lastReleaseReal}, list...), ""
	}
	for range c.aliases {
		if err := c.r.Retain(lastReleaseReal); err != nil {
			return nil, fmt.Sprintf("Retain(real): %v", err)
		}
	}
	for _, a := range list {
		if err := c.r.Unregister(a); err != nil {
			return nil, fmt.Sprintf("Unregister(%#x): %v", uint64(a), err)
		}
	}
	holders := make([]spec.Addr, c.aliases+1)
	for i := range holders {
		holders[i] = lastReleaseReal
	}
	return holders, ""
}

// race releases one reference of each holder, each from a goroutine of its
// own, all at once, while readers watch the holders. It returns each
// release's error, and per reader a holder it saw gone and then registered
// again (0 for none).
func (c lastReleaseRace) race(holders []spec.Addr) ([]error, []spec.Addr) {
	errs := make([]error, len(holders))
	watched := slices.Compact(slices.Clone(holders))
	back := make([]spec.Addr, lastReleaseReaders)
	var stop atomic.Bool
	var start, done, reading sync.WaitGroup
	start.Add(1)
	for i, p := range holders {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			errs[i] = c.r.Unregister(p)
		}()
	}
	for k := range back {
		reading.Add(1)
		go func() {
			defer reading.Done()
			start.Wait()
			back[k] = c.watch(watched, &stop)
		}()
	}
	start.Done()
	done.Wait()
	stop.Store(true)
	reading.Wait()
	return errs, back
}

// watch asks IsRegistered of each watched pointer until stop, and returns
// the first it saw gone and then registered again (0 for none).
func (c lastReleaseRace) watch(watched []spec.Addr, stop *atomic.Bool) spec.Addr {
	gone := make([]bool, len(watched))
	for !stop.Load() {
		for j, p := range watched {
			switch in := c.r.IsRegistered(p); {
			case in && gone[j]:
				return p
			case !in:
				gone[j] = true
			}
		}
		runtime.Gosched() // let the releases on, with fewer cores than goroutines
	}
	return 0
}
