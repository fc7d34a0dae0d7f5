package gotest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// TestCPUClocks: by default a side's CPU time and CPU waits are read in
// the timed window, through the timer overlay; where the overlay cannot be
// made (here: the user's own overlay already replaces testing's
// benchmark.go), the side falls back to the whole process's CPU time, less
// its start-up, and a note says why; ProcessClock asks for that clock.
func TestCPUClocks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the timer overlay is for linux")
	}
	dir := labRepo(t)
	clash := filepath.Join(t.TempDir(), "user-overlay.json")
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip("no go command")
	}
	goroot := strings.TrimSpace(string(out))
	if err := os.WriteFile(clash, []byte(`{"Replace": {"`+filepath.Join(goroot, "src", "testing", "benchmark.go")+`": "`+filepath.Join(goroot, "src", "testing", "benchmark.go")+`"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		env     []string
		process bool
		clock   string
		note    string
	}{
		{"window", nil, false, model.CPUClockWindow, ""},
		{"fallback", []string{"GOFLAGS=-overlay=" + clash}, false, model.CPUClockProcess, "CPU time on current is read for the whole process, less an estimate of its start-up, not inside the benchmark's timed window: the overlay " + clash + " already replaces"},
		{"process clock asked for", nil, true, model.CPUClockProcess, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := quick(dir, t, 3, Side{Label: "current", Rev: WorkingTree, Settings: Settings{Env: tc.env}})
			cfg.Bench = "Work"
			cfg.ProcessClock = tc.process
			if tc.clock == model.CPUClockProcess {
				// The whole process's CPU time less its start-up
				// estimate: 5 ms samples could all fall within the
				// estimate's error and leave no CPU time at all (CI
				// failed so once, on a quiet machine).
				cfg.Benchtime = 40 * time.Millisecond
			}
			run, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := run.Sides[0].CPUClock; got != tc.clock {
				t.Errorf("cpu_clock %q, want %q", got, tc.clock)
			}
			var notes []string
			for _, n := range run.Notes {
				if n.Kind == model.NoteClock {
					notes = append(notes, n.Text)
				}
			}
			if tc.note == "" && len(notes) > 0 || tc.note != "" && (len(notes) != 1 || !strings.HasPrefix(notes[0], tc.note)) {
				t.Errorf("clock notes %q, want %q", notes, tc.note)
			}
			b := run.Benchmarks[0]
			wall, cpu, wait := b.Metric("sec/op"), b.Metric(CPUUnit), b.Metric(WaitUnit)
			// The whole process's CPU time, less its start-up, leaves
			// some short samples with none.
			if wall == nil || cpu == nil || tc.clock == model.CPUClockWindow && len(cpu.Samples) != len(wall.Samples) {
				t.Fatalf("metrics %v: want a CPU time per sample", b.Metrics)
			}
			if (wait != nil) != (tc.clock == model.CPUClockWindow) || wait != nil && len(wait.Samples) != len(wall.Samples) {
				t.Errorf("wait-sec/op %v: want one per sample exactly when read in the window", wait)
			}
			file, err := os.ReadFile(filepath.Join(cfg.Out, "current.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Count(string(file), " cpu-ns/op") != len(cpu.Samples) {
				t.Errorf("current.txt lacks a cpu-ns/op per line:\n%s", file)
			}
		})
	}
}
