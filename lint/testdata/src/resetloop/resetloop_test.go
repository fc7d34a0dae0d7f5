package resetloop

import "testing"

var sink int

func work(i int) { sink += i * i }

func prepare() []int { return make([]int, 64) }

func BenchmarkResetInNLoop(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.ResetTimer() // want `ResetTimer in every iteration of the timed loop: each discards the time of the iterations before it`
		work(i)
	}
}

func BenchmarkResetInBLoop(b *testing.B) {
	for b.Loop() {
		work(1)
		{
			b.ResetTimer() // want `ResetTimer in every iteration`
		}
	}
}

func BenchmarkResetInRange(b *testing.B) {
	in := make([]int, b.N)
	for _, v := range in {
		b.StopTimer()
		in[0] = v
		b.ResetTimer() // want `ResetTimer in every iteration`
		b.StartTimer()
		work(v)
	}
}

// Not reported.

// Once, on the first iteration, after a lazy set-up.
func BenchmarkResetFirst(b *testing.B) {
	var data []int
	for i := 0; i < b.N; i++ {
		if data == nil {
			data = prepare()
			b.ResetTimer()
		}
		work(data[i%64])
	}
}

func BenchmarkResetBefore(b *testing.B) {
	data := prepare()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		work(data[i%64])
	}
}

// A loop over cases, each a b.N loop: the reset is outside the timed
// loops.
func BenchmarkResetPerCase(b *testing.B) {
	for _, n := range []int{1, 2} {
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			work(n)
		}
	}
}

// In a function literal the loop does not call.
func BenchmarkResetInLiteral(b *testing.B) {
	for i := 0; i < b.N; i++ {
		f := func() { b.ResetTimer() }
		_ = f
		work(i)
	}
}
