// Package cpubench is the yardstick benchmark of the busy-machine
// experiment (experiments/busy): a CPU-bound loop of about 60 µs per
// operation whose new side does exactly 1%, 3%, 5% or 10% more work.
//
// The work is a chain of dependent multiply-xor-rotate steps over a small
// buffer that stays in the L1 cache, so its speed depends on the CPU the
// benchmark gets and on nothing else (no allocation, no memory traffic, no
// system calls). Built without tags it makes BasePasses passes over the
// buffer per operation; built with the tag plus3 it makes Passes =
// BasePasses × 1.03 passes, each pass the same work, so the change is +3%
// exactly (up to the loop's fixed cost per operation, a few nanoseconds
// in 60 µs); the tags plus1, plus5 and plus10 make 101, 105 and 110
// passes (one tag at a time).
package cpubench

import "math/bits"

// BasePasses is the number of passes over the buffer per operation of the
// base (old) side. 100 makes the plus3 side's 103 an exact 3% more.
const BasePasses = 100

// bufLen is the buffer's length in words: 3 KiB, well inside any L1 data cache.
const bufLen = 384

var buf = func() *[bufLen]uint64 {
	// Fixed pseudo-random contents (splitmix64 from a fixed seed), computed
	// at run time so that the compiler cannot fold the work into a constant.
	var b [bufLen]uint64
	x := uint64(0x9e3779b97f4a7c15)
	for i := range b {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		b[i] = z ^ z>>31
	}
	return &b
}()

// Work makes passes passes over the buffer and returns a hash of it that
// depends on every step, so no step can be skipped.
func Work(passes int) uint64 {
	h := uint64(passes)
	for range passes {
		for _, v := range buf {
			h = bits.RotateLeft64((h^v)*0x100000001b3, 17)
		}
	}
	return h
}

// Op is one benchmark operation: Passes passes (BasePasses, or 1%, 3%, 5%
// or 10% more under the plus1, plus3, plus5 or plus10 build tag).
func Op() uint64 { return Work(Passes) }
