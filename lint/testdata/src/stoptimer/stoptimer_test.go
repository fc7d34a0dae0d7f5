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
