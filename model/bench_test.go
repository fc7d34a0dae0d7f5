package model

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// largeInput is go test -count=10 output of 1,000 benchmarks reporting
// sec/op, B/op and allocs/op: the size rigor compare must read quickly.
func largeInput(seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	b.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/large\ncpu: AMD EPYC 9V74 80-Core Processor\n")
	for i := range 1000 {
		base := 100 + rng.Float64()*1e5
		for range 10 {
			fmt.Fprintf(&b, "BenchmarkOp/size=%d/alg=%c-8 \t%8d\t%10.1f ns/op\t%6d B/op\t%4d allocs/op\n",
				i/4, 'a'+i%4, 1000+rng.IntN(100000), base*(0.95+0.1*rng.Float64()), 64*(i%16), i%16)
		}
	}
	b.WriteString("PASS\nok  \texample.com/large\t42.000s\n")
	return b.Bytes()
}

func BenchmarkReadLarge(b *testing.B) {
	in := largeInput(1)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		run, err := Read(bytes.NewReader(in), "old.txt", "old")
		if err != nil || len(run.Benchmarks) != 1000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompareInputs is what rigor compare does before analysis: read
// two files and merge them.
func BenchmarkCompareInputs(b *testing.B) {
	old, new := largeInput(1), largeInput(2)
	b.SetBytes(int64(len(old) + len(new)))
	b.ReportAllocs()
	for b.Loop() {
		o, err := Read(bytes.NewReader(old), "old.txt", "old")
		if err != nil {
			b.Fatal(err)
		}
		n, err := Read(bytes.NewReader(new), "new.txt", "new")
		if err != nil {
			b.Fatal(err)
		}
		m, err := Merge(o, n)
		if err != nil || len(m.Benchmarks) != 1000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFiles is BenchmarkCompareInputs as rigor compare does it
// now: ReadFiles of the two files, the samples placed once, into the
// merged run.
func BenchmarkReadFiles(b *testing.B) {
	dir := b.TempDir()
	inputs := []Input{{filepath.Join(dir, "old.txt"), "old"}, {filepath.Join(dir, "new.txt"), "new"}}
	for i, in := range inputs {
		if err := os.WriteFile(in.Path, largeInput(uint64(i+1)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		m, err := ReadFiles(inputs)
		if err != nil || len(m.Benchmarks) != 1000 {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteBenchfmtLarge(b *testing.B) {
	run, err := Read(bytes.NewReader(largeInput(1)), "old.txt", "old")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteBenchfmt(io.Discard, run, "old"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONLarge(b *testing.B) {
	run, err := Read(bytes.NewReader(largeInput(1)), "old.txt", "old")
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := run.WriteJSON(&buf); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadJSON(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMarkMissing: a failure is recorded once per side, in one line, on
// the benchmark with the same key, or on a new benchmark with no metrics
// when the run has none yet (a benchmark that failed before its first
// sample); Merge keeps each run's entries for its own sides only.
func TestMarkMissing(t *testing.T) {
	run := &Run{Sides: []Side{{Label: "old"}, {Label: "new"}}, Benchmarks: []Benchmark{
		{Name: "A", Procs: 8, Pkg: "p", Metrics: []Metric{{Unit: "sec/op", Samples: []Sample{{Side: "old", Iters: 1, Value: 1}}}}},
	}}
	b := run.MarkMissing("p", "A", 8, "new", MissingFailed, "panicked (exit status 2) in round 3\n    goroutine 1 [running]:")
	if b != &run.Benchmarks[0] {
		t.Fatalf("MarkMissing added a benchmark for a key the run has: %+v", run.Benchmarks)
	}
	run.MarkMissing("p", "A", 8, "new", MissingFailed, "timed out")
	if got := b.Missing["new"]; got != (Missing{Kind: MissingFailed, Reason: "panicked (exit status 2) in round 3"}) {
		t.Errorf("missing = %+v, want the first failure's first line", got)
	}
	c := run.MarkMissing("q", "B/n=1", 0, "new", MissingBuild, "package q does not build on new")
	if len(run.Benchmarks) != 2 || c.Key() != "q.B/n=1" || c.Metrics == nil || len(c.Metrics) != 0 || c.Missing["new"].Kind != MissingBuild {
		t.Errorf("benchmarks = %+v", run.Benchmarks)
	}
	var buf bytes.Buffer
	if err := run.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}

	// Merge: one run's entry for a side of another run (a relabelled
	// baseline's stale label) is not carried over; its own are.
	a := &Run{Sides: []Side{{Label: "main"}}, Benchmarks: []Benchmark{{Name: "A", Metrics: []Metric{}}}}
	a.Benchmarks[0].MarkMissing("current", MissingFailed, "stale")
	a.Benchmarks[0].MarkMissing("main", MissingFailed, "failed on main")
	cur := &Run{Sides: []Side{{Label: "current"}}, Benchmarks: []Benchmark{{Name: "A", Metrics: []Metric{}}}}
	merged, err := Merge(a, cur)
	if err != nil {
		t.Fatal(err)
	}
	if got := merged.Benchmarks[0].Missing; len(got) != 1 || got["main"].Reason != "failed on main" {
		t.Errorf("merged missing = %+v, want main's entry only", got)
	}
	if len(a.Benchmarks[0].Missing) != 2 {
		t.Error("Merge modified its input")
	}
}
