package noreset

import (
	"os"
	"testing"
)

var sink int

func BenchmarkReadFile(b *testing.B) {
	data, _ := os.ReadFile("testdata/input") // want `set-up before the b.N loop \(os.ReadFile\) is timed`
	for i := 0; i < b.N; i++ {
		sink += len(data)
	}
}

func BenchmarkBigLoop(b *testing.B) {
	m := map[int]int{}
	for i := 0; i < 1<<20; i++ { // want `a loop of 1048576 iterations`
		m[i] = i
	}
	for i := 0; i < b.N; i++ {
		sink += m[i&0xffff]
	}
}

// Not reported.
func BenchmarkReset(b *testing.B) {
	data, _ := os.ReadFile("testdata/input")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sink += len(data)
	}
}

func BenchmarkSmallSetup(b *testing.B) {
	s := make([]int, 100)
	for i := range s {
		s[i] = i
	}
	for i := 0; i < b.N; i++ {
		sink += s[i%100]
	}
}

func BenchmarkBLoop(b *testing.B) {
	data, _ := os.ReadFile("testdata/input")
	for b.Loop() {
		sink += len(data)
	}
}

func BenchmarkCases(b *testing.B) {
	for _, n := range []int{1, 2} {
		b.Run("", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink += n
			}
		})
	}
}

func BenchmarkStopped(b *testing.B) {
	b.StopTimer()
	data, _ := os.ReadFile("testdata/input")
	b.StartTimer()
	for i := 0; i < b.N; i++ {
		sink += len(data)
	}
}

func BenchmarkAppendLoop(b *testing.B) {
	var s []byte
	for len(s) < 1<<20 { // not a counted loop
		s = append(s, "x"...)
	}
	for i := 0; i < b.N; i++ {
		sink += len(s)
	}
}
