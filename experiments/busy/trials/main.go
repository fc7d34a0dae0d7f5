// Command trials is the rerunnable busy-machine experiment of issue 10: it
// measures how often `rigor ab` and benchstat find a real +3% change
// (power) and how often they call a non-change a change (false alarms),
// with and without a noisy neighbour loading the machine.
//
// Each trial runs, in this order so that drift hits all alike:
//
//  1. rigor ab, A/A: both sides the working tree, built without tags;
//  2. rigor ab, +3%: the new side built with the tag plus3;
//  3. benchstat A/A: the base test binary run twice in sequence
//     (-test.count 10 -test.benchtime 100ms), then benchstat -format csv;
//  4. benchstat +3%: the base binary, then the plus3 binary, likewise.
//
// All run experiments/busy/cpubench with GOMAXPROCS=1. The quiet series
// runs first, then the neighbour series with experiments/busy/neighbour
// running in the background for the whole series. Every output lands in
// -out; the table goes to standard output (and -out/table.txt).
//
// Run it from anywhere inside the rigor repository:
//
//	go run ./experiments/busy/trials -n 20
//	go run ./experiments/busy/trials -n 20 -extra-args '--profile off --benchtime 20ms'
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
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
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
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	var extra string
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
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fmt.Fprintln(stderr, "usage: trials [flags]")
			fs.PrintDefaults()
		}
		return c, err
	}
	c.extraArgs = strings.Fields(extra)
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
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
	rigor, benchstat, neighbour, baseTest, plus3Test string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
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
		for i := 1; i <= c.n && ctx.Err() == nil; i++ {
			dir := filepath.Join(env, fmt.Sprintf("trial-%02d", i))
			if err := os.MkdirAll(filepath.Join(c.out, dir), 0o755); err != nil {
				return err
			}
			var line []string
			for _, step := range []struct{ tool, cond string }{
				{"rigor", condAA}, {"rigor", condPlus3}, {"benchstat", condAA}, {"benchstat", condPlus3},
			} {
				r := record{Env: env, Trial: i, Cond: step.cond, Tool: step.tool, Dir: dir, Load1: loadAverage()}
				if step.tool == "rigor" {
					runRigor(ctx, c, b, &r)
				} else {
					runBenchstat(ctx, c, b, &r)
				}
				if ctx.Err() != nil {
					break // an interrupted run measured nothing
				}
				recs = append(recs, r)
				if err := json.NewEncoder(results).Encode(r); err != nil {
					return err
				}
				line = append(line, brief(r))
			}
			logf("%s trial %d/%d: %s", env, i, c.n, strings.Join(line, " | "))
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
	cond := map[string]string{condAA: "A/A", condPlus3: "+3%"}[r.Cond]
	if r.Error != "" {
		return fmt.Sprintf("%s %s failed", r.Tool, cond)
	}
	s := fmt.Sprintf("%s %s %s", r.Tool, cond, r.Verdicts["sec/op"])
	for m, v := range r.Verdicts {
		if m != "sec/op" {
			s += fmt.Sprintf(" (%s %s)", m, v)
		}
	}
	return s + fmt.Sprintf(" %.1fs", r.WallSec)
}

// build makes the programs the trials run: the test binaries always (once,
// so that benchstat's sides are the same binaries every trial), rigor and
// benchstat unless given.
func build(ctx context.Context, c config, tmp string, stderr io.Writer) (bins, error) {
	b := bins{
		rigor: c.rigor, benchstat: c.benchstat,
		neighbour: filepath.Join(tmp, "neighbour"),
		baseTest:  filepath.Join(tmp, "base.test"), plus3Test: filepath.Join(tmp, "plus3.test"),
	}
	gos := [][]string{
		{"build", "-o", b.neighbour, "./experiments/busy/neighbour"},
		{"test", "-c", "-o", b.baseTest, benchPkg},
		{"test", "-c", "-tags", "plus3", "-o", b.plus3Test, benchPkg},
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
	newTags := ""
	if r.Cond == condPlus3 {
		newTags = "plus3"
	}
	args := []string{"ab", "--old", ".", "--new", ".", "--old-tags", "", "--new-tags", newTags,
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
	// Exit status 1 is a verdict (--max-regression in -extra-args), not a failure.
	if runErr != nil && !(errors.As(runErr, &exit) && exit.ExitCode() == 1) {
		r.Error = fmt.Sprintf("rigor ab: %v: %s", runErr, lastLine(stderr.String()))
		return
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
	newBin := b.baseTest
	if r.Cond == condPlus3 {
		newBin = b.plus3Test
	}
	pkgDir := filepath.Join(c.repo, filepath.FromSlash(benchPkg))
	start := time.Now()
	for _, side := range []struct{ name, bin string }{{"old", b.baseTest}, {"new", newBin}} {
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
	cmd := command(ctx, filepath.Dir(base), b.benchstat, "-format", "csv",
		filepath.Base(base)+"-old.txt", filepath.Base(base)+"-new.txt")
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
