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

// CollidingPointers returns n pointers, ascending, from from up and stride
// bytes apart (stride 0 is taken as 16), whose hashes agree with from's in
// their low lowBits bits (at most 32). It is for verification: such pointers
// share one home slot in every LockFree table of up to 2^lowBits slots, so
// doubling the table does not part them, and one shard of a Sharded of up to
// 2^lowBits shards. An address pattern or an adversary can make as many
// (mix is a bijection); with them a property over a few dozen pointers
// builds the probe runs and rebuilds that random addresses never do.
// Finding them costs about n·2^lowBits hashes.
func CollidingPointers(from spec.Addr, stride uint64, n, lowBits int) []spec.Addr {
	if stride == 0 {
		stride = 16
	}
	mask := uint64(1)<<min(max(lowBits, 0), 32) - 1
	want := mix(from) & mask
	out := make([]spec.Addr, 0, max(n, 0))
	for p := from; len(out) < n; p += spec.Addr(stride) {
		if mix(p)&mask == want {
			out = append(out, p)
		}
	}
	return out
}
