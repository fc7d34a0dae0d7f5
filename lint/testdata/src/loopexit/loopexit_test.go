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

func BenchmarkNLoop(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if i > 3 {
			break
		}
	}
}
