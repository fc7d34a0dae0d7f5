package stats

import "math/bits"

// rng is wyrand (Wang Yi's generator): a 64-bit state advanced by a constant
// and mixed by one 64x64->128-bit multiply. It passes BigCrush and PractRand,
// costs about a nanosecond per 64 bits, and one value yields two 32-bit
// halves, so resampling draws two indices per call.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(r.s, r.s^0xe7037ed1a0b428db)
	return hi ^ lo
}

// splitmix64 is the SplitMix64 finalizer, used to derive independent
// streams from a seed and a chunk number.
func splitmix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// newStream returns the generator for chunk c of a computation seeded with seed.
func newStream(seed uint64, c int) rng {
	return rng{s: splitmix64(seed ^ splitmix64(uint64(c)+1))}
}

// index maps a 32-bit random value to [0, n) by Lemire's multiply-shift,
// without a division. Its bias is below n/2^32 (under 3e-8 for n = 100).
func index(v uint64, n uint64) uint64 { return (v & 0xffffffff) * n >> 32 }
