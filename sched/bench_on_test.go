//go:build sched

package sched_test

import (
	"testing"

	"github.com/memverify/memverify/sched"
)

// BenchmarkScheduledStep measures what one step costs under the scheduler:
// two goroutines alternate through points and a lock, so every step is a
// decision and half of them a hand-over (reported per step).
func BenchmarkScheduledStep(b *testing.B) {
	const per = 1000
	var mu sched.Mutex
	body := func(s *sched.Scheduler) {
		for _, name := range []string{"A", "B"} {
			s.Go(name, func() {
				for range per {
					sched.Point("p")
					mu.Lock()
					mu.Unlock()
				}
			})
		}
		s.Wait()
	}
	opts := sched.Options{Preemptions: sched.NoPreemptions, MaxSchedules: 1, MaxSteps: 1 << 30}
	for b.Loop() {
		sched.Explore(b, opts, body)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*2*per*3), "ns/step")
}
