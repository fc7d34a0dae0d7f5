// Command genlarge writes two files of Go benchmark output, old.txt and
// new.txt, of 1,000 benchmarks (-n) x 10 samples x 3 units each: the size
// of rigor compare's speed target (at most twice benchstat's time on the
// same files). new is 3% faster; times have 3% lognormal noise.
//
//	go run ./testdata/genlarge -o /tmp/large
//	go run ./testdata/genlarge -o /tmp/large10k -n 10000
//	hyperfine -N 'benchstat /tmp/large/old.txt /tmp/large/new.txt' 'rigor compare /tmp/large/old.txt /tmp/large/new.txt'
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

func main() {
	dir := flag.String("o", ".", "output directory")
	n := flag.Int("n", 1000, "number of benchmarks")
	flag.Parse()
	rng := rand.New(rand.NewPCG(7, 7))
	for _, side := range []struct {
		name   string
		factor float64
	}{{"old", 1}, {"new", 0.97}} {
		f, err := os.Create(filepath.Join(*dir, side.name+".txt"))
		if err != nil {
			log.Fatal(err)
		}
		w := bufio.NewWriter(f)
		fmt.Fprintln(w, "goos: linux\ngoarch: amd64\npkg: example.com/large\ncpu: test")
		for round := 0; round < 10; round++ {
			for b := 0; b < *n; b++ {
				ns := float64(100+3*b) * side.factor * math.Exp(0.03*rng.NormFloat64())
				fmt.Fprintf(w, "BenchmarkF%d/size=%d-2 \t 1000000\t %.2f ns/op\t %d B/op\t %d allocs/op\n", b, b%7, ns, 8*b, b%5)
			}
		}
		fmt.Fprintln(w, "PASS")
		if err := w.Flush(); err != nil {
			log.Fatal(err)
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}
