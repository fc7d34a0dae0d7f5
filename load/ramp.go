package load

import (
	"context"
	"fmt"
	"runtime"

	"github.com/rigorbench/rigor/model"
)

// inProcessTarget is implemented by targets that run in the generator's
// process, whose CPU is therefore both the generator's and the target's.
type inProcessTarget interface{ inProcess() bool }

func isInProcess(t Target) bool {
	ip, ok := t.(inProcessTarget)
	return ok && ip.inProcess()
}

// Ramp runs cfg's steps against t, one after another, and returns the
// measurements with the fitted models, the headline and the bottleneck.
// When ctx is cancelled it returns the steps completed so far, with
// Stopped saying so.
func Ramp(ctx context.Context, t Target, cfg Config) (*model.Ramp, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	cfg, shard := cfg.sharded()
	warm := cfg.Warmup
	if warm == 0 {
		warm = DefaultWarmup
	} else if warm < 0 {
		warm = 0
	}
	dur := cfg.Duration
	if dur == 0 {
		dur = DefaultDuration
	}
	r := &model.Ramp{
		Target:       t.Name(),
		Protocol:     t.Protocol(),
		Mode:         model.RampClosed,
		Warmup:       warm,
		StepDuration: dur,
		CPUs:         runtime.NumCPU(),
		SLO:          cfg.SLO,
		Shard:        shard,
	}
	if cfg.Name != "" {
		r.Target = cfg.Name
	}
	n := len(cfg.Concurrency)
	if len(cfg.Rates) > 0 {
		r.Mode = model.RampOpen
		n = len(cfg.Rates)
	}
	if cfg.PID > 0 {
		if _, err := pidSample(cfg.PID); err != nil {
			return nil, err
		}
	}

	period := StepPeriod(warm, dur)
	wait := func(i int) bool { return waitStep(ctx, cfg.Start, period, i) }
	err := steps(ctx, r, &cfg, n, wait, func(i int) (model.RampStep, error) {
		sc := stepConfig{index: i, warmup: warm, duration: dur, pid: cfg.PID, inProcess: isInProcess(t)}
		if r.Mode == model.RampOpen {
			sc.rate = cfg.Rates[i]
			sc.maxWorkers = cfg.MaxWorkers
			if sc.maxWorkers <= 0 {
				sc.maxWorkers = DefaultMaxWorkers
			}
		} else {
			sc.workers = cfg.Concurrency[i]
		}
		return runStep(ctx, t, sc)
	})
	if err != nil {
		return nil, err
	}
	describeRamp(r, t)
	conclude(r)
	return r, nil
}

// conclude fits the models to r's steps and sets its headline and
// bottleneck.
func conclude(r *model.Ramp) {
	if r.Mode == model.RampClosed {
		fitRamp(r)
	} else if len(r.Steps) > 0 {
		r.Notes = append(r.Notes, "open loop: the scalability models are fitted to closed-loop (--concurrency) steps only")
		noteBehind(r)
	}
	r.Headline = headline(r, r.SLO)
	r.Bottleneck = diagnose(r)
}

// stopper decides after each step whether the ramp goes on.
type stopper struct {
	best    float64 // the best throughput so far
	lowGain int     // consecutive steps that gained less than the knee
	lagging int     // open loop: consecutive steps the target did not keep up with
}

// after sets step st's gain over the best earlier step and whether it met
// cfg's SLO, and returns why the ramp stops after it, or "" to go on. n
// is the number of planned steps.
func (s *stopper) after(cfg *Config, st *model.RampStep, n int) string {
	i := st.Index
	if i > 0 && s.best > 0 {
		st.Gain = st.Throughput/s.best - 1
	}
	checkSLO(st, cfg.SLO)
	if i == n-1 {
		return ""
	}
	if cfg.SLO != nil && st.Valid && !st.SLOMet && !cfg.KeepGoing {
		return fmt.Sprintf("step %d broke the SLO (%s); later steps would only break it further", i+1, st.SLOMiss)
	}
	if why := s.behind(cfg, st); why != "" {
		return why
	}
	if i > 0 && cfg.Knee > 0 && s.best > 0 {
		if st.Gain < cfg.Knee {
			s.lowGain++
		} else {
			s.lowGain = 0
		}
		if s.lowGain >= 2 {
			return fmt.Sprintf("past the knee: two consecutive steps raised throughput by less than %.0f%%", cfg.Knee*100)
		}
	}
	s.best = max(s.best, st.Throughput)
	return ""
}

// steps runs a ramp's n steps in order, each made by step(i), and keeps
// them in r: after each, the stopping rules (two low gains, the SLO) may
// end the ramp, and a cancelled ctx ends it with the steps measured so
// far, saying so in r.Stopped. wait, when set, runs before each step and
// ends the ramp when it returns false (ctx done while waiting).
func steps(ctx context.Context, r *model.Ramp, cfg *Config, n int, wait func(i int) bool, step func(i int) (model.RampStep, error)) error {
	var stop stopper
	for i := 0; i < n; i++ {
		if wait != nil && !wait(i) {
			r.Stopped = fmt.Sprintf("interrupted before step %d of %d", i+1, n)
			return nil
		}
		st, err := step(i)
		if err != nil {
			if ctx.Err() != nil {
				r.Stopped = fmt.Sprintf("interrupted during step %d of %d", i+1, n)
				return nil
			}
			return err
		}
		why := stop.after(cfg, &st, n)
		r.Steps = append(r.Steps, st)
		if cfg.Progress != nil {
			cfg.Progress(st)
		}
		if why != "" {
			r.Stopped = why
			return nil
		}
	}
	return nil
}
