package sizeclass

// The atomic fields and locks of this package are declared with package
// sched's types, which in a normal build are sync/atomic's and sync's own
// (type aliases). Go's compiler inlines their methods (and, inside
// RWMutex.RLock, sync/atomic's) only into a package that imports those
// packages itself: without these imports every Load and CompareAndSwap
// would be a call, and the fast paths a quarter slower (callgrind).
import (
	_ "sync"
	_ "sync/atomic"
)
