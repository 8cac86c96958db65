package sched

import "runtime"

// goid parses the calling goroutine's id from the first line of its stack,
// "goroutine 42 [running]:". Go exposes no cheaper way; it costs about a
// microsecond, paid only while a scheduler runs.
func goid() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	const prefix = len("goroutine ")
	var id uint64
	for _, c := range buf[prefix:n] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
