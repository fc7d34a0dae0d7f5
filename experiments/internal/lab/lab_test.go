package lab

import (
	"os"
	"path/filepath"
	"testing"
)

func TestModulePath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"module github.com/rigorbench/rigor\n\ngo 1.26\n", "github.com/rigorbench/rigor"},
		{"// comment\nmodule \"example.com/x\"\n", "example.com/x"},
		{"go 1.26\n", ""},
	} {
		if got := ModulePath([]byte(tc.in)); got != tc.want {
			t.Errorf("ModulePath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEmptyDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := EmptyDir(dir); err != nil {
		t.Fatalf("a new directory: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := EmptyDir(dir); err == nil {
		t.Error("a directory with a file in it was accepted")
	}
}
