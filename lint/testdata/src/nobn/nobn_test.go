package nobn

import "testing"

var sink int

func work(i int) { sink += i * i }

func BenchmarkFixed(b *testing.B) { // want `this benchmark never reads b.N nor calls b.Loop: it does the same work whatever b.N is`
	for i := 0; i < 1000; i++ {
		work(i)
	}
}

func BenchmarkOnce(b *testing.B) { // want `never reads b.N`
	b.ReportAllocs()
	work(1)
}

func BenchmarkSub(b *testing.B) {
	b.Run("fixed", func(b *testing.B) { // want `never reads b.N`
		for i := range 1000 {
			work(i)
		}
	})
	b.Run("right", func(b *testing.B) {
		for range b.N {
			work(1)
		}
	})
}

// Not reported.

func BenchmarkN(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work(i)
	}
}

func BenchmarkLoop(b *testing.B) {
	for b.Loop() {
		work(1)
	}
}

func helper(b *testing.B, n int) {
	for i := 0; i < b.N; i++ {
		work(n)
	}
}

// b is handed to a helper, which reads b.N.
func BenchmarkHelper(b *testing.B) { helper(b, 3) }

func BenchmarkClosure(b *testing.B) {
	loop := func() {
		for range b.N {
			work(1)
		}
	}
	loop()
}

func BenchmarkParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			work(1)
		}
	})
}

// klauspost/compress's shape: b.Run inside a function literal, and
// RunParallel, which reads b.N itself, in the sub-benchmark.
func BenchmarkWalk(b *testing.B) {
	each := func(f func(string)) {
		for _, s := range []string{"a", "b"} {
			f(s)
		}
	}
	each(func(name string) {
		b.Run(name, func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					work(len(name))
				}
			})
		})
	})
}

// RoaringBitmap/roaring's BenchmarkMemoryUsage: a metric of its own, the
// time not measured.
func BenchmarkMemoryUsage(b *testing.B) {
	b.StopTimer()
	data := make([][]int, 10)
	for i := range data {
		data[i] = make([]int, 1<<16)
	}
	b.ReportMetric(float64(len(data)), "slices")
	b.StartTimer()
}

func BenchmarkSize(b *testing.B) {
	n := 0
	for i := 0; i < 1000; i++ {
		n += i
	}
	b.ReportMetric(float64(n), "bytes")
}

func BenchmarkSkipped(b *testing.B) {
	b.Skip("not on this platform")
	work(1)
}

func BenchmarkNothing(b *testing.B) {
	b.ReportAllocs()
}

// Not a benchmark testing runs: a helper with more parameters.
func benchmarkFixed(b *testing.B, n int) {
	work(n)
}
