package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVetTool: rigor-lint works as go vet's -vettool on seed 003's
// benchlab: BenchmarkElided's discarded square is reported (and vet exits
// non-zero), BenchmarkKept is not.
func TestVetTool(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rigor-lint and has go vet analyze the standard library for facts, which is slow on a cold cache")
	}
	bin := filepath.Join(t.TempDir(), "rigor-lint")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command("go", "vet", "-vettool="+bin, ".")
	cmd.Dir = filepath.Join("..", "..", "examples", "benchlab")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("go vet exited 0; want a finding:\n%s", out)
	}
	var findings []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, ".go:") {
			findings = append(findings, line)
		}
	}
	if len(findings) != 1 || !strings.Contains(findings[0], "build_test.go:29:") || !strings.Contains(findings[0], "result of square assigned to _") {
		t.Fatalf("go vet output:\n%s\nwant one finding, at build_test.go:29 (BenchmarkElided)", out)
	}
}
