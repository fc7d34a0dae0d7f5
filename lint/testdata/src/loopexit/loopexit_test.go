package loopexit

import (
	"errors"
	"testing"
)

func work(i int) error {
	if i < 0 {
		return errors.New("negative")
	}
	return nil
}

func BenchmarkReturn(b *testing.B) {
	i := 0
	for b.Loop() {
		if work(i) != nil {
			return // want `return inside a b.Loop loop`
		}
		i++
	}
}

func BenchmarkBreak(b *testing.B) {
	i := 0
	for b.Loop() {
		if i > 100 {
			break // want `break leaves the b.Loop loop`
		}
		i++
	}
}

func BenchmarkLabeled(b *testing.B) {
outer:
	for b.Loop() {
		for j := 0; j < 3; j++ {
			if work(j) != nil {
				break outer // want `break leaves the b.Loop loop`
			}
		}
	}
}

// Not reported.
func BenchmarkInner(b *testing.B) {
	for b.Loop() {
		for j := 0; j < 3; j++ {
			if j == 1 {
				break
			}
		}
		switch work(1) {
		case nil:
			break
		}
		func() {
			return
		}()
		if work(2) != nil {
			continue
		}
	}
}

func BenchmarkFailed(b *testing.B) {
	for b.Loop() {
		if err := work(-1); err != nil {
			b.Error(err)
			return
		}
	}
}

func BenchmarkFatal(b *testing.B) {
	for b.Loop() {
		if err := work(-1); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNLoopFailed(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if err := work(-i); err != nil {
			b.Errorf("work: %v", err)
			break
		}
		for j := 0; j < 3; j++ {
			if j == i {
				break
			}
		}
	}
}

// google/btree's shape: the loop counts iterations itself, and returns
// once b.N ran; and a return after b.Fatal is never reached.
func BenchmarkCounted(b *testing.B) {
	in := []int{1, 2, 3}
	i := 0
	for i < b.N {
		for _, v := range in {
			_ = work(v)
			i++
			if i >= b.N {
				return
			}
		}
		if err := work(-i); err != nil {
			b.Fatal(err)
			return
		}
	}
}

// From a b.N loop the exit is not fatal, and ns/op divides the time of
// fewer iterations by b.N (issue 23).
func BenchmarkNLoopBreak(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if i > 3 {
			break // want `break leaves the b.N loop: when it is taken, fewer than b.N iterations ran and ns/op divides their time by b.N`
		}
	}
}

func BenchmarkNLoopReturn(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if i == 100 {
			return // want `return inside the b.N loop: when it is taken, fewer than b.N iterations ran`
		}
		_ = work(i)
	}
}

func BenchmarkRangeReturn(b *testing.B) {
	in := make([]int, b.N)
	for _, v := range in {
		if work(v) != nil {
			return // want `return inside the b.N loop`
		}
	}
}
