// Package genlarge writes the large Go benchmark outputs behind rigor
// compare's speed target against benchstat (issue 28): n benchmarks x 10
// samples x 3 units per file, new 3% faster than old, times with 3%
// lognormal noise. testdata/genlarge writes them to files; rigor's own
// benchmarks and golden tests make them in memory, the same bytes.
package genlarge

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
)

// Write writes the old and new files of n benchmarks. The same n gives
// the same bytes.
func Write(old, new io.Writer, n int) error {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, side := range []struct {
		w      io.Writer
		factor float64
	}{{old, 1}, {new, 0.97}} {
		w := bufio.NewWriter(side.w)
		fmt.Fprintln(w, "goos: linux\ngoarch: amd64\npkg: example.com/large\ncpu: test")
		for round := 0; round < 10; round++ {
			for b := 0; b < n; b++ {
				ns := float64(100+3*b) * side.factor * math.Exp(0.03*rng.NormFloat64())
				fmt.Fprintf(w, "BenchmarkF%d/size=%d-2 \t 1000000\t %.2f ns/op\t %d B/op\t %d allocs/op\n", b, b%7, ns, 8*b, b%5)
			}
		}
		fmt.Fprintln(w, "PASS")
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}
