package stoptimer

import "testing"

var sink int

func work(i int) { sink += i }

func BenchmarkNeverRestarted(b *testing.B) {
	b.StopTimer() // want `StopTimer with no StartTimer before the timed loop: the loop is not timed`
	data := make([]int, 100)
	for i := 0; i < b.N; i++ {
		work(data[i%100])
	}
}

func BenchmarkInLoop(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work(i)
		b.StopTimer() // want `StopTimer inside the timed loop with no StartTimer in it`
	}
}

func BenchmarkBLoop(b *testing.B) {
	b.StopTimer() // want `B.Loop called with timer stopped`
	for b.Loop() {
		work(1)
	}
}

// Not reported.
func BenchmarkRestarted(b *testing.B) {
	b.StopTimer()
	data := make([]int, 100)
	b.StartTimer()
	for i := 0; i < b.N; i++ {
		work(data[i%100])
	}
}

func BenchmarkPairInLoop(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StartTimer()
		work(i)
		b.StopTimer()
	}
}

func BenchmarkCleanup(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work(i)
	}
	b.StopTimer()
	sink = 0
}

func BenchmarkStartedInLoop(b *testing.B) {
	b.StopTimer()
	data := make([]int, 100)
	for i := 0; i < b.N; i++ {
		data[0] = i
		b.StartTimer()
		work(data[i%100])
		b.StopTimer()
	}
}

// modernc.org/mathutil's shape (issue 23): the fill loop runs with the
// timer stopped on purpose, and the timed loop is the range over the
// b.N-sized slice after StartTimer.
func BenchmarkUntimedFill(b *testing.B) {
	b.StopTimer()
	in := make([]uint32, b.N)
	for i := 0; i < b.N; i++ {
		in[i] = uint32(i) * 2654435761
	}
	b.StartTimer()
	for _, v := range in {
		sink += int(v % 7)
	}
}

// A fill loop with the timer stopped, restarted before a b.N loop.
func BenchmarkUntimedFillThenNLoop(b *testing.B) {
	b.StopTimer()
	in := make([]int, b.N)
	for i := range b.N {
		in[i] = i
	}
	b.StartTimer()
	for i := 0; i < b.N; i++ {
		work(in[i])
	}
}

// The timer is started again after the only loop, and nothing follows:
// the loop is not timed.
func BenchmarkStartedAfter(b *testing.B) {
	b.StopTimer() // want `StopTimer with no StartTimer before the timed loop: the loop is not timed`
	for i := 0; i < b.N; i++ {
		work(i)
	}
	b.StartTimer()
}

// The b.N-sized slice's range loop is timed too.
func BenchmarkRangeNotRestarted(b *testing.B) {
	in := make([]int, b.N)
	b.StopTimer() // want `StopTimer with no StartTimer before the timed loop: the loop is not timed`
	for _, v := range in {
		work(v)
	}
}
