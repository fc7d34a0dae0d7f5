// Command neighbour is the noisy neighbour of the busy-machine experiment
// (experiments/busy): it cycles through phases of random length (2 to 8 s
// by default), each burning a uniformly chosen number of CPU-bound threads
// from 0 to -max-threads (3 by default), until -duration ends or it is
// killed (SIGINT or SIGTERM end it at once).
//
// The schedule is a pure function of -seed, so a rerun with the same seed
// loads the machine the same way (its timing relative to the measurements
// still depends on when it was started). With -v each phase is printed to
// stderr as it begins.
//
//	go run ./experiments/busy/neighbour -duration 10m -seed 1 -v
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); errors.Is(err, flag.ErrHelp) {
		return
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "rigor: neighbour:", err)
		os.Exit(2)
	}
}

// config is the neighbour's command line.
type config struct {
	duration           time.Duration // 0: until killed
	seed               uint64
	maxThreads         int
	minPhase, maxPhase time.Duration
	verbose            bool
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("neighbour", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.DurationVar(&c.duration, "duration", 0, "how long to run; 0 runs until killed")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the phase schedule")
	fs.IntVar(&c.maxThreads, "max-threads", 3, "most CPU-bound threads in a phase")
	fs.DurationVar(&c.minPhase, "min-phase", 2*time.Second, "shortest phase")
	fs.DurationVar(&c.maxPhase, "max-phase", 8*time.Second, "longest phase")
	fs.BoolVar(&c.verbose, "v", false, "print each phase to stderr")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(os.Stderr)
			fmt.Fprintln(os.Stderr, "usage: neighbour [-duration d] [-seed n] [-max-threads n] [-min-phase d] [-max-phase d] [-v]")
			fs.PrintDefaults()
		}
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case c.duration < 0:
		return c, fmt.Errorf("-duration %v is negative", c.duration)
	case c.maxThreads < 0:
		return c, fmt.Errorf("-max-threads %d is negative", c.maxThreads)
	case c.minPhase <= 0 || c.maxPhase < c.minPhase:
		return c, fmt.Errorf("phases must satisfy 0 < -min-phase (%v) <= -max-phase (%v)", c.minPhase, c.maxPhase)
	}
	return c, nil
}

// phase is one stretch of constant load.
type phase struct {
	length  time.Duration
	threads int
}

// schedule yields the phases of a seed: lengths uniform in
// [minPhase, maxPhase], thread counts uniform in 0..maxThreads.
type schedule struct {
	rng                *rand.Rand
	minPhase, maxPhase time.Duration
	maxThreads         int
}

func newSchedule(c config) *schedule {
	return &schedule{
		rng:        rand.New(rand.NewPCG(c.seed, 0x6e65696768626f75)), // "neighbou"
		minPhase:   c.minPhase,
		maxPhase:   c.maxPhase,
		maxThreads: c.maxThreads,
	}
}

func (s *schedule) next() phase {
	return phase{
		length:  s.minPhase + time.Duration(s.rng.Int64N(int64(s.maxPhase-s.minPhase)+1)),
		threads: s.rng.IntN(s.maxThreads + 1),
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	c, err := parseFlags(args)
	if err != nil {
		return err
	}
	if c.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.duration)
		defer cancel()
	}
	// Every burner needs a P of its own, and the main goroutine one more to
	// keep time; the runtime then gives each burner an OS thread.
	if runtime.GOMAXPROCS(0) < c.maxThreads+1 {
		runtime.GOMAXPROCS(c.maxThreads + 1)
	}
	s := newSchedule(c)
	start := time.Now()
	for i := 0; ctx.Err() == nil; i++ {
		p := s.next()
		if c.verbose {
			fmt.Fprintf(stderr, "neighbour: %8.3fs phase %d: %d threads for %v\n",
				time.Since(start).Seconds(), i, p.threads, p.length.Round(time.Millisecond))
		}
		burn(ctx, p)
	}
	if c.verbose {
		fmt.Fprintf(stderr, "neighbour: %8.3fs stopped\n", time.Since(start).Seconds())
	}
	return nil
}

// burn keeps p.threads threads busy with arithmetic for p.length, or until
// ctx is done.
func burn(ctx context.Context, p phase) {
	ctx, cancel := context.WithTimeout(ctx, p.length)
	defer cancel()
	var done atomic.Bool
	var wg sync.WaitGroup
	for range p.threads {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			x := uint64(1)
			for !done.Load() {
				for range 1 << 16 {
					x = x*6364136223846793005 + 1442695040888963407
				}
			}
			sink.Add(x)
		})
	}
	<-ctx.Done()
	done.Store(true)
	wg.Wait()
}

// sink keeps the burners' arithmetic alive.
var sink atomic.Uint64
