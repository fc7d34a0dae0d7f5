package window

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestHooksSimulated runs the hooks (hooks.go.txt) against a simulated
// machine (testdata/hookstub: a stand-in for testing.B; schedstat figures
// and hardware counters a test moves as the kernel would): a wait outside
// the window (the benchmark's thread kept waiting while it reads the other
// threads' files) or from before it (a thread queued since before the
// window getting a CPU inside it) is not the window's; the counters'
// instructions and cycles are the window's threads', summed, reported
// exact or not at all, off for the process when the machine has none; in
// simulation (RIGOR_INSTRUCTIONS=simulate) the hooks read nothing and
// number the windows as callgrind numbers its dumps.
func TestHooksSimulated(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	for _, f := range []string{"go.mod", "stub.go", "hooks_test.go"} {
		data, err := os.ReadFile(filepath.Join("testdata", "hookstub", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, HooksFile), hooks, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the hooks against a simulated machine: %v\n%s", err, out)
	}
}
