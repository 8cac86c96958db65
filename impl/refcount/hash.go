package refcount

import spec "github.com/memverify/memverify/model/refcount"

// mix scrambles a pointer so that every bit of the address influences the low
// bits of the result: MurmurHash3's 64-bit finaliser. Allocators hand out
// 16-, 64- or 4096-byte-aligned pointers whose low bits are constant; indexing
// shards or table slots by the address itself (std::hash<void*> is the
// identity in libstdc++) would pile them into a few buckets.
func mix(p spec.Addr) uint64 {
	x := uint64(p)
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}
