package refcount

import "sync"

// Locked is the model behind one mutex: safe for concurrent use and trivially
// linearizable. It is the baseline of the concurrent properties and benchmarks.
// Its Freer runs with the mutex held, so a Freer must not call back into it
// (the implementations in impl/refcount call theirs outside their locks).
type Locked struct {
	mu sync.Mutex
	m  *Model
}

var _ Registry = (*Locked)(nil)

// NewLocked returns the model behind one mutex, releasing memory through f
// (nil: never released, as for New).
func NewLocked(f Freer) *Locked { return &Locked{m: New(f)} }

func (l *Locked) Register(p Addr, bytes int64, kind Kind) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Register(p, bytes, kind)
}

func (l *Locked) RegisterBuffer(real Addr, bytes int64, aliases []Addr, kind Kind) (BufferID, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.RegisterBuffer(real, bytes, aliases, kind)
}

func (l *Locked) Retain(p Addr) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Retain(p)
}

func (l *Locked) Unregister(p Addr) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Unregister(p)
}

func (l *Locked) IsRegistered(p Addr) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.IsRegistered(p)
}

func (l *Locked) Refs(p Addr) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Refs(p)
}

func (l *Locked) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Stats()
}

func (l *Locked) Live() []Registration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Live()
}

func (l *Locked) Close() ([]Registration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Close()
}

func (l *Locked) Enter() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m.Enter()
}

func (l *Locked) Track(p Addr) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Track(p)
}

func (l *Locked) Promote(p Addr) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Promote(p)
}

func (l *Locked) Exit() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Exit()
}
