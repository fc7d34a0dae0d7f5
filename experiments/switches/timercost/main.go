// Command timercost measures what rigor's timer overlay costs at
// StopTimer and StartTimer, for two versions of its hooks side by side:
// it builds the benchmarks of ./bench with the overlay of this checkout's
// toolchain, once with each hooks file given (the first is -old, e.g. the
// previous commit's: git show HEAD~1:gotest/window/hooks.go.txt), and runs
// the two binaries alternately, -rounds times, printing each result line
// with its version. Compare medians of pair-ns/op.
//
//	git show HEAD~1:gotest/window/hooks.go.txt >/tmp/old-hooks.go.txt
//	go run ./experiments/switches/timercost -old /tmp/old-hooks.go.txt -rounds 10
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rigorbench/rigor/gotest/window"
)

func main() {
	old := flag.String("old", "", "the hooks file to compare with this checkout's (required)")
	rounds := flag.Int("rounds", 5, "rounds, each running both binaries")
	bench := flag.String("bench", ".", "the -test.bench pattern")
	cpu := flag.String("cpu", "1,2", "the -test.cpu list")
	benchtime := flag.String("benchtime", "20000x", "the -test.benchtime: a count, since StopStart's timed part is a tiny share of its time")
	flag.Parse()
	if *old == "" {
		fmt.Fprintln(os.Stderr, "timercost: -old is required")
		os.Exit(2)
	}
	if err := run(*old, *rounds, *bench, *cpu, *benchtime); err != nil {
		fmt.Fprintln(os.Stderr, "timercost:", err)
		os.Exit(1)
	}
}

func run(old string, rounds int, bench, cpu, benchtime string) error {
	oldHooks, err := os.ReadFile(old)
	if err != nil {
		return err
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w", err)
	}
	tmp, err := os.MkdirTemp("", "timercost")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	pkg, err := filepath.Abs(filepath.Join(filepath.Dir(os.Args[0]), "bench"))
	if _, serr := os.Stat(pkg); err != nil || serr != nil {
		pkg = "./experiments/switches/timercost/bench" // go run: relative to the module root
	}
	bins := map[string]string{}
	for _, v := range []string{"old", "new"} {
		dir := filepath.Join(tmp, v)
		overlay, err := window.Make(strings.TrimSpace(string(goroot)), dir, "")
		if err != nil {
			return err
		}
		if v == "old" {
			if err := os.WriteFile(filepath.Join(dir, window.HooksFile), oldHooks, 0o644); err != nil {
				return err
			}
		}
		bins[v] = filepath.Join(tmp, v+".test")
		if out, err := exec.Command("go", "test", "-c", "-overlay", overlay, "-o", bins[v], pkg).CombinedOutput(); err != nil {
			return fmt.Errorf("building %s: %v\n%s", v, err, out)
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("# load %s", load)
	for r := range rounds {
		order := []string{"old", "new"}
		if r%2 == 1 {
			order = []string{"new", "old"}
		}
		for _, v := range order {
			out, err := exec.Command(bins[v], "-test.run", "^$", "-test.bench", bench, "-test.benchtime", benchtime, "-test.cpu", cpu).CombinedOutput()
			if err != nil {
				return fmt.Errorf("running %s: %v\n%s", v, err, out)
			}
			for line := range strings.Lines(string(out)) {
				if strings.HasPrefix(line, "Benchmark") {
					fmt.Printf("%s %d %s", v, r, line)
				}
			}
		}
	}
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Printf("# load %s", load)
	return nil
}
