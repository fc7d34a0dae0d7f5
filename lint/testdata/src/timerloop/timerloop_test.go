package timerloop

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

var data = []int{3, 1, 2}

func less(a, b int) bool { return a < b }

func reset(s []int) { s[0], s[1], s[2] = 3, 1, 2 }

func BenchmarkSmallStopStart(b *testing.B) {
	s := make([]int, 3)
	for i := 0; i < b.N; i++ {
		b.StopTimer() // want `StopTimer/StartTimer inside the timed loop around a small timed part`
		reset(s)
		b.StartTimer()
		if less(s[0], s[1]) {
			b.Fatal("unsorted")
		}
	}
}

func BenchmarkSmallBLoop(b *testing.B) {
	s := make([]int, 3)
	for b.Loop() {
		b.StopTimer() // want `StopTimer/StartTimer inside the timed loop`
		reset(s)
		b.StartTimer()
		s[0], s[1] = s[1], s[0]
	}
}

func BenchmarkStartFirst(b *testing.B) {
	s := make([]int, 3)
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		reset(s)
		b.StartTimer() // want `StopTimer/StartTimer inside the timed loop`
		s[0]++
		b.StopTimer()
	}
}

// Not reported: the timed part calls code of another package, or loops;
// the pair may be small next to it.
func BenchmarkSortStopStart(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := slices.Clone(data)
		b.StartTimer()
		slices.Sort(s)
	}
}

func BenchmarkLoopInTimed(b *testing.B) {
	s := make([]int, 1000)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		reset(s)
		b.StartTimer()
		for j := range s {
			s[j]++
		}
	}
}

// Not reported: outside the loop.
func BenchmarkOutside(b *testing.B) {
	b.StopTimer()
	s := slices.Clone(data)
	b.StartTimer()
	for i := 0; i < b.N; i++ {
		s[0] = i
	}
}

func count(s []int) int {
	if len(s) == 0 {
		return 0
	}
	return 1 + count(s[1:])
}

// Not reported: recursion has no visible bound.
func BenchmarkRecursive(b *testing.B) {
	s := make([]int, 800)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		reset(s)
		b.StartTimer()
		count(s)
	}
}

// Sorts: the usual reason for the pair. Reported when the sort is
// estimated under 10 µs (lint/testdata/sortcost): input in order, or
// small.
func BenchmarkSortAscending(b *testing.B) {
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		data := make([]int, 1<<10)
		for i := 0; i < len(data); i++ {
			data[i] = i
		}
		b.StartTimer() // want `around sort.Ints of 1024 elements in ascending order, about 1.8 µs: each pair adds about 65 ns to ns/op \(3.5%\)`
		sort.Ints(data)
		b.StopTimer()
	}
}

func BenchmarkSortDescending(b *testing.B) {
	data := make([]int, 1000)
	for b.Loop() {
		b.StopTimer() // want `around slices.Sort of 1000 elements in descending order`
		for i := range data {
			data[i] = len(data) - i
		}
		b.StartTimer()
		slices.Sort(data)
	}
}

func BenchmarkSortSmall(b *testing.B) {
	src := make([]int, 100)
	data := make([]int, len(src))
	for i := 0; i < b.N; i++ {
		b.StopTimer() // want `around sort.Slice of 100 elements, about 5.0 µs`
		copy(data, src)
		b.StartTimer()
		sort.Slice(data, func(i, j int) bool { return data[i] < data[j] })
	}
}

type pairs []struct{ a, b int }

func (p pairs) Len() int           { return len(p) }
func (p pairs) Less(i, j int) bool { return p[i].a < p[j].a }
func (p pairs) Swap(i, j int)      { p[i], p[j] = p[j], p[i] }

// benchSort sorts size pairs with algo, a fresh random input each time,
// seven sizes around size per iteration.
func benchSort(b *testing.B, size int, algo func(sort.Interface)) {
	b.StopTimer()
	data := make(pairs, size)
	x := uint32(1)
	for i := 0; i < b.N; i++ {
		for n := size - 3; n <= size+3; n++ {
			for i := range data {
				x = x*1664525 + 1013904223
				data[i].a = int(x % uint32(n))
			}
			b.StartTimer() // want `around sort.Sort of 100 elements \(for the call at timerloop_test.go:\d+\), about 6.2 µs`
			algo(data)
			b.StopTimer()
		}
	}
}

func BenchmarkSort100(b *testing.B)   { benchSort(b, 100, sort.Sort) }
func BenchmarkStable100(b *testing.B) { benchSort(b, 100, sort.Stable) }
func BenchmarkSort1e4(b *testing.B)   { benchSort(b, 1e4, sort.Sort) }

// Not reported: sorts estimated at 10 µs or more (random order and 1024
// elements or more, a stable sort of 100), of unknown length, of
// strings, or with a Less that loops or compares strings.
func BenchmarkSortRandom1K(b *testing.B) {
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		data := make([]int, 1<<10)
		for i := 0; i < len(data); i++ {
			data[i] = i ^ 0x2cc
		}
		b.StartTimer()
		sort.Ints(data)
		b.StopTimer()
	}
}

func BenchmarkSortPartlyFilled(b *testing.B) {
	data := make([]int, 1<<10)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for i := 0; i < 10; i++ {
			data[i] = 10 - i
		}
		b.StartTimer()
		sort.Ints(data)
	}
}

func BenchmarkStableSmall(b *testing.B) {
	data := make(pairs, 100)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for i := range data {
			data[i].a = (i * 7919) % 100
		}
		b.StartTimer()
		sort.Stable(data)
	}
}

func BenchmarkSortUnknownLength(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		data := slices.Clone(bigData)
		b.StartTimer()
		sort.Ints(data)
	}
}

var bigData = make([]int, 100000)

func BenchmarkSortStrings(b *testing.B) {
	data := make([]string, 100)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for i := range data {
			data[i] = strings.Repeat("x", 1000) + string(rune('a'+i%26))
		}
		b.StartTimer()
		sort.Strings(data)
	}
}

type byName []struct{ name string }

func (s byName) Len() int           { return len(s) }
func (s byName) Less(i, j int) bool { return s[i].name < s[j].name }
func (s byName) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

func BenchmarkSortByName(b *testing.B) {
	data := make(byName, 10)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for i := range data {
			data[i].name = strings.Repeat("x", 1000)
		}
		b.StartTimer()
		sort.Sort(data)
	}
}

func BenchmarkSortReassigned(b *testing.B) {
	data := make([]int, 100)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		data = append(data, bigData...)
		b.StartTimer()
		sort.Ints(data)
	}
}
