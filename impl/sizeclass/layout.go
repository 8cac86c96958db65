package sizeclass

import "unsafe"

// isolation is how many bytes of unused memory isolated (and the padding of
// the pools' structs and the table's header) leaves on each side of data
// that the fast paths touch.
//
// Data that one P writes on every call must share no cache line with data
// that another P reads or writes, or the line moves between the cores on
// every call; and a core fetches more than the line it misses on (the other
// line of a 128-byte pair, or the line above or below), so a neighbour one
// line away can take a written line too. What lies next to a small object
// is whatever the Go allocator put there: other objects of its size class,
// allocated around the same time, from any package. The table's header, 32
// bytes read by every Free on every P, used to be allocated by the first
// Alloc of a benchmark's goroutine right after that goroutine's testing.PB,
// 32 bytes too, whose counter the goroutine writes on every iteration: when
// the two shared a 64-byte line, every Free on the other P missed on it,
// and two Ps' cached pairs cost about 20 ns instead of about 10 (Sharded
// and LockFree alike, decided per pool by where the allocator put the
// header). Padding, not luck, keeps such lines apart now: 128 bytes on each
// side keep every line of the data, the lines next to them and their
// 128-byte pairs free of other objects.
const isolation = 128

// isolated returns a slice of n zero Ts that shares no cache line, no line
// next to one and no 128-byte pair of lines with any other object: it is
// cut from the middle of a longer array, whose ends stay unused. Its
// capacity is n, so an append reallocates rather than writing the padding.
func isolated[T any](n int) []T {
	var zero T
	size := max(int(unsafe.Sizeof(zero)), 1)
	pad := (isolation + size - 1) / size
	all := make([]T, pad+n+pad)
	return all[pad : pad+n : pad+n]
}
