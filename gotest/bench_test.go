package gotest

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// BenchmarkSampleOverhead measures what one sample costs beyond the
// benchmark's own loop: starting the test binary, go test's framework, and
// for rigor, parsing the output. The benchmark measured is empty and runs
// once (-test.benchtime=1x), so all of the time is overhead. Compare rigor
// with the bare binary (exec) and with a plain go test invocation, whose
// go command checks the build first.
func BenchmarkSampleOverhead(b *testing.B) {
	dir := b.TempDir()
	writeFiles(&testing.T{}, dir, map[string]string{
		"go.mod":       labGoMod,
		"nop_test.go":  "package nop\n\nimport \"testing\"\n\nfunc BenchmarkNop(b *testing.B) {\n\tfor b.Loop() {\n\t}\n}\n",
		"nop.go":       "package nop\n",
		"doc/x.go":     "package doc\n",
		"doc/x_doc.go": "package doc\n",
	})
	ctx := context.Background()
	pkgs, err := ListPackages(ctx, dir, Settings{}, []string{"."})
	if err != nil || len(pkgs) != 1 {
		b.Fatal(pkgs, err)
	}
	bin, err := Build(ctx, Settings{}, pkgs[0], filepath.Join(dir, "nop.test"))
	if err != nil {
		b.Fatal(err)
	}
	inv := Invocation{Bench: "^BenchmarkNop$", Iters: 1}
	b.Run("rigor", func(b *testing.B) {
		for b.Loop() {
			out, err := bin.Run(ctx, inv)
			if err != nil || len(ParseResults(out.Stdout)) != 1 {
				b.Fatal(err)
			}
		}
	})
	b.Run("exec", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(bin.Path, inv.args()...)
			cmd.Dir = dir
			cmd.Stdout = io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go-test", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("go", "test", "-run=^$", "-bench=^BenchmarkNop$", "-benchtime=1x", "-count=1", ".")
			cmd.Dir = dir
			cmd.Stdout = io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStoppingRule measures the analysis run after every round for a
// run of 20 benchmarks with 4 metrics each, after 30 paired rounds.
func BenchmarkStoppingRule(b *testing.B) {
	run := &model.Run{Kind: model.KindAB, Paired: true, Sides: []model.Side{{Label: "old"}, {Label: "new"}}}
	rng := newRand(1)
	for i := range 20 {
		bm := model.Benchmark{Name: fmt.Sprint("B", i), Pkg: "p"}
		for _, unit := range []string{"sec/op", "B/s", "B/op", "allocs/op"} {
			m := model.Metric{Unit: unit, Better: model.DefaultBetter(unit)}
			for r := 1; r <= 30; r++ {
				for _, side := range []string{"old", "new"} {
					v := 100.0
					if unit == "sec/op" || unit == "B/s" {
						v *= 1 + 0.05*rng.NormFloat64()
					}
					m.Samples = append(m.Samples, model.Sample{Side: side, Round: r, Iters: 1000, Value: v})
				}
			}
			bm.Metrics = append(bm.Metrics, m)
		}
		run.Benchmarks = append(run.Benchmarks, bm)
	}
	opts := analysis.DefaultOptions()
	for b.Loop() {
		if _, err := Unresolved(run, opts); err != nil {
			b.Fatal(err)
		}
	}
}
