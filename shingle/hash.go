package shingle

import "math/bits"

// Constants of the combination and mixing functions. They are part of the
// persisted format: changing one changes every stored hash.
const (
	prime1 = 0x9E3779B185EBCA87 // XXH64 primes
	prime2 = 0xC2B2AE3D27D4EB4F
	prime3 = 0x165667B19E3779F9
)

// Mix64 is a bijective finalizer (the splitmix64 / MurmurHash3 fmix64
// mixer): every input bit affects every output bit. It costs a few
// nanoseconds.
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return x
}

// Combine returns the hash of a sequence of unit hashes: order-sensitive and
// length-sensitive, so "a b" and "b a" differ, as do "a" and "a a". It is how
// a shingle's hash is made from its units' hashes. Cost: O(len(hs)).
func Combine(hs []uint64) uint64 {
	h := uint64(len(hs)) * prime3
	for _, x := range hs {
		h = bits.RotateLeft64(h^x*prime2, 31) * prime1
	}
	return Mix64(h)
}
