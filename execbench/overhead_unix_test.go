//go:build unix

package execbench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/observe"
)

// BenchmarkExecOverhead measures rigor's own cost per run of `true`, the
// harness alone, configured as rigor exec -N configures a session (the
// observer, its process statistics, default analysis options), then
// analysed as rigor exec analyses it:
//
//	self-µs/run   this process's CPU time (RUSAGE_SELF: the commands are
//	              its children, not counted) in the session, per timed run
//	final-µs/run  the same for the final analysis, per timed run
//	wall-µs/run   the session's wall time per timed run
//
// Cases: one command with --runs (the rule off), two with --runs, and two
// with the stopping rule on (at most that many rounds; an A/A of `true`
// rarely resolves before). Run it with -benchtime=1x and -count:
//
//	go test -run '^$' -bench ExecOverhead -benchtime 1x -count 6 ./execbench
func BenchmarkExecOverhead(b *testing.B) {
	for _, tc := range []struct {
		name     string
		commands []string
		runs     int // --runs; 0: the stopping rule, with at most rounds rounds
		rounds   int
	}{
		{"one/runs", []string{"true"}, 1000, 0},
		{"two/runs", []string{"true", "true"}, 1000, 0},
		{"two/rule", []string{"true", "true"}, 0, 1000},
	} {
		n := tc.runs + tc.rounds
		b.Run(tc.name+"="+strconv.Itoa(n), func(b *testing.B) {
			var self, final, wall time.Duration
			runs := 0
			for b.Loop() {
				cfg := Config{
					Out:      filepath.Join(b.TempDir(), "out"),
					Warmup:   1,
					Time:     time.Minute,
					Runs:     tc.runs,
					Analysis: analysis.DefaultOptions(),
				}
				if tc.runs == 0 {
					cfg.MinRounds, cfg.MaxRounds = DefaultMinRounds, tc.rounds
				}
				for _, c := range tc.commands {
					cfg.Commands = append(cfg.Commands, Command{Line: c})
				}
				ctx := context.Background()
				cfg.Observer, cfg.ProcessStats, cfg.Annotate = observe.Start(ctx, 0, observe.WithoutStorageIO()), true, observe.Annotate
				t0, c0 := time.Now(), selfCPU(b)
				res, err := Run(ctx, cfg)
				if err != nil {
					b.Fatal(err)
				}
				t1, c1 := time.Now(), selfCPU(b)
				if _, err := analysis.Analyze(res.Run, cfg.Analysis); err != nil {
					b.Fatal(err)
				}
				c2 := selfCPU(b)
				wall += t1.Sub(t0)
				self += c1 - c0
				final += c2 - c1
				runs += res.sess.timedRuns
			}
			perRun := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(runs) }
			b.ReportMetric(perRun(self), "self-µs/run")
			b.ReportMetric(perRun(final), "final-µs/run")
			b.ReportMetric(perRun(wall), "wall-µs/run")
		})
	}
}

// selfCPU is this process's user and system CPU time so far, its
// children's not included.
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStartWait measures a bare loop of os.StartProcess and Wait of
// true (its own process group, standard streams /dev/null), as runner.run
// started and waited before it used syscall.ForkExec and wait4, this
// process's CPU per run (self-µs/run): on the 2-core VM 153-180 µs
// against the runner's 134-139 (BenchmarkRunnerRun) in one sitting
// (experiments/execvs/RESULTS.md, issue 28).
func BenchmarkStartWait(b *testing.B) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	path, err := exec.LookPath("true")
	if err != nil {
		b.Skip(err)
	}
	attr := &os.ProcAttr{Env: os.Environ(), Files: []*os.File{null, null, null}, Sys: sysProcAttr()}
	c0 := selfCPU(b)
	for b.Loop() {
		p, err := os.StartProcess(path, []string{"true"}, attr)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((selfCPU(b)-c0).Nanoseconds())/1e3/float64(b.N), "self-µs/run")
}

// BenchmarkRunnerRun measures rigor's start-and-wait path alone: the
// runner's run of true (-N, --output null, a time-out armed), what
// every timed run pays before any bookkeeping, this process's CPU per
// run (self-µs/run). Beside BenchmarkStartWait it shows what the runner
// saves over os.StartProcess, and beside BenchmarkExecOverhead what the
// session's bookkeeping adds.
func BenchmarkRunnerRun(b *testing.B) {
	r, err := newRunner(&Config{Input: InputNull, Output: OutputNull})
	if err != nil {
		b.Fatal(err)
	}
	defer r.close()
	ctx := context.Background()
	c0 := selfCPU(b)
	for b.Loop() {
		m, err := r.run(ctx, []string{"true"}, time.Minute, false)
		if err != nil || m.exit != 0 {
			b.Fatal(m, err)
		}
	}
	b.ReportMetric(float64((selfCPU(b)-c0).Nanoseconds())/1e3/float64(b.N), "self-µs/run")
}
