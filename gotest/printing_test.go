package gotest

import (
	"context"
	"github.com/rigorbench/rigor/model"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// printingTest holds benchmarks that print, as real ones do: progress, a
// line that looks like a result, output without a final newline, and one
// that calls os.Exit(0).
const printingTest = `package lab

import (
	"fmt"
	"os"
	"testing"
)

func BenchmarkProgress(b *testing.B) {
	for b.Loop() {
		sink = Work(1)
	}
	fmt.Printf("processed %d items\n", b.N)
}

func BenchmarkProgressN(b *testing.B) {
	fmt.Printf("processed %d items\n", b.N)
	for i := 0; i < b.N; i++ {
		sink = Work(1)
	}
}

func BenchmarkFake(b *testing.B) {
	fmt.Println("BenchmarkFake 1 5 ns/op")
	fmt.Println("BenchmarkNotThere-8 	 1	 5 ns/op")
	for b.Loop() {
		sink = Work(1)
	}
}

func BenchmarkGlued(b *testing.B) {
	for b.Loop() {
		sink = Work(1)
	}
	fmt.Print("no newline at the end")
}

func BenchmarkLogs(b *testing.B) {
	for b.Loop() {
		sink = Work(1)
	}
	b.Log("BenchmarkLogs 	 1	 5 ns/op")
}

func BenchmarkExits(b *testing.B) {
	os.Exit(0)
}
`

// TestBenchmarkOutput: what a benchmark prints is neither a result nor
// in the way of one (issue 11, item 6). Before, a benchmark that printed
// was reported as "printed no result (skipped?)", and a printed line that
// looked like a result became a sample.
func TestBenchmarkOutput(t *testing.T) {
	files := labRev("1")
	files["lab/print_test.go"] = printingTest
	dir := newRepo(t, files)
	const iters = 1000
	cfg := quick(dir, t, 2, Side{Label: "old", Rev: "HEAD"}, Side{Label: "new", Rev: WorkingTree})
	cfg.Bench = "Progress|ProgressN|Fake|Glued|Logs|Exits"
	cfg.Iters = iters
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range run.Benchmarks {
		names = append(names, b.Name)
		m := b.Metric("sec/op")
		if m == nil || len(m.Samples) != 4 {
			t.Errorf("%s: %v, want 4 sec/op samples", b.Name, m)
			continue
		}
		for _, s := range m.Samples {
			// Every sample is the framework's: the fixed iteration
			// count, not the 1 of the lines printed.
			if s.Iters != iters {
				t.Errorf("%s: a sample of %d iterations (%g sec/op), want %d", b.Name, s.Iters, s.Value, iters)
			}
		}
	}
	slices.Sort(names)
	if want := []string{"Fake", "Glued", "Logs", "Progress", "ProgressN"}; !slices.Equal(names, want) {
		t.Errorf("measured %q, want %q", names, want)
	}
	notes := strings.Join(model.Texts(run.Notes), "\n")
	if !strings.Contains(notes, "BenchmarkExits failed on old during calibration, so it is not measured: exited before printing a result (os.Exit?)") {
		t.Errorf("os.Exit(0) not reported as such:\n%s", notes)
	}
	if strings.Contains(notes, "skipped?") {
		t.Errorf("a benchmark that printed reported as skipped:\n%s", notes)
	}

	// The side's benchmark file holds results only; the log keeps what
	// was printed.
	for _, side := range []string{"old", "new"} {
		txt, err := os.ReadFile(filepath.Join(cfg.Out, side+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"processed", "BenchmarkFake 1 5", "NotThere", "no newline"} {
			if strings.Contains(string(txt), bad) {
				t.Errorf("%s.txt holds the benchmark's output %q:\n%s", side, bad, txt)
			}
		}
		log, err := os.ReadFile(filepath.Join(cfg.Out, OutputDir, side+".log"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"=== round 2: example.com/lab/lab.Progress",
			"processed 1000 items",
			"BenchmarkFake 1 5 ns/op",
			"no newline at the end",
			"BenchmarkLogs \t 1\t 5 ns/op", // b.Log, printed as it happens on Go 1.26
		} {
			if !strings.Contains(string(log), want) {
				t.Errorf("%s's output log lacks %q:\n%s", side, want, log)
			}
		}
	}
	for _, b := range run.Benchmarks {
		if b.Name == "Progress" && !slices.ContainsFunc(model.Texts(b.Notes), func(n string) bool { return strings.Contains(n, "output/") }) {
			t.Errorf("Progress: no note on where its output is kept: %q", b.Notes)
		}
	}
}
