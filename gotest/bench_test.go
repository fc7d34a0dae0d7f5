package gotest

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"testing"
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
			if rs, _ := ParseResults(out.Stdout); err != nil || len(rs) != 1 {
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
