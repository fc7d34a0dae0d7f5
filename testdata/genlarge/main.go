// Command genlarge writes two files of Go benchmark output, old.txt and
// new.txt, of 1,000 benchmarks (-n) x 10 samples x 3 units each: the size
// of rigor compare's speed target (no more CPU than benchstat, at most 1.5
// times its memory, on the same files; issue 28). new is 3% faster; times
// have 3% lognormal noise. The bytes come from internal/genlarge, which
// rigor's benchmarks and golden tests use too.
//
//	go run ./testdata/genlarge -o /tmp/large
//	go run ./testdata/genlarge -o /tmp/large10k -n 10000
//	hyperfine -N 'benchstat /tmp/large/old.txt /tmp/large/new.txt' 'rigor compare /tmp/large/old.txt /tmp/large/new.txt'
//
// vs-benchstat.sh beside it measures the two side by side, CPU time and
// peak memory, medians of alternating runs:
//
//	testdata/genlarge/vs-benchstat.sh 1000 11 /tmp/rigor-old /tmp/rigor-new
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/rigorbench/rigor/internal/genlarge"
)

func main() {
	dir := flag.String("o", ".", "output directory")
	n := flag.Int("n", 1000, "number of benchmarks")
	flag.Parse()
	old, err := os.Create(filepath.Join(*dir, "old.txt"))
	if err != nil {
		log.Fatal(err)
	}
	new, err := os.Create(filepath.Join(*dir, "new.txt"))
	if err != nil {
		log.Fatal(err)
	}
	if err := genlarge.Write(old, new, *n); err != nil {
		log.Fatal(err)
	}
	for _, f := range []*os.File{old, new} {
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}
