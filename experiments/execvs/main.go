// Command execvs is the rerunnable comparison of `rigor exec` with
// hyperfine that issue 15 asks for. In one sitting, tool by tool so that
// drift in the machine hits both alike, it runs four parts:
//
//  1. side by side: `sleep 0.01` vs `sleep 0.012`, and `gzip -1 -c` vs
//     `gzip -9 -c` of a generated 20 MB file, each with rigor exec and
//     then with hyperfine given as many runs as fill the time rigor took;
//     each command's median from each tool, with its confidence interval
//     (hyperfine's computed from its times by rigor's method), whether
//     each median lies in the other tool's interval, and the new/old ratio
//     each tool gives with rigor's verdict;
//  2. per-run overhead: each tool timing `true` a fixed number of times,
//     its wall time and its own CPU time per run;
//  3. A/A: `true` against itself and `sleep 0.02` against itself, rigor's
//     verdicts counted, and which command hyperfine calls the faster;
//  4. part 1's medians again, the tools taking turns in short chunks of
//     fixed runs (ABBA) and each tool's runs pooled over the chunks.
//
// Every tool's output lands in -out; one table per part goes to standard
// output (and -out/table.txt).
//
// Run it from anywhere inside the rigor repository:
//
//	go run ./experiments/execvs -trials 3 -aa 20
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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "rigor: execvs:", err)
		os.Exit(2)
	}
}

// config is the command line.
type config struct {
	trials, aa        int
	budget, aaBudget  time.Duration
	warmup            int
	overheadRuns      int
	maxRuns           int
	inputMB           int
	seed              uint64
	parts             map[int]bool
	rigor, hyperfine  string
	repo, out         string
	neighbour         bool
	aaQuiet           bool
	neighbourSeed     uint64
	neighbourThreads  int
	chunks, chunkRuns int
	// pairs are part 1's pairs ("sleep", "gzip"); sleepNew is the
	// second sleep's argument, seconds.
	pairs    map[string]bool
	sleepNew string
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	var parts, pairs string
	fs := flag.NewFlagSet("execvs", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&c.trials, "trials", 3, "trials of parts 1 (side by side) and 2 (overhead)")
	fs.IntVar(&c.aa, "aa", 20, "trials of part 3 (A/A)")
	fs.DurationVar(&c.budget, "time", time.Minute, "rigor exec --time in part 1")
	fs.DurationVar(&c.aaBudget, "aa-time", 10*time.Second, "rigor exec --time in part 3")
	fs.IntVar(&c.warmup, "warmup", 3, "--warmup of both tools (untimed runs of every command)")
	fs.IntVar(&c.overheadRuns, "overhead-runs", 1000, "runs of true per tool in part 2 (rigor --runs, hyperfine --runs)")
	fs.IntVar(&c.maxRuns, "max-runs", 100000, "the most runs per command hyperfine is given when matching rigor's time")
	fs.IntVar(&c.inputMB, "input-mb", 20, "size of gzip's generated input in MiB")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of gzip's generated input")
	fs.StringVar(&parts, "parts", "1,2,3,4", "the parts to run, comma-separated")
	fs.StringVar(&pairs, "pairs", "sleep,gzip", "part 1's pairs, comma-separated (sleep: sleep 0.01 against -sleep-new; gzip: -1 against -9)")
	fs.StringVar(&c.sleepNew, "sleep-new", "0.012", "the second sleep of part 1's sleep pair, seconds (0.0102: +0.2 ms, about +1.7% of a run)")
	fs.IntVar(&c.chunks, "chunks", 10, "chunks per pair and trial in part 4 (the tools take turns chunk by chunk)")
	fs.IntVar(&c.chunkRuns, "chunk-runs", 0, "runs of every command per tool and chunk in part 4 (default: 100 for true, 50 for sleep, 4 for gzip)")
	fs.StringVar(&c.rigor, "rigor", "", "rigor binary (default: build ./cmd/rigor of the repository into a temporary directory)")
	fs.StringVar(&c.hyperfine, "hyperfine", "hyperfine", "hyperfine binary")
	fs.StringVar(&c.repo, "repo", "", "the rigor repository (default: the module root above the current directory)")
	fs.StringVar(&c.out, "out", "", "output directory, new or empty (default: a new temporary directory)")
	fs.BoolVar(&c.neighbour, "neighbour", false, "run part 3 a second time with experiments/busy/neighbour loading the machine")
	fs.BoolVar(&c.aaQuiet, "aa-quiet", true, "run part 3 without the neighbour (-aa-quiet=false with -neighbour: only under it)")
	fs.Uint64Var(&c.neighbourSeed, "neighbour-seed", 1, "the neighbour's -seed")
	fs.IntVar(&c.neighbourThreads, "neighbour-threads", 3, "the neighbour's -max-threads")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fmt.Fprintln(stderr, "usage: execvs [flags]")
			fs.PrintDefaults()
		}
		return c, err
	}
	c.parts = map[int]bool{}
	for _, p := range strings.Split(parts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > 4 {
			return c, fmt.Errorf("-parts %q: want numbers from 1 to 4, comma-separated", parts)
		}
		c.parts[n] = true
	}
	c.pairs = map[string]bool{}
	for _, p := range strings.Split(pairs, ",") {
		p = strings.TrimSpace(p)
		if p != "sleep" && p != "gzip" {
			return c, fmt.Errorf("-pairs %q: want sleep, gzip or both, comma-separated", pairs)
		}
		c.pairs[p] = true
	}
	if v, err := strconv.ParseFloat(c.sleepNew, 64); err != nil || !(v > 0) || v > 10 {
		return c, fmt.Errorf("-sleep-new %q: want seconds, above 0 and at most 10", c.sleepNew)
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case c.trials < 1 || c.aa < 1:
		return c, fmt.Errorf("-trials %d, -aa %d: want at least 1 trial each", c.trials, c.aa)
	case c.budget <= 0 || c.aaBudget <= 0:
		return c, errors.New("-time and -aa-time must be positive")
	case c.warmup < 0:
		return c, fmt.Errorf("-warmup %d is negative", c.warmup)
	case c.overheadRuns < 2 || c.maxRuns < 2:
		return c, errors.New("-overhead-runs and -max-runs must be at least 2")
	case c.inputMB < 1 || c.inputMB > 4096:
		return c, fmt.Errorf("-input-mb %d: want 1 to 4096", c.inputMB)
	case c.chunks < 1 || c.chunkRuns < 0:
		return c, fmt.Errorf("-chunks %d, -chunk-runs %d: want at least 1 chunk and no negative runs", c.chunks, c.chunkRuns)
	case c.parts[3] && !c.aaQuiet && !c.neighbour:
		return c, errors.New("-aa-quiet=false leaves part 3 nothing to run without -neighbour")
	case c.neighbourThreads < 0:
		return c, fmt.Errorf("-neighbour-threads %d is negative", c.neighbourThreads)
	}
	return c, nil
}

// experiment is one sitting: its configuration, programs, and the records
// of the runs done so far.
type experiment struct {
	c         config
	neighbour string // the neighbour's binary, when -neighbour
	results   *os.File
	recs      []record
	stderr    io.Writer
}

func (e *experiment) logf(format string, a ...any) {
	fmt.Fprintf(e.stderr, "execvs: "+format+"\n", a...)
}

// add keeps r and appends it to results.jsonl.
func (e *experiment) add(r record) error {
	e.recs = append(e.recs, r)
	return json.NewEncoder(e.results).Encode(r)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if c.hyperfine, err = exec.LookPath(c.hyperfine); err != nil {
		return fmt.Errorf("hyperfine: %w", err)
	}
	if c.repo == "" {
		if c.repo, err = lab.FindRepo(); err != nil {
			return err
		}
	}
	if c.out == "" {
		if c.out, err = os.MkdirTemp("", "rigor-execvs-"); err != nil {
			return err
		}
	} else if err := lab.EmptyDir(c.out); err != nil {
		return err
	}
	if c.out, err = filepath.Abs(c.out); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "rigor-execvs-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	e := &experiment{c: c, stderr: stderr}
	if err := e.build(ctx, tmp); err != nil {
		return err
	}
	e.logf("results in %s", c.out)
	if err := os.WriteFile(filepath.Join(c.out, "command.txt"), []byte(strings.Join(os.Args, " ")+"\n"), 0o644); err != nil {
		return err
	}
	if err := e.writeVersions(ctx); err != nil {
		return err
	}
	if e.results, err = os.Create(filepath.Join(c.out, "results.jsonl")); err != nil {
		return err
	}
	defer e.results.Close()

	input := fmt.Sprintf("gzip-input-%dMiB.txt", c.inputMB)
	if (c.parts[1] && c.pairs["gzip"]) || c.parts[4] {
		e.logf("writing %s (seed %d)", input, c.seed)
		if err := writeInput(filepath.Join(c.out, input), int64(c.inputMB)<<20, c.seed); err != nil {
			return err
		}
	}
	if c.parts[1] {
		if err := e.sideBySide(ctx, input); err != nil {
			return err
		}
	}
	if c.parts[2] && ctx.Err() == nil {
		if err := e.overhead(ctx); err != nil {
			return err
		}
	}
	if c.parts[3] && ctx.Err() == nil {
		if c.aaQuiet {
			if err := e.aaSeries(ctx, "quiet"); err != nil {
				return err
			}
		}
		if c.neighbour && ctx.Err() == nil {
			stop, err := e.startNeighbour(ctx, time.Duration(c.aa)*4*(c.aaBudget+10*time.Second))
			if err != nil {
				return err
			}
			err = e.aaSeries(ctx, "neighbour")
			if serr := stop(); serr != nil {
				e.logf("%v", serr)
			}
			if err != nil {
				return err
			}
		}
	}
	if c.parts[4] && ctx.Err() == nil {
		if err := e.interleaved(ctx, input); err != nil {
			return err
		}
	}
	var table bytes.Buffer
	if err := writeTables(&table, e.recs); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.out, "table.txt"), table.Bytes(), 0o644); err != nil {
		return err
	}
	if _, err := stdout.Write(table.Bytes()); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return errors.New("interrupted: the tables count the runs that finished")
	}
	return nil
}

// build makes rigor (unless -rigor names one) and the neighbour (with
// -neighbour) from the repository.
func (e *experiment) build(ctx context.Context, tmp string) error {
	var gos [][]string
	if e.c.rigor == "" {
		e.c.rigor = filepath.Join(tmp, "rigor")
		gos = append(gos, []string{"build", "-o", e.c.rigor, "./cmd/rigor"})
	}
	if e.c.neighbour {
		e.neighbour = filepath.Join(tmp, "neighbour")
		gos = append(gos, []string{"build", "-o", e.neighbour, "./experiments/busy/neighbour"})
	}
	for _, args := range gos {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = e.c.repo
		cmd.Stderr = e.stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
		}
	}
	var err error
	e.c.rigor, err = exec.LookPath(e.c.rigor)
	if err == nil {
		e.c.rigor, err = filepath.Abs(e.c.rigor)
	}
	return err
}

// writeVersions records which rigor and hyperfine were compared.
func (e *experiment) writeVersions(ctx context.Context) error {
	var b strings.Builder
	for _, tool := range [][]string{{e.c.rigor, "version"}, {e.c.hyperfine, "--version"}} {
		out, err := exec.CommandContext(ctx, tool[0], tool[1]).CombinedOutput()
		fmt.Fprintf(&b, "%s: %s", tool[0], strings.TrimSpace(string(out)))
		if err != nil {
			fmt.Fprintf(&b, " (%v)", err)
		}
		b.WriteByte('\n')
	}
	if head, err := exec.CommandContext(ctx, "git", "-C", e.c.repo, "describe", "--always", "--dirty").Output(); err == nil {
		fmt.Fprintf(&b, "repository: %s at %s", e.c.repo, head)
	}
	return os.WriteFile(filepath.Join(e.c.out, "versions.txt"), []byte(b.String()), 0o644)
}

// files opens stdout and stderr files at base+".json"/".txt" and ".stderr".
func files(base, ext string) (stdout, stderr *os.File, err error) {
	if stdout, err = os.Create(base + ext); err != nil {
		return nil, nil, err
	}
	if stderr, err = os.Create(base + ".stderr"); err != nil {
		stdout.Close()
		return nil, nil, err
	}
	return stdout, stderr, nil
}

// runRigor runs `rigor exec` with flags and the commands from the output
// directory (where gzip's input is) and fills r from its JSON; a failure
// is recorded in r.Error. base is the path of its files without extension.
func (e *experiment) runRigor(ctx context.Context, r *record, base string, flags []string, cmds []string) {
	args := append([]string{"exec", "--format", "json", "-N", "--no-record",
		"--confidence", strconv.FormatFloat(confidence, 'g', -1, 64),
		"--warmup", strconv.Itoa(e.c.warmup), "--seed", strconv.Itoa(r.Trial), "--out", base + "-run"}, flags...)
	args = append(args, cmds...)
	r.Tool, r.Args, r.Warmup, r.Load1 = "rigor", args, e.c.warmup, num(loadAverage())
	data, ok := e.invoke(ctx, r, base, ".json", e.c.rigor, args)
	if !ok {
		return
	}
	x, err := parseRigorExec(data)
	if err == nil {
		err = r.fromRigor(x, cmds)
	}
	if err != nil {
		r.Error = err.Error()
	}
}

// runHyperfine runs hyperfine -N with runs runs of every command and fills
// r from its --export-json; a failure is recorded in r.Error.
func (e *experiment) runHyperfine(ctx context.Context, r *record, base string, runs int, cmds []string) {
	args := append([]string{"-N", "--style", "basic", "--export-json", base + ".json",
		"--warmup", strconv.Itoa(e.c.warmup), "--runs", strconv.Itoa(runs)}, cmds...)
	r.Tool, r.Args, r.Warmup, r.Load1 = "hyperfine", args, e.c.warmup, num(loadAverage())
	data, ok := e.invoke(ctx, r, base, ".txt", e.c.hyperfine, args)
	if !ok {
		return
	}
	hf, err := parseHyperfine(data)
	if err == nil {
		err = r.fromHyperfine(hf, cmds)
	}
	if err != nil {
		r.Error = err.Error()
	}
}

// invoke runs tool with args from the output directory, its output in
// base plus stdoutExt and base.stderr, records its cost in r, and returns
// the JSON it exported to base.json; a failure is recorded in r.Error.
func (e *experiment) invoke(ctx context.Context, r *record, base, stdoutExt, tool string, args []string) ([]byte, bool) {
	r.Dir = rel(e.c.out, base)
	stdout, stderr, err := files(base, stdoutExt)
	if err != nil {
		r.Error = err.Error()
		return nil, false
	}
	tr, runErr := runTool(ctx, e.c.out, stdout, stderr, tool, args...)
	stdout.Close()
	stderr.Close()
	r.setCost(tr)
	if runErr != nil {
		r.Error = fmt.Sprintf("%s: %v: %s", r.Tool, runErr, lastLine(base+".stderr"))
		return nil, false
	}
	data, err := os.ReadFile(base + ".json")
	if err != nil {
		r.Error = err.Error()
		return nil, false
	}
	return data, true
}

// hfRunsFor is the --runs that gives hyperfine about the time rigor took
// (r is rigor's record of the same commands); -max-runs when rigor
// failed.
func (e *experiment) hfRunsFor(r record) int {
	if r.Error != "" || len(r.Commands) == 0 {
		return min(e.c.maxRuns, 100)
	}
	round, n := 0.0, r.Commands[0].N
	for _, c := range r.Commands {
		round += float64(c.Median)
		n = min(n, c.N)
	}
	return matchRuns(float64(r.WallSec), round, e.c.warmup, n, e.c.maxRuns)
}

// sideBySide is part 1.
func (e *experiment) sideBySide(ctx context.Context, input string) error {
	var pairs []struct {
		name string
		cmds []string
	}
	for _, p := range []struct {
		name string
		cmds []string
	}{
		{"sleep", []string{"sleep 0.01", "sleep " + e.c.sleepNew}},
		{"gzip", []string{"gzip -1 -c " + input, "gzip -9 -c " + input}},
	} {
		if e.c.pairs[p.name] {
			pairs = append(pairs, p)
		}
	}
	for t := 1; t <= e.c.trials && ctx.Err() == nil; t++ {
		dir := filepath.Join(e.c.out, "part1", fmt.Sprintf("trial-%02d", t))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for _, p := range pairs {
			rr := newRecord(partSides, "", p.name, t)
			e.runRigor(ctx, &rr, filepath.Join(dir, p.name+"-rigor"), []string{"--time", e.c.budget.String()}, p.cmds)
			if ctx.Err() != nil {
				return nil
			}
			if err := e.add(rr); err != nil {
				return err
			}
			hr := newRecord(partSides, "", p.name, t)
			e.runHyperfine(ctx, &hr, filepath.Join(dir, p.name+"-hyperfine"), e.hfRunsFor(rr), p.cmds)
			if ctx.Err() != nil {
				return nil
			}
			if err := e.add(hr); err != nil {
				return err
			}
			e.logf("part 1 trial %d/%d %s: %s | %s", t, e.c.trials, p.name, brief(rr), brief(hr))
		}
	}
	return nil
}

// overhead is part 2: each tool times `true` -overhead-runs times; the
// tools alternate which goes first from trial to trial.
func (e *experiment) overhead(ctx context.Context) error {
	cmds := []string{"true"}
	for t := 1; t <= e.c.trials && ctx.Err() == nil; t++ {
		dir := filepath.Join(e.c.out, "part2", fmt.Sprintf("trial-%02d", t))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		tools := []string{"rigor", "hyperfine"}
		if t%2 == 0 {
			tools[0], tools[1] = tools[1], tools[0]
		}
		var line []string
		for _, tool := range tools {
			r := newRecord(partOverhead, "", "true", t)
			base := filepath.Join(dir, "true-"+tool)
			if tool == "rigor" {
				e.runRigor(ctx, &r, base, []string{"--runs", strconv.Itoa(e.c.overheadRuns)}, cmds)
			} else {
				e.runHyperfine(ctx, &r, base, e.c.overheadRuns, cmds)
			}
			if ctx.Err() != nil {
				return nil
			}
			if err := e.add(r); err != nil {
				return err
			}
			line = append(line, brief(r))
		}
		e.logf("part 2 trial %d/%d: %s", t, e.c.trials, strings.Join(line, " | "))
	}
	return nil
}

// aaSeries is part 3 in one environment (quiet, or under the neighbour).
func (e *experiment) aaSeries(ctx context.Context, env string) error {
	for t := 1; t <= e.c.aa && ctx.Err() == nil; t++ {
		dir := filepath.Join(e.c.out, "part3", env, fmt.Sprintf("trial-%02d", t))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for _, p := range []struct{ name, cmd string }{{"true", "true"}, {"sleep", "sleep 0.02"}} {
			cmds := []string{p.cmd, p.cmd}
			rr := newRecord(partAA, env, p.cmd, t)
			e.runRigor(ctx, &rr, filepath.Join(dir, p.name+"-rigor"), []string{"--time", e.c.aaBudget.String()}, cmds)
			if ctx.Err() != nil {
				return nil
			}
			if err := e.add(rr); err != nil {
				return err
			}
			hr := newRecord(partAA, env, p.cmd, t)
			e.runHyperfine(ctx, &hr, filepath.Join(dir, p.name+"-hyperfine"), e.hfRunsFor(rr), cmds)
			if ctx.Err() != nil {
				return nil
			}
			if err := e.add(hr); err != nil {
				return err
			}
			e.logf("part 3 %s trial %d/%d %s: %s | %s", env, t, e.c.aa, p.cmd, brief(rr), brief(hr))
		}
	}
	return nil
}

// startNeighbour starts the noisy neighbour of experiments/busy and
// returns the function that stops it; its -duration (limit) is a guard so
// that it cannot outlive the series by much.
func (e *experiment) startNeighbour(ctx context.Context, limit time.Duration) (func() error, error) {
	log, err := os.Create(filepath.Join(e.c.out, "neighbour.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, e.neighbour, "-v",
		"-seed", strconv.FormatUint(e.c.neighbourSeed, 10),
		"-max-threads", strconv.Itoa(e.c.neighbourThreads),
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

// lastLine is the last non-empty line of a file, for error messages.
func lastLine(path string) string {
	data, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(data))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return r
	}
	return path
}

// loadAverage is the 1-minute load average from /proc/loadavg; NaN where
// there is none (not Linux).
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nan
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return nan
	}
	x, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return nan
	}
	return x
}
