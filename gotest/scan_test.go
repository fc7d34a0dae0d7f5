package gotest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestDeclaredBenchmarks(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a_test.go")
	os.WriteFile(a, []byte(`package p

import "testing"

func BenchmarkSum(b *testing.B)       {}
func Benchmark(b *testing.B)          {}
func Benchmarkish(b *testing.B)       {} // lower case after the prefix: not a benchmark
func BenchmarkÄ(b *testing.B)         {}
func (x T) BenchmarkMethod(b *testing.B) {}
func BenchmarkHelper(b *testing.B, n int) {}
func TestX(t *testing.T)              {}
type T int
`), 0o644)
	got, ok := declaredBenchmarks([]string{a})
	if want := []string{"BenchmarkSum", "Benchmark", "BenchmarkÄ"}; !ok || !slices.Equal(got, want) {
		t.Errorf("declaredBenchmarks = %q, %v; want %q, true", got, ok, want)
	}
	bad := filepath.Join(dir, "b_test.go")
	os.WriteFile(bad, []byte("package p\nfunc {"), 0o644)
	if _, ok := declaredBenchmarks([]string{a, bad}); ok {
		t.Error("a file that does not parse: ok, want not ok")
	}
}
