// Command trials is the rerunnable busy-machine experiment of issue 10: it
// measures how often `rigor ab` and benchstat find a real change of +1%,
// +3%, +5% or +10% (power) and how often they call a non-change a change
// (false alarms), with and without a noisy neighbour loading the machine.
//
// Each trial runs its conditions (-conditions, default aa,plus3), in this
// order so that drift hits all alike:
//
//  1. rigor ab per condition: A/A both sides the working tree built without
//     tags; plus1, plus3, plus5, plus10 the new side built with that tag;
//     benchstat then compares the samples of each such run (rigor's
//     old.txt, new.txt);
//  2. unless -benchstat-runs=false, benchstat per condition: the base test
//     binary, then the condition's (-test.count 10 -test.benchtime 100ms),
//     then benchstat -format csv.
//
// All run experiments/busy/cpubench with GOMAXPROCS=1. The quiet series
// runs first, then the neighbour series with experiments/busy/neighbour
// running in the background for the whole series. Every output lands in
// -out; the table goes to standard output (and -out/table.txt). With
// -tally, it runs nothing and prints the table of the results.jsonl of
// the -out directories given as arguments, so that a series run in chunks
// (-first) is counted as one.
//
// Run it from anywhere inside the rigor repository:
//
//	go run ./experiments/busy/trials -n 20
//	go run ./experiments/busy/trials -n 20 -extra-args '--profile off --benchtime 20ms'
//	go run ./experiments/busy/trials -tally DIR1 DIR2
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/rigorbench/rigor/experiments/internal/lab"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	benchPkg  = "./experiments/busy/cpubench"
	benchName = "Op"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "rigor: trials:", err)
		os.Exit(2)
	}
}

// config is the command line.
type config struct {
	n                int
	budget           time.Duration
	rigor, benchstat string
	repo, out        string
	neighbour, quiet bool
	neighbourSeed    uint64
	neighbourThreads int
	extraArgs        []string
	bsCount          int
	bsBenchtime      time.Duration
	conds            []string // conditions per trial, in order
	first            int      // the first trial's number (its rigor --seed)
	bsRuns           bool     // run benchstat's own test-binary runs
	tally            []string // -tally: the directories to count, nothing run
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	var extra, conds string
	var tallyOnly bool
	fs := flag.NewFlagSet("trials", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&c.n, "n", 20, "trials per condition")
	fs.DurationVar(&c.budget, "time", 2500*time.Millisecond, "rigor ab --time of each run")
	fs.StringVar(&c.rigor, "rigor", "", "rigor binary (default: build ./cmd/rigor of the repository into a temporary directory)")
	fs.StringVar(&c.benchstat, "benchstat", "", "benchstat binary (default: build golang.org/x/perf/cmd/benchstat at the version go.mod pins)")
	fs.StringVar(&c.repo, "repo", "", "the rigor repository (default: the module root above the current directory)")
	fs.StringVar(&c.out, "out", "", "output directory, new or empty (default: a new temporary directory)")
	fs.BoolVar(&c.neighbour, "neighbour", true, "run the series with the noisy neighbour")
	fs.BoolVar(&c.quiet, "quiet", true, "run the series without it")
	fs.Uint64Var(&c.neighbourSeed, "neighbour-seed", 1, "the neighbour's -seed")
	fs.IntVar(&c.neighbourThreads, "neighbour-threads", 3, "the neighbour's -max-threads")
	fs.StringVar(&extra, "extra-args", "", "arguments added to every rigor ab command, split at spaces (they come last, so they override)")
	fs.IntVar(&c.bsCount, "benchstat-count", 10, "-test.count of each benchstat side")
	fs.DurationVar(&c.bsBenchtime, "benchstat-benchtime", 100*time.Millisecond, "-test.benchtime of each benchstat side")
	fs.StringVar(&conds, "conditions", condAA+","+condPlus3, "conditions of each trial, comma-separated, in order: aa, plus1, plus3, plus5, plus10")
	fs.IntVar(&c.first, "first", 1, "the first trial's number and rigor --seed (to run a series in chunks)")
	fs.BoolVar(&c.bsRuns, "benchstat-runs", true, "also run benchstat's own test-binary runs per condition (benchstat on rigor's samples runs always)")
	fs.BoolVar(&tallyOnly, "tally", false, "run nothing: print the table of the -out directories given as arguments")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fmt.Fprintln(stderr, "usage: trials [flags]")
			fs.PrintDefaults()
		}
		return c, err
	}
	c.extraArgs = strings.Fields(extra)
	if tallyOnly {
		if fs.NArg() == 0 {
			return c, errors.New("-tally: name at least one -out directory")
		}
		c.tally = fs.Args()
		return c, nil
	}
	seen := map[string]bool{}
	for f := range strings.SplitSeq(conds, ",") {
		f = strings.TrimSpace(f)
		if _, ok := condLabels[f]; !ok {
			return c, fmt.Errorf("-conditions: unknown condition %q (want aa, plus1, plus3, plus5, plus10)", f)
		}
		if seen[f] {
			return c, fmt.Errorf("-conditions: %s given twice", f)
		}
		seen[f] = true
		c.conds = append(c.conds, f)
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case c.first < 1:
		return c, fmt.Errorf("-first %d: want at least 1", c.first)
	case c.n < 1:
		return c, fmt.Errorf("-n %d: want at least 1 trial", c.n)
	case c.budget <= 0:
		return c, fmt.Errorf("-time %v: want a positive budget", c.budget)
	case !c.neighbour && !c.quiet:
		return c, errors.New("-neighbour=false and -quiet=false leave nothing to run")
	case c.neighbourThreads < 0:
		return c, fmt.Errorf("-neighbour-threads %d is negative", c.neighbourThreads)
	case c.bsCount < 1 || c.bsBenchtime <= 0:
		return c, errors.New("-benchstat-count and -benchstat-benchtime must be positive")
	}
	return c, nil
}

// bins are the programs a series runs.
type bins struct {
	rigor, benchstat, neighbour string
	tests                       map[string]string // test binaries by condition (aa: the base)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if c.tally != nil {
		return tallyDirs(c.tally, stdout)
	}
	if c.repo == "" {
		if c.repo, err = lab.FindRepo(); err != nil {
			return err
		}
	}
	if c.out == "" {
		if c.out, err = os.MkdirTemp("", "rigor-busy-"); err != nil {
			return err
		}
	} else if err := lab.EmptyDir(c.out); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "rigor-busy-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b, err := build(ctx, c, tmp, stderr)
	if err != nil {
		return err
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "trials: "+format+"\n", a...) }
	logf("results in %s", c.out)
	if err := os.WriteFile(filepath.Join(c.out, "command.txt"), []byte(strings.Join(os.Args, " ")+"\n"), 0o644); err != nil {
		return err
	}
	results, err := os.Create(filepath.Join(c.out, "results.jsonl"))
	if err != nil {
		return err
	}
	defer results.Close()

	var recs []record
	var envs []string
	if c.quiet {
		envs = append(envs, "quiet")
	}
	if c.neighbour {
		envs = append(envs, "neighbour")
	}
	for _, env := range envs {
		if ctx.Err() != nil {
			break
		}
		var stopNeighbour func() error
		if env == "neighbour" {
			if stopNeighbour, err = startNeighbour(ctx, c, b, time.Duration(c.n)*2*time.Minute); err != nil {
				return err
			}
		}
		for i := c.first; i < c.first+c.n && ctx.Err() == nil; i++ {
			dir := filepath.Join(env, fmt.Sprintf("trial-%02d", i))
			if err := os.MkdirAll(filepath.Join(c.out, dir), 0o755); err != nil {
				return err
			}
			var line []string
			type step struct{ tool, cond string }
			var steps []step
			for _, cond := range c.conds {
				steps = append(steps, step{"rigor", cond})
			}
			if c.bsRuns {
				for _, cond := range c.conds {
					steps = append(steps, step{"benchstat", cond})
				}
			}
			for _, st := range steps {
				r := record{Env: env, Trial: i, Cond: st.cond, Tool: st.tool, Dir: dir, Load1: loadAverage()}
				var more []record
				if st.tool == "rigor" {
					runRigor(ctx, c, b, &r)
					if r.Error == "" && ctx.Err() == nil {
						s := record{Env: env, Trial: i, Cond: st.cond, Tool: toolSamples, Dir: dir, Load1: r.Load1}
						runBenchstatSamples(ctx, c, b, &s)
						more = append(more, s)
					}
				} else {
					runBenchstat(ctx, c, b, &r)
				}
				if ctx.Err() != nil {
					break // an interrupted run measured nothing
				}
				for _, r := range append([]record{r}, more...) {
					recs = append(recs, r)
					if err := json.NewEncoder(results).Encode(r); err != nil {
						return err
					}
					line = append(line, brief(r))
				}
			}
			logf("%s trial %d/%d: %s", env, i-c.first+1, c.n, strings.Join(line, " | "))
		}
		if stopNeighbour != nil {
			if err := stopNeighbour(); err != nil {
				logf("%v", err)
			}
		}
	}
	if ctx.Err() != nil {
		logf("interrupted: the table counts the runs that finished")
	}
	var table bytes.Buffer
	if err := writeTable(&table, tally(recs)); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.out, "table.txt"), table.Bytes(), 0o644); err != nil {
		return err
	}
	_, err = stdout.Write(table.Bytes())
	return err
}

// brief is a record in a few words, for the progress line.
func brief(r record) string {
	cond := condLabels[r.Cond]
	if r.Error != "" {
		return fmt.Sprintf("%s %s failed", r.Tool, cond)
	}
	s := fmt.Sprintf("%s %s %s", r.Tool, cond, r.Verdicts["sec/op"])
	for _, m := range slices.Sorted(maps.Keys(r.Verdicts)) {
		if m != "sec/op" {
			s += fmt.Sprintf(" (%s %s)", m, r.Verdicts[m])
		}
	}
	if d := r.Decision; d != nil && d.By != "" && d.By != "time" && d.By != "cpu-time" {
		s += " by " + d.By
	}
	if c := r.Instructions; c != nil && c.Estimate != nil {
		s += fmt.Sprintf(" instr %+.2f%%", 100**c.Estimate)
	}
	if r.Exit != 0 {
		s += fmt.Sprintf(" exit %d", r.Exit)
	}
	if r.Tool == toolSamples {
		return s
	}
	return s + fmt.Sprintf(" %.1fs", r.WallSec)
}

// tallyDirs prints the table of the results.jsonl of each directory.
func tallyDirs(dirs []string, stdout io.Writer) error {
	var recs []record
	for _, d := range dirs {
		f, err := os.Open(filepath.Join(d, "results.jsonl"))
		if err != nil {
			return err
		}
		rs, err := readRecords(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		recs = append(recs, rs...)
	}
	return writeTable(stdout, tally(recs))
}

// build makes the programs the trials run: the test binaries always (once,
// so that benchstat's sides are the same binaries every trial), rigor and
// benchstat unless given.
func build(ctx context.Context, c config, tmp string, stderr io.Writer) (bins, error) {
	b := bins{
		rigor: c.rigor, benchstat: c.benchstat,
		neighbour: filepath.Join(tmp, "neighbour"),
		tests:     map[string]string{condAA: filepath.Join(tmp, "base.test")},
	}
	gos := [][]string{
		{"build", "-o", b.neighbour, "./experiments/busy/neighbour"},
		{"test", "-c", "-o", b.tests[condAA], benchPkg},
	}
	for _, cond := range c.conds {
		if tag := condTag(cond); tag != "" && c.bsRuns {
			b.tests[cond] = filepath.Join(tmp, tag+".test")
			gos = append(gos, []string{"test", "-c", "-tags", tag, "-o", b.tests[cond], benchPkg})
		}
	}
	if b.rigor == "" {
		b.rigor = filepath.Join(tmp, "rigor")
		gos = append(gos, []string{"build", "-o", b.rigor, "./cmd/rigor"})
	}
	if b.benchstat == "" {
		b.benchstat = filepath.Join(tmp, "benchstat")
		gos = append(gos, []string{"build", "-o", b.benchstat, "golang.org/x/perf/cmd/benchstat"})
	}
	for _, args := range gos {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = c.repo
		cmd.Stderr = stderr
		if err := cmd.Run(); err != nil {
			return b, fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
		}
	}
	for _, p := range []string{b.rigor, b.benchstat} {
		if _, err := exec.LookPath(p); err != nil {
			return b, err
		}
	}
	return b, nil
}

// startNeighbour starts the noisy neighbour and returns the function that
// stops it. Its -duration is a guard (limit) so that it cannot outlive the
// trials by much even if they die without stopping it.
func startNeighbour(ctx context.Context, c config, b bins, limit time.Duration) (func() error, error) {
	log, err := os.Create(filepath.Join(c.out, "neighbour.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, b.neighbour, "-v",
		"-seed", strconv.FormatUint(c.neighbourSeed, 10),
		"-max-threads", strconv.Itoa(c.neighbourThreads),
		"-duration", limit.String())
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting the neighbour: %w", err)
	}
	return func() error {
		defer log.Close()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("stopping the neighbour: %w", err)
		}
		if err := cmd.Wait(); err != nil && ctx.Err() == nil {
			return fmt.Errorf("the neighbour: %w", err)
		}
		return nil
	}, nil
}

// command runs a child that ends cleanly on Ctrl-C: it gets SIGINT (rigor
// then stops its own children), and is killed 10 s later if still running.
func command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// runRigor runs one rigor ab and fills r; a failure is recorded in r.Error.
func runRigor(ctx context.Context, c config, b bins, r *record) {
	base := filepath.Join(c.out, r.Dir, "rigor-"+r.Cond)
	args := []string{"ab", "--old", ".", "--new", ".", "--old-tags", "", "--new-tags", condTag(r.Cond),
		"--time", c.budget.String(), "--cpu", "1", "--format", "json",
		"--seed", strconv.Itoa(r.Trial), "--out", base + "-run"}
	args = append(append(args, c.extraArgs...), benchPkg)
	cmd := command(ctx, c.repo, b.rigor, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	runErr := cmd.Run()
	r.WallSec = time.Since(start).Seconds()
	_ = os.WriteFile(base+".json", stdout.Bytes(), 0o644)
	_ = os.WriteFile(base+".stderr", stderr.Bytes(), 0o644)
	r.SessionSec = sessionSeconds(filepath.Join(base+"-run", "run.json"))
	var exit *exec.ExitError
	// Exit status 1 is the gate's verdict (--max-regression in -extra-args),
	// not a failure: it is recorded and counted.
	if runErr != nil && !(errors.As(runErr, &exit) && exit.ExitCode() == 1) {
		r.Error = fmt.Sprintf("rigor ab: %v: %s", runErr, lastLine(stderr.String()))
		return
	}
	if exit != nil {
		r.Exit = exit.ExitCode()
	}
	rd, err := parseRigor(stdout.Bytes(), benchName)
	if err == nil {
		err = r.fromRigor(rd)
	}
	if err != nil {
		r.Error = err.Error()
	}
}

// sessionSeconds is the span from start to end of a rigor run.json; 0
// when it cannot be read.
func sessionSeconds(path string) float64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	var run struct{ Start, End time.Time }
	if json.Unmarshal(data, &run) != nil || run.Start.IsZero() || run.End.Before(run.Start) {
		return 0
	}
	return run.End.Sub(run.Start).Seconds()
}

// runBenchstat runs the old then the new test binary and compares them
// with benchstat; a failure is recorded in r.Error.
func runBenchstat(ctx context.Context, c config, b bins, r *record) {
	base := filepath.Join(c.out, r.Dir, "benchstat-"+r.Cond)
	pkgDir := filepath.Join(c.repo, filepath.FromSlash(benchPkg))
	start := time.Now()
	for _, side := range []struct{ name, bin string }{{"old", b.tests[condAA]}, {"new", b.tests[r.Cond]}} {
		cmd := command(ctx, pkgDir, side.bin, "-test.run", "^$", "-test.bench", ".",
			"-test.count", strconv.Itoa(c.bsCount), "-test.benchtime", c.bsBenchtime.String(), "-test.cpu", "1")
		out, err := cmd.Output()
		_ = os.WriteFile(base+"-"+side.name+".txt", out, 0o644)
		if err != nil {
			r.WallSec = time.Since(start).Seconds()
			r.Error = fmt.Sprintf("%s side: %v", side.name, err)
			return
		}
	}
	r.WallSec = time.Since(start).Seconds()
	r.SessionSec = r.WallSec
	compareBenchstat(ctx, b, r, base, base+"-old.txt", base+"-new.txt")
}

// runBenchstatSamples compares the samples of r's condition's rigor run
// (its results directory's old.txt and new.txt) with benchstat: the same
// rounds, judged by benchstat's unpaired test. A failure is recorded in
// r.Error.
func runBenchstatSamples(ctx context.Context, c config, b bins, r *record) {
	run := filepath.Join(c.out, r.Dir, "rigor-"+r.Cond+"-run")
	compareBenchstat(ctx, b, r, filepath.Join(c.out, r.Dir, "benchstat-samples-"+r.Cond),
		filepath.Join(run, "old.txt"), filepath.Join(run, "new.txt"))
}

// compareBenchstat runs benchstat -format csv on the files old and new,
// writes its output to base.csv and fills r's verdicts.
func compareBenchstat(ctx context.Context, b bins, r *record, base, oldFile, newFile string) {
	// benchstat names the columns by the files' names, so it runs where
	// they are when they share a directory.
	dir := filepath.Dir(oldFile)
	if filepath.Dir(newFile) == dir {
		oldFile, newFile = filepath.Base(oldFile), filepath.Base(newFile)
	} else {
		dir = ""
	}
	cmd := command(ctx, dir, b.benchstat, "-format", "csv", oldFile, newFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	_ = os.WriteFile(base+".csv", out, 0o644)
	if err != nil {
		r.Error = fmt.Sprintf("benchstat: %v: %s", err, lastLine(stderr.String()))
		return
	}
	rows, err := parseBenchstatCSV(bytes.NewReader(out))
	if err == nil {
		err = r.fromBenchstat(rows)
	}
	if err != nil {
		r.Error = err.Error()
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// loadAverage is the 1-minute load average from /proc/loadavg; 0 where
// there is none (not Linux).
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	x, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0
	}
	return x
}
