package elided

import (
	"math"
	"math/bits"
	"math/rand"
	"strconv"
	"testing"

	"purelib"
)

func square(x uint64) uint64 { return x * x }

func mix(x uint64) uint64 { x *= 0x9E3779B97F4A7C15; return x ^ x>>29 }

func spin(x uint64) uint64 { // a loop: the compiler keeps it
	for i := 0; i < 64; i++ {
		x = x*x + 1
	}
	return x
}

var global uint64

func store(x uint64) uint64 { global = x; return x } // a write: not pure

//go:noinline
func opaque(x uint64) uint64 { return x * x }

func load(p *uint64) uint64 { return *p + 1 } // pure, but reads memory: does not fold

var Sink uint64

// Seed 003's elided benchmark.
func BenchmarkElided(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = square(uint64(i)) // want `result of square assigned to _: the compiler deletes this pure call`
	}
}

// Seed 003's kept benchmark: b.Loop keeps the assigned x alive, and x
// depends on the previous iteration.
func BenchmarkKept(b *testing.B) {
	x := uint64(17)
	for b.Loop() {
		x = square(x + 1)
	}
}

func BenchmarkStatement(b *testing.B) {
	for range b.N {
		mix(uint64(b.N)) // want `result of mix discarded`
	}
}

func BenchmarkExpression(b *testing.B) {
	x := uint64(3)
	for i := 0; i < b.N; i++ {
		_ = x*uint64(i) + 1 // want `pure expression`
	}
}

func BenchmarkNeverRead(b *testing.B) {
	var r uint64
	for i := 0; i < b.N; i++ {
		r = mix(uint64(i)) // want `assigned to a variable never read`
	}
	_ = r
}

func BenchmarkStdlib(b *testing.B) {
	f := 2.0
	for i := 0; i < b.N; i++ {
		_ = math.Sqrt(f)                 // want `assigned to _`
		bits.OnesCount64(uint64(i))      // want `result of bits.OnesCount64 discarded`
		_ = strconv.Itoa(i)              // calls the runtime: kept
		_ = purelib.Double(i)            // want `assigned to _`
		_ = purelib.Sum([]int{i, i + 1}) // a loop: kept
	}
}

// Constant arguments fold, whatever the loop.
func BenchmarkConstantNLoop(b *testing.B) {
	var x float64
	for i := 0; i < b.N; i++ {
		x = math.Abs(-0.5) // want `math.Abs\(-0.5\) has constant arguments`
	}
	Sink = uint64(x)
}

func BenchmarkConstantBLoop(b *testing.B) {
	for b.Loop() {
		mix(17) // want `mix\(17\) has constant arguments`
	}
}

func BenchmarkConstantLocal(b *testing.B) {
	x := uint64(17)
	for b.Loop() {
		mix(x) // want `mix\(x\) has constant arguments`
	}
}

// Not reported.

func BenchmarkUsed(b *testing.B) {
	var s uint64
	for i := 0; i < b.N; i++ {
		s += mix(uint64(i))
	}
	Sink = s
}

func BenchmarkBLoopKeeps(b *testing.B) {
	i := uint64(0)
	for b.Loop() {
		mix(i)
		_ = square(i)
		i++
	}
}

func BenchmarkNotPure(b *testing.B) {
	for i := 0; i < b.N; i++ {
		store(uint64(i))
		opaque(uint64(i))
		spin(uint64(i))
		_ = load(&Sink)
	}
}

func BenchmarkVariableInput(b *testing.B) {
	x := Sink
	for b.Loop() {
		mix(x)
	}
}

func BenchmarkChangedLocal(b *testing.B) {
	x := uint64(17)
	x++
	for b.Loop() {
		mix(x)
	}
}

func BenchmarkLoadFromConstantPointer(b *testing.B) {
	for b.Loop() {
		load(nil)
	}
}

// The counter is unused: the fix turns the loop into b.Loop.
func BenchmarkFixable(b *testing.B) {
	x := Sink
	for i := 0; i < b.N; i++ {
		mix(x) // want `result of mix discarded`
	}
}

// No fix: b.N sizes the input, and would be 1 before a b.Loop loop.
func BenchmarkNotFixable(b *testing.B) {
	in := make([]uint64, b.N)
	x := in[0]
	for i := 0; i < b.N; i++ {
		mix(x) // want `result of mix discarded`
	}
}

// What the message says is deleted (issue 23): an empty loop only when
// nothing is left of the body. Shapes of modernc.org/mathutil's Log2Byte
// and Log2Uint16 benchmarks, checked by disassembly (go test -c, go tool
// objdump): the first leaves `INCQ; CMPQ; JL`, the second keeps the load
// of a[i&(N-1)] and the bounds check of log2[n].

var log2 [256]int

func log2Byte(n byte) int { return log2[n] } // a byte index into [256]: no check

func log2Uint16(n uint16) int {
	if b := n >> 8; b != 0 {
		return log2[b] + 8 // n>>8 < 256: no check
	}
	return log2[n] // a uint16 index: checked
}

func BenchmarkLog2Byte(b *testing.B) {
	const N = 1 << 16
	a := make([]byte, N)
	for i := range a {
		a[i] = byte(i * 7)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		log2Byte(a[i&(N-1)]) // want `result of log2Byte discarded: the compiler deletes this pure call and the loop is left empty, so ns/op times an empty loop`
	}
}

func BenchmarkLog2Uint16(b *testing.B) {
	const N = 1 << 16
	a := make([]uint16, N)
	for i := range a {
		a[i] = uint16(i * 7)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		log2Uint16(a[i&(N-1)]) // want `result of log2Uint16 discarded: the compiler deletes this pure call, keeping at most its bounds checks, so ns/op does not time its work, only what is left of the loop`
	}
}

// golang.org/x/net/html's rawLevel tokenizer benchmark: Raw is deleted,
// the loop still tokenizes.
type tokenizer struct {
	buf        []byte
	start, end int
}

func (z *tokenizer) next() bool {
	z.start, z.end = z.end, z.end+1
	return z.end < len(z.buf)
}

func (z *tokenizer) raw() []byte { return z.buf[z.start:z.end] }

func BenchmarkTokenize(b *testing.B) {
	doc := []byte("<html><body>text</body></html>")
	for i := 0; i < b.N; i++ {
		z := &tokenizer{buf: doc, end: i % 2}
		for z.next() {
			z.raw() // want `result of z.raw discarded: the compiler deletes this pure call, keeping at most its bounds and nil checks, so ns/op does not time its work, only what is left of the loop`
		}
	}
}

// bits-and-blooms/bitset's BenchmarkGetTest: the random index is drawn,
// the test of the bit is deleted.
type bitset struct{ set []uint64 }

func (s *bitset) test(i uint) bool { return s.set[i>>6]&(1<<(i&63)) != 0 }

func BenchmarkGetTest(b *testing.B) {
	s := &bitset{set: make([]uint64, 16)}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < b.N; i++ {
		s.test(uint(r.Intn(1024) + i%2)) // want `result of s.test discarded: the compiler deletes this pure call, keeping the call of r.Intn in its arguments and at most its bounds and nil checks`
	}
}

// A range over a slice of b.N elements is a timed loop too: mathutil's
// BenchmarkIsPrimeUint16 compiles to an empty loop, and was not reported.
var primes16 [65536]byte

func isPrimeUint16(n uint16) bool { return n > 0 && primes16[n-1] == 1 }

func BenchmarkIsPrimeUint16(b *testing.B) {
	b.StopTimer()
	n := make([]uint16, b.N)
	for i := 0; i < b.N; i++ {
		n[i] = uint16(i * 40503)
	}
	b.StartTimer()
	for _, n := range n {
		isPrimeUint16(n) // want `result of isPrimeUint16 discarded: the compiler deletes this pure call and the loop is left empty`
	}
}

// A method that writes through its pointer receiver is not pure, whatever
// it returns: json-iterator's Iterator.ResetBytes, `iter.buf = input;
// ...; return iter`, was reported.
type iterator struct {
	buf  []byte
	head int
}

func (it *iterator) resetBytes(in []byte) *iterator {
	it.buf = in
	it.head = 0
	return it
}

func (it *iterator) bump() int { it.head++; return it.head }

func (it iterator) local() int { it.head++; return it.head } // a copy: pure

func BenchmarkPointerWrite(b *testing.B) {
	it := &iterator{}
	in := []byte("[1,2,3]")
	for i := 0; i < b.N; i++ {
		in[0] = byte(i)
		it.resetBytes(in)
		it.bump()
		it.local() // want `result of it.local discarded: the compiler deletes this pure call`
		Sink += uint64(len(it.buf))
	}
}

// unicode/utf16's BenchmarkDecodeRune: the indexes 2*j and 2*j+1 of a
// slice of 10, for j counting to 5, are in range, and the compiler drops
// their checks: what is left is the inner loop counting to 5.
func decodeRune(r1, r2 rune) rune {
	if 0xd800 <= r1 && r1 < 0xdc00 && 0xdc00 <= r2 && r2 < 0xe000 {
		return (r1-0xd800)<<10 | (r2 - 0xdc00) + 0x10000
	}
	return 0xfffd
}

func BenchmarkDecodeRune(b *testing.B) {
	rs := make([]rune, 10)
	for i := 0; i < b.N; i++ {
		rs[i%10] = rune(i)
		for j := 0; j < 5; j++ {
			decodeRune(rs[2*j], rs[2*j+1]) // want `result of decodeRune discarded: the compiler deletes this pure call, so ns/op does not time its work, only what is left of the loop`
		}
	}
}
