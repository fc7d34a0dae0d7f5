package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// The instructions fixture: Changed runs 1,000 steps of a loop on old and
// 1,100 on new (10% more work), Same 500 on both. Written for Go 1.22
// (b.N loops, go 1.22 in go.mod), so that older toolchains build it too.
const (
	instrWork = `package instr

// Work runs n steps of a linear congruential generator.
func Work(n int) uint64 {
	x := uint64(1)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}
`
	instrTest = `package instr

import "testing"

var sink uint64

func BenchmarkChanged(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = Work(STEPS)
	}
}

func BenchmarkSame(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = Work(500)
	}
}
`
)

// instrRepo makes a git repository whose HEAD~1 is the fixture's old side
// and HEAD its new side.
func instrRepo(t *testing.T) string {
	t.Helper()
	var revs []map[string]string
	for _, steps := range []string{"1000", "1100"} {
		revs = append(revs, map[string]string{
			"go.mod":              "module example.com/instr\n\ngo 1.22\n",
			"instr/work.go":       instrWork,
			"instr/instr_test.go": strings.Replace(instrTest, "STEPS", steps, 1),
			".gitignore":          ".rigor/\n",
		})
	}
	return commitRevisions(t, revs...)
}

// TestABInstructionsSimulate: rigor ab --instructions simulate counts the
// instructions per op of both sides under Valgrind: the benchmark with 10%
// more work reads 1.10 within 0.5%, the one with the same work 1 within
// 0.1%, and run.json says how the sides' counts were read. On the local
// toolchain, and on Go 1.22 and 1.24 (fetched through GOTOOLCHAIN).
func TestABInstructionsSimulate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs test binaries under Valgrind for a minute; without -short only")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind is not on PATH (Debian's valgrind package): the simulation is not tested")
	}
	dir := instrRepo(t)
	for _, toolchain := range []string{"local", "go1.22.12", "go1.24.11"} {
		t.Run(toolchain, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := []string{"ab", "--old", "HEAD~1", "--new", "HEAD", "--instructions", "simulate", "--profile", "off",
				"--old-go", toolchain, "--new-go", toolchain, "--format", "json", "--out", out,
				"--benchtime", "5ms", "--min-rounds", "4", "--max-rounds", "4", "./..."}
			_, stderr, code := rigorIn(t, dir, args...)
			if code != 0 {
				t.Fatalf("rigor %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
			}
			run, err := model.ReadFile(filepath.Join(out, "run.json"), "")
			if err != nil {
				t.Fatal(err)
			}
			for _, sd := range run.Sides {
				if sd.Instructions != model.InstructionsSimulated || !strings.Contains(sd.InstructionsTool, "callgrind") {
					t.Errorf("side %s: instructions %q by %q, want simulated by callgrind", sd.Label, sd.Instructions, sd.InstructionsTool)
				}
			}
			for _, tc := range []struct {
				name      string
				ratio, by float64
			}{
				{"Changed", 1.10, 0.005},
				{"Same", 1, 0.001},
			} {
				var b *model.Benchmark
				for i := range run.Benchmarks {
					if run.Benchmarks[i].Name == tc.name {
						b = &run.Benchmarks[i]
					}
				}
				if b == nil {
					t.Fatalf("no benchmark %s in run.json", tc.name)
				}
				m := b.Metric(model.InstructionsUnit)
				if m == nil {
					t.Fatalf("%s: no %s; notes %q", tc.name, model.InstructionsUnit, model.Texts(b.Notes))
				}
				old, new := m.Values("old"), m.Values("new")
				if len(old) < 8 || len(new) < 8 {
					t.Fatalf("%s: %d old and %d new samples, want two processes of four windows a side", tc.name, len(old), len(new))
				}
				for _, x := range m.Samples {
					if x.Round != 0 {
						t.Errorf("%s: a sample of round %d, want 0", tc.name, x.Round)
					}
				}
				got := stats.Median(new) / stats.Median(old)
				t.Logf("%s: old %.1f, new %.1f instructions/op (%d and %d windows): ratio %.4f", tc.name, stats.Median(old), stats.Median(new), len(old), len(new), got)
				if got < tc.ratio*(1-tc.by) || got > tc.ratio*(1+tc.by) {
					t.Errorf("%s: new/old %.4f, want %.2f within %g%%", tc.name, got, tc.ratio, 100*tc.by)
				}
			}
			data, err := os.ReadFile(filepath.Join(out, "new.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), " instructions/op\n") {
				t.Errorf("new.txt has no instructions/op:\n%s", data)
			}
		})
	}
}
